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
#include "ns3/route-planner.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetAlphaBetaModel");
NS_OBJECT_ENSURE_REGISTERED(AlphaBetaModel);

TypeId
AlphaBetaModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AlphaBetaModel")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<AlphaBetaModel>()
            .AddAttribute("MaxPayload",
                          "Application bytes carried by one packet (P, bytes); take it from "
                          "the transport's GetMaxPayload.",
                          UintegerValue(8972),
                          MakeUintegerAccessor(&AlphaBetaModel::m_maxPayload),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("PerPacketOverhead",
                          "Wire bytes added to every packet: transport, L4, IPv4 and PPP "
                          "headers (O, bytes); take it from the transport's "
                          "GetPerPacketOverhead.",
                          UintegerValue(30),
                          MakeUintegerAccessor(&AlphaBetaModel::m_overhead),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NicBacklogPackets",
                          "Packets a sender's NIC holds in its FIFO (the UDP transport's "
                          "MaxBacklogPackets, packets): a message issued while the FIFO has "
                          "room sends that many first packets ahead of later messages; the "
                          "rest is shared round-robin. 0: pure round-robin. Used by Predict.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&AlphaBetaModel::m_nicBacklogPackets),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ReductionTimePerByte",
                          "Time to reduce one received byte (gamma, s/B); used by the "
                          "schedule overloads. The collective overloads use the collective's "
                          "own.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&AlphaBetaModel::m_reduceTimePerByte),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("PerMessageOverhead",
                          "Software latency of a message (alpha_sw, s), e.g. the launch and "
                          "completion cost of a message in NCCL or MPI: added to every "
                          "message's delivery by Predict, once per step by PredictLockStep.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&AlphaBetaModel::m_perMessageOverhead),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("MessagePredicted",
                            "The dependency-aware model timed a message: its start, the end "
                            "of its fluid transfer and its arrival.",
                            MakeTraceSourceAccessor(&AlphaBetaModel::m_messageTrace),
                            "ns3::AlphaBetaModel::MessagePredictedTracedCallback")
            .AddTraceSource("StepPredicted",
                            "A step of a schedule was timed: step index, its prediction "
                            "(bandwidth time, latency, bottleneck link, ...).",
                            MakeTraceSourceAccessor(&AlphaBetaModel::m_stepTrace),
                            "ns3::AlphaBetaModel::StepPredictedTracedCallback");
    return tid;
}

AlphaBetaModel::AlphaBetaModel() = default;
AlphaBetaModel::~AlphaBetaModel() = default;

void
AlphaBetaModel::DoDispose()
{
    m_planner.reset();
    m_links.clear();
    m_cluster = nullptr;
    Object::DoDispose();
}

// ---- Binding ------------------------------------------------------------------

void
AlphaBetaModel::SetCluster(Ptr<Cluster> cluster)
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

Ptr<Cluster>
AlphaBetaModel::GetCluster() const
{
    return m_cluster;
}

void
AlphaBetaModel::Refresh()
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

void
AlphaBetaModel::RefreshIfLinksFailed() const
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

void
AlphaBetaModel::CheckBound() const
{
    if (!m_cluster)
    {
        throw std::invalid_argument("AlphaBetaModel: no cluster bound; call SetCluster(cluster) "
                                    "before predicting steps");
    }
}

void
AlphaBetaModel::SetPacketization(uint32_t maxPayload, uint32_t overhead)
{
    if (maxPayload == 0)
    {
        throw std::invalid_argument("AlphaBetaModel::SetPacketization: maxPayload must be at "
                                    "least 1 byte");
    }
    m_maxPayload = maxPayload;
    m_overhead = overhead;
}

