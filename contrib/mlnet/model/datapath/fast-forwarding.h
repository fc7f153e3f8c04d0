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
 * flow takes the path it takes on the IPv4 path. The switch queue is the
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
 * Left out: TTL (tables are loop-free), ECN marking (needs a queue disc; fast
 * fabrics refuse SetSwitchEcn), multicast, anything but unicast to a rank.
 */
#ifndef MLNET_FAST_FORWARDING_H
#define MLNET_FAST_FORWARDING_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/fast-frame-header.h"
#include "ns3/net-device.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/rank-table.h"
#include "ns3/traced-callback.h"

#include <utility>
#include <vector>

namespace ns3
{

class Node;

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
    /// \return the table (its sets and runs: what the node's forwarding state costs)
    const RankTable<Ptr<NetDevice>>& GetTable() const;
    /// \return candidate output devices towards a rank (empty: none)
    const std::vector<Ptr<NetDevice>>& GetDevices(uint32_t rank) const;
    /**
     * \brief The device a frame leaves by.
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
    /// \return frames forwarded to another node (not counting local sends)
    uint64_t GetFramesForwarded() const;

    /**
     * \return frames received and not handled yet: with OrderSimultaneousArrivals,
     * those that arrived at this instant (always 0 otherwise)
     */
    uint32_t GetPendingFrames() const;
    /// \return bytes (FastFrameHeader included) of the frames GetPendingFrames counts
    uint64_t GetPendingBytes() const;

    /// Signature of the Drop trace: the frame, the rank it was going to.
    using DropTracedCallback = void (*)(Ptr<const Packet>, uint32_t);
    /// Signature of the Tx, Forward and Deliver traces: the frame, its destination rank.
    using FrameTracedCallback = void (*)(Ptr<const Packet>, uint32_t);

protected:
    void DoDispose() override;

private:
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> p,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType type);
    /// Forward or deliver one received frame.
    void Handle(Ptr<Packet> packet);
    /// Handle this instant's frames in device order (OrderSimultaneousArrivals).
    void HandleArrivals();

    uint32_t m_seed{0};
    bool m_ordered{false}; //!< attribute OrderSimultaneousArrivals
    std::vector<std::pair<uint32_t, Ptr<Packet>>> m_arrivals; //!< this instant's frames
    uint32_t m_rank;
    RankTable<Ptr<NetDevice>> m_next; //!< destination rank -> candidate devices
    DeliverCallback m_deliver;
    Address m_dest; //!< point-to-point devices ignore the destination address
    uint64_t m_forwarded{0};
    TracedCallback<Ptr<const Packet>, uint32_t> m_dropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_txTrace;      //!< sent by the local rank
    TracedCallback<Ptr<const Packet>, uint32_t> m_forwardTrace; //!< sent on to another node
    TracedCallback<Ptr<const Packet>, uint32_t> m_deliverTrace; //!< to the local transport
};

} // namespace ns3

#endif // MLNET_FAST_FORWARDING_H
