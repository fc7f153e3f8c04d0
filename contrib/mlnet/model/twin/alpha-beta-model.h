// SPDX-License-Identifier: GPL-2.0-only
/*
 * AlphaBetaModel: the analytical (alpha-beta) twin of every collective on every fabric.
 *
 * What it models. A collective is a schedule of messages (Collective::GetSchedule()).
 * Every message is routed over the Cluster's links with the same next-hop tables the
 * packet-level run uses (RoutePlanner; DOR routes a torus dimension by dimension).
 * Where a node has several equal next hops, PathChoice says how a message uses them:
 * PER_FLOW_HASH (the default) puts it on the one path its flow takes at packet level
 * (RoutePlanner::FlowPath: the transport's flow key for the pair, hashed with every
 * node's seed, so two flows hashed onto one uplink share it, as packets do);
 * EVEN_SPLIT spreads it evenly over the next hops (what spraying gives, and the
 * expectation of flow hashing). A pair whose transport gives no flow key (TCP, or
 * no transport given: SetPacketization(P, O)) is always split evenly. A message of m bytes puts
 * W(m) = m + ceil(m/P)*O wire bytes on every link it crosses and its first frame is F1 = min(m, P)
 * + O bytes (Packetization, packetization.h). Alone on an h-hop path of equal rate R and delay d it
 * takes exactly the ns-3 point-to-point time of a back-to-back packet train, stored and forwarded
 * per packet:
 *
 *   T_msg = W * 8 / R + L,   L = (h-1) * F1 * 8 / R + h * d   (pipeline latency).
 *
 * Two ways to time a schedule:
 *
 * Dependency-aware (Predict, the default). A fluid replay of the algorithm's own
 * dependencies, messages as flows sharing every link max-min fairly (TimelineReplay,
 * timeline-replay.h, and FluidNetwork, fluid-network.h, say what they model and what
 * they leave out). Exact for a single message on an idle path (T_msg). The flow level
 * (FluidMessageTransport) runs the same fluid over the same routes, driven by the
 * collectives themselves instead of their written-down schedules.
 *
 * Lock-step (PredictLockStep, PredictSteps). The messages of one CollectiveStep are
 * in flight together and the steps do not overlap:
 *
 *   T_step = max_link(load * 8 / rate) + max_msg L + gamma * reduceBytes
 *          + PerMessageOverhead,
 *
 * summed over the steps. It charges every step the longest route's latency and every
 * step's sends the full NIC, which the data-driven run does not (see
 * doc/alpha-beta-model.md for measured differences).
 *
 * The model object holds the packetization and the attributes (gamma, software
 * overhead, NIC FIFO), fires the trace sources, and keeps its cluster's routes and
 * link rates and delays, recomputed when a link fails. The closed forms from the
 * literature are CollectiveClosedForms (collective-closed-forms.h).
 *
 * What it leaves out. Queueing dynamics and packet interleaving order, losses,
 * congestion-control dynamics, retransmissions, PFC pauses; load balancing other than
 * per-flow hashing (flowlets, adaptive) is taken as the even split; on
 * paths of unequal rates the latency term uses the slowest link of the route as the
 * train's bottleneck, which is exact only for equal rates.
 */
#ifndef MLNET_ALPHA_BETA_MODEL_H
#define MLNET_ALPHA_BETA_MODEL_H

#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/data-rate.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packetization.h"
#include "ns3/prediction-memo.h"
#include "ns3/timeline-replay.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RoutePlanner;

/**
 * \brief The model's account of one CollectiveStep, for reports.
 */
struct StepPrediction
{
    Time bandwidthTime;                  //!< max over directed links of load*8/rate
    Time latency;                        //!< max over messages of (h-1)*F1*8/R + h*d
    Time reduction;                      //!< gamma * reduceBytes
    Time overhead;                       //!< PerMessageOverhead (software alpha)
    Time total;                          //!< sum of the four terms above
    uint32_t bottleneckLink{UINT32_MAX}; //!< link id of the most loaded directed link
    bool bottleneckAtoB{true};           //!< its direction (true: A -> B)
    double bottleneckBytes{0};           //!< wire bytes carried by it in this step
    uint32_t maxHops{0};                 //!< longest route of the step (hops)
    uint32_t messages{0};                //!< messages timed (src != dst, bytes > 0)
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
 * \brief Alpha-beta analytical model of collectives on a Cluster's fabric.
 */
class AlphaBetaModel : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AlphaBetaModel();
    ~AlphaBetaModel() override;