void
AlphaBetaModel::SetPacketization(Ptr<const MessageTransport> transport)
{
    if (!transport)
    {
        throw std::invalid_argument("AlphaBetaModel::SetPacketization: the transport is null");
    }
    SetPacketization(transport->GetMaxPayload(), transport->GetPerPacketOverhead());
    UintegerValue backlog;
    if (transport->GetAttributeFailSafe("MaxBacklogPackets", backlog))
    {
        m_nicBacklogPackets = static_cast<uint32_t>(backlog.Get());
    }
}

uint32_t
AlphaBetaModel::GetMaxPayload() const
{
    return m_maxPayload;
}

uint32_t
AlphaBetaModel::GetPerPacketOverhead() const
{
    return m_overhead;
}

// ---- Packetization --------------------------------------------------------------

uint64_t
AlphaBetaModel::GetPacketCount(uint64_t bytes) const
{
    return (bytes + m_maxPayload - 1) / m_maxPayload;
}

uint64_t
AlphaBetaModel::GetWireBytes(uint64_t bytes) const
{
    return bytes + GetPacketCount(bytes) * m_overhead;
}

uint64_t
AlphaBetaModel::GetFirstFrameBytes(uint64_t bytes) const
{
    if (bytes == 0)
    {
        return 0;
    }
    return std::min<uint64_t>(bytes, m_maxPayload) + m_overhead;
}

// ---- Predictions ----------------------------------------------------------------

Time
AlphaBetaModel::PredictMessage(uint64_t bytes, uint32_t hops, DataRate rate, Time delay) const
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

