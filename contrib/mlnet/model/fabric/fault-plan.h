// SPDX-License-Identifier: GPL-2.0-only
/*
 * FaultPlan: failures of links, switches and NICs, named or random, before or during
 * a run, with a route convergence delay.
 *
 * What it models. A fault takes one or more links of a Cluster down at a simulated
 * time: a link (by id, by class and index within its class, or by its two end nodes),
 * a node (every link of a switch), a NIC (every link of a host, or its k-th), or N
 * links drawn at random from the fabric's failable classes. From the failure on, both
 * directions of a failed link drop every frame at the receiver (Cluster::FailLink), so
 * frames in flight on it and frames the old routes still send into it are lost and
 * show up as PhyRxDrop of its devices (counted per fault in the FaultLog). The routes
 * around it are computed and installed (RoutePlanner::Install) Convergence later; until
 * then packets keep the old routes, and the cluster says so (Cluster::HoldRoutes at the
 * failure, ReleaseRoutes at the convergence: the flow level's routes follow it). A
 * fault at time 0 is applied before the run, with routes installed at once (as random
 * failures always were). The transports then recover what was lost (UDP repair, TCP
 * retransmission); at the flow level the fluid loses and repairs it (standing in for
 * UDP or RDMA) and tells the plan the frames lost (Cluster's FramesLost trace).
 *
 * A plan is checked as a whole before anything fails: every item must name an existing
 * element, no link may be failed twice, and every rank must stay reachable from every
 * other once all faults have struck (which implies every earlier moment); the error
 * names the item that would disconnect the fabric. Random picks use their own
 * random-variable stream (attribute Stream), so they depend only on the fabric, the
 * classes, the seed and the run number, not on what else drew random numbers first
 * (the IPv4 stack and the fast data path create different numbers of them).
 *
 * Item syntax (Parse): link:<id> | link:<node>-<node> | <class>:<index> |
 * node:<node> | nic:rank<N>[.<k>] | random:<N>, each optionally @<time> (s, ms, us, ns,
 * ps); <node> is rank<N> or switch<N> (the N-th switch of the Cluster).
 *
 * Left out: links coming back (repair), partial failures (a lossy or slow link), a
 * failure detection delay separate from convergence, and per-node convergence (every
 * node gets its new routes at the same instant).
 */
#ifndef MLNET_FAULT_PLAN_H
#define MLNET_FAULT_PLAN_H

#include "ns3/cluster.h"
#include "ns3/fault-log.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief One fault as written: which element, and when.
 */
struct FaultSpec
{
    /// What the fault names.
    enum class Target
    {
        LINK_ID,    //!< link:<id>
        LINK_CLASS, //!< <class>:<index>
        LINK_ENDS,  //!< link:<node>-<node>
        NODE,       //!< node:<node>: every link of the node
        NIC,        //!< nic:rank<N>[.<k>]: every link of a host, or its k-th
        RANDOM,     //!< random:<N>: N links of the failable classes
    };

    std::string item; //!< the item as written (for messages and the report)
    Target target{Target::LINK_ID};
    uint32_t index{0};     //!< link id, index within the class, N of random, k of a NIC
    bool allNics{true};    //!< NIC: every link of the host (no .<k>)
    std::string linkClass; //!< LINK_CLASS
    std::string nodeA;     //!< LINK_ENDS end A, NODE and NIC node
    std::string nodeB;     //!< LINK_ENDS end B
    Time at;               //!< simulated time of the failure (0 = before the run)
};

/**
 * \brief A list of faults, checked against a Cluster, applied and scheduled.
 */
class FaultPlan : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FaultPlan();
    ~FaultPlan() override;

    /**
     * \brief Parse a comma-separated list of faults (see the file comment for the syntax).
     * Throws std::invalid_argument naming the bad item and the valid syntax.
     */
    static std::vector<FaultSpec> Parse(const std::string& list);
    /// \brief Add faults parsed from a list (Parse).
    void Add(const std::string& list);
    /// \brief Add one fault.
    void Add(const FaultSpec& fault);
    /**
     * \brief Add `count` random link failures at `at` (what --failLinks asks for).
     * \param item how the report and messages name it (default "random:<count>[@<at>]")
     */
    void AddRandom(uint32_t count, Time at = Time(0), const std::string& item = "");
    /// \return the faults added so far
    const std::vector<FaultSpec>& GetFaults() const;

    /**
     * \brief Check the plan against the cluster, fail the time-0 faults now (and install
     * routes around them) and schedule the others with their route convergence. The plan
     * is aggregated to the cluster (GetObject<FaultPlan>()), which keeps it alive.
     * \param cluster the fabric, routes installed (as a FabricHelper leaves it)
     * \param failable link classes random faults pick from
     * Throws std::invalid_argument naming the item for an unknown element or class, an
     * index out of range, a link failed twice, a time already past, or a fault that
     * would leave some rank unreachable. Call once, before Simulator::Run.
     */
    void Apply(Ptr<Cluster> cluster, const std::vector<std::string>& failable);
    /// \return the failures the plan resolved to (after Apply), one per item and random pick
    const std::vector<FaultRecord>& GetRecords() const;

    /**
     * \brief Draw `count` links at random among `classes`, never one already down in
     * `down` (indexed by link id, updated with the picks), keeping every rank reachable.
     * \param stream the random-variable stream to draw from
     * Throws std::invalid_argument when fewer than `count` links can fail safely.
     */
    static std::vector<uint32_t> ChooseRandomLinks(Ptr<Cluster> cluster,
                                                   uint32_t count,
                                                   const std::vector<std::string>& classes,
                                                   std::vector<bool>& down,
                                                   int64_t stream);
    /// \return true when every rank reaches every other over the links not `down`
    static bool RanksConnected(Ptr<Cluster> cluster, const std::vector<bool>& down);
    /// \return the first rank rank 0 cannot reach over the links not `down` (UINT32_MAX: none)
    static uint32_t UnreachableRank(Ptr<Cluster> cluster, const std::vector<bool>& down);
    /// \return "rank<N>" for a rank's node, "switch<N>" for the N-th switch, "node<id>" else
    static std::string NodeName(Ptr<Cluster> cluster, uint32_t nodeId);
    /// Default of the Stream attribute (the stream random failures draw from).
    static constexpr int64_t kDefaultStream = 900;

protected:
    void DoDispose() override;

private:
    /// The link ids a (non-random) fault names; throws naming the item.
    std::vector<uint32_t> Resolve(Ptr<Cluster> cluster, const FaultSpec& fault) const;
    /// Node id of a node name; throws naming the item.
    uint32_t NodeOf(Ptr<Cluster> cluster, const std::string& name, const FaultSpec& f) const;
    /// Fail these links now (scheduled at a fault's time).
    void FailNow(std::vector<uint32_t> links);
    /// Install routes around every link failed so far (scheduled at time + Convergence).
    void Converge();

    Time m_convergence;               //!< delay from a failure to its new routes
    int64_t m_stream{kDefaultStream}; //!< random-variable stream of random picks
    std::vector<FaultSpec> m_faults;
    std::vector<FaultRecord> m_records;
    bool m_applied{false};

    TracedCallback<uint32_t> m_linkDownTrace;        //!< a planned fault took a link down: id
    TracedCallback<uint32_t> m_routesInstalledTrace; //!< routes installed: links down so far
};

} // namespace ns3

#endif // MLNET_FAULT_PLAN_H
