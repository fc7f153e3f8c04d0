// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster: the training cluster as the rest of mlnet sees it.
 *
 * A Cluster owns the mapping between ranks (GPUs or servers, numbered 0..N-1)
 * and ns-3 nodes, devices and IPv4 addresses, the switch nodes of the fabric,
 * and a registry of every link with its link class ("host-tor", "tor-agg",
 * "torus", "nvlink", "rail", "ocs", ...) and per-direction byte counters.
 * Fabric helpers build a Cluster; transports, collectives, the training driver
 * and the analytical model read it. It also carries a FabricSpec, the compact
 * description of the fabric that the alpha-beta twin needs.
 *
 * Not modelled here: forwarding (see FlowHashRouting) and traffic (see
 * MessageTransport).
 */
#ifndef MLNET_CLUSTER_H
#define MLNET_CLUSTER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RoutePreference;
struct RouteTables;

/**
 * \brief Compact description of a fabric, as built; input of the analytical model.
 */
struct FabricSpec
{
    std::string kind;                //!< "ideal", "fattree", "torus", "graph", ...
    uint32_t ranks{0};               //!< number of ranks
    DataRate linkRate{"100Gbps"};    //!< rate of every link unless a helper says otherwise
    Time linkDelay{MicroSeconds(1)}; //!< propagation delay of every link
    uint32_t mtu{9000};              //!< IP MTU of every device (bytes)
    // Fat-tree / Clos
    uint32_t tiers{0};            //!< switch tiers (1 = ideal switch, 2 or 3)
    uint32_t radix{0};            //!< switch radix (ports)
    uint32_t ranksPerTor{0};      //!< hosts below one ToR
    double oversubscription{1.0}; //!< ToR downlink / uplink capacity ratio
    uint32_t domainSize{0};       //!< ranks per HB (NVLink) domain, 0 without domains
    // Torus / mesh
    std::vector<uint32_t> dims;  //!< k per dimension; product = ranks
    bool wrap{true};             //!< wraparound links (torus) or not (mesh)
    std::string routing{"ecmp"}; //!< "ecmp" (flow-hash over shortest paths) or "dor"
    // Data path (FabricHelper::SetDataPath)
    std::string dataPath{"ipv4"}; //!< "ipv4" (Internet stack) or "fast" (FastForwarding)
    /// full ports hold back instead of dropping (PFC: installed on the fast path,
    /// recorded on a fabric without devices; FabricHelper::SetPfc)
    bool lossless{false};
    /// hash | spray | flowlet | adaptive (FabricHelper::SetLoadBalancing)
    std::string loadBalancing{"hash"};
    // Host forwarding: a rank node relays frames for other nodes (TopoOpt's servers;
    // FastForwarding's RelayLatency and RelayRate, HostForwardingRouting's
    // ForwardingLatency and ForwardingRate on the device paths)
    Time relayLatency;     //!< added to a frame at every rank node that relays it (0: none)
    DataRate relayRate{0}; //!< FIFO relay engine of a rank node (0: no cap)
    // Distributed runs (FabricHelper::SetPartitions)
    uint32_t partitions{1}; //!< MPI processes the nodes are split over
    uint32_t cutLinks{0};   //!< links whose ends lie in different partitions
    Time lookahead;         //!< smallest propagation delay of a cut link (0 if none)
};

/**
 * \brief One registered link: two point-to-point devices and their traffic.
 */
struct ClusterLink
{
    uint32_t id{0};                  //!< index in the registry
    std::string linkClass;           //!< e.g. "host-tor", "tor-agg", "agg-core", "torus"
    uint32_t nodeA{0};               //!< ns-3 node id of end A
    uint32_t nodeB{0};               //!< ns-3 node id of end B
    Ptr<PointToPointNetDevice> devA; //!< device at end A
    Ptr<PointToPointNetDevice> devB; //!< device at end B
    uint32_t ifA{0};                 //!< IPv4 interface index of devA (0 until assigned)
    uint32_t ifB{0};                 //!< IPv4 interface index of devB
    uint64_t bytesAtoB{0};           //!< wire bytes (PPP frames) sent A -> B
    uint64_t bytesBtoA{0};           //!< wire bytes sent B -> A
    uint64_t packetsAtoB{0};         //!< frames sent A -> B
    uint64_t packetsBtoA{0};         //!< frames sent B -> A
    bool failed{false};              //!< set by Cluster::FailLink (and DetachLink)
    /// When FailLink failed it (simulated time), and when the routes around it were in
    /// place (Cluster::ReleaseRoutes; at once when the routes were not held): frames the
    /// old routes send into it between the two are lost. Time::Max() while held.
    Time failedAt{0};
    Time reroutedAt{0};   //!< see failedAt
    bool detached{false}; //!< out of service by DetachLink (devices intact)
    /// A link of a fabric built as a graph (FabricHelper's "none" data path, for the
    /// flow level) has no devices: it says its rate (each direction), its propagation
    /// delay and the bytes each end's port can queue here. Zero on a link with devices,
    /// whose devices say them (Cluster::GetLinkRate, GetLinkDelay).
    DataRate rate{0};
    Time delay{0};     //!< see rate
    double bufferA{0}; //!< bytes end A's port queues (graph links; see rate)
    double bufferB{0}; //!< bytes end B's port queues (graph links; see rate)

