// SPDX-License-Identifier: GPL-2.0-only
/*
 * FluidTransfers: messages' wire bytes as fluid transfers over directed links of fixed
 * capacity -- the engine of the twin's replay (TimelineReplay) and of the flow level
 * (FluidMessageTransport), which both move their messages through one of these, so
 * both see the same sharing. A transfer starts when its message is sent and ends when
 * its last byte has left the fabric's queues; its owner adds the pipeline latency.
 *
 * Two sharing disciplines, one per kind of transport (FluidSharing):
 *
 *   LineRateTransfers  senders that do not slow down for the network (the UDP
 *                      transport; the RDMA transport, whose DCQCN does not act within
 *                      the time of a collective's messages): the sender NIC's FIFO of B
 *                      packets and round-robin decide every rate; a link offered more
 *                      than its rate builds a FIFO backlog that each message crossing it
 *                      waits out. Messages leave a congested port in arrival order.
 *   MaxMinTransfers    congestion-controlled senders (TCP, DCTCP): rates max-min fair
 *                      over every link (FluidNetwork), the NIC's FIFO head first.
 *
 * The files of each say what it models and what it leaves out.
 *
 * Buffers. Where a discipline builds backlogs (line rate), each directed link may be
 * given the bytes its transmitting port can queue (SetBuffers). Beside the unbounded
 * backlog, each link keeps the backlog a port of that size would hold, and the bytes
 * that would not fit (GetLinkQueue): what a packet-level run drops there, or holds back
 * by PFC on a lossless fabric, on the fluid's rates. Two modes:
 *   counted  (the default; the twin's) the unbounded backlogs time the messages and no
 *            transfer loses anything: the bytes over are only counted;
 *   dropped  (SetBuffers' drop, per port; the flow level standing in for a lossy
 *            transport, at switch ports) a full port drops what it cannot queue, tail drop: every
 *            transfer offered to it loses the fraction (offered - rate) / offered of
 *            what it offers while the port is full (GetLost), and a transfer waits only
 *            the bounded backlog there. Its owner repairs the loss.
 * Max-min rates never exceed a link's capacity: no backlog, nothing over.
 */
#ifndef MLNET_FLUID_TRANSFERS_H
#define MLNET_FLUID_TRANSFERS_H

#include "ns3/fluid-network.h"
#include "ns3/packed-route.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// How transfers share links (see the file comment).
enum class FluidSharing
{
    LINE_RATE, //!< senders at their NIC share, FIFO backlogs at congested links
    MAX_MIN    //!< max-min fair over every link
};

/// \return "line-rate" or "max-min"
std::string ToString(FluidSharing sharing);

/**
 * \brief Messages' wire bytes as fluid transfers (see the file comment).
 */
class FluidTransfers
{
public:
    /// A transfer that ended: its handle and when its last byte left (s).
    struct Ended
    {
        uint32_t transfer;
        double end;
    };

    /**
     * \brief The transfers of a sharing discipline.
     * \param sharing line-rate or max-min
     * \param capacity per directed link key, its capacity (bytes per second)
     * \param nicBacklogPackets B, packets of a sender NIC's FIFO (0: none)
     */
    static std::unique_ptr<FluidTransfers> Create(FluidSharing sharing,
                                                  std::vector<double> capacity,
                                                  uint32_t nicBacklogPackets);

    virtual ~FluidTransfers() = default;

    /**
     * \brief Start a message's transfer now.
     * \param now the current time (s; a time before the last one is taken as that one;
     *        no later than PendingEnd(): the owner ends what is due first)
     * \param wire its wire bytes W (> 0)
     * \param packets its packets n (> 0)
     * \param route the links it crosses with their shares, its sender's links first
     * \param senderLinks how many of them leave the sender (its NIC links, >= 1)
     * \return its handle, valid until Advance returns it (handles are reused)
     */
    virtual uint32_t Start(double now,
                           double wire,
                           uint64_t packets,
                           const FluidNetwork::LinkShares& route,
                           uint32_t senderLinks) = 0;