    /// How messages share links (attribute Sharing).
    enum Sharing
    {
        SHARING_AUTO,      //!< the transport's: LineRate for UDP and RDMA, MaxMin for TCP
        SHARING_LINE_RATE, //!< senders at their NIC share, FIFO backlogs (LineRateTransfers)
        SHARING_MAX_MIN    //!< max-min fair over every link (MaxMinTransfers)
    };

    /// How a message uses equal-cost next hops (attribute PathChoice).
    enum PathChoice
    {
        PER_FLOW_HASH, //!< the one path its flow key hashes to (when the transport knows it)
        EVEN_SPLIT     //!< an even split over the next hops at every node
    };

    /// Signature of the StepPredicted trace: step index, the step's prediction.
    typedef void (*StepPredictedTracedCallback)(uint32_t step, const StepPrediction& p);
    /// Signature of the MessagePredicted trace: one message's dependency-aware timing.
    typedef void (*MessagePredictedTracedCallback)(const MessageTiming& t);

    // ---- Binding ---------------------------------------------------------------

    /**
     * \brief Bind to a cluster: compute its routes and cache every link's rate and delay.
     * \param cluster a built cluster (links registered, FabricSpec set)
     */
    void SetCluster(Ptr<Cluster> cluster);
    /// \return the bound cluster (null before SetCluster)
    Ptr<Cluster> GetCluster() const;
    /**
     * \brief Recompute routes and re-read link rates and delays (after a rate change).
     * Failed links are noticed automatically on the next prediction.
     */
    void Refresh();

    /**
     * \brief Set the packetization: payload per packet and wire overhead per packet.
     * \param maxPayload application bytes per packet (P > 0)
     * \param overhead wire bytes added to every packet (O, headers including PPP)
     */
    void SetPacketization(uint32_t maxPayload, uint32_t overhead);
    /**
     * \brief Take the packetization from a transport (GetMaxPayload, GetPerPacketOverhead),
     * NicBacklogPackets from its MaxBacklogPackets attribute when it has one (UDP, RDMA),
     * and its flow keys (GetFlowKey), which PER_FLOW_HASH routes on; of a
     * FluidMessageTransport, those of the packet transport it stands in for. The
     * transport is held until DoDispose.
     */
    void SetPacketization(Ptr<const MessageTransport> transport);
    /// \brief Set the packetization (P, O); the NIC FIFO is left as it is.
    void SetPacketization(const Packetization& packetization);
    /// \brief Set how messages use equal-cost next hops (attribute PathChoice).
    void SetPathChoice(PathChoice choice);
    /// \return how messages use equal-cost next hops
    PathChoice GetPathChoice() const;
    /// \return the packetization (P, O) the predictions use
    const Packetization& GetPacketization() const;
    /// \return P, the application bytes per packet
    uint32_t GetMaxPayload() const;
    /// \return O, the wire bytes added per packet
    uint32_t GetPerPacketOverhead() const;

    // ---- Packetization (shorthands for GetPacketization()) ---------------------

    /// \return n = ceil(m / P), the packets of an m-byte message
    uint64_t GetPacketCount(uint64_t bytes) const;
    /// \return W(m) = m + n * O, the wire bytes of an m-byte message on one link
    uint64_t GetWireBytes(uint64_t bytes) const;
    /// \return F1 = min(m, P) + O, the first frame's wire bytes (0 for m = 0)
    uint64_t GetFirstFrameBytes(uint64_t bytes) const;

    // ---- Predictions -----------------------------------------------------------