    /// \brief The link's other end.
    /// \param node one of its ends (nodeA or nodeB)
    /// \return nodeB when `node` is nodeA, else nodeA
    uint32_t Peer(uint32_t node) const
    {
        return nodeA == node ? nodeB : nodeA;
    }
};

/**
 * \brief Ranks, nodes, addresses and the link registry of one training cluster.
 */
class Cluster : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    Cluster();
    ~Cluster() override;

    /**
     * \brief Register a node that hosts a rank; ranks are numbered in call order.
     * \param node the host node
     * \return the new rank
     */
    uint32_t AddRankNode(Ptr<Node> node);
    /**
     * \brief Register a switch (or any non-rank forwarding node).
     * \param node the switch node
     */
    void AddSwitchNode(Ptr<Node> node);
    /**
     * \brief Register a link and start counting its bytes.
     *
     * A device may belong to several links over time (a reconfigurable optical
     * circuit, see DetachLink); its frames are counted on the link it joined last.
     * \param a device at end A
     * \param b device at end B (peer of a)
     * \param linkClass class of the link, e.g. "host-tor"
     * \return the link id
     */
    uint32_t AddLink(Ptr<PointToPointNetDevice> a,
                     Ptr<PointToPointNetDevice> b,
                     const std::string& linkClass);
    /**
     * \brief Register a link of a fabric built as a graph: no devices, nothing sent on
     * it but what the flow level's fluid counts (AddLinkTraffic).
     * \param nodeA node id of end A (a node registered with AddRankNode or AddSwitchNode)
     * \param nodeB node id of end B
     * \param linkClass class of the link, e.g. "host-tor"
     * \param rate its rate in each direction (> 0)
     * \param delay its propagation delay
     * \return the link id; its ports queue nothing until SetLinkBuffers
     */
    uint32_t AddGraphLink(uint32_t nodeA,
                          uint32_t nodeB,
                          const std::string& linkClass,
                          DataRate rate,
                          Time delay);
    /**
     * \brief Set the bytes the ports of a graph link (AddGraphLink) queue: what the
     * fabric helper gives its hosts' and switches' ports.
     */
    void SetLinkBuffers(uint32_t linkId, double bufferA, double bufferB);
    /**
     * \return the bytes a port queue of `size` holds: a limit in packets counts full
     * frames (MTU plus the PPP header)
     */
    static double QueueBytes(QueueSize size, uint32_t mtu);
    /**
     * \return a link's rate in one direction: its sending device's, or the graph's
     * (AddGraphLink)
     */
    DataRate GetLinkRate(uint32_t linkId, bool aToB) const;
    /// \return a link's propagation delay: its channel's, or the graph's (AddGraphLink)
    Time GetLinkDelay(uint32_t linkId) const;
    /**
     * \brief Record the IPv4 interface indexes of a link's devices (after addressing).
     */
    void SetLinkInterfaces(uint32_t linkId, uint32_t ifA, uint32_t ifB);
    /**
     * \brief Record the address through which a rank is reached (its first interface).
     */
    void SetRankAddress(uint32_t rank, Ipv4Address address);
    /**
     * \brief Record that an address belongs to a node (every interface address).
     */
    void AddNodeAddress(uint32_t nodeId, Ipv4Address address);

    /// \return number of ranks
    uint32_t GetNRanks() const;
    /// \return the node hosting a rank
    Ptr<Node> GetRankNode(uint32_t rank) const;
    /// \return the rank hosted by a node id, or UINT32_MAX if none
    uint32_t GetRankOfNode(uint32_t nodeId) const;
    /// \return the address of a rank
    Ipv4Address GetRankAddress(uint32_t rank) const;
    /// \return the node id owning an address, or UINT32_MAX
    uint32_t GetNodeOfAddress(Ipv4Address address) const;
    /**
     * \return the first address recorded for a node (AddNodeAddress), 0.0.0.0 if none:
     * on the IPv4 path its interface 1, the source of what the node sends itself
     * (a switch's Checkmate clones), which the fast path puts in its flow key
     */
    Ipv4Address GetNodeAddress(uint32_t nodeId) const;
    /// \return all rank nodes, in rank order
    const NodeContainer& GetRankNodes() const;
    /// \return all switch nodes
    const NodeContainer& GetSwitchNodes() const;
    /// \return every node of the cluster (ranks first, then switches)
    NodeContainer GetAllNodes() const;
    /// \return the link registry
    const std::vector<ClusterLink>& GetLinks() const;
    /// \return one link
    const ClusterLink& GetLink(uint32_t id) const;
    /// \return ids of the links attached to a node (empty for a node with none); valid
    /// until a link is added
    const std::vector<uint32_t>& GetLinksOfNode(uint32_t nodeId) const;
    /// \brief Append a node's neighbours (the other end of each of its links, failed ones
    /// included, in the order of GetLinksOfNode) to `out`.
    void AppendNeighbours(uint32_t nodeId, std::vector<uint32_t>& out) const;
    /// \return the sum of rates of a rank's devices (its injection bandwidth)
    DataRate GetInjectionRate(uint32_t rank) const;

    /// \brief Set the fabric description (done by the fabric helper).
    void SetFabricSpec(const FabricSpec& spec);
    /// \return the fabric description
    const FabricSpec& GetFabricSpec() const;

    /**
     * \brief Set the policy that narrows equal-length next-hop sets (null: none, the
     * default). RoutePlanner::Compute applies it; routes must be recomputed afterwards.
     */
    void SetRoutePreference(Ptr<RoutePreference> preference);
    /// \return the route preference, or null
    Ptr<RoutePreference> GetRoutePreference() const;

    /**
     * \brief Keep the route tables RoutePlanner computed for the current links, so the
     * fabric's install, the twin and the flow level compute them once (RoutePlanner::
     * Refresh). Adding a node or link, failing, detaching or reattaching a link, and
     * setting the spec or the route preference drop them.
     */
    void SetRouteTables(std::shared_ptr<const RouteTables> tables);
    /// \return the kept route tables, or null when none were kept for the current state
    std::shared_ptr<const RouteTables> GetRouteTables() const;

    /**
     * \brief Fail a link: both directions drop every frame from now on.
     * Routing must be recomputed afterwards (RoutePlanner::Install does).
     */
    void FailLink(uint32_t linkId);
    /**
     * \return a number that changes whenever a link is added, failed, detached or
     * reattached (what caches of routes compare instead of scanning every link)
     */
    uint64_t GetLinkStateVersion() const;
    /**
     * \brief Hold the routes: links failed from now on keep their place in the routes the
     * fabric forwards by until ReleaseRoutes (a route convergence delay: FaultPlan).
     * GetRoutedLinkStateVersion stays at the link state before the failures.
     */
    void HoldRoutes();
    /// \brief The routes around the links failed since HoldRoutes are in place: their
    /// reroutedAt is now, and GetRoutedLinkStateVersion moves to the current state.
    void ReleaseRoutes();
    /**
     * \return the link state the forwarding routes were computed for: GetLinkStateVersion,
     * or while routes are held (HoldRoutes) the state before the held failures (what the
     * flow level's routes follow, as packets do until convergence)
     */
    uint64_t GetRoutedLinkStateVersion() const;
    /**
     * \brief Take a link out of service without touching its devices (an optical
     * circuit torn down by a reconfiguration; the devices live on in other links).
     *
     * The link counts as failed for routing and the injection rate, its devices'
     * frames stop counting on it, and its counters keep what it carried. Routing
     * must be recomputed afterwards (RoutePlanner::Install). Added for
     * reconfigurable fabrics (contrib/topoopt); fixed fabrics never call it.
     */
    void DetachLink(uint32_t linkId);
    /**
     * \brief Put a detached link back in service (the same circuit set up again):
     * its devices' frames count on it again. Throws std::invalid_argument if the
     * link was failed by FailLink rather than detached.
     */
    void ReattachLink(uint32_t linkId);

    /// \return wire bytes carried by all links of each class (both directions)
    std::map<std::string, uint64_t> GetBytesByLinkClass() const;
    /// \return wire bytes carried by all links (both directions)
    uint64_t GetTotalLinkBytes() const;
    /// \brief Zero every byte and packet counter.
    void ResetCounters();
    /**
     * \brief Overwrite one link's counters. Used to merge the counts of the processes
     * of a distributed run (DistributedSession::MergeLinkCounters), each of which
     * counted only what its own devices sent.
     */
    void SetLinkCounters(uint32_t linkId,
                         uint64_t bytesAtoB,
                         uint64_t bytesBtoA,
                         uint64_t packetsAtoB,
                         uint64_t packetsBtoA);
    /**
     * \brief Add traffic that crossed a link without a frame on its devices: the flow
     * level's fluid messages (FluidMessageTransport), counted as the frames the packet
     * level would have sent.
     * \param linkId the link
     * \param aToB the direction (end A to end B, or B to A)
     * \param bytes wire bytes
     * \param packets frames
     */
    void AddLinkTraffic(uint32_t linkId, bool aToB, uint64_t bytes, uint64_t packets);
    /**
     * \brief Say that frames sent into a failed link were lost there, where no device
     * drops them (the flow level, FluidMessageTransport). Fires the FramesLost trace,
     * which a FaultPlan counts in its FaultLog as it counts its devices' drops.
     * \param linkId the failed link
     * \param frames frames lost
     */
    void NotifyFramesLost(uint32_t linkId, uint64_t frames);
    /// Signature of the FramesLost trace source: link id, frames.
    typedef void (*FramesLostCallback)(uint32_t linkId, uint64_t frames);
    /**
     * \brief Say that the workload running on this cluster has finished.
     * Runners and drivers call it; it fires the WorkloadDone trace, which lets
     * monitors that keep scheduling events (FlowMonitor) end the run.
     */
    void NotifyWorkloadDone();
    /// Signature of the WorkloadDone trace source.
    typedef void (*WorkloadDoneCallback)();
    /**
     * \brief Say that an object working on this cluster has started: a transport (at
     * its first message), a collective (at Start), a training driver (at Start). It
     * fires the ObjectBound trace, through which monitors (MessageLog,
     * TimelineWriter) find the objects whose trace sources they need.
     */
    void NotifyObjectBound(Ptr<Object> object);
    /// Signature of the ObjectBound trace source.
    typedef void (*ObjectBoundCallback)(Ptr<Object> object);

