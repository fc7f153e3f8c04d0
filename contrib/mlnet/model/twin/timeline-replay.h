// SPDX-License-Identifier: GPL-2.0-only
/*
 * TimelineReplay: the dependency-aware fluid replay of a collective's schedule, the
 * engine of AlphaBetaModel::Predict / PredictTimeline.
 *
 * What it models. It replays the algorithm's dependencies (ScheduledMessage
 * chain/step/reduce, the StepwiseCollective engine's rule): a message starts when its
 * sender has received (and reduced, gamma x bytes, one reduction at a time per rank)
 * every message of the earlier steps of its chain. The bytes of the messages in
 * flight are FluidTransfers (fluid-transfers.h): each message's wire bytes W(m) over
 * the links of its route, behind its sender NIC's FIFO as the packet transports feed
 * it (a head of up to NicBacklogPackets packets first), sharing the links as the
 * transport's senders do (line rate with FIFO backlogs at congested links, or max-min
 * fair; a rank's own traffic and the traffic it forwards share its links alike). A message's last
 * byte arrives its own route's pipeline latency L + PerMessageOverhead after it has left. The
 * collective ends when its last rank has finished. Exact for a single message on an idle path
 * (T_msg), and for a ring on an ideal switch (equal to the lock-step value up to its
 * per-step rounding).
 *
 * What it leaves out. Packets and their interleaving (sharing is fluid and reaches
 * its max-min fixed point at once: the UDP transport's senders do not slow down for a
 * congested downstream link, they queue there; the RDMA transport's DCQCN converges
 * towards the fair share), queues and their delay, losses, congestion-control
 * dynamics, retransmissions, PFC pauses.
 */
#ifndef MLNET_TIMELINE_REPLAY_H
#define MLNET_TIMELINE_REPLAY_H

#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/flow-key.h"
#include "ns3/fluid-transfers.h"
#include "ns3/nstime.h"
#include "ns3/packetization.h"
#include "ns3/stepwise-collective.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RoutePlanner;

/**
 * \brief The dependency-aware model's account of one message.
 */
struct MessageTiming
{
    ScheduledMessage message; //!< the message (step resolved: never kStepOfSchedule)
    uint32_t scheduleStep{0}; //!< index of its CollectiveStep in the schedule
    Time start;               //!< its sender issued it (prerequisites arrived and reduced)
    Time transferEnd;         //!< its last wire byte left (the end of its fluid transfer)
    Time arrival;             //!< its last byte reached the receiver (+ latency + overhead)
    Time latency;             //!< its pipeline latency (h-1)*F1*8/R + h*d
    uint32_t hops{0};         //!< hops of its route
};

/**
 * \brief The dependency-aware model's account of a whole schedule.
 */
struct TimelinePrediction
{
    Time total;                          //!< time the last rank finished (from 0)
    std::vector<MessageTiming> messages; //!< per message, in schedule order
    std::vector<Time> rankFinish;        //!< per rank of the cluster: it finished its chains (with
                                         //!< the messages only: O(ranks) per prediction else)
    uint64_t rateUpdates{0};             //!< fluid events (rate recomputations)
    uint64_t flowsRecomputed{0};         //!< flows whose rate was recomputed, summed
};

/**
 * \brief One dependency-aware replay of a schedule on a routed fabric (see file comment).
 *
 * Built by AlphaBetaModel for one prediction: it takes the model's link capacities, and
 * asks the model for every message's route, hops and pipeline latency.
 *
 * Cost. A message is routed when it starts and forgotten when it arrives; the fluid
 * recomputes only the component of flows that share a link with a start or an end
 * (FluidNetwork). Memory: the schedule's index (three words per message: its step, its
 * places by sender and by receiver) plus O(active messages + links + ranks); every
 * message's timing only when asked for (Run's keepMessages). A schedule much smaller
 * than the fabric (fewer than 1/16 as many messages as ranks, or as directed links)
 * indexes only the ranks and links it uses, so that the many small predictions of a
 * large iteration (a send, an HB domain's all-reduce) cost what they hold; the renaming
 * keeps the order, and the results are those of indexing the whole fabric. A
 * StepwiseCollective's program can be replayed without its schedule (Run(program)):
 * each member's step is generated when the member enters it, with the same results.
 */
