// SPDX-License-Identifier: GPL-2.0-only
/*
 * FluidNetwork: the max-min fair fluid at the heart of the flow level and of the twin
 * beside every packet-level run.
 *
 * What it models. Directed links of fixed capacity (bytes per second) carry flows;
 * a flow has a number of bytes to move and the links it crosses, each with a share
 * (1 on a single path; an even ECMP split puts 1/k on each of k branches). Rates are
 * the weighted max-min fair allocation: no link carries more than its capacity
 * (sum over its flows of share x rate), and no flow can go faster without slowing a
 * flow that is no faster than it. It is computed by progressive filling: every
 * unfrozen flow's rate rises together; the link that fills first (the smallest
 * (capacity - frozen load) / unfrozen shares) freezes its flows at that level; repeat.
 * A host's NIC is simply its first link (and the receiver's the last), so sharing a
 * NIC and sharing a switch port are the same rule. Priority flows (a sender NIC's
 * FIFO head, MaxMinTransfers) are filled first on the whole capacity; the others share
 * what they leave (strict priority, two classes).
 *
 * Incremental. A flow's bytes left are kept as (bytes at t0, rate since t0); its end
 * sits in a heap of completion times (entries of an older rate are skipped lazily).
 * A start or an end marks the links it crosses; before the next completion is read,
 * the rates are recomputed for the flows of the connected component of those links
 * only (flows joined by a shared link), which is exact: the max-min allocation of a
 * component depends on nothing outside it. Flows whose rate did not change keep their
 * heap entry. Starts and ends at one instant are batched into one recomputation.
 * Cost per recomputation: O(P log L) for P (flow, link) pairs in the component.
 *
 * What it leaves out. Packets (bytes move as a fluid), queues, losses, congestion
 * control dynamics (the allocation is the fixed point a fair congestion control
 * tends to, reached at once), and the pipeline latency of a message (its owner adds
 * it after the last byte has left: see TimelineReplay and FluidMessageTransport).
 */
#ifndef MLNET_FLUID_NETWORK_H
#define MLNET_FLUID_NETWORK_H

