#include "trace-options.h"

#include "ns3/flow-monitor-helper.h"
#include "ns3/log.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/run-outputs.h"
#include "ns3/simulator.h"

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
TraceOptions::AddToCommandLine(CommandLine& cmd)
{
    cmd.AddValue("pcap",
                 "write pcap traces with this file prefix (<prefix>-<node>-<device>.pcap)",
                 pcap);
    cmd.AddValue("pcapClass",
                 "link class whose devices --pcap captures (default: the rank NICs)",
                 pcapClass);
    cmd.AddValue("flowmon", "write a FlowMonitor XML to this file", flowmon);
    monitors.AddToCommandLine(cmd);
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
        NetDeviceContainer devices;
        std::set<std::string> classes;
        std::set<uint32_t> rankNodes;
        for (uint32_t r = 0; r < cluster->GetNRanks(); ++r)
        {
            rankNodes.insert(cluster->GetRankNode(r)->GetId());
        }
        for (const ClusterLink& l : cluster->GetLinks())
        {
            classes.insert(l.linkClass);
            if (!pcapClass.empty())
            {
                if (l.linkClass == pcapClass)
                {
                    devices.Add(l.devA);
                    devices.Add(l.devB);
                }
                continue;
            }
            for (Ptr<PointToPointNetDevice> d : {l.devA, l.devB})
            {
                if (rankNodes.count(d->GetNode()->GetId()))
                {
                    devices.Add(d);
                }
            }
        }
        if (!pcapClass.empty() && devices.GetN() == 0)
        {
            std::string valid;
            for (const std::string& c : classes)
            {
                valid += (valid.empty() ? "" : ", ") + c;
            }
            throw std::invalid_argument("--pcapClass=" + pcapClass +
                                        ": this fabric has no such link class; valid: " + valid);
        }
        PointToPointHelper p2p;
        p2p.EnablePcap(k > 1 ? pcap + "-sim" + std::to_string(k) : pcap, devices);
        NS_LOG_INFO("pcap on " << devices.GetN() << " devices, prefix " << pcap);
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
        // Written when the simulation is destroyed: after a complete run, never
        // half-way through one.
        Simulator::ScheduleDestroy([helper, file, state, cluster]() {
            helper->SerializeToXmlFile(file, true, true);
            state->written.push_back(file);
            RunOutputs::AddFile("flowmon", file);
            RunOutputs::AddFlows(MonitorOptions::FlowsWithRanks(*helper, cluster, file));
        });
    }
}

std::vector<std::string>
TraceOptions::WrittenFiles() const
{
    return m_state->written;
}

} // namespace ns3
