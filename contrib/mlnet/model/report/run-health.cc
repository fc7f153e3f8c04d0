// SPDX-License-Identifier: GPL-2.0-only
#include "run-health.h"

#include "ns3/log.h"
#include "ns3/run-report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRunHealth");

RunHealth
RunHealth::Measure(Ptr<Cluster> cluster, bool flowLevel)
{
    NS_ASSERT(cluster);
    Ptr<TrafficAccounting> accounting = cluster->GetObject<TrafficAccounting>();
    if (!accounting || !accounting->IsClosed())
    {
        throw std::logic_error("RunHealth::Measure: the cluster's run has no closed traffic "
                               "accounting (TrafficAccounting::Attach and Close it first)");
    }
    RunHealth h;
    h.counts = accounting->GetClosedCounts();
    h.linkImbalance = LinkImbalance(cluster, &h.imbalanceClass);
    h.flowLevel = flowLevel;
    return h;
}

double
RunHealth::LinkImbalance(Ptr<Cluster> cluster,
                         std::string* linkClass,
                         const std::vector<bool>* counted)
{
    struct Class
    {
        uint64_t links{0};
        uint64_t total{0};
        uint64_t busiest{0};
    };

    std::map<std::string, Class> classes;
    const uint32_t none = std::numeric_limits<uint32_t>::max();
    for (const ClusterLink& l : cluster->GetLinks())
    {
        // A link from a rank to a switch carries what that rank sends and receives: its
        // bytes follow the workload, not a path choice. Links between switches (and
        // between ranks that forward, as on direct-connect fabrics) are where a flow
        // hash picks.
        bool rankA = cluster->GetRankOfNode(l.nodeA) != none;
        bool rankB = cluster->GetRankOfNode(l.nodeB) != none;
        if (rankA != rankB || (counted && !(*counted)[l.id]))
        {
            continue;
        }
        Class& c = classes[l.linkClass];
        uint64_t bytes = l.bytesAtoB + l.bytesBtoA;
        ++c.links;
        c.total += bytes;
        c.busiest = std::max(c.busiest, bytes);
    }
    double best = 0;
    std::string bestClass;
    for (const auto& [name, c] : classes)
    {
        if (c.links < 2 || c.total == 0)
        {
            continue;
        }
        double ratio = static_cast<double>(c.busiest) * c.links / c.total;
        if (ratio > best)
        {
            best = ratio;
            bestClass = name;
        }
    }
    if (linkClass)
    {
        *linkClass = bestClass;
    }
    return best;
}

double
RunHealth::TwinGap(double packetS, double twinS)
{
    if (!(twinS > 0))
    {
        throw std::invalid_argument("RunHealth::TwinGap: the twin's time must be > 0 (got " +
                                    std::to_string(twinS) + " s)");
    }
    return (packetS - twinS) / twinS;
}

nlohmann::json
RunHealth::ToJson() const
{
    const TrafficCounts& c = counts;
    nlohmann::json drops = nlohmann::json::object();
    for (const TrafficCounts::Drop& d : c.drops)
    {
        drops[d.where + " " + d.cause] = d.frames.count;
    }
    nlohmann::json overflows = nlohmann::json::object();
    for (const TrafficCounts::Drop& d : c.fluidOverflows)
    {
        overflows[d.where] =
            overflows.value(d.where, uint64_t{0}) + d.frames.count; // causes summed
    }
    return {{"messages_sent", c.messagesSent.count},
            {"messages_delivered", c.messagesDelivered.count},
            {"messages_abandoned", c.messagesAbandoned.count},
            {"bytes_sent", c.messagesSent.bytes},
            {"bytes_delivered", c.messagesDelivered.bytes},
            {"frames_sent", c.framesSent.count},
            {"resent", c.framesResent},
            {"resent_bytes", c.bytesResent},
            {"dropped", c.framesDropped.count},
            {"drops", drops},
            {"timeouts", c.timeouts},
            {"pfc_pauses", c.pfcPausesSent},
            {"pfc_paused_s", c.pfcPausedSeconds},
            {"ecn_marked", c.ecnMarked},
            {"max_queue_bytes", c.maxQueueBytes},
            {"fluid_overflow", c.fluidOverflow.count},
            {"fluid_overflows", overflows},
            {"fluid_peak_backlog_bytes", c.fluidPeakBacklogBytes},
            {"fluid_caught_by_failures", c.fluidCaught.count},
            {"fluid_repaired_after_failures", c.fluidRepaired.count},
            {"fluid_repaired_after_drops", c.fluidDropRepaired.count},
            {"link_imbalance", linkImbalance},
            {"imbalance_class", imbalanceClass}};
}