    /**
     * \brief Uncontended message over h equal hops, store-and-forward per packet.
     * \return T_msg = (W + (h-1) * F1) * 8 / R + h * d
     */
    Time PredictMessage(uint64_t bytes, uint32_t hops, DataRate rate, Time delay) const;
    /**
     * \brief Time one step on the bound cluster (uses the ReductionTimePerByte attribute).
     * Throws std::invalid_argument if no cluster is bound or a message is unroutable.
     */
    StepPrediction PredictStep(const CollectiveStep& step) const;
    /// \return the lock-step per-step breakdown of a schedule (fires StepPredicted per step)
    std::vector<StepPrediction> PredictSteps(const std::vector<CollectiveStep>& schedule) const;
    /**
     * \brief Dependency-aware time of a schedule (ReductionTimePerByte attribute as gamma).
     * \return TimelinePrediction::total of PredictTimeline(schedule)
     */
    Time Predict(const std::vector<CollectiveStep>& schedule) const;
    /**
     * \brief Dependency-aware time of a collective from its GetSchedule(), with the
     * collective's own gamma (see the file comment).
     * \param collective a collective after Setup
     */
    Time Predict(Ptr<const Collective> collective) const;
    /// \return the lock-step time of a schedule: the sum of PredictSteps
    Time PredictLockStep(const std::vector<CollectiveStep>& schedule) const;
    /// \return the lock-step time of a collective (its own gamma): the sum of PredictSteps
    Time PredictLockStep(Ptr<const Collective> collective) const;
    /// \return the lock-step per-step breakdown of a collective (its own gamma)
    std::vector<StepPrediction> PredictSteps(Ptr<const Collective> collective) const;
    /**
     * \brief Dependency-aware prediction with every message's timing (fires
     * MessagePredicted per message). Throws std::invalid_argument if no cluster is
     * bound, a rank is out of range, a message is unroutable, or the schedule's
     * dependencies can never be met (a deadlock: a step waits for a message that is
     * sent only after it).
     */
    TimelinePrediction PredictTimeline(const std::vector<CollectiveStep>& schedule) const;
    /// \return the dependency-aware prediction of a collective (its own gamma)
    TimelinePrediction PredictTimeline(Ptr<const Collective> collective) const;
    /**
     * \brief Wire bytes the model puts on every directed link for a schedule (its
     * messages' W(m) over their routes, as PathChoice says): what the packet run's link
     * counters (ClusterLink::bytesAtoB, bytesBtoA) show for the data packets.
     * \return per directed link key (2*linkId + (0 if A->B else 1)) its wire bytes
     */
    std::vector<double> PredictLinkBytes(const std::vector<CollectiveStep>& schedule) const;

    // ---- What the flow level reads -----------------------------------------------

    /**
     * \brief Every directed link's capacity, for a FluidNetwork.
     * \return per directed link key (2*linkId + (0 if A->B else 1)) its rate (bytes/s)
     */
    std::vector<double> GetLinkCapacities() const;
    /**
     * \brief Every directed link's buffer: the bytes its transmitting port can queue
     * (its device queue plus the traffic-control queue disc on that device, if any),
     * for FluidTransfers::SetBuffers. A limit in packets counts full frames (MTU + the
     * 2-byte PPP header); a device without a transmit queue has an unbounded buffer.
     * \return per directed link key its buffer (bytes)
     */
    std::vector<double> GetLinkBuffers() const;
    /**
     * \brief One message's route and pipeline latency, as Predict takes them.
     * \param src sending rank
     * \param dst receiving rank
     * \param bytes application bytes
     * \param shares filled with the directed links it crosses and their shares (as
     *        PathChoice says), the sender's first; empty for a message to itself or of
     *        no bytes
     * \param senderLinks set to how many of them leave the sender
     * \return its pipeline latency L (s): (h-1)*F1*8/R + h*d on equal rates
     * Throws std::invalid_argument for a rank out of range or an unreachable rank.
     */
    double MessagePath(uint32_t src,
                       uint32_t dst,
                       uint64_t bytes,
                       FluidNetwork::LinkShares& shares,
                       uint32_t& senderLinks) const;
    /**
     * \brief The route and latency of a copy of a src -> dst message made by the switch
     * src's one link leads to and sent by it as its own frames, with flow key (the
     * switch's first address, dst's address, UDP, srcPort, dstPort): the path the
     * fabric's flow hash gives those frames (RoutePlanner::FlowPathFromNode).
     * \param src sending rank (one link)
     * \param dst receiving rank
     * \param bytes application bytes (> 0)
     * \param srcPort the copies' source port
     * \param dstPort the copies' destination port
     * \param shares filled with the links beyond the switch (share 1 each), the one
     *        leaving the switch first
     * \return the copy's pipeline latency L over src's link and that path (its first
     *         frame reaches the switch first), or a negative number, shares untouched,
     *         when the fabric does not route by per-flow hash (PathChoice, load
     *         balancing), src has several links or the switch has no address
     */
    double CopyPath(uint32_t src,
                    uint32_t dst,
                    uint64_t bytes,
                    uint16_t srcPort,
                    uint16_t dstPort,
                    FluidNetwork::LinkShares& shares) const;
    /// \return NicBacklogPackets (the sender NIC's FIFO, packets)
    uint32_t GetNicBacklogPackets() const;
    /// \return how messages share links (the Sharing attribute, Auto resolved)
    FluidSharing GetSharing() const;