double
AlphaBetaModel::MessageLatency(uint32_t srcRank, uint32_t dstRank, double f1) const
{
    // Longest route of the routing DAG towards dst, counting d + F1*8/R per hop; the
    // slowest link's frame is part of the bandwidth term, so it is taken off once.
    const uint32_t dstNode = m_cluster->GetRankNode(dstRank)->GetId();
    std::unordered_map<uint32_t, double> memo;
    double slowest = 0;
    const auto& links = m_cluster->GetLinks();
    std::function<double(uint32_t)> longest = [&](uint32_t node) -> double {
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

StepPrediction
AlphaBetaModel::PredictStep(const CollectiveStep& step) const
{
    return PredictStepWith(step, m_reduceTimePerByte);
}

StepPrediction
AlphaBetaModel::PredictStepWith(const CollectiveStep& step, double gamma) const
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

std::vector<StepPrediction>
AlphaBetaModel::PredictStepsWith(const std::vector<CollectiveStep>& schedule, double gamma) const
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

std::vector<StepPrediction>
AlphaBetaModel::PredictSteps(const std::vector<CollectiveStep>& schedule) const
{
    return PredictStepsWith(schedule, m_reduceTimePerByte);
}

Time
AlphaBetaModel::PredictLockStep(const std::vector<CollectiveStep>& schedule) const
{
    Time total(0);
    for (const auto& s : PredictSteps(schedule))
    {
        total += s.total;
    }
    return total;
}

Time
AlphaBetaModel::Predict(const std::vector<CollectiveStep>& schedule) const
{
    return PredictTimeline(schedule).total;
}

std::vector<StepPrediction>
AlphaBetaModel::PredictSteps(Ptr<const Collective> collective) const
{
    if (!collective)
    {
        throw std::invalid_argument("AlphaBetaModel::Predict: the collective is null");
    }
    return PredictStepsWith(collective->GetSchedule(), collective->GetReductionTimePerByte());
}

Time
AlphaBetaModel::PredictLockStep(Ptr<const Collective> collective) const
{
    Time total(0);
    for (const auto& s : PredictSteps(collective))
    {
        total += s.total;
    }
    return total;
}

Time
AlphaBetaModel::Predict(Ptr<const Collective> collective) const
{
    return PredictTimeline(collective).total;
}

TimelinePrediction
AlphaBetaModel::PredictTimeline(const std::vector<CollectiveStep>& schedule) const
{
    return PredictTimelineWith(schedule, m_reduceTimePerByte);
}

TimelinePrediction
AlphaBetaModel::PredictTimeline(Ptr<const Collective> collective) const
{
    if (!collective)
    {
        throw std::invalid_argument("AlphaBetaModel::Predict: the collective is null");
    }
    return PredictTimelineWith(collective->GetSchedule(), collective->GetReductionTimePerByte());
}

// ---- Dependency-aware prediction ----------------------------------------------------
//
// Ranks. Each rank runs its chains as the StepwiseCollective engine does: entering
// step g of chain c issues the rank's messages of (c, g); the step completes when
// every message addressed to the rank in (c, g) has arrived; a reduction (gamma x
// reduced bytes) then starts when the rank's previous reduction ended, and the next
// step is entered when it ends.
//
// Sender NIC (the directed links leaving the source: one for a host). It models the
// UDP transport's NIC scheduler: a FIFO of at most B packets (NicBacklogPackets)
// filled round-robin from the active messages. A message issued while the FIFO has
// room puts its first packets (up to the room) in it at once: this "head" leaves at
// the NIC's full rate, after the heads queued before it. The rest of the message is
// served round-robin with the other active messages once the FIFO holds no head: each
// gets rate_k / (sum of the round-robin shares on the link). A message that ECMP
// splits over several first hops has no head and is round-robin on each of them.
//
// Downstream links. Senders do not slow down for the network (no congestion control):
// a message offers its NIC rate x its ECMP share to every later link of its route. A
// link offered more than its rate builds a FIFO backlog Q (fluid, dQ/dt = offered -
// rate while Q > 0); a message whose last byte leaves its NIC at t waits the largest
// Q(t)/rate over the links of its route. Its last byte then arrives after the
// pipeline latency L = (h-1)*F1*8/R + h*d of its own route plus PerMessageOverhead.
//
// Rates are recomputed whenever a message starts, ends, or its head leaves the NIC.
// Times are doubles (seconds) rounded once at the end. A lone message on an idle path
// takes head/R + rest/R + L = T_msg exactly.

namespace
{

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

} // namespace

TimelinePrediction
AlphaBetaModel::PredictTimelineWith(const std::vector<CollectiveStep>& schedule, double gamma) const
{
    CheckBound();
    RefreshIfLinksFailed();
    const uint32_t nRanks = m_cluster->GetNRanks();
    const double overhead = m_perMessageOverhead.GetSeconds();

    // 1. Flatten the schedule, resolve steps, route every message.
    std::vector<FluidMessage> msgs;
    std::vector<std::pair<uint32_t, double>> shares;
    std::vector<std::map<uint32_t, RankChain>> ranks(nRanks);
    std::unordered_map<uint64_t, double> latencyOf; // (src, dst, F1) -> L
    for (uint32_t si = 0; si < schedule.size(); ++si)
    {
        for (const auto& sm : schedule[si].messages)
        {
            if (sm.src >= nRanks || sm.dst >= nRanks)
            {
                throw std::invalid_argument("AlphaBetaModel: a message goes from rank " +
                                            std::to_string(sm.src) + " to rank " +
                                            std::to_string(sm.dst) + " but the cluster has " +
                                            std::to_string(nRanks) + " ranks");
            }
            FluidMessage f;
            f.msg = sm;
            f.scheduleStep = si;
            bool legacy = sm.step == ScheduledMessage::kStepOfSchedule;
            if (legacy)
            {
                f.msg.step = si;
                f.msg.chain = 0;
            }
            if (sm.src != sm.dst && sm.bytes > 0)
            {
                f.hops = m_planner->Hops(sm.src, sm.dst);
                if (f.hops == std::numeric_limits<uint32_t>::max())
                {
                    throw std::invalid_argument(
                        "AlphaBetaModel: rank " + std::to_string(sm.dst) +
                        " is unreachable from rank " + std::to_string(sm.src) +
                        " (failed links?); remap the job or repair the fabric");
                }
                f.wire = static_cast<double>(GetWireBytes(sm.bytes));
                uint64_t f1 = GetFirstFrameBytes(sm.bytes);
                uint64_t key = (static_cast<uint64_t>(sm.src) * nRanks + sm.dst) *
                                   (static_cast<uint64_t>(m_maxPayload) + m_overhead + 1) +
                               f1;
                auto it = latencyOf.find(key);
                if (it == latencyOf.end())
                {
                    it = latencyOf
                             .emplace(key, MessageLatency(sm.src, sm.dst, static_cast<double>(f1)))
                             .first;
                }
                f.latency = it->second;
                f.delivery = f.latency + overhead;
                // First hops (the sender's NIC) first, then the downstream links.
                const uint32_t srcNode = m_cluster->GetRankNode(sm.src)->GetId();
                auto routeShares = m_planner->LinkShares(sm.src, sm.dst);
                auto leavesSource = [&](const std::pair<uint32_t, double>& ks) {
                    const ClusterLink& l = m_cluster->GetLinks()[ks.first / 2];
                    return (ks.first % 2 == 0 ? l.nodeA : l.nodeB) == srcNode;
                };
                f.shareBegin = static_cast<uint32_t>(shares.size());
                for (const auto& ks : routeShares)
                {
                    if (leavesSource(ks))
                    {
                        shares.push_back(ks);
                    }
                }
                f.nicEnd = static_cast<uint32_t>(shares.size());
                for (const auto& ks : routeShares)
                {
                    if (!leavesSource(ks))
                    {
                        shares.push_back(ks);
                    }
                }
                f.shareEnd = static_cast<uint32_t>(shares.size());
                NS_ASSERT_MSG(f.nicEnd > f.shareBegin, "a route without a first hop");
                if (f.nicEnd == f.shareBegin + 1)
                {
                    f.nic = shares[f.shareBegin].first;
                }
                f.packets = GetPacketCount(sm.bytes);
            }
            uint32_t id = static_cast<uint32_t>(msgs.size());
            ranks[sm.src][f.msg.chain].steps[f.msg.step].sends.push_back(id);
            RankStep& recv = ranks[sm.dst][f.msg.chain].steps[f.msg.step];
            ++recv.recvsLeft;
            if (legacy)
            {
                // A hand-written schedule: its receivers reduce the step's reduceBytes.
                recv.reduceBytes = static_cast<double>(schedule[si].reduceBytes);
            }
            else if (sm.reduce)
            {
                recv.reduceBytes += static_cast<double>(sm.bytes);
            }
            msgs.push_back(std::move(f));
        }
    }
    if (msgs.size() >= std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("AlphaBetaModel: the schedule has too many messages");
    }

    // 2. Replay the programs event by event.
    TimelinePrediction out;
    std::vector<double> finish(nRanks, 0.0);
    std::vector<double> computeFree(nRanks, 0.0);
    const size_t nKeys = 2 * m_links.size();
    auto spbOf = [this](uint32_t key) {
        const LinkCache& lc = m_links[key / 2];
        return key % 2 == 0 ? lc.secondsPerByteAtoB : lc.secondsPerByteBtoA;
    };
    std::vector<double> weight(nKeys, 0.0);        // NIC: round-robin shares of active messages
    std::vector<std::deque<uint32_t>> fifo(nKeys); // NIC: messages whose head is queued
    std::vector<double> offered(nKeys, 0.0);       // downstream: offered wire bytes per second
    std::vector<double> queue(nKeys, 0.0);         // downstream: FIFO backlog (bytes) at qTime
    std::vector<double> qTime(nKeys, 0.0);
    std::vector<char> isLive(nKeys, 0);
    std::vector<uint32_t> live; // downstream keys with offered load or backlog
    // Backlog of a downstream link at time t (offered load constant since qTime).
    auto backlog = [&](uint32_t key, double t) {
        return std::max(0.0, queue[key] + (offered[key] - 1.0 / spbOf(key)) * (t - qTime[key]));
    };
    std::vector<uint32_t> active;
    bool dirty = false;
    double now = 0;
    uint64_t seq = 0;
    std::priority_queue<TimelineEvent, std::vector<TimelineEvent>, std::greater<>> events;
    const double fifoPackets = static_cast<double>(m_nicBacklogPackets);

    auto startMessage = [&](uint32_t id) {
        FluidMessage& f = msgs[id];
        f.start = now;
        if (f.wire <= 0)
        {
            // To itself or empty: delivered at once.
            f.transferEnd = now;
            f.arrival = now;
            events.push({now, seq++, true, id, 0});
            return;
        }
        f.head = 0;
        f.rest = f.wire;
        if (f.nic != UINT32_MAX && fifoPackets > 0)
        {
            double perPacket = f.wire / static_cast<double>(f.packets);
            double queued = 0; // packets already in the FIFO
            for (uint32_t j : fifo[f.nic])
            {
                queued += msgs[j].head / (msgs[j].wire / static_cast<double>(msgs[j].packets));
            }
            double room = std::floor(fifoPackets - queued + 1e-9);
            // The FIFO is kept full while round-robin messages wait: no room then.
            bool roundRobinWaiting = false;
            for (uint32_t j : active)
            {
                roundRobinWaiting |= msgs[j].nic == f.nic && msgs[j].head <= 0;
            }
            if (room >= 1 && !roundRobinWaiting)
            {
                double pk = std::min(static_cast<double>(f.packets), room);
                f.head = pk == static_cast<double>(f.packets) ? f.wire : pk * perPacket;
                f.rest = f.wire - f.head;
                fifo[f.nic].push_back(id);
            }
            else if (roundRobinWaiting && fifo[f.nic].empty())
            {
                // The FIFO is full of packets of the round-robin messages: they leave
                // before this message's first packet. Split B packets evenly over them
                // and send those first.
                std::vector<uint32_t> rr;
                for (uint32_t j : active)
                {
                    if (msgs[j].nic == f.nic && msgs[j].head <= 0 && msgs[j].rest > 0)
                    {
                        rr.push_back(j);
                    }
                }
                for (uint32_t j : rr)
                {
                    FluidMessage& g = msgs[j];
                    double bpp = g.wire / static_cast<double>(g.packets);
                    double h = std::min(g.rest, fifoPackets / rr.size() * bpp);
                    g.head = h;
                    g.rest -= h;
                    fifo[f.nic].push_back(j);
                }
            }
        }
        active.push_back(id);
        dirty = true;
    };
    auto advance = [&](uint32_t r, uint32_t c) {
        RankChain& ch = ranks[r][c];
        while (true)
        {
            if (ch.cursor == ch.steps.end())
            {
                if (!ch.done)
                {
                    ch.done = true;
                    finish[r] = std::max(finish[r], now);
                }
                return;
            }
            RankStep& st = ch.cursor->second;
            if (!st.entered)
            {
                st.entered = true;
                for (uint32_t id : st.sends)
                {
                    startMessage(id);
                }
            }
            if (st.recvsLeft > 0)
            {
                return; // still waiting
            }
            ++ch.cursor;
            if (st.reduceBytes > 0 && gamma > 0)
            {
                // One compute resource per rank: reductions one after the other.
                computeFree[r] = std::max(now, computeFree[r]) + gamma * st.reduceBytes;
                ch.computing = true;
                events.push({computeFree[r], seq++, false, r, c});
                return;
            }
        }
    };
    auto recomputeRates = [&]() {
        for (uint32_t key : live)
        {
            queue[key] = backlog(key, now);
            qTime[key] = now;
            offered[key] = 0;
        }
        // Round-robin shares, on NIC links whose FIFO holds no head.
        for (uint32_t id : active)
        {
            const FluidMessage& f = msgs[id];
            if (f.head <= 0)
            {
                for (uint32_t k = f.shareBegin; k < f.nicEnd; ++k)
                {
                    weight[shares[k].first] += shares[k].second;
                }
            }
        }
        for (uint32_t id : active)
        {
            FluidMessage& f = msgs[id];
            if (f.head > 0)
            {
                f.rate = fifo[f.nic].front() == id ? 1.0 / spbOf(f.nic) : 0.0;
            }
            else
            {
                double spb = 0;
                bool blocked = false;
                for (uint32_t k = f.shareBegin; k < f.nicEnd; ++k)
                {
                    uint32_t key = shares[k].first;
                    blocked |= !fifo[key].empty();
                    spb = std::max(spb, spbOf(key) * weight[key]);
                }
                f.rate = blocked ? 0.0 : 1.0 / spb;
            }
            for (uint32_t k = f.nicEnd; k < f.shareEnd; ++k)
            {
                uint32_t key = shares[k].first;
                if (!isLive[key])
                {
                    queue[key] = backlog(key, now); // idle since qTime: drained
                    qTime[key] = now;
                    offered[key] = 0;
                    isLive[key] = 1;
                    live.push_back(key);
                }
                offered[key] += shares[k].second * f.rate;
            }
        }
        for (uint32_t id : active)
        {
            for (uint32_t k = msgs[id].shareBegin; k < msgs[id].nicEnd; ++k)
            {
                weight[shares[k].first] = 0;
            }
        }
        std::vector<uint32_t> keep;
        keep.reserve(live.size());
        for (uint32_t key : live)
        {
            if (offered[key] > 0 || queue[key] > 0)
            {
                keep.push_back(key);
            }
            else
            {
                isLive[key] = 0;
            }
        }
        live.swap(keep);
        ++out.rateUpdates;
    };
    auto phaseLeft = [](const FluidMessage& f) { return f.head > 0 ? f.head : f.rest; };

    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (auto& [c, ch] : ranks[r])
        {
            ch.cursor = ch.steps.begin();
        }
    }
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (auto& [c, ch] : ranks[r])
        {
            advance(r, c);
        }
    }
    // A phase ending within this time of the earliest one ends with it.
    const double tie = 1e-13;
    while (!active.empty() || !events.empty())
    {
        if (dirty)
        {
            recomputeRates();
            dirty = false;
        }
        double tFluid = std::numeric_limits<double>::infinity();
        for (uint32_t id : active)
        {
            const FluidMessage& f = msgs[id];
            if (f.rate > 0)
            {
                tFluid = std::min(tFluid, now + std::max(0.0, phaseLeft(f) / f.rate));
            }
        }
        double tEvent = events.empty() ? std::numeric_limits<double>::infinity() : events.top().t;
        NS_ASSERT_MSG(tFluid < std::numeric_limits<double>::infinity() || !events.empty(),
                      "messages in flight but none can progress");
        double tNext = std::min(tFluid, tEvent);
        double dt = tNext - now;
        std::vector<uint32_t> still;
        still.reserve(active.size());
        for (uint32_t id : active)
        {
            FluidMessage& f = msgs[id];
            double& left = f.head > 0 ? f.head : f.rest;
            if (f.rate <= 0)
            {
                still.push_back(id);
                continue;
            }
            if (tFluid <= tEvent && left / f.rate - dt <= tie)
            {
                // This phase is over.
                left = 0;
                dirty = true;
                if (&left == &f.head)
                {
                    NS_ASSERT(fifo[f.nic].front() == id);
                    fifo[f.nic].pop_front();
                    if (f.rest > 0)
                    {
                        still.push_back(id);
                        continue;
                    }
                }
                // Its last byte left the NIC; it waits behind the largest backlog on
                // its route (links offered more than their rate; FIFO), then the
                // pipeline latency. The largest, not the sum: a link behind a
                // congested one is only fed at that one's rate, which the offered
                // loads (NIC rates) overstate.
                double wait = 0;
                for (uint32_t k = f.nicEnd; k < f.shareEnd; ++k)
                {
                    uint32_t key = shares[k].first;
                    wait = std::max(wait, backlog(key, tNext) * spbOf(key));
                }
                f.transferEnd = tNext + wait;
                f.arrival = f.transferEnd + f.delivery;
                events.push({f.arrival, seq++, true, id, 0});
                continue;
            }
            left -= f.rate * dt;
            still.push_back(id);
        }
        active.swap(still);
        now = tNext;
        if (tFluid <= tEvent)
        {
            continue;
        }
        TimelineEvent e = events.top();
        events.pop();
        if (e.arrival)
        {
            const FluidMessage& f = msgs[e.a];
            RankChain& ch = ranks[f.msg.dst][f.msg.chain];
            auto it = ch.steps.find(f.msg.step);
            NS_ASSERT(it != ch.steps.end() && it->second.recvsLeft > 0);
            --it->second.recvsLeft;
            if (!ch.computing && ch.cursor == it)
            {
                advance(f.msg.dst, f.msg.chain);
            }
        }
        else
        {
            ranks[e.a][e.b].computing = false;
            advance(e.a, e.b);
        }
    }

    // 3. Report.
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (const auto& [c, ch] : ranks[r])
        {
            NS_ASSERT_MSG(ch.done, "rank " << r << " chain " << c << " never finished");
        }
    }
    double total = 0;
    out.rankFinish.resize(nRanks);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        total = std::max(total, finish[r]);
        out.rankFinish[r] = Seconds(finish[r]);
    }
    out.total = Seconds(total);
    out.messages.reserve(msgs.size());
    for (const auto& f : msgs)
    {
        MessageTiming t;
        t.message = f.msg;
        t.scheduleStep = f.scheduleStep;
        t.start = Seconds(f.start);
        t.transferEnd = Seconds(f.transferEnd);
        t.arrival = Seconds(f.arrival);
        t.latency = Seconds(f.latency);
        t.hops = f.hops;
        m_messageTrace(t);
        out.messages.push_back(t);
    }
    NS_LOG_DEBUG("timeline: " << msgs.size() << " messages, " << out.rateUpdates
                              << " rate updates, total " << out.total.As(Time::US));
    return out;
}

