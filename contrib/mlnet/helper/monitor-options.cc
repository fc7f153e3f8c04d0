// SPDX-License-Identifier: GPL-2.0-only
#include "monitor-options.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/link-monitor.h"
#include "ns3/message-log.h"
#include "ns3/run-outputs.h"
#include "ns3/timeline-writer.h"

#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

void
MonitorOptions::AddToCommandLine(ScenarioCommandLine& cmd)
{
    cmd.AddValue("timeline",
                 "write every rank's compute, collectives and messages to this Chrome "
                 "trace-event JSON (open in ui.perfetto.dev)",
                 timeline);
    cmd.AddValue("linkMonitor",
                 "write link utilization and queue depth, sampled every --monitorInterval, "
                 "to this CSV",
                 linkMonitor);
    cmd.AddValue("monitorInterval",
                 "sampling interval of --linkMonitor (e.g. 10us; at most 1s)",
                 monitorInterval,
                 Time(0),
                 Seconds(1));
    cmd.AddValue("monitorPerLink",
                 "--linkMonitor rows per link direction (default: per link class)",
                 monitorPerLink);
    cmd.AddValue("messages",
                 "write every delivered message (ranks, bytes, collective, start, end) to this "
                 "CSV",
                 messages);
}

bool
MonitorOptions::Any() const
{
    return !timeline.empty() || !linkMonitor.empty() || !messages.empty();
}

std::string
MonitorOptions::FileFor(const std::string& file, uint32_t k, const std::string& simulation)
{
    if (k <= 1 && simulation.empty())
    {
        return file;
    }
    std::string tail = "-" + (simulation.empty() ? std::to_string(k) : simulation);
    std::string::size_type dot = file.rfind('.');
    std::string::size_type slash = file.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    {
        return file + tail;
    }
    return file.substr(0, dot) + tail + file.substr(dot);
}

void
MonitorOptions::Attach(Ptr<Cluster> cluster, uint32_t k, const std::string& name) const
{
    if (!linkMonitor.empty())
    {
        if (!monitorInterval.IsStrictlyPositive())
        {
            throw std::invalid_argument(
                "--monitorInterval=" + std::to_string(monitorInterval.GetSeconds()) +
                "s: the link monitor needs a positive interval, "
                "e.g. --monitorInterval=10us");
        }
        std::string file = FileFor(linkMonitor, k, name);
        Ptr<LinkMonitor> m = CreateObject<LinkMonitor>();
        m->SetAttribute("Interval", TimeValue(monitorInterval));
        m->SetAttribute("PerLink", BooleanValue(monitorPerLink));
        m->Install(cluster, file);
        RunOutputs::AddFile("link_monitor", file);
    }
    if (!messages.empty())
    {
        std::string file = FileFor(messages, k, name);
        CreateObject<MessageLog>()->Install(cluster, file);
        RunOutputs::AddFile("messages", file);
    }
    if (!timeline.empty())
    {
        std::string file = FileFor(timeline, k, name);
        CreateObject<TimelineWriter>()->Install(cluster,
                                                file,
                                                name.empty() ? cluster->GetFabricSpec().kind
                                                             : name);
        RunOutputs::AddFile("timeline", file);
    }
}

nlohmann::json
MonitorOptions::FlowsWithRanks(FlowMonitorHelper& helper,
                               Ptr<Cluster> cluster,
                               const std::string& file)
{
    auto classifier = DynamicCast<Ipv4FlowClassifier>(helper.GetClassifier());
    nlohmann::json flows = nlohmann::json::array();
    if (!classifier)
    {
        return flows;
    }
    auto rankOf = [&](Ipv4Address a) -> nlohmann::json {
        uint32_t node = cluster->GetNodeOfAddress(a);
        uint32_t rank =
            node == std::numeric_limits<uint32_t>::max() ? node : cluster->GetRankOfNode(node);
        return rank == std::numeric_limits<uint32_t>::max() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(rank);
    };
    auto text = [](Ipv4Address a) {
        std::ostringstream os;
        os << a;
        return os.str();
    };
    for (const auto& [id, s] : helper.GetMonitor()->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(id);
        flows.push_back({{"file", file},
                         {"flow_id", id},
                         {"src_rank", rankOf(t.sourceAddress)},
                         {"dst_rank", rankOf(t.destinationAddress)},
                         {"src_address", text(t.sourceAddress)},
                         {"dst_address", text(t.destinationAddress)},
                         {"protocol", t.protocol},
                         {"src_port", t.sourcePort},
                         {"dst_port", t.destinationPort},
                         {"tx_packets", s.txPackets},
                         {"rx_packets", s.rxPackets},
                         {"tx_bytes", s.txBytes},
                         {"rx_bytes", s.rxBytes},
                         {"lost_packets", s.lostPackets},
                         {"first_tx_s", s.timeFirstTxPacket.GetSeconds()},
                         {"last_rx_s", s.timeLastRxPacket.GetSeconds()},
                         {"delay_sum_s", s.delaySum.GetSeconds()}});
    }
    return flows;
}

} // namespace ns3