class TimelineReplay
{
public:
    /// Hops of a message's route (0 to itself or empty); throws std::invalid_argument
    /// if a rank is out of range or the destination unreachable.
    using HopsFunction = std::function<uint32_t(const ScheduledMessage& message)>;
    /// Pipeline latency L (s) from rank src to rank dst of a first frame of f1 bytes, for
    /// a message taking `route` (as the RouteFunction gave it).
    using LatencyFunction = std::function<
        double(uint32_t src, uint32_t dst, uint64_t f1, const FluidNetwork::LinkShares& route)>;
    /// Route from rank src to rank dst (src != dst): replaces shares with (directed link
    /// key = 2 * link id + direction, ECMP share), each link once, the links leaving the
    /// sender (its NIC) first, and returns how many leave the sender (at least one).
    using RouteFunction =
        std::function<uint32_t(uint32_t src, uint32_t dst, FluidNetwork::LinkShares& shares)>;

    /// What the replay takes from the model's attributes.
    struct Parameters
    {
        double reductionTimePerByte{0}; //!< gamma (s/B)
        double perMessageOverhead{0};   //!< software alpha added to every delivery (s)
        uint32_t nicBacklogPackets{8};  //!< packets of a sender NIC's FIFO (0: no heads)
        FluidSharing sharing{FluidSharing::LINE_RATE}; //!< how transfers share links
    };

    /**
     * \brief Take the links' capacities; they and the packetization must outlive the
     *        replay.
     * \param nRanks ranks of the fabric
     * \param capacity per directed link key (2 id: A -> B, 2 id + 1: B -> A), bytes/s
     * \param packetization P and O
     * \param route a message's route, its sender's links first
     * \param hops a message's hops, validating it
     * \param latency a message's pipeline latency
     * \param parameters gamma, software overhead, NIC FIFO
     */
    TimelineReplay(uint32_t nRanks,
                   const std::vector<double>& capacity,
                   const Packetization& packetization,
                   RouteFunction route,
                   HopsFunction hops,
                   LatencyFunction latency,
                   const Parameters& parameters);

    /// A pair's flow key: fills the key and returns true when it is known.
    using FlowKeyFunction = std::function<bool(uint32_t src, uint32_t dst, FlowKey& key)>;

    /**
     * \brief The routes of a cluster's RoutePlanner, split at the sender's node.
     * \param cluster the routed cluster (must outlive the function)
     * \param planner its routes (must outlive the function)
     * \param flowKey a pair's flow key: a pair with a known key is routed on the one
     *        path its flow hash takes (RoutePlanner::FlowShares), the others are split
     *        evenly over the equal-cost paths (RoutePlanner::LinkShares); null: all even
     */
    static RouteFunction ClusterRoutes(Ptr<const Cluster> cluster,
                                       const RoutePlanner& planner,
                                       FlowKeyFunction flowKey = nullptr);

    /**
     * \brief Replay a schedule (once per object).
     * \param schedule the schedule; borrowed for the run
     * \param keepMessages fill TimelinePrediction::messages and rankFinish (else they
     *        stay empty)
     * \return every message's timing, every rank's finish and the total. Throws
     * std::invalid_argument (from the hops function) for a bad or unroutable message.
     */
    TimelinePrediction Run(const std::vector<CollectiveStep>& schedule, bool keepMessages = true);

    /**
     * \brief Replay a collective's program (once per object), generating each member's
     *        steps as it enters them: no schedule is written down. Memory: O(active
     *        messages + links + ranks + chains), and the early arrivals of steps not
     *        entered yet; every message's timing only when asked for.
     * \param program a StepwiseCollective after Setup; borrowed for the run
     * \param keepMessages as for the schedule
     * \return the same prediction as Run(program.GetSchedule(), keepMessages), bit for
     *         bit (the same starts, in the same order). A bad or unroutable message
     *         throws std::invalid_argument when it would start, not before the run.
     */
    TimelinePrediction Run(const StepwiseCollective& program, bool keepMessages = true);

private:
    /// A message in flight, by its FluidTransfers handle.
    struct InFlight
    {
        uint32_t id{0};     //!< its token (a schedule's: the message id)
        double delivery{0}; //!< L + PerMessageOverhead, after the fluid transfer
    };

