/*
 * AlphaBetaModel: see alpha-beta-model.h for what is modelled and what is left out.
 *
 * Derivation of the uncontended message time on ns-3 point-to-point links.
 * A message of m bytes leaves as n back-to-back packets; packet i has wire size
 * F_i (payload + O), W = sum F_i, and a device is busy for F_i*8/R per packet
 * (InterframeGap 0). Every node stores a packet whole before forwarding it. On the
 * first link the last packet finishes serializing at W*8/R. Link j (j >= 2) can start
 * packet 1 only once it has arrived, F_1*8/R + d after link j-1 started it, and
 * never waits again because all packets of the train are no larger than the first
 * and the rates are equal; so link j ends the train F_1*8/R + d after link j-1 did.
 * The last byte arrives after one more propagation delay:
 *   T_msg = W*8/R + (h-1)*(F_1*8/R + d) + d = (W + (h-1)*F_1)*8/R + h*d.
 */
#include "alpha-beta-model.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/uinteger.h"
#include "route-planner.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetAlphaBetaModel");
NS_OBJECT_ENSURE_REGISTERED(AlphaBetaModel);

TypeId AlphaBetaModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AlphaBetaModel")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<AlphaBetaModel>()
            .AddAttribute("MaxPayload",
                          "Application bytes carried by one packet (P, bytes); take it from "
                          "the transport's GetMaxPayload.",
                          UintegerValue(8972), MakeUintegerAccessor(&AlphaBetaModel::m_maxPayload),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("PerPacketOverhead",
                          "Wire bytes added to every packet: transport, L4, IPv4 and PPP "
                          "headers (O, bytes); take it from the transport's "
                          "GetPerPacketOverhead.",
                          UintegerValue(30), MakeUintegerAccessor(&AlphaBetaModel::m_overhead),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ReductionTimePerByte",
                          "Time to reduce one received byte (gamma, s/B); used by "
                          "Predict(schedule). Predict(collective) uses the collective's own.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&AlphaBetaModel::m_reduceTimePerByte),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PerMessageOverhead",
                          "Software latency added once per step (alpha_sw, s), e.g. the "
                          "launch and completion cost of a message in NCCL or MPI.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&AlphaBetaModel::m_perMessageOverhead),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("StepPredicted",
                            "A step of a schedule was timed: step index, its prediction "
                            "(bandwidth time, latency, bottleneck link, ...).",
                            MakeTraceSourceAccessor(&AlphaBetaModel::m_stepTrace),
                            "ns3::AlphaBetaModel::StepPredictedTracedCallback");
    return tid;
}

AlphaBetaModel::AlphaBetaModel() = default;
AlphaBetaModel::~AlphaBetaModel() = default;

void AlphaBetaModel::DoDispose()
{
    m_planner.reset();
    m_links.clear();
    m_cluster = nullptr;
    Object::DoDispose();
}

// ---- Binding ------------------------------------------------------------------

void AlphaBetaModel::SetCluster(Ptr<Cluster> cluster)
{
    NS_LOG_FUNCTION(this << cluster);
    if (!cluster)
    {
        throw std::invalid_argument("AlphaBetaModel::SetCluster: the cluster is null; build "
                                    "the fabric first");
    }
    m_cluster = cluster;
    Refresh();
}

Ptr<Cluster> AlphaBetaModel::GetCluster() const
{
    return m_cluster;
}

void AlphaBetaModel::Refresh()
{
    NS_LOG_FUNCTION(this);
    CheckBound();
    m_planner = std::make_unique<RoutePlanner>(m_cluster);
    m_planner->Compute();
    const auto& links = m_cluster->GetLinks();
    m_links.assign(links.size(), LinkCache());
    m_failedSeen = 0;
    for (const auto& l : links)
    {
        DataRateValue rateA;
        DataRateValue rateB;
        l.devA->GetAttribute("DataRate", rateA);
        l.devB->GetAttribute("DataRate", rateB);
        TimeValue delay;
        l.devA->GetChannel()->GetAttribute("Delay", delay);
        LinkCache& c = m_links[l.id];
        c.secondsPerByteAtoB = 8.0 / static_cast<double>(rateA.Get().GetBitRate());
        c.secondsPerByteBtoA = 8.0 / static_cast<double>(rateB.Get().GetBitRate());
        c.delay = delay.Get().GetSeconds();
        m_failedSeen += l.failed ? 1 : 0;
    }
}