    // ---- The prediction memo -----------------------------------------------------

    /// \return Predict calls answered from an earlier prediction of an equal problem
    /// (prediction-memo.h)
    uint64_t GetMemoHits() const;
    /// \return Predict calls that replayed their schedule (the memo on, no equal problem)
    uint64_t GetMemoMisses() const;

protected:
    void DoDispose() override;

private:
    /// Spreads the (src, dst, F1) keys, which are spaced by P + O + 1, over the buckets.
    struct LatencyKeyHash
    {
        size_t operator()(uint64_t key) const
        {
            key = (key ^ (key >> 30)) * 0xBF58476D1CE4E5B9ULL; // splitmix64's finalizer
            key = (key ^ (key >> 27)) * 0x94D049BB133111EBULL;
            return static_cast<size_t>(key ^ (key >> 31));
        }
    };

    /// Pipeline latencies already computed in one prediction, by (src, dst, F1).
    using LatencyCache = std::unordered_map<uint64_t, double, LatencyKeyHash>;

    /// MaxPayload attribute: P, keeping O.
    void SetMaxPayload(uint32_t maxPayload);
    /// PerPacketOverhead attribute: O, keeping P.
    void SetPerPacketOverhead(uint32_t overhead);
    /// One lock-step step; routes and latencies from (and into) the caches of the
    /// caller, who checked the binding and refreshed the routes.
    StepPrediction PredictStepWith(const CollectiveStep& step,
                                   double gamma,
                                   const TimelineReplay::RouteFunction& route,
                                   LatencyCache& latencyOf) const;
    std::vector<StepPrediction> PredictStepsWith(const std::vector<CollectiveStep>& schedule,
                                                 double gamma) const;
    /// The same over steps given one at a time: nextStep returns the next one (valid
    /// until it is called again), null after the last.
    std::vector<StepPrediction> PredictStepsWith(
        const std::function<const CollectiveStep*()>& nextStep,
        double gamma) const;
    /// keepMessages: fill TimelinePrediction::messages (also kept, whatever it says,
    /// when the MessagePredicted trace has sinks).
    TimelinePrediction PredictTimelineWith(const std::vector<CollectiveStep>& schedule,
                                           double gamma,
                                           bool keepMessages) const;
    /// PredictTimelineWith for a collective: a StepwiseCollective whose replay problem
    /// the memo would not keep is replayed from its program, generated step by step
    /// (GenerateSchedules); the others from GetSchedule().
    TimelinePrediction PredictCollective(Ptr<const Collective> collective, bool keepMessages) const;
    /// The replay of one prediction, on the model's capacities, routes and latencies.
    TimelineReplay MakeReplay(double gamma, LatencyCache& latencyOf) const;
    /// \brief Fire MessagePredicted for every kept timing.
    void TraceMessages(const TimelinePrediction& prediction) const;
    /// Latency of a message of first frame f1 from src to dst (max over its routes).
    double MessageLatency(uint32_t srcRank, uint32_t dstRank, double f1) const;
    /// MessageLatency's recursion: the longest d + F1 x spb route from node to dstNode.
    double LongestToDestination(uint32_t node,
                                uint32_t dstNode,
                                uint32_t dstRank,
                                double f1,
                                double& slowest) const;
    /// MessageLatency, computed once per (src, dst, F1) of a prediction.
    double CachedLatency(LatencyCache& cache,
                         uint32_t srcRank,
                         uint32_t dstRank,
                         uint64_t f1) const;
    /// The form of the replay problem of a schedule (prediction-memo.h): what
    /// TimelineReplay reads, its ranks and links renamed in order (`messages`: the
    /// schedule's message count, which the caller has). Throws as the replay does for a
    /// rank out of range or an unreachable pair.
    PredictionMemo::Form ProblemForm(const std::vector<CollectiveStep>& schedule,
                                     uint64_t messages,
                                     double gamma,
                                     LatencyCache& latencyOf) const;
    /// \return the most messages a schedule of `steps` steps may have for its form to be
    /// written down: a form takes about four words a message, two a step and sixteen
    /// more, and one above 1/16 of the memo's bound is not kept (the 32k-GPU
    /// iteration's data-parallel rings, 2 million messages each, whose hashed spine
    /// paths mostly give forms of their own)
    uint64_t MemoMessageBound(uint64_t steps) const;
    /// PredictionMemoBytes attribute.
    void SetMemoBytes(uint64_t bytes);
    uint64_t GetMemoBytes() const;
    /// \return whether a route is one path (every share 1: flow-hashed, or unique)
    static bool IsOnePath(const FluidNetwork::LinkShares& route);
    /// MessageLatency along one path (its links, sender's first): the latency of a
    /// message whose route is that path.
    double PathLatency(const FluidNetwork::LinkShares& path, uint64_t f1) const;
    /// \return the relay latency a frame spends at `node` on its way to `dstNode`: the
    /// fabric's FabricSpec::relayLatency at a rank node other than the destination
    double RelayLatency(uint32_t node, uint32_t dstNode) const;
    /// \return whether a node hosts a rank (a relaying host on a direct-connect fabric)
    bool IsRankNode(uint32_t node) const;
    /// The latency of a message taking `route`: PathLatency when it is one path, else
    /// MessageLatency over its routes (the longest), through `cache`.
    double RouteLatency(uint32_t srcRank,
                        uint32_t dstRank,
                        uint64_t f1,
                        const FluidNetwork::LinkShares& route,
                        LatencyCache& cache) const;
    /// Hops of a message's route (0 to itself or empty); throws std::invalid_argument
    /// for a rank out of range or an unreachable destination.
    uint32_t RoutedHops(const ScheduledMessage& message) const;
    void RefreshIfLinksFailed() const;
    void CheckBound() const;
    /// The route function of every prediction and MessagePath, built when first asked
    /// for after the routes, the transport or the path choice changed: per-flow paths or
    /// even splits (PathChoice), through one bounded cache.
    const TimelineReplay::RouteFunction& Routes() const;