    /// \return when the next change happens (a head leaves, a transfer's last byte
    /// leaves its NIC), after updating what the starts and ends since the last call
    /// changed; +infinity when nothing moves
    virtual double NextEnd() = 0;

    /**
     * \return the earliest end at the rates of the last update, without updating them:
     * one at or before the owner's clock is due whatever was started since (an owner
     * whose clock is rounded ends it before starting more; see FluidMessageTransport)
     */
    virtual double PendingEnd() = 0;

    /**
     * \brief Everything ending within FluidNetwork::kTie of t (t = NextEnd() or a due
     * PendingEnd()) ends.
     * \return the transfers that ended, in start order, with the time their last byte
     * left (t, or later when it still waits behind a backlog); valid until the next call
     */
    virtual const std::vector<Ended>& Advance(double t) = 0;

    /**
     * \return the route a transfer was started with (its directed links and shares),
     * for a transfer in flight or one Advance just ended (until the next Start)
     * \param handle the transfer's handle
     */
    virtual const PackedRoute& GetRoute(uint32_t handle) const = 0;
    /// \return transfers started and not ended
    virtual uint32_t GetActive() const = 0;

    /// One directed link's backlog figures over the run so far.
    struct LinkQueue
    {
        double peakBacklog{0}; //!< largest FIFO backlog the fluid built (bytes, unbounded)
        double overflow{0};    //!< bytes a port of the link's buffer could not have queued
    };

    /**
     * \brief Give every directed link the bytes its transmitting port can queue (see the
     * file comment); without a call (or for +infinity) a link's buffer is unbounded.
     * Call before the first Start. The default ignores it (no backlogs).
     * \param bytes per directed link key, its buffer (bytes, >= 0)
     * \param drop per directed link key, true where a full port drops what it cannot
     * queue (transfers lose it, GetLost, and wait only its bounded backlog); empty or
     * false: the overflow is only counted
     */
    virtual void SetBuffers(std::vector<double> bytes, std::vector<bool> drop = {});
    /**
     * \param handle a transfer Advance just ended (until the next Start)
     * \return the wire bytes it lost at full ports (SetBuffers with drop; 0 otherwise),
     * at most its wire bytes
     */
    virtual double GetLost(uint32_t handle) const;

    /// What a transfer left on the route SetRoute took it off.
    struct Moved
    {
        double left{-1}; //!< wire bytes it had not sent (negative: not moved)
        double lost{0};  //!< wire bytes it lost at full ports of that route so far
    };

    /**
     * \brief Move an active transfer onto another route at t, the owner having ended
     * every transfer due by t (the routes around a failed link took effect). It goes on
     * in place: same bytes, same rate, and, where the new route leaves by the same
     * sender links, its place at its NIC (a head in the FIFO stays there); from t the
     * old route's links lose its offered load and the new one's gain it, and its wait at
     * the end is the new route's. Its losses (GetLost) start anew on the new route.
     * \param handle the transfer (IsSending)
     * \param t the time (s)
     * \param route its new directed links and shares
     * \param senderLinks how many of them, first, leave its sender
     * \return what it left on the old route; left negative (nothing done) where
     *         transfers cannot be moved: the default, and max-min sharing
     */
    virtual Moved SetRoute(uint32_t handle,
                           double t,
                           const FluidNetwork::LinkShares& route,
                           uint32_t senderLinks);
    /// \return true while a transfer is sending (started, not ended or stopped); the
    /// default: false
    virtual bool IsSending(uint32_t handle) const;
    /**
     * \param key a directed link key
     * \return its backlog figures up to the latest time given to Start or Advance
     * (default: none)
     */
    virtual LinkQueue GetLinkQueue(uint32_t key) const;
    /// \return rate recomputations so far
    virtual uint64_t GetRecomputations() const = 0;
    /// \return transfers whose rate was recomputed, summed over the recomputations
    virtual uint64_t GetFlowsRecomputed() const = 0;
};

} // namespace ns3

#endif // MLNET_FLUID_TRANSFERS_H