// ---- Closed forms -----------------------------------------------------------------

namespace
{

/// lg p as a step count: ceil(log2 p); exact for powers of two.
double
Lg(uint32_t p)
{
    return std::ceil(std::log2(static_cast<double>(p)));
}

void
CheckRanks(uint32_t p, const char* who)
{
    if (p < 1)
    {
        throw std::invalid_argument(std::string(who) + ": the number of ranks must be >= 1");
    }
}

double
BytesPerSecond(DataRate rate)
{
    return static_cast<double>(rate.GetBitRate()) / 8.0;
}

} // namespace

double
AlphaBetaModel::RingAllGatherTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "RingAllGatherTime");
    return (p - 1) * alpha + n * (p - 1) / p * beta;
}

double
AlphaBetaModel::RecursiveDoublingAllGatherTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "RecursiveDoublingAllGatherTime");
    return Lg(p) * alpha + n * (p - 1) / p * beta;
}

double
AlphaBetaModel::RingReduceScatterTime(uint32_t p, double n, double alpha, double beta, double gamma)
{
    CheckRanks(p, "RingReduceScatterTime");
    return (p - 1) * alpha + n * (p - 1) / p * (beta + gamma);
}

double
AlphaBetaModel::RecursiveHalvingReduceScatterTime(uint32_t p,
                                                  double n,
                                                  double alpha,
                                                  double beta,
                                                  double gamma)
{
    CheckRanks(p, "RecursiveHalvingReduceScatterTime");
    return Lg(p) * alpha + n * (p - 1) / p * (beta + gamma);
}

