// SPDX-License-Identifier: GPL-2.0-only
/*
 * FastForwarding: table-driven frame forwarding of mlnet's fast data path.
 *
 * On a fabric built with DataPath "fast" (FabricHelper::SetDataPath) no node has
 * an Internet stack. Every node (switch or rank) aggregates one FastForwarding
 * that receives the fabric's frames (EtherType 0x0800 on every device, the only
 * protocol besides IPv6 that a stock PointToPointNetDevice sends) and either
 * delivers them to the local rank's transport or sends them on at once with
 * NetDevice::Send: no IPv4 routing lookup, no traffic-control layer, no socket,
 * no tags and no allocation besides the ns-3 Packet itself (a received frame is
 * forwarded as is, not copied). The table maps a destination rank to its
 * candidate output devices (a RankTable: each distinct device set once, ranks mapped
 * to it by runs, so a node's table does not grow with the cluster), built by RoutePlanner from the
 * same next-hop sets as FlowHashRouting's (ECMP, dimension order, failures, route preferences), in
 * the same order; a frame picks one with the same seeded flow hash
 * (FlowHashRouting::HashFlow over the flow key of its FastFrameHeader). So a
 * flow takes the path it takes on the IPv4 path. With a LoadBalancer (attribute
 * LoadBalancer, FabricHelper::SetLoadBalancing) the choice is its policy's instead:
 * per-packet spraying, flowlets or the least-loaded device. The switch queue is the
 * device's DropTail queue, as on the IPv4 path, which has no queue disc on switches.
 *
 * Simultaneous arrivals. Frames that reach a node at the same instant are handled in
 * ns-3's event order, which depends on how the run is split over MPI processes. With
 * OrderSimultaneousArrivals they are handled in device order instead, which does not:
 * what makes a distributed run (DistributedSession) reproduce one process exactly.
 *
 * Every frame is traced once where it starts (Tx: the local rank sends it, header on,
 * before the route is looked up), at every hop (Forward, before it is queued) and where
 * it ends (Deliver to the local rank's transport, or Drop), always with its
 * FastFrameHeader, so frame accounting (TrafficAccounting) can balance them.
 *
 * Relay stage. A node that hosts a rank and forwards a frame for another (a TopoOpt
 * server relaying transit traffic, a torus node) passes it through a relay stage, as
 * topoopt's HostForwardingRouting does on the IPv4 path: the output device is chosen
 * on arrival, then the frame waits RelayLatency and, with RelayRate set, its turn in a
 * FIFO relay engine of that rate (charged the frame's size with its FastFrameHeader,
 * which is the IPv4 packet's size: 20 + 8 + payload), and is sent on (Forward) when
 * both are done. Relay fires on arrival with the wait. Both zero (the default): sent
 * on at once, as a switch does. Frames in the stage count as pending.
 *
 * Priority flow control. With a PriorityFlowControl set (FabricHelper::SetPfc) every
 * frame leaving the node goes through its egress stage (priority queues obeying PAUSE),
 * transit frames are charged to its buffer on arrival (and dropped when it is full:
 * its BufferDrop trace), and PAUSE frames are handed to it; frames in the egress stage
 * count as pending. Without one (the default) nothing of this runs.
 *
 * ECN. A node given an EcnMarker (SetEcnMarker; FabricHelper::SetSwitchEcn gives every
 * switch one) asks it, for every ECN-capable frame it forwards, whether to mark it CE,
 * with the bytes queued on the chosen output device (GetQueuedBytes); only a marked
 * frame's header is rewritten.
 *
 * Left out: TTL (tables are loop-free), multicast, anything but unicast to a rank.
 */
#ifndef MLNET_FAST_FORWARDING_H
#define MLNET_FAST_FORWARDING_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/ecn-marker.h"
#include "ns3/fast-frame-header.h"
#include "ns3/load-balancer.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/rank-table.h"
#include "ns3/traced-callback.h"

