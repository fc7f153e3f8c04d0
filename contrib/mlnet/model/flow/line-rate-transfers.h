// SPDX-License-Identifier: GPL-2.0-only
/*
 * LineRateTransfers: the line-rate discipline of FluidTransfers (fluid-transfers.h), for
 * senders that do not slow down for the network: the UDP transport, and the RDMA
 * transport, whose DCQCN does not act within a collective's messages (measured: the
 * same times as UDP at packet level).
 *
 * What it models. The transports' NIC scheduler: a FIFO of at most B packets
 * (MaxBacklogPackets) filled round-robin from the messages active on a NIC. A message
 * issued while the FIFO has room (and no round-robin message waits) puts its first
 * packets (up to the room) in it at once: this head leaves at the NIC's full rate,
 * after the heads queued before it. The rest of every message is round-robin: rate =
 * R / (sum of the round-robin shares on the link), nothing while a head is queued. A
 * message issued while the FIFO is full of round-robin traffic waits for those B
 * packets (they become heads of their messages). A message that ECMP splits over
 * several links of its sender has no head and is round-robin on each.
 *
 * Beyond the NIC, senders never slow down: a message offers its NIC rate x its ECMP
 * share to every link of its route, its sender's own link included (a rank that
 * forwards traffic sends its own messages on the same links). A link offered more
 * than its rate builds a FIFO backlog Q (fluid, dQ/dt = offered - rate while Q > 0);
 * a message whose last byte leaves its NIC at t ends when the largest Q(t)/rate over
 * the links of its route has drained: bytes leave a congested port in the order they
 * came, so a message that arrived first leaves first.
 *
 * Buffers (SetBuffers). Beside each unbounded backlog Q, a link keeps Qb, the backlog
 * of a port that queues at most b bytes (dQb/dt = offered - rate, held in [0, b]),
 * and the bytes offered while Qb = b: what that port drops (tail drop) or, under PFC,
 * holds back. Exact for the fluid's offered loads, which are piecewise constant.
 *
 * Drops (SetBuffers' drop, per port). While Qb = b a port that drops drops the fraction
 * p = (offered - rate) / offered of what arrives, from every transfer alike (tail
 * drop of a fluid): a link keeps P = the integral of p over time, and a transfer whose
 * rate x share on that link was constant from t1 to t2 loses x share (P(t2) - P(t1))
 * there. The transfers' losses on a link add up to its overflow. A transfer loses the
 * largest of its losses at the ports of its route, not their sum, for the reason its
 * wait is the largest backlog (below): the offered loads behind a full port overstate
 * what reaches them (summed, a transfer through four full ports of a 3-tier fat-tree
 * lost more than its bytes). A transfer then waits
 * Qb / rate there, not Q / rate (what was dropped does not queue).
 *
 * What it leaves out. Packet interleaving (fluid); PFC pauses; with drops, what a
 * transfer loses at one link is still offered to the links after it, a transfer
 * through two ports full of different traffic loses only the larger loss, and a port's
 * losses are spread over its transfers in proportion to their rates (a packet port
 * drops whole frames of the ones arriving while it is full). The offered loads are NIC
 * rates, so a link behind a congested one is over-estimated (hence the largest wait on
 * a route, not the sum).
 *
 * Cost. Rates depend only on the sender's NIC links, so a start, a head leaving or an
 * end recomputes only the transfers on the touched NIC links; a changed rate moves its
 * links' offered loads by the difference, after taking each backlog at that instant.
 * Per event: O(transfers on those NIC links x route length + log active). A head
 * whose end would change no rate (its transfer alone on its NIC: its rest leaves at the
 * same rate) is not an event: the transfer has one phase end, its rest's, until another
 * transfer joins the NIC (SplitMerged gives the head's end back then). Drops add
 * nothing until a port has dropped; from then on a transfer changing rate or ending
 * takes its losses at its route's ports (O(route length)) and keeps 16 bytes per link
 * of its route.
 */
#ifndef MLNET_LINE_RATE_TRANSFERS_H
#define MLNET_LINE_RATE_TRANSFERS_H

#include "ns3/block-store.h"
#include "ns3/fluid-transfers.h"
#include "ns3/packed-route.h"
#include "ns3/slot-pool.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \brief Line-rate senders, FIFO backlogs at congested links (see the file comment).
 */