void AlphaBetaModel::RefreshIfLinksFailed() const
{
    uint32_t failed = 0;
    for (const auto& l : m_cluster->GetLinks())
    {
        failed += l.failed ? 1 : 0;
    }
    if (failed != m_failedSeen || m_links.size() != m_cluster->GetLinks().size())
    {
        NS_LOG_INFO("links changed (" << failed << " failed): recomputing routes");
        const_cast<AlphaBetaModel*>(this)->Refresh();
    }
}

void AlphaBetaModel::CheckBound() const
{
    if (!m_cluster)
    {
        throw std::invalid_argument("AlphaBetaModel: no cluster bound; call SetCluster(cluster) "
                                    "before predicting steps");
    }
}

void AlphaBetaModel::SetPacketization(uint32_t maxPayload, uint32_t overhead)
{
    if (maxPayload == 0)
    {
        throw std::invalid_argument("AlphaBetaModel::SetPacketization: maxPayload must be at "
                                    "least 1 byte");
    }
    m_maxPayload = maxPayload;
    m_overhead = overhead;
}

void AlphaBetaModel::SetPacketization(Ptr<const MessageTransport> transport)
{
    if (!transport)
    {
        throw std::invalid_argument("AlphaBetaModel::SetPacketization: the transport is null");
    }
    SetPacketization(transport->GetMaxPayload(), transport->GetPerPacketOverhead());
}

uint32_t AlphaBetaModel::GetMaxPayload() const
{
    return m_maxPayload;
}

uint32_t AlphaBetaModel::GetPerPacketOverhead() const
{
    return m_overhead;
}

// ---- Packetization --------------------------------------------------------------

uint64_t AlphaBetaModel::GetPacketCount(uint64_t bytes) const
{
    return (bytes + m_maxPayload - 1) / m_maxPayload;
}

uint64_t AlphaBetaModel::GetWireBytes(uint64_t bytes) const
{
    return bytes + GetPacketCount(bytes) * m_overhead;
}

uint64_t AlphaBetaModel::GetFirstFrameBytes(uint64_t bytes) const
{
    if (bytes == 0)
    {
        return 0;
    }
    return std::min<uint64_t>(bytes, m_maxPayload) + m_overhead;
}

// ---- Predictions ----------------------------------------------------------------

Time AlphaBetaModel::PredictMessage(uint64_t bytes, uint32_t hops, DataRate rate, Time delay) const
{
    if (bytes == 0 || hops == 0)
    {
        return Time(0);
    }
    double spb = 8.0 / static_cast<double>(rate.GetBitRate());
    double w = static_cast<double>(GetWireBytes(bytes));
    double f1 = static_cast<double>(GetFirstFrameBytes(bytes));
    return Seconds((w + (hops - 1) * f1) * spb + hops * delay.GetSeconds());
}

double AlphaBetaModel::MessageLatency(uint32_t srcRank, uint32_t dstRank, double f1) const
{
    // Longest route of the routing DAG towards dst, counting d + F1*8/R per hop; the
    // slowest link's frame is part of the bandwidth term, so it is taken off once.
    const uint32_t dstNode = m_cluster->GetRankNode(dstRank)->GetId();
    std::unordered_map<uint32_t, double> memo;
    double slowest = 0;
    const auto& links = m_cluster->GetLinks();
    std::function<double(uint32_t)> longest = [&](uint32_t node) -> double
    {
        if (node == dstNode)
        {
            return 0.0;
        }
        auto it = memo.find(node);
        if (it != memo.end())
        {
            return it->second;
        }
        double best = 0;
        for (uint32_t id : m_planner->NextLinks(node, dstRank))
        {
            const ClusterLink& l = links[id];
            bool aToB = l.nodeA == node;
            double spb = aToB ? m_links[id].secondsPerByteAtoB : m_links[id].secondsPerByteBtoA;
            slowest = std::max(slowest, spb);
            double t = m_links[id].delay + f1 * spb + longest(aToB ? l.nodeB : l.nodeA);
            best = std::max(best, t);
        }
        memo[node] = best;
        return best;
    };
    double total = longest(m_cluster->GetRankNode(srcRank)->GetId());
    return total - f1 * slowest;
}

StepPrediction AlphaBetaModel::PredictStep(const CollectiveStep& step) const
{
    return PredictStepWith(step, m_reduceTimePerByte.GetSeconds());
}