    Packetization m_packetization;
    uint32_t m_nicBacklogPackets{8};
    Sharing m_sharing{SHARING_AUTO};
    double m_reduceTimePerByte{0}; //!< gamma (s/B)
    Time m_perMessageOverhead;
    PathChoice m_pathChoice{PER_FLOW_HASH};
    Ptr<const MessageTransport> m_flowKeys; //!< the transport whose flow keys route messages
    bool m_generateSchedules{true};         //!< GenerateSchedules attribute

    Ptr<Cluster> m_cluster;
    mutable std::shared_ptr<const RoutePlanner> m_planner; //!< RoutePlanner::Shared
    mutable TimelineReplay::RouteFunction m_routes;        //!< Routes(), null until asked
    mutable std::vector<double> m_capacity; //!< per directed link key, bytes/s (Refresh)
    /// MessagePath's latencies by (src, dst, F1) key, direct-mapped
    mutable std::vector<std::pair<uint64_t, double>> m_latencySlots;
    mutable std::vector<LinkTiming> m_links;
    double m_relayLatency{0};                //!< FabricSpec::relayLatency (s), read by Refresh
    mutable std::vector<double> m_longest;   //!< MessageLatency's memo, per node
    mutable std::vector<uint32_t> m_visited; //!< per node: the call that filled m_longest
    mutable uint32_t m_latencyCall{0};       //!< MessageLatency calls (memo stamps)
    mutable uint64_t m_linkStateSeen{0};     //!< Cluster::GetRoutedLinkStateVersion of the routes
    mutable PredictionMemo m_memo;           //!< Predict's answers by problem form

    /// A step was timed: step index, its prediction.
    mutable TracedCallback<uint32_t, const StepPrediction&> m_stepTrace;
    /// A message was timed by the dependency-aware model.
    mutable TracedCallback<const MessageTiming&> m_messageTrace;
};

} // namespace ns3

#endif // MLNET_ALPHA_BETA_MODEL_H
