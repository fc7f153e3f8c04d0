/*
 * AlphaBetaModel: the analytical (alpha-beta) twin of every collective on every fabric.
 *
 * What it models. A collective is a schedule of messages (Collective::GetSchedule()).
 * Every message is routed over the Cluster's links with the same next-hop tables the
 * packet-level run uses (RoutePlanner: ECMP splits a flow evenly over next hops,
 * which is what flow hashing gives in expectation; DOR routes a torus dimension by
 * dimension). A message of m bytes is cut into n = ceil(m/P) packets of at most P
 * payload bytes, each adding O wire bytes, so it puts W(m) = m + n*O bytes on every
 * link it crosses and its first frame is F1 = min(m, P) + O bytes. Alone on an h-hop
 * path of equal rate R and delay d it takes exactly the ns-3 point-to-point time of a
 * back-to-back packet train, stored and forwarded per packet:
 *
 *   T_msg = W * 8 / R + L,   L = (h-1) * F1 * 8 / R + h * d   (pipeline latency).
 *
 * Two ways to time a schedule:
 *
 * Dependency-aware (Predict, the default). Replays the algorithm's dependencies
 * (ScheduledMessage chain/step/reduce, the StepwiseCollective engine's rule): a
 * message starts when its sender has received (and reduced, gamma x bytes, one
 * reduction at a time per rank) every message of the earlier steps of its chain. The
 * bytes of the messages in flight are a fluid, advanced event by event, shaped like
 * the UDP transport's: a sender's NIC sends the first packets of a message that
 * finds room in its FIFO of NicBacklogPackets packets ahead (first in, first out) and
 * the rest round-robin with its other active messages (equal shares); senders never
 * slow down for the network, so a downstream link offered more than its rate builds
 * a FIFO backlog that delays every message crossing it. A message's last byte arrives
 * its own route's latency L + PerMessageOverhead after it left its NIC and the
 * backlogs. The collective ends when its last rank has finished. Exact for a single
 * message on an idle path (T_msg), and for a ring on an ideal switch (equal to the
 * lock-step value up to its per-step rounding).
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
 * Closed forms from the literature (Thakur-Rabenseifner-Gropp, Patarasuk-Yuan,
 * Dally-Towles, and the derived torus / Clos / oversubscription formulas listed in
 * doc/alpha-beta-model.md) are static functions, for reports and as cross-checks.
 *
 * What it leaves out. Queueing dynamics and packet interleaving order (sharing is
 * fluid and instantaneous; a switch port's FIFO share by arrival rate is taken as an
 * equal share), losses, congestion control, retransmissions; ECMP is its expectation
 * (no flow-hash collisions: a run whose flows hash onto one uplink is slower than the
 * twin); on paths of unequal rates the latency term uses the slowest link of the
 * route as the train's bottleneck, which is exact only for equal rates.
 */
#ifndef MLNET_ALPHA_BETA_MODEL_H
#define MLNET_ALPHA_BETA_MODEL_H