double
AlphaBetaModel::RingAllReduceTime(uint32_t p, double n, double alpha, double beta, double gamma)
{
    CheckRanks(p, "RingAllReduceTime");
    return 2.0 * (p - 1) * alpha + 2.0 * n * (p - 1) / p * beta + n * (p - 1) / p * gamma;
}

double
AlphaBetaModel::RabenseifnerAllReduceTime(uint32_t p,
                                          double n,
                                          double alpha,
                                          double beta,
                                          double gamma)
{
    CheckRanks(p, "RabenseifnerAllReduceTime");
    return 2.0 * Lg(p) * alpha + 2.0 * n * (p - 1) / p * beta + n * (p - 1) / p * gamma;
}

double
AlphaBetaModel::ScatterAllGatherBroadcastTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "ScatterAllGatherBroadcastTime");
    return (Lg(p) + p - 1) * alpha + 2.0 * n * (p - 1) / p * beta;
}

double
AlphaBetaModel::BruckAllToAllTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "BruckAllToAllTime");
    return Lg(p) * alpha + n / 2.0 * Lg(p) * beta;
}

double
AlphaBetaModel::PairwiseAllToAllTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "PairwiseAllToAllTime");
    return (p - 1) * alpha + n * beta;
}

double
AlphaBetaModel::AllReduceLowerBound(uint32_t n, double bytes, DataRate injection)
{
    CheckRanks(n, "AllReduceLowerBound");
    return 2.0 * (n - 1) / n * bytes / BytesPerSecond(injection);
}