    /// One chain of one rank: its steps in order and where it is (a program's chain:
    /// `step` is the step entered or to enter, of `length`).
    struct RankChain
    {
        uint32_t rank{0}; //!< the rank's index in the replay (LocalRank)
        uint32_t chain{0};
        uint32_t sendPos{0}; //!< current step's sends: [sendPos, sendStepEnd)
        uint32_t sendStepEnd{0};
        uint32_t sendEnd{0};
        uint32_t recvPos{0}; //!< current step's receives: [recvPos, recvStepEnd)
        uint32_t recvStepEnd{0};
        uint32_t recvEnd{0};
        uint32_t step{0};      //!< current step (entered)
        uint32_t recvsLeft{0}; //!< awaited messages of the current step not yet arrived
        uint32_t length{0};    //!< a program's chain: its steps
        double reduceBytes{0}; //!< a program's chain: bytes the current step reduces
        bool entered{false};
        bool computing{false};
        bool done{false};
    };

    /// A timed event: a message arrives, or a rank's reduction ends.
    struct TimelineEvent
    {
        double t;
        uint64_t seq; //!< insertion order: ties are processed first in, first out
        bool arrival; //!< true: message `a` arrives; false: reduction of chain `a` ends
        uint32_t a;

        bool operator>(const TimelineEvent& o) const
        {
            return t != o.t ? t > o.t : seq > o.seq;
        }
    };

    /// A message of the schedule, its chain and step resolved.
    struct Resolved
    {
        const ScheduledMessage* msg;
        uint32_t scheduleStep;
        uint32_t chain;
        uint32_t step;
    };

    // Phase 1: the schedule's index.
    void BuildIndex(bool keepMessages);
    Resolved Resolve(uint32_t id) const;
    /// A message's hops (m_hops, which validates it), a pair's asked for once while it
    /// holds its entry of `hopsOfPair` (pair key, hops).
    uint32_t HopsOf(const ScheduledMessage& sm,
                    std::vector<std::pair<uint64_t, uint32_t>>& hopsOfPair) const;
    /// A rank's index in the per-rank arrays (the rank itself unless m_ranks is used).
    uint32_t LocalRank(uint32_t rank) const;
    /// The rank of an index in the per-rank arrays.
    uint32_t GlobalRank(uint32_t local) const;
    /// ids by (rank, chain, step, id), ranks' ranges in begin; bySender: src, else dst.
    void SortByRank(bool bySender, std::vector<uint32_t>& ids, std::vector<uint32_t>& begin);

    // Phase 2: the ranks' programs.
    void EnterAllChains();
    void AdvanceChain(uint32_t chainIndex);
    void StartMessage(uint32_t id);
    /// Start a message: `token` names it in m_inFlight and its arrival event (a message id,
    /// or a program's m_live entry), `keepId` its timing in m_out.messages.
    void StartTransfer(const ScheduledMessage& sm, uint32_t token, uint32_t keepId);
    /// The place of a message's timing in m_out.messages, from its token.
    uint32_t KeepIdOf(uint32_t token) const;

    // A program's replay (Run(const StepwiseCollective&)).
    /// Members by local rank, their chains of at least one step.
    void IndexProgram();
    /// AdvanceChain for a program's chain: enters its next step that sends or receives.
    void AdvanceProgramChain(uint32_t chainIndex);
    /// An arrival of a program's message.
    void ArriveProgramMessage(uint32_t token);
    /**
     * \brief A local rank's chain of the program (those with steps, ascending).
     * \param local the rank's index in the replay (LocalRank)
     * \param chain the chain of its member's program
     * \return the chain, or nullptr when the rank's program has no step in it
     */
    RankChain* FindProgramChain(uint32_t local, uint32_t chain);
    /// Sort the kept timings into schedule order (GetSchedule's) and number their steps.
    void SortKeptTimings();

    // Phase 3: the fluid.
    /// Every transfer ending at t (FluidTransfers::NextEnd) ends: its arrival is due.
    void EndTransfers(double t);

    // Phase 4: events.
    /// Until nothing is in flight or pending: end the transfers that ended, or handle
    /// the next event.
    void RunEvents();
    /// The next event: the first pushed of those within kTie of the earliest.
    TimelineEvent PopNextEvent();
    /// \return the time of the earliest pending event (kInfinity: none)
    double NextEventTime() const;
    void HandleEvent(const TimelineEvent& e);

    // Phase 5: the report.
    TimelinePrediction Report();

