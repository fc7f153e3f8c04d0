// SPDX-License-Identifier: GPL-2.0-only
/*
 * TimelineReplay: the dependency-aware fluid replay of a collective's schedule, the
 * engine of AlphaBetaModel::Predict / PredictTimeline.
 *
 * What it models. It replays the algorithm's dependencies (ScheduledMessage
 * chain/step/reduce, the StepwiseCollective engine's rule): a message starts when its
 * sender has received (and reduced, gamma x bytes, one reduction at a time per rank)
 * every message of the earlier steps of its chain. The bytes of the messages in
 * flight are a fluid, advanced event by event, shaped like the UDP transport's: a
 * sender's NIC sends the first packets of a message that finds room in its FIFO of
 * NicBacklogPackets packets ahead (first in, first out) and the rest round-robin with
 * its other active messages (equal shares); senders never slow down for the network,
 * so a downstream link offered more than its rate builds a FIFO backlog that delays
 * every message crossing it. A message's last byte arrives its own route's latency L
 * + PerMessageOverhead after it left its NIC and the backlogs. The collective ends
 * when its last rank has finished. Exact for a single message on an idle path
 * (T_msg), and for a ring on an ideal switch (equal to the lock-step value up to its
 * per-step rounding).
 *
 * What it leaves out. Packet interleaving order (sharing is fluid and instantaneous;
 * a switch port's FIFO share by arrival rate is folded into one backlog per link),
 * the sender's own traffic on links it forwards for others, losses, congestion
 * control, retransmissions; ECMP is an even split over next hops (its expectation:
 * no flow-hash collisions); downstream offered loads are NIC rates, so a link behind
 * a congested one is over-estimated (hence the largest wait on a route, not the sum).
 */
#ifndef MLNET_TIMELINE_REPLAY_H
#define MLNET_TIMELINE_REPLAY_H

#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/nstime.h"
#include "ns3/packetization.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <queue>
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
    Time transferEnd;         //!< its last wire byte left its NIC and the downstream backlogs
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
    std::vector<Time> rankFinish;        //!< per rank of the cluster: it finished its chains
    uint64_t rateUpdates{0};             //!< fluid events (rate recomputations)
};

/**
 * \brief Seconds per byte of both directions of a link, and its propagation delay (s).
 */
struct LinkTiming
{
    double secondsPerByteAtoB{0}; //!< 8 / rate of the A -> B direction
    double secondsPerByteBtoA{0}; //!< 8 / rate of the B -> A direction
    double delay{0};              //!< propagation delay (s)
};

/**
 * \brief One dependency-aware replay of a schedule on a routed fabric (see file comment).
 *
 * Built by AlphaBetaModel for one prediction: it borrows the model's routes and link
 * timings, and asks the model for every message's hops and pipeline latency.
 */
class TimelineReplay
{
public:
    /// Hops of a message's route (0 to itself or empty); throws std::invalid_argument
    /// if a rank is out of range or the destination unreachable.
    using HopsFunction = std::function<uint32_t(const ScheduledMessage& message)>;
    /// Pipeline latency L (s) from rank src to rank dst of a first frame of f1 bytes.
    using LatencyFunction = std::function<double(uint32_t src, uint32_t dst, uint64_t f1)>;

    /// What the replay takes from the model's attributes.
    struct Parameters
    {
        double reductionTimePerByte{0}; //!< gamma (s/B)
        double perMessageOverhead{0};   //!< software alpha added to every delivery (s)
        uint32_t nicBacklogPackets{8};  //!< packets of a sender NIC's FIFO (0: round-robin)
    };

    /**
     * \brief Borrow what one replay reads; all of it must outlive the replay.
     * \param cluster the routed cluster
     * \param planner its routes (LinkShares per rank pair)
     * \param links per link id, as the cluster's links are now
     * \param packetization P and O
     * \param hops a message's hops, validating it
     * \param latency a message's pipeline latency
     * \param parameters gamma, software overhead, NIC FIFO
     */
    TimelineReplay(Ptr<const Cluster> cluster,
                   const RoutePlanner& planner,
                   const std::vector<LinkTiming>& links,
                   const Packetization& packetization,
                   HopsFunction hops,
                   LatencyFunction latency,
                   const Parameters& parameters);