#include <utility>
#include <vector>

namespace ns3
{

class Node;
class PriorityFlowControl;

/**
 * \brief Per-node forwarding by destination rank and flow hash, without IPv4.
 */
class FastForwarding : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FastForwarding();
    ~FastForwarding() override;

    /// Receives the frames addressed to the local rank (header already removed).
    using DeliverCallback = Callback<void, Ptr<Packet>, const FastFrameHeader&>;

    /**
     * \brief Aggregate to `node` and receive its frames (on all its devices, present
     * and future).
     */
    void Install(Ptr<Node> node);
    /// \brief Say which rank this node hosts (default: none, a switch).
    void SetLocalRank(uint32_t rank);
    /// \return the hosted rank, or UINT32_MAX for a switch
    uint32_t GetLocalRank() const;
    /**
     * \brief Replace the table: next[rank] = candidate output devices towards that rank,
     * in the order the flow hash indexes them (RoutePlanner::Install sets it).
     */
    void SetTable(const std::vector<std::vector<Ptr<NetDevice>>>& next);
    /// \brief Replace the table with one in compact form (RoutePlanner::Install builds it).
    void SetTable(RankTable<Ptr<NetDevice>> table);
    /**
     * \brief Replace the table with one made on the first lookup (RoutePlanner::Install:
     * a node that forwards nothing, as at flow level, never makes its table).
     */
    void DeferTable(DeferredRankTable<Ptr<NetDevice>>::Maker make);
    /// \return whether the table is made (false until the first lookup after DeferTable)
    bool IsTableMade() const;
    /// \return the table (its sets and runs: what the node's forwarding state costs)
    const RankTable<Ptr<NetDevice>>& GetTable() const;
    /// \return candidate output devices towards a rank (empty: none)
    const std::vector<Ptr<NetDevice>>& GetDevices(uint32_t rank) const;
    /**
     * \brief The device a frame leaves by: the one candidate, or the flow hash's
     * choice among several, or the LoadBalancer's (attribute LoadBalancer).
     * \param h the frame's header
     * \param local true for a frame sent by the local rank: hashed without ports,
     *        as FlowHashRouting::RouteOutput does
     * \return the device, or null when there is no route
     */
    Ptr<NetDevice> SelectDevice(const FastFrameHeader& h, bool local) const;
    /**
     * \brief Send a frame of the local rank: add `h` in front of `p` and hand it to
     * the chosen device. \return false when there is no route (frame dropped)
     */
    bool Send(Ptr<Packet> p, const FastFrameHeader& h);
    /// \brief Set the receiver of frames addressed to the local rank.
    void SetDeliverCallback(DeliverCallback cb);
    /**
     * \brief Receive the local rank's frames whose flow key names destination port
     * `dstPort` with `cb` instead of the deliver callback, as a UDP socket bound to
     * that port would on the IPv4 path (Checkmate's shadows take their clones so).
     * A null `cb` removes the port's receiver.
     */
    void SetPortDeliverCallback(uint16_t dstPort, DeliverCallback cb);
    /**
     * \brief Bytes waiting to leave by a device of this node: what a switch's egress
     * queue holds for it (ECN marking and adaptive load balancing read it).
     * \param out a device of this node
     * \return bytes in its device queue (0 for a device without one)
     */
    uint64_t GetQueuedBytes(Ptr<NetDevice> out) const;
    /**
     * \brief Send every frame through PFC's egress stage and buffer model (null, the
     * default: frames go straight to NetDevice::Send).
     */
    void SetPriorityFlowControl(Ptr<PriorityFlowControl> pfc);
    /// \return the node's PFC, or null
    Ptr<PriorityFlowControl> GetPriorityFlowControl() const;
    /**
     * \brief Mark ECN-capable frames this node forwards with `marker` (null: no marking,
     * the default).
     */
    void SetEcnMarker(Ptr<EcnMarker> marker);
    /// \return the node's ECN marker, or null
    Ptr<EcnMarker> GetEcnMarker() const;
    /// \return frames forwarded to another node (not counting local sends); on a rank
    /// node, the frames it relayed (counted on arrival, as HostForwardingRouting counts)
    uint64_t GetFramesForwarded() const;