StepPrediction AlphaBetaModel::PredictStepWith(const CollectiveStep& step, double gamma) const
{
    CheckBound();
    RefreshIfLinksFailed();
    const uint32_t nRanks = m_cluster->GetNRanks();
    std::vector<double> load(2 * m_links.size(), 0.0);
    std::unordered_map<uint64_t, double> latencyOf; // (src, dst) -> latency, per first frame
    StepPrediction p;
    double latency = 0;
    for (const auto& msg : step.messages)
    {
        if (msg.src >= nRanks || msg.dst >= nRanks)
        {
            throw std::invalid_argument("AlphaBetaModel: a message goes from rank " +
                                        std::to_string(msg.src) + " to rank " +
                                        std::to_string(msg.dst) + " but the cluster has " +
                                        std::to_string(nRanks) + " ranks");
        }
        if (msg.src == msg.dst || msg.bytes == 0)
        {
            continue;
        }
        uint32_t hops = m_planner->Hops(msg.src, msg.dst);
        if (hops == std::numeric_limits<uint32_t>::max())
        {
            throw std::invalid_argument("AlphaBetaModel: rank " + std::to_string(msg.dst) +
                                        " is unreachable from rank " + std::to_string(msg.src) +
                                        " (failed links?); remap the job or repair the fabric");
        }
        ++p.messages;
        p.maxHops = std::max(p.maxHops, hops);
        double w = static_cast<double>(GetWireBytes(msg.bytes));
        for (const auto& [key, share] : m_planner->LinkShares(msg.src, msg.dst))
        {
            load[key] += w * share;
        }
        uint64_t f1 = GetFirstFrameBytes(msg.bytes);
        uint64_t cacheKey = (static_cast<uint64_t>(msg.src) * nRanks + msg.dst) *
                                (static_cast<uint64_t>(m_maxPayload) + m_overhead + 1) +
                            f1;
        auto it = latencyOf.find(cacheKey);
        double lat = 0;
        if (it == latencyOf.end())
        {
            lat = MessageLatency(msg.src, msg.dst, static_cast<double>(f1));
            latencyOf.emplace(cacheKey, lat);
        }
        else
        {
            lat = it->second;
        }
        latency = std::max(latency, lat);
    }
    double bandwidth = 0;
    for (uint32_t key = 0; key < load.size(); ++key)
    {
        if (load[key] <= 0)
        {
            continue;
        }
        const LinkCache& c = m_links[key / 2];
        double t = load[key] * ((key % 2 == 0) ? c.secondsPerByteAtoB : c.secondsPerByteBtoA);
        if (t > bandwidth)
        {
            bandwidth = t;
            p.bottleneckLink = key / 2;
            p.bottleneckAtoB = key % 2 == 0;
            p.bottleneckBytes = load[key];
        }
    }
    double reduction = gamma * static_cast<double>(step.reduceBytes);
    double overhead = p.messages > 0 ? m_perMessageOverhead.GetSeconds() : 0.0;
    p.bandwidthTime = Seconds(bandwidth);
    p.latency = Seconds(latency);
    p.reduction = Seconds(reduction);
    p.overhead = Seconds(overhead);
    // Rounded once, so that a lone message equals PredictMessage to the resolution unit.
    p.total = Seconds(bandwidth + latency + reduction + overhead);
    return p;
}

std::vector<StepPrediction> AlphaBetaModel::PredictStepsWith(
    const std::vector<CollectiveStep>& schedule, double gamma) const
{
    std::vector<StepPrediction> out;
    out.reserve(schedule.size());
    for (uint32_t i = 0; i < schedule.size(); ++i)
    {
        out.push_back(PredictStepWith(schedule[i], gamma));
        NS_LOG_DEBUG("step " << i << ": " << out.back().total.As(Time::US) << " (bw "
                             << out.back().bandwidthTime.As(Time::US) << ", latency "
                             << out.back().latency.As(Time::US) << ", bottleneck link "
                             << out.back().bottleneckLink << ")");
        m_stepTrace(i, out.back());
    }
    return out;
}

std::vector<StepPrediction> AlphaBetaModel::PredictSteps(
    const std::vector<CollectiveStep>& schedule) const
{
    return PredictStepsWith(schedule, m_reduceTimePerByte.GetSeconds());
}