    /**
     * \brief Replay a schedule (once per object).
     * \return every message's timing, every rank's finish and the total. Throws
     * std::invalid_argument (from the hops function) for a bad or unroutable message.
     */
    TimelinePrediction Run(const std::vector<CollectiveStep>& schedule);

private:
    /// A message of the flattened schedule, with its route and fluid state.
    struct FluidMessage
    {
        ScheduledMessage msg;
        uint32_t scheduleStep{0};
        uint32_t hops{0};
        uint64_t packets{0};    //!< n
        double wire{0};         //!< W, wire bytes per link
        double delivery{0};     //!< L + PerMessageOverhead, after the fluid transfer
        double latency{0};      //!< L
        uint32_t shareBegin{0}; //!< first-hop (NIC) shares: [shareBegin, nicEnd)
        uint32_t nicEnd{0};     //!< downstream shares: [nicEnd, shareEnd)
        uint32_t shareEnd{0};
        uint32_t nic{UINT32_MAX}; //!< its only first-hop link key (UINT32_MAX when split)
        double head{0};           //!< wire bytes of its head still in the NIC FIFO
        double rest{0};           //!< wire bytes still to send round-robin
        double rate{0};           //!< current NIC rate (wire bytes per second)
        double start{-1};
        double transferEnd{-1};
        double arrival{-1};
    };

    /// One step of one chain of one rank.
    struct RankStep
    {
        std::vector<uint32_t> sends; //!< messages issued on entry
        uint32_t recvsLeft{0};       //!< awaited messages not yet arrived
        double reduceBytes{0};       //!< bytes reduced when the step completes
        bool entered{false};
    };

    /// One chain of one rank: its steps in order and where it is.
    struct RankChain
    {
        std::map<uint32_t, RankStep> steps;
        std::map<uint32_t, RankStep>::iterator cursor;
        bool computing{false};
        bool done{false};
    };

    /// A timed event: a message arrives, or a rank's reduction ends.
    struct TimelineEvent
    {
        double t;
        uint64_t seq; //!< insertion order: ties are processed first in, first out
        bool arrival; //!< true: message `a` arrives; false: reduction of rank a, chain b ends
        uint32_t a;
        uint32_t b;

        bool operator>(const TimelineEvent& o) const
        {
            return t != o.t ? t > o.t : seq > o.seq;
        }
    };

    // Phase 1: the message graph.
    void BuildMessages(const std::vector<CollectiveStep>& schedule);
    void RouteMessage(FluidMessage& f);
    /// Hand a message to its sender's and receiver's programs; lockStep: the step of a
    /// hand-written schedule (its receivers reduce its reduceBytes), else null.
    void AddToPrograms(uint32_t id, const FluidMessage& f, const CollectiveStep* lockStep);

    // Phase 2: the ranks' programs.
    void EnterAllChains();
    void AdvanceChain(uint32_t rank, uint32_t chain);
    void StartMessage(uint32_t id);
    void AdmitToNicFifo(uint32_t id);

    // Phase 3: the fluid.
    void RecomputeRates();
    void SetMessageRate(FluidMessage& f, uint32_t id);
    void PruneIdleLinks();
    double NextPhaseEnd() const;
    void AdvanceFluid(double tNext, bool fluidFirst);
    void FinishTransfer(FluidMessage& f, uint32_t id, double t);

    // Phase 4: events.
    void HandleEvent(const TimelineEvent& e);

    // Phase 5: the report.
    TimelinePrediction Report();

    double SecondsPerByte(uint32_t key) const;
    double Backlog(uint32_t key, double t) const;

    Ptr<const Cluster> m_cluster;
    const RoutePlanner& m_planner;
    const std::vector<LinkTiming>& m_links;
    Packetization m_packetization;
    HopsFunction m_hops;
    LatencyFunction m_latency;
    Parameters m_parameters;
    uint32_t m_nRanks{0};
    bool m_ran{false};

    std::vector<FluidMessage> m_msgs;
    std::vector<std::pair<uint32_t, double>> m_shares; //!< (directed link key, ECMP share)
    std::vector<std::map<uint32_t, RankChain>> m_ranks;
    std::vector<double> m_finish;      //!< per rank: its last chain finished
    std::vector<double> m_computeFree; //!< per rank: its reductions end
    // Per directed link key (2 * link id + direction):
    std::vector<double> m_weight;             //!< NIC: round-robin shares of active messages
    std::vector<std::deque<uint32_t>> m_fifo; //!< NIC: messages whose head is queued
    std::vector<double> m_offered;            //!< downstream: offered wire bytes per second
    std::vector<double> m_queue;              //!< downstream: FIFO backlog (bytes) at qTime
    std::vector<double> m_qTime;              //!< downstream: when m_queue was taken
    std::vector<char> m_isLive;               //!< downstream: in m_live
    std::vector<uint32_t> m_live;             //!< downstream keys with offered load or backlog
    std::vector<uint32_t> m_active;           //!< messages in flight
    bool m_dirty{false};                      //!< rates must be recomputed
    double m_now{0};
    uint64_t m_seq{0};
    uint64_t m_rateUpdates{0};
    std::priority_queue<TimelineEvent, std::vector<TimelineEvent>, std::greater<>> m_events;
};

} // namespace ns3

#endif // MLNET_TIMELINE_REPLAY_H