std::string
RunHealth::Cause() const
{
    const TrafficCounts& c = counts;
    std::ostringstream os;
    auto resent = [&c]() {
        return std::to_string(c.framesResent) + " re-sent (" + std::to_string(c.bytesResent) +
               " bytes)";
    };
    auto timeouts = [&c]() { return std::to_string(c.timeouts) + " timeouts"; };
    if (flowLevel)
    {
        os << "the flow level shares links among the tasks in flight together; the twin "
              "times each task alone";
    }
    else if (c.framesDropped.count > 0)
    {
        os << c.framesDropped.count << " frames dropped (" << c.DropList() << ")";
        if (c.framesResent > 0)
        {
            os << ", " << resent();
        }
        if (c.timeouts > 0)
        {
            os << ", " << timeouts();
        }
    }
    else if (c.framesResent > 0)
    {
        os << resent() << (c.timeouts > 0 ? ", " + timeouts() : "");
    }
    else if (c.pfcPausesSent > 0 || c.pfcPausesReceived > 0)
    {
        os << std::max(c.pfcPausesSent, c.pfcPausesReceived) << " PFC pauses, "
           << RunReport::FormatSeconds(c.pfcPausedSeconds) << " paused";
    }
    else if (c.timeouts > 0)
    {
        os << c.timeouts << " transport timeouts";
    }
    else if (linkImbalance > COLLISION_IMBALANCE)
    {
        char ratio[32];
        std::snprintf(ratio, sizeof(ratio), "%.2f", linkImbalance);
        os << "flow-hash collisions: the busiest " << imbalanceClass << " link carried " << ratio
           << "x its class's mean bytes";
    }
    else if (imbalanceClass.empty())
    {
        os << "unexplained (no drops, re-sends, pauses or timeouts; no link class where paths "
              "are chosen carried bytes to compare)";
    }
    else
    {
        char ratio[32];
        std::snprintf(ratio, sizeof(ratio), "%.2f", linkImbalance);
        os << "unexplained (no drops, re-sends, pauses or timeouts; busiest link " << ratio
           << "x its class's mean)";
    }
    return os.str();
}

std::string
RunHealth::OverflowWarning(const std::string& run, double flowS) const
{
    const TrafficCounts& c = counts;
    if (!flowLevel || c.fluidOverflow.bytes == 0)
    {
        return "";
    }
    // What full switch ports dropped (SWITCH_DROP) the fluid repaired, as a packet run
    // does.
    bool atSwitch = false;
    bool atRank = false;
    for (const TrafficCounts::Drop& d : c.fluidOverflows)
    {
        atSwitch |= d.cause == TrafficCounts::SWITCH_BUFFER;
        atRank |= d.cause == TrafficCounts::RANK_BUFFER;
    }
    if (!atSwitch && !atRank)
    {
        return "";
    }
    std::string consequence = atSwitch ? "a packet-level run drops and repairs what overfills a "
                                         "switch port (or holds it back by PFC)"
                                       : "";
    if (atRank)
    {
        consequence += std::string(atSwitch ? ", and" : "a packet-level run") +
                       " holds a forwarding rank's own sends back while its port is full";
    }
    char peak[32];
    std::snprintf(peak, sizeof(peak), "%.3g", static_cast<double>(c.fluidPeakBacklogBytes));
    return run + ": flow-level " + RunReport::FormatSeconds(flowS) +
           " is optimistic: the fluid's backlogs outgrew the ports' buffers by " +
           std::to_string(c.fluidOverflow.count) + " frames (" + c.OverflowList() +
           "; peak backlog " + peak + " bytes): " + consequence;
}

std::string
RunHealth::FailureWarning(const std::string& run, double flowS) const
{
    const TrafficCounts& c = counts;
    if (!flowLevel || c.fluidCaught.count == 0)
    {
        return "";
    }
    char bytes[32];
    std::snprintf(bytes, sizeof(bytes), "%.3g", static_cast<double>(c.fluidCaught.bytes));
    return run + ": flow-level " + RunReport::FormatSeconds(flowS) +
           " is optimistic: " + std::to_string(c.fluidCaught.count) + " messages (" + bytes +
           " wire bytes) were crossing a link when it failed and kept their route; a "
           "packet-level run loses what they send into it until the routes converge, and "
           "repairs it";
}

std::string
RunHealth::FluidWarning(const std::string& run, double flowS) const
{
    const std::string overflow = OverflowWarning(run, flowS);
    const std::string failure = FailureWarning(run, flowS);
    return overflow.empty() ? failure : (failure.empty() ? overflow : overflow + "; " + failure);
}

std::string
RunHealth::Warning(const std::string& run, double packetS, double twinS) const
{
    const std::string fluid = FluidWarning(run, packetS);
    if (!fluid.empty())
    {
        return fluid;
    }
    double gap = TwinGap(packetS, twinS);
    if (!(std::abs(gap) > WARN_GAP))
    {
        return "";
    }
    char percent[32];
    std::snprintf(percent, sizeof(percent), "%+.0f%%", 100 * gap);
    return run + (flowLevel ? ": flow-level " : ": packet-level ") +
           RunReport::FormatSeconds(packetS) + " is " + percent + " off its twin " +
           RunReport::FormatSeconds(twinS) + ": " + Cause();
}

void
RunHealth::Annotate(nlohmann::json& row, const std::string& run, double packetS, double twinS) const
{
    nlohmann::json health = ToJson();
    if (twinS > 0)
    {
        row["twin_gap"] = TwinGap(packetS, twinS);
        std::string warning = Warning(run, packetS, twinS);
        if (!warning.empty())
        {
            health["warning"] = warning;
        }
    }
    else
    {
        row["twin_gap"] = nullptr;
        std::string warning = FluidWarning(run, packetS);
        if (!warning.empty())
        {
            health["warning"] = warning;
        }
    }
    row["health"] = health;
}

} // namespace ns3