class LineRateTransfers : public FluidTransfers
{
public:
    /**
     * \param capacity per directed link key, its capacity (bytes per second)
     * \param nicBacklogPackets B, packets of a sender NIC's FIFO (0: round-robin only)
     */
    LineRateTransfers(std::vector<double> capacity, uint32_t nicBacklogPackets);

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
    Moved SetRoute(uint32_t handle,
                   double t,
                   const FluidNetwork::LinkShares& route,
                   uint32_t senderLinks) override;
    bool IsSending(uint32_t handle) const override;
    uint64_t GetRecomputations() const override;
    uint64_t GetFlowsRecomputed() const override;
    void SetBuffers(std::vector<double> bytes, std::vector<bool> drop) override;
    double GetLost(uint32_t handle) const override;
    LinkQueue GetLinkQueue(uint32_t key) const override;

private:
    static constexpr uint32_t kNone = UINT32_MAX;

    /// A transfer in flight (a slot, reused): its route and fluid state.
    struct Flow
    {
        uint64_t order{0};    //!< start order: ties are handled in it
        uint64_t packets{0};  //!< n
        double wire{0};       //!< W, wire bytes per link
        double head{0};       //!< wire bytes of its head still in the NIC FIFO, at t0
        double rest{0};       //!< wire bytes still to send round-robin, at t0
        double t0{0};         //!< when head and rest were taken
        double rate{0};       //!< current NIC rate (wire bytes per second)
        PackedRoute route;    //!< its directed links and shares
        uint32_t nicCount{0}; //!< route links [0, nicCount) leave the sender
        uint32_t nic{kNone};  //!< its only first-hop link key (kNone when split)
        uint32_t version{0};  //!< bumped when its phase end changes: older heap entries are stale
        bool active{false};
        bool phaseChanged{false}; //!< head or rest reset: `end` must be recomputed
        bool marked{false};       //!< in the rate update's list
        /// its phase end in m_ends is its rest's: the head's end, which changes nothing
        /// while the NIC carries it alone, is not an event (SplitMerged makes it one)
        bool merged{false};
    };

    /// A sender NIC's directed link.
    struct Nic
    {
        std::vector<uint32_t> flows; //!< active transfers with this first hop, in start order
        std::deque<uint32_t> fifo;   //!< transfers whose head is queued
        double weight{0};            //!< round-robin shares of its transfers without a head
        bool touched{false};         //!< in m_touched
    };

    /// A directed link's offered load and FIFO backlog.
    struct Load
    {
        double offered{0}; //!< wire bytes per second offered by the transfers crossing it
        double queue{0};   //!< FIFO backlog (bytes) at qTime
        double qTime{0};
        double bounded{0};  //!< the backlog of a port of the link's buffer, at qTime
        double overflow{0}; //!< bytes that port could not have queued, up to qTime
        double dropped{0};  //!< P: the integral of the drop fraction over time, to qTime
        double peak{0};     //!< largest queue so far (at a change of offered load)
        uint32_t flows{0};  //!< active transfers crossing it
        bool drops{false};  //!< a full port drops (SetBuffers)
    };

    /// A transfer that ended leaves its NIC links, and its slot is retired (its offered
    /// loads leave at the next rate update).
    void Retire(const Flow& f, uint32_t slot);
    /// A transfer leaves the lists of its NIC links (they are touched).
    void LeaveNics(const Flow& f, uint32_t slot);
    /// A transfer's offered load leaves the links of its route (each taken at now first).
    void LeaveLinks(const Flow& f);
    /// A link's load carried from its qTime to t (offered load constant between).
    void Carry(Load& d, uint32_t key, double t) const;
    /// \return a link's load carried from qTime to t, the link's own left as it is
    Load LoadAt(uint32_t key, double t) const;

    /// A transfer's phase end, as computed at its last rate change.
    /// A phase's end in the heap m_ends; popped into a batch (Advance), its flow's start
    /// order instead of its time.
    struct PhaseEnd
    {
        union {
            double t;
            uint64_t order;
        };

        uint32_t flow;
        uint32_t version;

        bool operator>(const PhaseEnd& o) const
        {
            return t > o.t;
        }
    };