Time AlphaBetaModel::Predict(const std::vector<CollectiveStep>& schedule) const
{
    Time total(0);
    for (const auto& s : PredictSteps(schedule))
    {
        total += s.total;
    }
    return total;
}

std::vector<StepPrediction> AlphaBetaModel::PredictSteps(Ptr<const Collective> collective) const
{
    if (!collective)
    {
        throw std::invalid_argument("AlphaBetaModel::Predict: the collective is null");
    }
    return PredictStepsWith(collective->GetSchedule(),
                            collective->GetReductionTimePerByte().GetSeconds());
}

Time AlphaBetaModel::Predict(Ptr<const Collective> collective) const
{
    Time total(0);
    for (const auto& s : PredictSteps(collective))
    {
        total += s.total;
    }
    return total;
}

// ---- Closed forms -----------------------------------------------------------------

namespace
{

/// lg p as a step count: ceil(log2 p); exact for powers of two.
double Lg(uint32_t p)
{
    return std::ceil(std::log2(static_cast<double>(p)));
}

void CheckRanks(uint32_t p, const char* who)
{
    if (p < 1)
    {
        throw std::invalid_argument(std::string(who) + ": the number of ranks must be >= 1");
    }
}

double BytesPerSecond(DataRate rate)
{
    return static_cast<double>(rate.GetBitRate()) / 8.0;
}

} // namespace

double AlphaBetaModel::RingAllGatherTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "RingAllGatherTime");
    return (p - 1) * alpha + n * (p - 1) / p * beta;
}

double AlphaBetaModel::RecursiveDoublingAllGatherTime(uint32_t p, double n, double alpha,
                                                      double beta)
{
    CheckRanks(p, "RecursiveDoublingAllGatherTime");
    return Lg(p) * alpha + n * (p - 1) / p * beta;
}

double AlphaBetaModel::RingReduceScatterTime(uint32_t p, double n, double alpha, double beta,
                                             double gamma)
{
    CheckRanks(p, "RingReduceScatterTime");
    return (p - 1) * alpha + n * (p - 1) / p * (beta + gamma);
}

double AlphaBetaModel::RecursiveHalvingReduceScatterTime(uint32_t p, double n, double alpha,
                                                         double beta, double gamma)
{
    CheckRanks(p, "RecursiveHalvingReduceScatterTime");
    return Lg(p) * alpha + n * (p - 1) / p * (beta + gamma);
}

double AlphaBetaModel::RingAllReduceTime(uint32_t p, double n, double alpha, double beta,
                                         double gamma)
{
    CheckRanks(p, "RingAllReduceTime");
    return 2.0 * (p - 1) * alpha + 2.0 * n * (p - 1) / p * beta + n * (p - 1) / p * gamma;
}

double AlphaBetaModel::RabenseifnerAllReduceTime(uint32_t p, double n, double alpha, double beta,
                                                 double gamma)
{
    CheckRanks(p, "RabenseifnerAllReduceTime");
    return 2.0 * Lg(p) * alpha + 2.0 * n * (p - 1) / p * beta + n * (p - 1) / p * gamma;
}

double AlphaBetaModel::ScatterAllGatherBroadcastTime(uint32_t p, double n, double alpha,
                                                     double beta)
{
    CheckRanks(p, "ScatterAllGatherBroadcastTime");
    return (Lg(p) + p - 1) * alpha + 2.0 * n * (p - 1) / p * beta;
}

double AlphaBetaModel::BruckAllToAllTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "BruckAllToAllTime");
    return Lg(p) * alpha + n / 2.0 * Lg(p) * beta;
}

double AlphaBetaModel::PairwiseAllToAllTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "PairwiseAllToAllTime");
    return (p - 1) * alpha + n * beta;
}

double AlphaBetaModel::AllReduceLowerBound(uint32_t n, double bytes, DataRate injection)
{
    CheckRanks(n, "AllReduceLowerBound");
    return 2.0 * (n - 1) / n * bytes / BytesPerSecond(injection);
}

double AlphaBetaModel::TorusAllToAllBound(uint32_t k, uint32_t n, double m, DataRate link)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusAllToAllBound: need k >= 2 and n >= 1");
    }
    double ranks = std::pow(static_cast<double>(k), static_cast<double>(n));
    return ranks * k * m / (8.0 * BytesPerSecond(link));
}

double AlphaBetaModel::ClosAllToAllBound(uint32_t ranks, double m, DataRate injection)
{
    CheckRanks(ranks, "ClosAllToAllBound");
    return (ranks - 1) * m / BytesPerSecond(injection);
}

