// SPDX-License-Identifier: GPL-2.0-only
#include "trace-options.h"

#include "ns3/capture-log.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/log.h"
#include "ns3/output-files.h"
#include "ns3/pcap-capture.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/run-outputs.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"

#include <fstream>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTraceOptions");

struct TraceOptions::State
{
    uint32_t simulations{0};          //!< Attach calls with FlowMonitor on
    uint32_t monitored{0};            //!< Attach calls with a MonitorOptions monitor on
    std::vector<std::string> written; //!< XML files written
};

namespace
{

/// Simulated time from the end of the workload to the end of a run with FlowMonitor.
Time
StopGrace()
{
    return MilliSeconds(1);
}

} // namespace

TraceOptions::TraceOptions()
    : m_state(std::make_shared<State>())
{
}

void
TraceOptions::AddToCommandLine(ScenarioCommandLine& cmd)
{
    cmd.AddValue("pcap",
                 "write pcap traces with this file prefix (<prefix>-<node>-<device>.pcap)",
                 pcap);
    cmd.AddValue("pcapSnapLen",
                 "bytes --pcap keeps of each frame (default 64: the headers; 0 = whole frames)",
                 pcapSnapLen,
                 0,
                 65535);
    cmd.AddValue("pcapClass",
                 "link class whose devices --pcap captures (default: the rank NICs)",
                 pcapClass);
    cmd.AddValue("flowmon", "write a FlowMonitor XML to this file", flowmon);
    monitors.AddToCommandLine(cmd);
}

std::vector<std::string>
TraceOptions::Ipv4OnlyFlags() const
{
    return flowmon.empty() ? std::vector<std::string>{} : std::vector<std::string>{"--flowmon"};
}

std::vector<std::string>
TraceOptions::DeviceFlags() const
{
    std::vector<std::string> flags;
    if (!pcap.empty())
    {
        flags.emplace_back("--pcap");
    }
    if (!monitors.linkMonitor.empty())
    {
        flags.emplace_back("--linkMonitor");
    }
    return flags;
}

void
TraceOptions::Attach(Ptr<Cluster> cluster, const std::string& name) const
{
    NS_ASSERT(cluster);
    if (monitors.Any())
    {
        monitors.Attach(cluster, ++m_state->monitored, name);
    }
    if (pcap.empty() && flowmon.empty())
    {
        return;
    }
    // The k-th simulation of a program writes <name>-k (the first keeps the name).
    uint32_t k = ++m_state->simulations;
    if (!pcap.empty())
    {
        // (device, link class) of every device to capture
        std::vector<std::pair<Ptr<PointToPointNetDevice>, std::string>> devices;
        std::set<std::string> classes;
        std::set<uint32_t> rankNodes;
        for (uint32_t r = 0; r < cluster->GetNRanks(); ++r)
        {
            rankNodes.insert(cluster->GetRankNode(r)->GetId());
        }
        for (const ClusterLink& l : cluster->GetLinks())
        {
            classes.insert(l.linkClass);
            for (Ptr<PointToPointNetDevice> d : {l.devA, l.devB})
            {
                if (pcapClass.empty() ? rankNodes.count(d->GetNode()->GetId()) > 0
                                      : l.linkClass == pcapClass)
                {
                    devices.emplace_back(d, l.linkClass);
                }
            }
        }
        if (!pcapClass.empty() && devices.empty())
        {
            std::string valid;
            for (const std::string& c : classes)
            {
                valid += (valid.empty() ? "" : ", ") + c;
            }
            throw std::invalid_argument("--pcapClass=" + pcapClass +
                                        ": this fabric has no such link class; valid: " + valid);
        }
        PcapCapture::CheckSnapLength(pcapSnapLen, "--pcapSnapLen");
        const FabricSpec& spec = cluster->GetFabricSpec();
        std::string prefix = k > 1 ? pcap + "-sim" + std::to_string(k) : pcap;
        for (const auto& [device, linkClass] : devices)
        {
            std::string file = PcapHelper().GetFilenameFromDevice(prefix, device);
            auto capture = Create<PcapCapture>(file, pcapSnapLen, spec.dataPath == "fast");
            capture->Attach(device);
            CaptureLog::Record({file,
                                spec.kind,
                                spec.dataPath,
                                k,
                                device->GetNode()->GetId(),
                                device->GetIfIndex(),
                                linkClass,
                                capture->GetSnapLength()});
        }
        NS_LOG_INFO("pcap on " << devices.size() << " devices, prefix " << prefix);
    }
    if (!flowmon.empty() && cluster->GetFabricSpec().dataPath == "fast")
    {
        throw std::invalid_argument("--flowmon needs the ipv4 data path (FlowMonitor watches "
                                    "IPv4); drop --flowmon or use --dataPath=ipv4");
    }
    if (!flowmon.empty())
    {
        auto helper = std::make_shared<FlowMonitorHelper>();
        helper->Install(cluster->GetAllNodes());
        std::string file = MonitorOptions::FileFor(flowmon, k, "");
        std::shared_ptr<State> state = m_state;
        // FlowMonitor checks for lost packets every second, forever: the run would
        // never run out of events. It stops StopGrace() after the workload is done, so
        // the last acknowledgements land first.
        cluster->TraceConnectWithoutContext("WorkloadDone",
                                            MakeCallback(+[]() { Simulator::Stop(StopGrace()); }));
        // Written when the simulation is destroyed (after a complete run, never half-way
        // through one) or, for a simulation never destroyed, when the run's files are
        // committed; at the staged name (OutputFiles), through a stream that is checked,
        // so a failed write is the run's error rather than a missing or short file.
        const std::string staged = OutputFiles::Stage(file);
        auto written = std::make_shared<bool>(false);
        auto write = [helper, file, staged, state, cluster, written]() {
            if (*written || OutputFiles::Current(file) != staged)
            {
                return; // written already, or the run's files were discarded
            }
            *written = true;
            std::ofstream os(staged, std::ios::out | std::ios::binary);
            os << "<?xml version=\"1.0\" ?>\n";
            helper->GetMonitor()->SerializeToXmlStream(os, 0, true, true);
            os.close();
            if (!os)
            {
                OutputFiles::Fail(file,
                                  "--flowmon: writing " + file +
                                      " failed (disk full, file too large or folder removed?); "
                                      "give a file on a disk with room");
                return;
            }
            state->written.push_back(file);
            RunOutputs::AddFile("flowmon", file);
            RunOutputs::AddFlows(MonitorOptions::FlowsWithRanks(*helper, cluster, file));
        };
        Simulator::ScheduleDestroy(write);
        OutputFiles::Stage(file, write);
    }
}

void
TraceOptions::DeclareOutputs(const std::vector<OutputPath>& files) const
{
    OutputFiles::Declare(files);
    OutputFiles::DeclarePrefix({"pcap", pcap});
    OutputFiles::Declare({{"flowmon", flowmon},
                          {"timeline", monitors.timeline},
                          {"linkMonitor", monitors.linkMonitor},
                          {"messages", monitors.messages}});
}

std::vector<std::string>
TraceOptions::WrittenFiles() const
{
    return m_state->written;
}

} // namespace ns3