    /// Push a phase end into m_ends, its stale entries dropped first when the vector
    /// would grow and at least a quarter are stale.
    void PushEnd(const PhaseEnd& e);
    /// Drop m_ends' stale entries (ended transfers', older versions') and re-heap it.
    void DropStaleEnds();
    void AdmitToNicFifo(uint32_t slot);
    /// \return whether a transfer whose head leads its NIC's FIFO at \p rate may end its
    /// head and rest as one phase: the NIC carries nothing else, and its rest would leave
    /// at the same rate to the bit
    bool MayMerge(const Flow& f, uint32_t slot, double rate) const;
    /// A NIC link's transfer with a merged phase (a transfer or a route is about to join
    /// the NIC) gets its head's end back: the head's end is taken where it is past, else
    /// its phase end is recomputed at the next rate update.
    void SplitMerged(uint32_t nicKey);
    /// A transfer's phase is its own again (m_merged counts one fewer if it was merged).
    void ClearMerged(Flow& f);
    void Settle(Flow& f) const;
    void UpdateRates();
    double NewRate(const Flow& f, uint32_t slot) const;
    void Rebase(uint32_t key);
    void Touch(uint32_t nicKey);
    Nic& NicOf(uint32_t key);
    void FinishTransfer(Flow& f, uint32_t slot);
    /// A transfer's losses at full ports up to now, at the rate it had since its last
    /// call (drop mode; its route's loads taken at now first)
    void TakeLosses(const Flow& f, uint32_t slot);

    /// A transfer's losses at one full port of its route (drop mode).
    struct Loss
    {
        double mark{0}; //!< the port's P at the transfer's last rate change
        double lost{0}; //!< wire bytes lost there so far
    };

    /// A transfer's losses: a run of m_lossPool, one Loss per dropping port of its
    /// route in route order.
    struct LossRun
    {
        uint32_t first{kNone}; //!< its first record (kNone: no record yet)
        uint32_t size{0};      //!< the dropping ports of its route
    };

    /// \return a transfer's losses record, made (all 0) when it has none
    LossRun LossesOf(const Flow& f, uint32_t slot);
    /// A transfer's losses record is freed for reuse (it has none after).
    void FreeLosses(uint32_t slot);

    std::vector<double> m_capacity;
    std::vector<double> m_buffer; //!< per directed key, bytes its port queues (SetBuffers)
    bool m_dropped{false};        //!< some port has dropped: losses are kept from then
    /// by slot, once a port has dropped (m_dropped; none before, and for a transfer that
    /// has not changed rate since): 8 bytes a transfer and 16 a dropping port of its
    /// route, where a vector each took 24 and a heap block (a million transfers lose
    /// frames in a 1024-rank direct all-to-all of 1 MiB)
    std::vector<LossRun> m_lossRuns;
    BlockStore<Loss> m_lossPool;                   //!< the runs' records
    std::vector<std::vector<uint32_t>> m_lossFree; //!< by run size: freed runs' first records
    uint32_t m_lossEnd{0};                         //!< the pool's records in use or freed
    uint32_t m_backlog;
    SlotPool<Flow> m_flows;
    uint32_t m_activeFlows{0};
    uint32_t m_merged{0}; //!< transfers with a merged phase (Flow::merged)
    uint64_t m_startOrder{0};
    std::vector<uint32_t> m_nicOf; //!< per directed key: its index in m_nics, or kNone
    std::vector<Nic> m_nics;
    std::vector<Load> m_load;        //!< per directed key
    std::vector<uint32_t> m_touched; //!< NIC keys whose transfers' rates must be recomputed
    std::vector<uint32_t> m_retired; //!< transfers ended since the last rate update
    /// scratch: (start order, slot) of the transfers whose phase ends together
    std::vector<uint32_t> m_update; //!< scratch: transfers whose rate is recomputed
    std::vector<Ended> m_ended;     //!< the last Advance's transfers
    std::vector<PhaseEnd> m_ends;   //!< a min-heap (std::push_heap) of phase ends, stale ones too
    bool m_dirty{false};            //!< rates must be updated
    double m_now{0};
    uint64_t m_rateUpdates{0};
    uint64_t m_flowsUpdated{0};
};

} // namespace ns3

#endif // MLNET_LINE_RATE_TRANSFERS_H