double AlphaBetaModel::TorusHopRatio(uint32_t k, uint32_t n)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusHopRatio: need k >= 2 and n >= 1");
    }
    if (k % 2 == 0)
    {
        return n * k / 4.0;
    }
    return n * (static_cast<double>(k) * k - 1.0) / (4.0 * k);
}

double AlphaBetaModel::OversubscribedClosAllToAllTime(uint32_t ranks, uint32_t ranksPerRack,
                                                      double r, double m, DataRate injection)
{
    if (ranks < 2 || ranksPerRack < 1 || ranksPerRack > ranks || r <= 0)
    {
        throw std::invalid_argument("OversubscribedClosAllToAllTime: need ranks >= 2, "
                                    "1 <= ranksPerRack <= ranks and oversubscription r > 0");
    }
    double bigM = (ranks - 1) * m;
    double f = static_cast<double>(ranks - ranksPerRack) / (ranks - 1);
    return bigM / BytesPerSecond(injection) * std::max(1.0, r * f);
}

double AlphaBetaModel::TorusAllReduceTime(uint32_t k, uint32_t n, double bytes, DataRate link,
                                          double alpha)
{
    return TorusBucketAllReduceTime(std::vector<uint32_t>(n, k), std::vector<bool>(n, false), bytes,
                                    link, alpha);
}

double AlphaBetaModel::TorusPipelinedAllReduceTime(uint32_t k, uint32_t n, double bytes,
                                                   DataRate link, double alpha)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusPipelinedAllReduceTime: need k >= 2 and n >= 1");
    }
    double ranks = std::pow(static_cast<double>(k), static_cast<double>(n));
    return 2.0 * (ranks - 1) / ranks * bytes / (2.0 * n * BytesPerSecond(link)) +
           2.0 * n * (k - 1) * alpha;
}

double AlphaBetaModel::TorusBucketAllReduceTime(const std::vector<uint32_t>& dims,
                                                const std::vector<bool>& degraded, double bytes,
                                                DataRate link, double alpha)
{
    if (dims.empty() || degraded.size() != dims.size())
    {
        throw std::invalid_argument("TorusBucketAllReduceTime: give k for at least one "
                                    "dimension and one degraded flag per dimension");
    }
    double b = BytesPerSecond(link);
    double perPhase = bytes; // bytes reduced in the current dimension
    double t = 0;
    for (size_t i = 0; i < dims.size(); ++i)
    {
        uint32_t k = dims[i];
        if (k < 2)
        {
            throw std::invalid_argument("TorusBucketAllReduceTime: every dimension needs k >= 2");
        }
        // Reduce-scatter then all-gather on a bidirectional ring of k: each half-ring
        // moves (k-1)/k of its half at rate b, twice. A line carries one
        // unidirectional ring only: the beta term doubles.
        double beta = 2.0 * (k - 1) / k * perPhase / (2.0 * b);
        t += (degraded[i] ? 2.0 : 1.0) * beta + 2.0 * (k - 1) * alpha;
        perPhase /= k;
    }
    return t;
}

double AlphaBetaModel::MeshAllReduceTime(uint32_t k, uint32_t n, double bytes, DataRate link,
                                         double alpha)
{
    return TorusBucketAllReduceTime(std::vector<uint32_t>(n, k), std::vector<bool>(n, true), bytes,
                                    link, alpha);
}

double AlphaBetaModel::BusBandwidth(const std::string& collective, uint32_t n, uint64_t bytes,
                                    double seconds)
{
    if (n < 1 || seconds <= 0)
    {
        throw std::invalid_argument("BusBandwidth: need n >= 1 ranks and a positive time");
    }
    double factor = 0;
    if (collective == "allreduce")
    {
        factor = 2.0 * (n - 1) / n;
    }
    else if (collective == "reducescatter" || collective == "allgather" || collective == "alltoall")
    {
        factor = static_cast<double>(n - 1) / n;
    }
    else if (collective == "broadcast" || collective == "reduce")
    {
        factor = 1.0;
    }
    else
    {
        throw std::invalid_argument("BusBandwidth: unknown collective '" + collective +
                                    "'; use allreduce, reducescatter, allgather, alltoall, "
                                    "broadcast or reduce");
    }
    return static_cast<double>(bytes) / seconds * factor;
}

} // namespace ns3