double
AlphaBetaModel::TorusAllToAllBound(uint32_t k, uint32_t n, double m, DataRate link)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusAllToAllBound: need k >= 2 and n >= 1");
    }
    double ranks = std::pow(static_cast<double>(k), static_cast<double>(n));
    return ranks * k * m / (8.0 * BytesPerSecond(link));
}

double
AlphaBetaModel::ClosAllToAllBound(uint32_t ranks, double m, DataRate injection)
{
    CheckRanks(ranks, "ClosAllToAllBound");
    return (ranks - 1) * m / BytesPerSecond(injection);
}

double
AlphaBetaModel::TorusHopRatio(uint32_t k, uint32_t n)
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

double
AlphaBetaModel::OversubscribedClosAllToAllTime(uint32_t ranks,
                                               uint32_t ranksPerRack,
                                               double r,
                                               double m,
                                               DataRate injection)
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

double
AlphaBetaModel::TorusAllReduceTime(uint32_t k,
                                   uint32_t n,
                                   double bytes,
                                   DataRate link,
                                   double alpha)
{
    return TorusBucketAllReduceTime(std::vector<uint32_t>(n, k),
                                    std::vector<bool>(n, false),
                                    bytes,
                                    link,
                                    alpha);
}

double
AlphaBetaModel::TorusPipelinedAllReduceTime(uint32_t k,
                                            uint32_t n,
                                            double bytes,
                                            DataRate link,
                                            double alpha)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusPipelinedAllReduceTime: need k >= 2 and n >= 1");
    }
    double ranks = std::pow(static_cast<double>(k), static_cast<double>(n));
    return 2.0 * (ranks - 1) / ranks * bytes / (2.0 * n * BytesPerSecond(link)) +
           2.0 * n * (k - 1) * alpha;
}

double
AlphaBetaModel::TorusBucketAllReduceTime(const std::vector<uint32_t>& dims,
                                         const std::vector<bool>& degraded,
                                         double bytes,
                                         DataRate link,
                                         double alpha)
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

double
AlphaBetaModel::MeshAllReduceTime(uint32_t k, uint32_t n, double bytes, DataRate link, double alpha)
{
    return TorusBucketAllReduceTime(std::vector<uint32_t>(n, k),
                                    std::vector<bool>(n, true),
                                    bytes,
                                    link,
                                    alpha);
}

double
AlphaBetaModel::BusBandwidth(const std::string& collective,
                             uint32_t n,
                             uint64_t bytes,
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