    uint32_t m_nRanks{0};
    const std::vector<double>* m_capacity; //!< per directed link key of the fabric
    Packetization m_packetization;
    RouteFunction m_route;
    HopsFunction m_hops;
    LatencyFunction m_latency;
    Parameters m_parameters;
    bool m_ran{false};

    const std::vector<CollectiveStep>* m_schedule{nullptr};
    /// The schedule's ranks, ascending, when it indexes only those (else empty: all).
    std::vector<uint32_t> m_ranks;
    uint32_t m_nLocal{0}; //!< size of the per-rank arrays
    /// The directed link keys its routes cross, ascending, when the fluid holds only
    /// those (else empty: every link of the fabric, by its key).
    std::vector<uint32_t> m_linkKeys;
    std::vector<uint32_t> m_stepBegin;  //!< per schedule step: its first message id
    std::vector<uint32_t> m_stepOf;     //!< per message id: its schedule step
    std::vector<uint32_t> m_sends;      //!< message ids by (src, chain, step, id)
    std::vector<uint32_t> m_recvs;      //!< message ids by (dst, chain, step, id)
    std::vector<bool> m_arrived;        //!< per message id
    std::vector<RankChain> m_chains;    //!< by (rank, chain)
    std::vector<uint32_t> m_chainBegin; //!< per rank: its first chain in m_chains
    std::vector<double> m_finish;       //!< per rank: its last chain finished
    std::vector<double> m_computeFree;  //!< per rank: its reductions end
    TimelinePrediction m_out;
    bool m_keep{false};

    // A program's replay.
    const StepwiseCollective* m_program{nullptr};
    std::vector<uint32_t> m_memberOf;      //!< per local rank: its member (kNone: none)
    std::vector<uint32_t> m_localOfMember; //!< per member: its local rank
    StepwiseCollective::Step m_step;       //!< the step being entered (scratch)

    /// A program's message between its start and its arrival.
    struct Live
    {
        uint32_t dst{0};    //!< receiver's local rank
        uint32_t chain{0};  //!< chain
        uint32_t step{0};   //!< step of that chain
        uint32_t keepId{0}; //!< place of its timing (when kept)
    };

    std::vector<Live> m_live;         //!< by token
    std::vector<uint32_t> m_liveFree; //!< tokens free for reuse
    /// Arrivals for steps their receiver has not entered: (chain index << 32 | step) ->
    /// how many.
    std::unordered_map<uint64_t, uint32_t> m_early;
    /// Per kept timing: (step, member, chain, send) of the schedule's order.
    std::vector<std::array<uint32_t, 4>> m_keptOrder;
    std::vector<std::pair<uint64_t, uint32_t>> m_hopsOfPair; //!< HopsOf's table

    std::unique_ptr<FluidTransfers> m_fluid;
    std::vector<InFlight> m_inFlight;        //!< by FluidTransfers handle
    FluidNetwork::LinkShares m_routeScratch; //!< StartMessage's route, reused
    double m_now{0};
    uint64_t m_seq{0};
    std::priority_queue<TimelineEvent, std::vector<TimelineEvent>, std::greater<>> m_events;

    /// Orders events by insertion alone (the tied set of PopNextEvent).
    struct LaterInserted
    {
        bool operator()(const TimelineEvent& a, const TimelineEvent& b) const
        {
            return a.seq > b.seq;
        }
    };

    /// Events taken out of m_events because they are within kTie of the earliest:
    /// served first in, first out; each stays within kTie of the earliest event left
    std::priority_queue<TimelineEvent, std::vector<TimelineEvent>, LaterInserted> m_tied;
    /// A min-heap of times with erasure: the earliest time of m_tied (see PopNextEvent).
    using TimeHeap = std::priority_queue<double, std::vector<double>, std::greater<>>;
    TimeHeap m_tiedTimes; //!< the times of m_tied, erased ones included
    TimeHeap m_tiedGone;  //!< times erased from m_tiedTimes and not yet popped from it
    /// Tied events moved together while m_tied was empty, by insertion; served from
    /// m_batchPos until others join them (then the rest goes to m_tied).
    std::vector<TimelineEvent> m_batch;
    std::vector<double> m_batchMin; //!< per place of m_batch: the earliest time from it on
    size_t m_batchPos{0};           //!< the next event of m_batch to serve
};

} // namespace ns3

#endif // MLNET_TIMELINE_REPLAY_H
