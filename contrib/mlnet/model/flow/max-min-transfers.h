// SPDX-License-Identifier: GPL-2.0-only
/*
 * MaxMinTransfers: the max-min discipline of FluidTransfers (fluid-transfers.h), for
 * congestion-controlled senders: the sender NIC's FIFO in front of the max-min fluid
 * (FluidNetwork).
 *
 * What it models. The UDP and RDMA transports feed a NIC from a FIFO of at most
 * B packets (MaxBacklogPackets), refilled round-robin from the messages active on
 * that NIC. A message issued while the FIFO has room and no round-robin message is
 * waiting puts its first packets (up to the room) in it at once: this head leaves
 * before the round-robin traffic, after the heads queued before it (FIFO). In the
 * fluid, the head at the front of a NIC's FIFO is a priority flow (served first on
 * every link: FluidNetwork's strict priority) and the heads behind it wait; the rest
 * of every message is an ordinary flow from the start, sharing max-min fairly what
 * the heads leave. A message issued while round-robin messages are waiting on its NIC
 * has no head. A message split by ECMP over several links of its sender, or when B is
 * 0, has no head either. A transfer ends when its last byte has left (head and rest).
 * For messages of more than a few packets the head is a small correction; for
 * messages of the order of B packets it decides which message leaves first (a
 * broadcast's scatter followed by its ring, for instance).
 *
 * What it leaves out. The B packets of round-robin traffic that a new message finds
 * queued before it (it starts sharing at once); everything FluidNetwork leaves out.
 */
#ifndef MLNET_MAX_MIN_TRANSFERS_H
#define MLNET_MAX_MIN_TRANSFERS_H

#include "ns3/fluid-transfers.h"
#include "ns3/slot-pool.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief Messages' wire bytes through the sender NIC's FIFO and the max-min fluid.
 */
class MaxMinTransfers : public FluidTransfers
{
public:
    /**
     * \param capacity per directed link key, its capacity (bytes per second)
     * \param nicBacklogPackets B, packets of a sender NIC's FIFO (0: no heads)
     */
    MaxMinTransfers(std::vector<double> capacity, uint32_t nicBacklogPackets);

    uint32_t Start(double now,
                   double wire,
                   uint64_t packets,
                   const FluidNetwork::LinkShares& route,
                   uint32_t senderLinks) override;
    double NextEnd() override;
    double PendingEnd() override;
    const std::vector<Ended>& Advance(double t) override;
    const PackedRoute& GetRoute(uint32_t handle) const override;
    uint32_t GetActive() const override;
    uint64_t GetRecomputations() const override;
    uint64_t GetFlowsRecomputed() const override;

private:
    static constexpr uint32_t kNone = UINT32_MAX;

    /// One message's transfer (a slot, reused).
    struct Transfer
    {
        PackedRoute route;
        uint64_t order{0};
        uint32_t nic{kNone};      //!< its one sender link, or kNone
        double head{0};           //!< head bytes (0: none)
        double headPackets{0};    //!< head packets
        double perPacket{0};      //!< W / n
        uint32_t headFlow{kNone}; //!< the head's flow while it is in the fluid
        uint32_t pending{0};      //!< its flows (or queued head) not yet ended
        bool inRoundRobin{false}; //!< counted in its NIC's round-robin messages
        bool active{false};
    };

    /// A sender NIC link with a FIFO.
    struct Nic
    {
        std::deque<uint32_t> fifo; //!< transfers whose head is queued; the front is moving
        uint32_t roundRobin{0};    //!< transfers past their head with bytes still to send
    };

    /// Which transfer a flow belongs to, and whether it is that transfer's head.
    struct Owner
    {
        uint32_t transfer{kNone};
        bool head{false};
    };

    void StartHead(double now, uint32_t slot);
    void FlowEnded(double t, const Owner& owner);

    FluidNetwork m_net;
    uint32_t m_backlog;
    SlotPool<Transfer> m_transfers;
    std::unordered_map<uint32_t, Nic> m_nics; //!< by directed link key
    std::vector<Owner> m_owner;               //!< by FluidNetwork handle
    std::vector<Owner> m_flowsEnded;          //!< scratch
    std::vector<uint32_t> m_done;             //!< scratch: the transfers that ended
    std::vector<Ended> m_ended;               //!< the last Advance's transfers
    uint32_t m_active{0};
    uint64_t m_order{0};
};

} // namespace ns3

#endif // MLNET_MAX_MIN_TRANSFERS_H