    /**
     * \return frames received and not sent on or delivered yet: with
     * OrderSimultaneousArrivals, those that arrived at this instant, and those waiting
     * in the relay stage (RelayLatency, RelayRate)
     */
    uint32_t GetPendingFrames() const;
    /// \return bytes (FastFrameHeader included) of the frames GetPendingFrames counts
    uint64_t GetPendingBytes() const;

    /// Signature of the Drop trace: the frame, the rank it was going to.
    using DropTracedCallback = void (*)(Ptr<const Packet>, uint32_t);
    /// Signature of the Tx, Forward and Deliver traces: the frame, its destination rank.
    using FrameTracedCallback = void (*)(Ptr<const Packet>, uint32_t);
    /// Signature of the Relay trace: the frame (header on), the time it waits.
    using RelayTracedCallback = void (*)(Ptr<const Packet>, Time);

protected:
    void DoDispose() override;

private:
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> p,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType type);
    /// Forward or deliver one received frame (arrived by device `inIf`).
    void Handle(Ptr<Packet> packet, uint32_t inIf);
    /// Every frame leaves the node here: through PFC when enabled, else to `out` at once.
    void Output(Ptr<Packet> packet, Ptr<NetDevice> out, uint32_t inIf, uint8_t priority);
    /// Handle this instant's frames in device order (OrderSimultaneousArrivals).
    void HandleArrivals();
    /// Relay stage of a rank node: \return how long the frame waits before it leaves.
    Time Relay(Ptr<const Packet> packet);
    /// Send a frame on after its wait in the relay stage.
    void SendRelayed(Ptr<Packet> packet, Ptr<NetDevice> out, uint32_t dstRank, uint32_t inIf);

    uint32_t m_seed{0};
    Ptr<LoadBalancer> m_loadBalancer; //!< attribute LoadBalancer (null: flow hash)
    bool m_ordered{false};            //!< attribute OrderSimultaneousArrivals
    std::vector<std::pair<uint32_t, Ptr<Packet>>> m_arrivals; //!< this instant's frames
    uint32_t m_rank;
    DeferredRankTable<Ptr<NetDevice>> m_next; //!< destination rank -> candidate devices
    DeliverCallback m_deliver;
    std::vector<std::pair<uint16_t, DeliverCallback>> m_portDeliver; //!< by destination port
    Address m_dest; //!< point-to-point devices ignore the destination address
    uint64_t m_forwarded{0};
    Ptr<EcnMarker> m_ecnMarker; //!< marks forwarded ECT frames, or null
    TracedCallback<Ptr<const Packet>, uint32_t> m_dropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_txTrace;      //!< sent by the local rank
    TracedCallback<Ptr<const Packet>, uint32_t> m_forwardTrace; //!< sent on to another node
    TracedCallback<Ptr<const Packet>, uint32_t> m_deliverTrace; //!< to the local transport
    Time m_relayLatency{0};                                     //!< attribute RelayLatency
    DataRate m_relayRate{0};   //!< attribute RelayRate (0: no engine)
    Time m_relayFreeAt{0};     //!< when the relay engine finishes its backlog
    uint32_t m_relayFrames{0}; //!< frames waiting in the relay stage
    uint64_t m_relayBytes{0};  //!< their bytes (FastFrameHeader included)
    TracedCallback<Ptr<const Packet>, Time> m_relayTrace; //!< (frame, wait)
    Ptr<PriorityFlowControl> m_pfc;                       //!< null: PFC off
};

} // namespace ns3

#endif // MLNET_FAST_FORWARDING_H