#include "ns3/slot-pool.h"

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace ns3
{

class PackedRoute;

/**
 * \brief Max-min fair fluid sharing of directed links by flows (see the file comment).
 *
 * Times are seconds (doubles) from an origin the owner chooses; the owner tells the
 * network the time of every start and completion, which never goes backwards.
 */
class FluidNetwork
{
public:
    /// (directed link key, share of the flow's rate it carries), one entry per link
    using LinkShares = std::vector<std::pair<uint32_t, double>>;

    /// Times within this of each other are simultaneous (s).
    static constexpr double kTie = 1e-13;

    /**
     * \param capacity per directed link key, its capacity (bytes per second, > 0 for
     *        every link a flow crosses)
     */
    explicit FluidNetwork(std::vector<double> capacity);

    /**
     * \brief Start a flow now.
     * \param now the current time; a time before the last start or completion (an
     *        owner's rounding) is taken as that time
     * \param bytes bytes to move (> 0)
     * \param links the links it crosses with their shares (each key once, share > 0)
     * \param priority served before the other flows on every link (strict priority:
     *        the others share what priority flows leave); a sender NIC's FIFO head
     * \return its handle, valid until it completes (handles are reused afterwards)
     */
    uint32_t Start(double now, double bytes, const PackedRoute& links, bool priority = false);
    /// \copydoc Start(double,double,const PackedRoute&,bool)
    uint32_t Start(double now, double bytes, const LinkShares& links, bool priority = false);

    /**
     * \brief The time the next flow completes, after recomputing the rates that the
     * starts and completions since the last call changed.
     * \return that time, or +infinity when no flow is active
     */
    double NextCompletion();

    /**
     * \return the earliest completion at the rates of the last recomputation, without
     * recomputing (one at or before now is due whatever started since)
     */
    double PendingCompletion();

    /**
     * \brief Complete every flow ending within kTie of t (t = NextCompletion(), or a
     * due PendingCompletion()).
     * \return their handles in start order (valid until the next call)
     */
    const std::vector<uint32_t>& Complete(double t);

    /// \return the flow's current rate (bytes per second; 0 until rates are computed, or
    /// while priority flows take all of its bottleneck)
    double GetRate(uint32_t flow) const;
    /// \return the flow's bytes left at time t (>= the time of its last rate change)
    double GetBytesLeft(uint32_t flow, double t) const;
    /// \return flows started and not completed
    uint32_t GetActiveFlows() const;
    /// \return rate recomputations so far (one per batch of starts and completions)
    uint64_t GetRecomputations() const;
    /// \return flows whose rate was recomputed, summed over the recomputations
    uint64_t GetFlowsRecomputed() const;

private:
    /// A flow in flight (a slot, reused).
    /// One link a flow crosses: 16 bytes, the size of a (key, share) pair with its
    /// padding, which holds the flow's place in the link's list (no vector of places)
    struct Hop
    {
        uint32_t key;      //!< directed link key
        uint32_t position; //!< the flow's index in that link's list of flows
        double share;      //!< share of the flow's rate the link carries
    };

    struct Flow
    {
        std::vector<Hop> hops; //!< the links it crosses (capacity kept when the slot is reused)
        double left{0};        //!< bytes left at t0
        double t0{0};
        double rate{0};
        double end{0};
        double newRate{0};   //!< scratch of the recomputation
        uint64_t order{0};   //!< start order: simultaneous completions in it
        uint32_t version{0}; //!< bumped when `end` changes: older heap entries are stale
        uint32_t seen{0};    //!< recomputation epoch that reached it
        bool frozen{false};  //!< scratch of the recomputation
        bool priority{false};
        bool active{false};
    };

    /// A directed link: its flows and the recomputation's scratch.
    struct Link
    {
        std::vector<uint32_t> flows; //!< active flows crossing it
        double remaining{0};         //!< scratch: capacity not yet given to frozen flows
        double weight{0};            //!< scratch: shares of its unfrozen flows
        uint32_t unfrozen{0};        //!< scratch: its flows not yet frozen
        uint32_t version{0};         //!< scratch: bumped when its level changes
        uint32_t seen{0};            //!< recomputation epoch that reached it
        uint32_t touched{0};         //!< scratch: epoch it was last put in m_touched
        bool dirty{false};
    };

    /// A heap entry: a flow's end, or a link's fill level.
    struct Entry
    {
        double t;
        uint32_t index;
        uint32_t version;

        bool operator>(const Entry& o) const
        {
            return t > o.t;
        }
    };

    using MinHeap = std::priority_queue<Entry, std::vector<Entry>, std::greater<>>;

    void MarkDirty(uint32_t key);
    void Recompute();
    void CollectComponent();
    void FillProgressively();
    /// Progressive filling of one class of the component's flows on what is left.
    void FillClass(bool priority);

    std::vector<double> m_capacity;
    std::vector<Link> m_links;
    SlotPool<Flow> m_flows;
    std::vector<uint32_t> m_dirty;     //!< links whose flows changed since the last recompute
    std::vector<uint32_t> m_compFlows; //!< scratch: the component's flows
    std::vector<uint32_t> m_compLinks; //!< scratch: the component's links
    std::vector<uint32_t> m_completed; //!< the last Complete's flows
    std::vector<uint32_t> m_touched;   //!< scratch: links whose level changed
    std::vector<Entry> m_ends;         //!< flows' ends: a min-heap (std::push_heap), stale ones too
    uint32_t m_epoch{0};
    uint32_t m_active{0};
    uint64_t m_order{0};
    uint64_t m_recomputations{0};
    uint64_t m_flowsRecomputed{0};
    double m_now{0};
};

} // namespace ns3

#endif // MLNET_FLUID_NETWORK_H
