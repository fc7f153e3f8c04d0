// SPDX-License-Identifier: GPL-2.0-only
/*
 * RunHealth: how healthy one packet-level run was, and how far it is from its twin.
 *
 * What it models. After a runner closed a run's TrafficAccounting, RunHealth takes
 * that run's counts (messages and bytes sent / delivered / re-sent, frames dropped by
 * where and why, transport timeouts, PFC pauses and paused time, ECN marks, the
 * largest switch queue) and one measure of routing balance from the cluster's link
 * registry: for each link class, the busiest link's wire bytes divided by the mean
 * over the links of that class; the class with the largest ratio is reported (a
 * ratio well above 1 on a symmetric fabric is flow-hash collisions: several flows
 * hashed onto one path while others idle).
 *
 * Every results row that times a packet-level run carries, through Annotate:
 *
 *   twin_gap = (packet - twin) / twin      (signed; the existing "error" column is
 *                                           (packet - twin) / packet)
 *   health   = {messages, frames, dropped, resent, timeouts, pfc, max_queue_bytes, ...}
 *
 * and when |twin_gap| > 25 % the health object carries a one-line warning naming the
 * likely cause from what was measured, in this order: drops (count and where),
 * re-sends, PFC pauses (count and paused time), timeouts, flow-hash collisions (the
 * imbalance above 1.25 and nothing else), else "unexplained". RunReport::Finish
 * prints the warnings ("warning: <run>: packet-level <t> is <+x%> off its twin <t>:
 * <cause>").
 *
 * At the flow level (Measure's flowLevel) there are no frames: the row says
 * "flow-level <t>", and the cause of a gap is the one thing the fluid run has that the
 * twin beside it lacks: the communication tasks in flight at once share links in the
 * run, where the twin times each task alone and composes them on the iteration graph.
 * Its health also carries the fluid's prediction of the ports it overfills
 * (fluid_overflow: full frames beyond the buffers, fluid_overflows by link class,
 * fluid_peak_backlog_bytes); an overflow the fluid did not drop and repair (a lossless
 * fabric's switch ports, a forwarding rank's port) is warned about whatever the twin
 * gap ("<run>: flow-level <t> is optimistic: the fluid's backlogs outgrew the ports'
 * buffers by <n> frames (...)"), since the packet level would drop and repair them or
 * hold them back, and so are messages a link failure caught in flight where the stood-in
 * transport's repair is not modelled (fluid_caught_by_failures: they kept their route, where a
 * packet-level run loses what they send into the link until the routes converge and
 * repairs it). The frames the flow level did lose to failures or drop at full switch
 * ports and re-send are reported (fluid_repaired_after_failures,
 * fluid_repaired_after_drops), not warned about.
 *
 * Left out: a causal analysis (the cause named is the first of the measured symptoms,
 * not a proof); per-flow or per-priority detail; imbalance across link classes.
 */
#ifndef MLNET_RUN_HEALTH_H
#define MLNET_RUN_HEALTH_H

#include "ns3/cluster.h"
#include "ns3/traffic-accounting.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief The health of one packet-level run: its traffic counts and link balance, the
 * twin gap and the warning rule.
 */
struct RunHealth
{
    /// |twin_gap| above which a run is warned about (25 %)
    static constexpr double WARN_GAP = 0.25;
    /// busiest / mean link bytes of a class above which collisions are named
    static constexpr double COLLISION_IMBALANCE = 1.25;

    TrafficCounts counts;       //!< the run's closed accounting
    double linkImbalance{0};    //!< busiest link bytes / mean of its class (largest class)
    std::string imbalanceClass; //!< the link class of linkImbalance ("" if none)
    bool flowLevel{false};      //!< a flow-level run: no frames, no counts to name a cause

    /**
     * \brief The health of the run just closed on `cluster`: its accounting's closed
     * counts (TrafficAccounting::GetClosedCounts) and its link balance. Throws
     * std::logic_error when the cluster has no closed accounting.
     * \param cluster the fabric after its run
     * \param flowLevel the run was at the flow level (FluidMessageTransport)
     */
    static RunHealth Measure(Ptr<Cluster> cluster, bool flowLevel = false);
    /**
     * \brief The link class with the largest busiest-to-mean ratio of wire bytes (both
     * directions of a link together), over classes of >= 2 links that carried bytes,
     * counting only links where a path is chosen: between two switches, or between two
     * ranks that forward (direct-connect, torus); a rank's link to its switch carries
     * that rank's own traffic, which the workload decides.
     * \param cluster the fabric after its run
     * \param linkClass receives the class ("" when no class qualifies)
     * \param counted per link id, whether to count it (null: every link); a run that
     *        simulated part of the fabric for the rest (rail replication) counts the
     *        part it simulated
     * \return the ratio (0 when no class qualifies)
     */
    static double LinkImbalance(Ptr<Cluster> cluster,
                                std::string* linkClass = nullptr,
                                const std::vector<bool>* counted = nullptr);
    /**
     * \return (packet - twin) / twin, signed: +0.5 = packet level 50 % slower than the
     * twin. Throws std::invalid_argument unless twin > 0.
     */
    static double TwinGap(double packetS, double twinS);

    /// \return the health object of a row (see the file comment for its keys)
    nlohmann::json ToJson() const;
    /// \return the likely cause of a gap, from the measured counts (never empty)
    std::string Cause() const;
    /**
     * \return "<run>: packet-level <t> is <+x%> off its twin <t>: <cause>" (flow-level
     * at the flow level) when
     * |TwinGap| > WARN_GAP, else ""; the FluidWarning instead when there is one
     */
    std::string Warning(const std::string& run, double packetS, double twinS) const;
    /**
     * \return at the flow level, when the fluid overfilled a port's buffer without
     * dropping it (a lossless fabric's switch port, a forwarding rank's port): "<run>:
     * flow-level <t> is optimistic: the fluid's backlogs outgrew the ports' buffers by
     * <n> frames (<where>; peak backlog <bytes>), which a packet-level run drops and
     * repairs (or holds back by PFC)"; else ""
     */
    std::string OverflowWarning(const std::string& run, double flowS) const;
    /**
     * \return at the flow level, when a link failed under messages in flight: "<run>:
     * flow-level <t> is optimistic: <n> messages (<bytes>) were crossing a link when it
     * failed and kept their route; a packet-level run loses what they send into it until
     * the routes converge, and repairs it"; else ""
     */
    std::string FailureWarning(const std::string& run, double flowS) const;
    /// \return the OverflowWarning and the FailureWarning, joined by "; " when both
    std::string FluidWarning(const std::string& run, double flowS) const;
    /**
     * \brief Add "twin_gap" and "health" (with "warning" when there is one) to a row.
     * A twin of 0 (nothing to compare) leaves twin_gap null; only the FluidWarning is given.
     */
    void Annotate(nlohmann::json& row, const std::string& run, double packetS, double twinS) const;
};

} // namespace ns3

#endif // MLNET_RUN_HEALTH_H