protected:
    void DoDispose() override;

private:
    void CountTx(uint32_t slot, Ptr<const Packet> p);
    /// Make `dev`'s frames count on `linkId` in direction `aToB` (connects its trace once).
    void BindDevice(Ptr<PointToPointNetDevice> dev, uint32_t linkId, bool aToB);

    /// Where a device's frames are counted (one slot per device, reused across links).
    struct DeviceSlot
    {
        uint32_t linkId{0};  //!< link the device's frames count on
        bool aToB{true};     //!< direction of that link the device sends in
        bool counting{true}; //!< false while the link is detached
    };

    std::vector<DeviceSlot> m_slots;
    std::unordered_map<const PointToPointNetDevice*, uint32_t> m_slotOfDevice;

    NodeContainer m_rankNodes;
    NodeContainer m_switchNodes;
    std::vector<Ipv4Address> m_rankAddress;
    /// node id -> rank (UINT32_MAX: a switch or another cluster's node); a vector, since
    /// routing and the flow level ask at every node and message
    std::vector<uint32_t> m_rankOfNode;
    std::unordered_map<uint32_t, uint32_t> m_nodeOfAddress;
    std::unordered_map<uint32_t, Ipv4Address> m_firstAddressOfNode; //!< node id -> address
    std::vector<ClusterLink> m_links;
    std::unordered_map<uint32_t, std::vector<uint32_t>> m_linksOfNode;
    FabricSpec m_spec;
    Ptr<RoutePreference> m_routePreference;
    std::shared_ptr<const RouteTables> m_routeTables; //!< kept by RoutePlanner (or null)
    uint64_t m_routeTablesVersion{0};                 //!< m_linkStateVersion they were kept at

    /// Fires when a link is failed: link id.
    uint64_t m_linkStateVersion{0}; //!< bumped by every change of the link set or state
    bool m_routesHeld{false};       //!< between HoldRoutes and ReleaseRoutes
    uint64_t m_routedVersion{0};    //!< the link state routed by while held
    TracedCallback<uint32_t> m_linkFailedTrace;
    TracedCallback<uint32_t> m_reroutedTrace; //!< routes around a failed link took effect
    TracedCallback<uint32_t, uint64_t> m_framesLostTrace; //!< see NotifyFramesLost
    TracedCallback<> m_workloadDoneTrace;                 //!< the workload finished
    TracedCallback<Ptr<Object>> m_objectBoundTrace; //!< a transport, collective, driver started
};

} // namespace ns3

#endif // MLNET_CLUSTER_H