#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/data-rate.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <string>
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
     * and NicBacklogPackets from its MaxBacklogPackets attribute when it has one (UDP).
     */
    void SetPacketization(Ptr<const MessageTransport> transport);
    /// \return P, the application bytes per packet
    uint32_t GetMaxPayload() const;
    /// \return O, the wire bytes added per packet
    uint32_t GetPerPacketOverhead() const;

    // ---- Packetization ---------------------------------------------------------

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

    // ---- Closed forms (seconds; alpha s, beta and gamma s/byte, bytes) ---------
    // Sources: Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication
    // Operations in MPICH", IJHPCA 19(1), 2005 (n = total bytes, p ranks).

    /// Ring all-gather: (p-1)alpha + n(p-1)/p beta  [Thakur et al. 2005]
    static double RingAllGatherTime(uint32_t p, double n, double alpha, double beta);
    /// Recursive-doubling all-gather: lg p alpha + n(p-1)/p beta  [Thakur et al. 2005]
    static double RecursiveDoublingAllGatherTime(uint32_t p, double n, double alpha, double beta);
    /// Ring/pairwise reduce-scatter: (p-1)alpha + n(p-1)/p (beta+gamma)  [Thakur et al. 2005]
    static double RingReduceScatterTime(uint32_t p,
                                        double n,
                                        double alpha,
                                        double beta,
                                        double gamma);
    /// Recursive-halving reduce-scatter: lg p alpha + n(p-1)/p (beta+gamma)  [Thakur 2005]
    static double RecursiveHalvingReduceScatterTime(uint32_t p,
                                                    double n,
                                                    double alpha,
                                                    double beta,
                                                    double gamma);
    /// Ring all-reduce: 2(p-1)alpha + 2n(p-1)/p beta + n(p-1)/p gamma  [Thakur et al. 2005]
    static double RingAllReduceTime(uint32_t p, double n, double alpha, double beta, double gamma);
    /// Rabenseifner all-reduce: 2 lg p alpha + 2n(p-1)/p beta + n(p-1)/p gamma  [Thakur 2005]
    static double RabenseifnerAllReduceTime(uint32_t p,
                                            double n,
                                            double alpha,
                                            double beta,
                                            double gamma);
    /// Scatter + ring all-gather broadcast: (lg p + p-1)alpha + 2n(p-1)/p beta  [Thakur 2005]
    static double ScatterAllGatherBroadcastTime(uint32_t p, double n, double alpha, double beta);
    /// Bruck all-to-all: lg p alpha + (n/2) lg p beta  [Thakur et al. 2005]
    static double BruckAllToAllTime(uint32_t p, double n, double alpha, double beta);
    /// Pairwise-exchange all-to-all: (p-1)alpha + n beta  [Thakur et al. 2005]
    static double PairwiseAllToAllTime(uint32_t p, double n, double alpha, double beta);

    /**
     * \brief All-reduce lower bound 2(N-1)/N * S/B [Patarasuk & Yuan, JPDC 69(2), 2009].
     * \param n ranks \param bytes S \param injection B, per-rank injection bandwidth
     */
    static double AllReduceLowerBound(uint32_t n, double bytes, DataRate injection);
    /**
     * \brief Torus all-to-all bound N*k*m/(8b) for a k-ary n-cube (k even), from the
     * worst channel load gamma_max = k/8 per unit injection [Dally & Towles, ch. 3].
     * \param k radix \param n dimensions \param m bytes per pair \param link b per direction
     */
    static double TorusAllToAllBound(uint32_t k, uint32_t n, double m, DataRate link);
    /// Clos all-to-all bound (N-1)*m/B (non-blocking, per-node injection B).
    static double ClosAllToAllBound(uint32_t ranks, double m, DataRate injection);
    /**
     * \brief Average minimal hops of a k-ary n-cube, H_min = nk/4 (k even),
     * n(k^2-1)/(4k) (k odd) [Dally & Towles]; also the torus/Clos all-to-all ratio at
     * equal injection bandwidth (B = 2n b).
     */
    static double TorusHopRatio(uint32_t k, uint32_t n);
    /**
     * \brief Oversubscribed two-level Clos all-to-all (derived):
     * T = M/B * max(1, r (N - n_r)/(N - 1)), M = (N-1) m.
     * \param ranks N \param ranksPerRack n_r \param r oversubscription (1 = non-blocking)
     * \param m bytes per pair \param injection B per node
     */
    static double OversubscribedClosAllToAllTime(uint32_t ranks,
                                                 uint32_t ranksPerRack,
                                                 double r,
                                                 double m,
                                                 DataRate injection);
    /**
     * \brief Torus all-reduce, one bidirectional ring per dimension, dimension by
     * dimension (bucket; Jain & Sabharwal, ICS 2010): 2(N-1)/N S/(2b) + 2n(k-1) alpha.
     */
    static double TorusAllReduceTime(uint32_t k,
                                     uint32_t n,
                                     double bytes,
                                     DataRate link,
                                     double alpha);
    /**
     * \brief Torus all-reduce as n concurrent pipelines on S/n each with rotated
     * dimension orders (derived): 2(N-1)/N S/(2nb) + 2n(k-1) alpha.
     */
    static double TorusPipelinedAllReduceTime(uint32_t k,
                                              uint32_t n,
                                              double bytes,
                                              DataRate link,
                                              double alpha);
    /**
     * \brief Bucket all-reduce on a torus whose dimensions may be degraded (derived).
     *
     * Dimensions are processed in the given order; dimension i reduces S_i =
     * S / prod_{j<i} k_j bytes with beta term 2 (k_i-1)/k_i S_i / (2b), doubled when
     * degraded[i] (a failed link turns its rings into lines; a mesh slice has no
     * wraparound), plus 2 (k_i - 1) alpha. With nothing degraded this equals
     * TorusAllReduceTime.
     * \param dims k per dimension, in processing order
     * \param degraded per dimension: true if that dimension is a line, not a ring
     */
    static double TorusBucketAllReduceTime(const std::vector<uint32_t>& dims,
                                           const std::vector<bool>& degraded,
                                           double bytes,
                                           DataRate link,
                                           double alpha);
    /// Mesh (no wraparound) all-reduce: every dimension's beta term doubles (derived).
    static double MeshAllReduceTime(uint32_t k,
                                    uint32_t n,
                                    double bytes,
                                    DataRate link,
                                    double alpha);

    /**
     * \brief nccl-tests bus bandwidth (doc/PERFORMANCE.md): busbw = S/t * factor.
     * \param collective "allreduce" (2(n-1)/n), "reducescatter", "allgather", "alltoall"
     * ((n-1)/n), "broadcast", "reduce" (1)
     * \return bytes per second
     */
    static double BusBandwidth(const std::string& collective,
                               uint32_t n,
                               uint64_t bytes,
                               double seconds);

protected:
    void DoDispose() override;

private:
    /// Rate and delay of one direction of a link.
    struct LinkCache
    {
        double secondsPerByteAtoB{0};
        double secondsPerByteBtoA{0};
        double delay{0};
    };

    StepPrediction PredictStepWith(const CollectiveStep& step, double gamma) const;
    std::vector<StepPrediction> PredictStepsWith(const std::vector<CollectiveStep>& schedule,
                                                 double gamma) const;
    TimelinePrediction PredictTimelineWith(const std::vector<CollectiveStep>& schedule,
                                           double gamma) const;
    /// Latency of a message of first frame f1 from src to dst (max over its routes).
    double MessageLatency(uint32_t srcRank, uint32_t dstRank, double f1) const;
    void RefreshIfLinksFailed() const;
    void CheckBound() const;

    uint32_t m_maxPayload{8972};
    uint32_t m_nicBacklogPackets{8};
    uint32_t m_overhead{30};
    double m_reduceTimePerByte{0}; //!< gamma (s/B)
    Time m_perMessageOverhead;

    Ptr<Cluster> m_cluster;
    mutable std::unique_ptr<RoutePlanner> m_planner;
    mutable std::vector<LinkCache> m_links;
    mutable uint32_t m_failedSeen{0};

    /// A step was timed: step index, its prediction.
    mutable TracedCallback<uint32_t, const StepPrediction&> m_stepTrace;
    /// A message was timed by the dependency-aware model.
    mutable TracedCallback<const MessageTiming&> m_messageTrace;
};

} // namespace ns3

#endif // MLNET_ALPHA_BETA_MODEL_H
