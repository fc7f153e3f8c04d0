// SPDX-License-Identifier: GPL-2.0-only
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

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/route-planner.h"
#include "ns3/trace-names.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
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
                          MakeUintegerAccessor(&AlphaBetaModel::SetMaxPayload,
                                               &AlphaBetaModel::GetMaxPayload),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("PerPacketOverhead",
                          "Wire bytes added to every packet: transport, L4, IPv4 and PPP "
                          "headers (O, bytes); take it from the transport's "
                          "GetPerPacketOverhead.",
                          UintegerValue(30),
                          MakeUintegerAccessor(&AlphaBetaModel::SetPerPacketOverhead,
                                               &AlphaBetaModel::GetPerPacketOverhead),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NicBacklogPackets",
                          "Packets a sender's NIC holds in its FIFO (the UDP and RDMA "
                          "transports' MaxBacklogPackets, packets): a message issued while "
                          "the FIFO has room and no round-robin message waits sends that many "
                          "first packets ahead of the others (FluidTransfers). 0: no heads.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&AlphaBetaModel::m_nicBacklogPackets),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Sharing",
                          "How messages share links in Predict and at the flow level: "
                          "Auto, the transport's way (LineRate for transports that keep a "
                          "NIC FIFO and no congestion control acting on a message, UDP and "
                          "RDMA, and when no transport is given; MaxMin for TCP and DCTCP); "
                          "LineRate (senders at their NIC share, FIFO backlogs at "
                          "congested links); MaxMin (max-min fair over every link).",
                          EnumValue(SHARING_AUTO),
                          MakeEnumAccessor(&AlphaBetaModel::m_sharing),
                          MakeEnumChecker(SHARING_AUTO,
                                          "Auto",
                                          SHARING_LINE_RATE,
                                          "LineRate",
                                          SHARING_MAX_MIN,
                                          "MaxMin"))
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
            .AddAttribute(
                "PathChoice",
                "How a message uses equal-cost next hops: PerFlowHash, the one path "
                "its flow takes at packet level (the transport's flow key hashed "
                "with every node's seed; pairs without a known key are split "
                "evenly, and so is every pair on a fabric whose load balancing is not "
                "per-flow hashing: FabricSpec::loadBalancing), or EvenSplit, an even "
                "split at every node.",
                EnumValue(PER_FLOW_HASH),
                MakeEnumAccessor(&AlphaBetaModel::SetPathChoice, &AlphaBetaModel::GetPathChoice),
                MakeEnumChecker(PER_FLOW_HASH, "PerFlowHash", EVEN_SPLIT, "EvenSplit"))
            .AddAttribute(
                "PredictionMemoBytes",
                "Memory for Predict's answers by the form of the replay problem "
                "(the schedule with its routes, latencies and capacities, ranks "
                "and links renamed in order: prediction-memo.h): a schedule "
                "equal to an earlier one under that renaming is answered "
                "without replaying it. A schedule whose form would take more than "
                "1/16 of it (about 4 words per message) is always replayed. 0 turns "
                "the memo off.",
                UintegerValue(256 * 1024 * 1024),
                MakeUintegerAccessor(&AlphaBetaModel::SetMemoBytes, &AlphaBetaModel::GetMemoBytes),
                MakeUintegerChecker<uint64_t>())
            .AddAttribute("GenerateSchedules",
                          "Replay a collective written as a step program (StepwiseCollective) "
                          "by generating each member's steps as it enters them, instead of "
                          "writing its whole schedule down first (31 bytes a message: 64 MB "
                          "for a 1024-rank ring all-reduce). The timings are the same bit for "
                          "bit. Two kinds of collective are written down either way: one "
                          "whose problem the memo keeps (PredictionMemoBytes), since its "
                          "form is built from the schedule, and one of fewer messages than "
                          "1/16 of the fabric's directed links, whose written replay "
                          "indexes only its own links.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&AlphaBetaModel::m_generateSchedules),
                          MakeBooleanChecker())
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
    m_routes = nullptr;
    m_planner.reset();
    m_links.clear();
    m_capacity.clear();
    m_cluster = nullptr;
    m_flowKeys = nullptr;
    m_memo.Clear();
    Object::DoDispose();
}

// ---- Binding ------------------------------------------------------------------

void
AlphaBetaModel::SetCluster(Ptr<Cluster> cluster)
{
    TraceNames::Register(this, "AlphaBetaModel");
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
    m_planner = RoutePlanner::Shared(m_cluster);
    m_routes = nullptr; // over the new routes, built when first asked for
    m_latencySlots.clear();
    const auto& links = m_cluster->GetLinks();
    m_links.assign(links.size(), LinkTiming());
    m_linkStateSeen = m_cluster->GetRoutedLinkStateVersion();
    for (const auto& l : links)
    {
        LinkTiming& c = m_links[l.id];
        c.secondsPerByteAtoB =
            8.0 / static_cast<double>(m_cluster->GetLinkRate(l.id, true).GetBitRate());
        c.secondsPerByteBtoA =
            8.0 / static_cast<double>(m_cluster->GetLinkRate(l.id, false).GetBitRate());
        c.delay = m_cluster->GetLinkDelay(l.id).GetSeconds();
    }
    m_relayLatency = m_cluster->GetFabricSpec().relayLatency.GetSeconds();
    m_capacity.resize(2 * m_links.size());
    for (size_t id = 0; id < m_links.size(); ++id)
    {
        m_capacity[2 * id] = 1.0 / m_links[id].secondsPerByteAtoB;
        m_capacity[2 * id + 1] = 1.0 / m_links[id].secondsPerByteBtoA;
    }
}

void
AlphaBetaModel::RefreshIfLinksFailed() const
{
    // Read once per message at the flow level: a version, not a scan of the links. The
    // routed state: during a route convergence delay, messages keep the old routes.
    if (m_cluster->GetRoutedLinkStateVersion() != m_linkStateSeen)
    {
        NS_LOG_INFO("links changed: recomputing routes");
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
    SetPacketization(Packetization(maxPayload, overhead));
}

void
AlphaBetaModel::SetPacketization(Ptr<const MessageTransport> transport)
{
    // At the flow level the transport stands in for a packet transport: the model is
    // that one's (its FIFO, its flow keys, its sharing).
    Ptr<const FluidMessageTransport> fluid = DynamicCast<const FluidMessageTransport>(transport);
    if (fluid && fluid->GetPacketTransport())
    {
        transport = fluid->GetPacketTransport();
    }
    SetPacketization(Packetization(transport));
    m_flowKeys = transport;
    m_routes = nullptr;
    UintegerValue backlog;
    if (transport->GetAttributeFailSafe("MaxBacklogPackets", backlog))
    {
        m_nicBacklogPackets = static_cast<uint32_t>(backlog.Get());
    }
}

void
AlphaBetaModel::SetPacketization(const Packetization& packetization)
{
    m_packetization = packetization;
    m_latencySlots.clear(); // keyed with P + O
}

void
AlphaBetaModel::SetPathChoice(PathChoice choice)
{
    m_pathChoice = choice;
    m_routes = nullptr;
}

AlphaBetaModel::PathChoice
AlphaBetaModel::GetPathChoice() const
{
    return m_pathChoice;
}

const TimelineReplay::RouteFunction&
AlphaBetaModel::Routes() const
{
    if (m_routes)
    {
        return m_routes;
    }
    TimelineReplay::FlowKeyFunction flowKey;
    // A fabric that balances beyond per-flow hashing (spray, flowlet, adaptive) spreads a
    // flow over its equal-cost paths: the even split is then the fluid answer.
    bool hashed = !m_cluster || m_cluster->GetFabricSpec().loadBalancing == "hash";
    if (m_pathChoice == PER_FLOW_HASH && m_flowKeys && hashed)
    {
        Ptr<const MessageTransport> transport = m_flowKeys;
        flowKey = [transport](uint32_t src, uint32_t dst, FlowKey& key) {
            return transport->GetFlowKey(src, dst, key);
        };
    }
    m_routes = TimelineReplay::ClusterRoutes(m_cluster, *m_planner, flowKey);
    return m_routes;
}

const Packetization&
AlphaBetaModel::GetPacketization() const
{
    return m_packetization;
}

void
AlphaBetaModel::SetMaxPayload(uint32_t maxPayload)
{
    SetPacketization(maxPayload, m_packetization.GetPerPacketOverhead());
}

void
AlphaBetaModel::SetPerPacketOverhead(uint32_t overhead)
{
    SetPacketization(m_packetization.GetMaxPayload(), overhead);
}

uint32_t
AlphaBetaModel::GetMaxPayload() const
{
    return m_packetization.GetMaxPayload();
}

uint32_t
AlphaBetaModel::GetPerPacketOverhead() const
{
    return m_packetization.GetPerPacketOverhead();
}

uint64_t
AlphaBetaModel::GetPacketCount(uint64_t bytes) const
{
    return m_packetization.GetPacketCount(bytes);
}

uint64_t
AlphaBetaModel::GetWireBytes(uint64_t bytes) const
{
    return m_packetization.GetWireBytes(bytes);
}

uint64_t
AlphaBetaModel::GetFirstFrameBytes(uint64_t bytes) const
{
    return m_packetization.GetFirstFrameBytes(bytes);
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
    // The memo is one slot per node, kept across calls and stamped with the call that
    // filled it (no allocation per message).
    const size_t nodes = NodeList::GetNNodes();
    if (m_longest.size() < nodes)
    {
        m_longest.resize(nodes);
        m_visited.resize(nodes, 0);
    }
    if (++m_latencyCall == 0)
    {
        std::fill(m_visited.begin(), m_visited.end(), 0);
        m_latencyCall = 1;
    }
    double slowest = 0;
    const double total = LongestToDestination(m_cluster->GetRankNode(srcRank)->GetId(),
                                              dstNode,
                                              dstRank,
                                              f1,
                                              slowest);
    return total - f1 * slowest;
}

double
AlphaBetaModel::LongestToDestination(uint32_t node,
                                     uint32_t dstNode,
                                     uint32_t dstRank,
                                     double f1,
                                     double& slowest) const
{
    if (node == dstNode)
    {
        return 0.0;
    }
    if (m_visited[node] == m_latencyCall)
    {
        return m_longest[node];
    }
    const auto& links = m_cluster->GetLinks();
    double best = 0;
    for (uint32_t id : m_planner->NextLinks(node, dstRank))
    {
        const ClusterLink& l = links[id];
        const bool aToB = l.nodeA == node;
        const double spb = aToB ? m_links[id].secondsPerByteAtoB : m_links[id].secondsPerByteBtoA;
        slowest = std::max(slowest, spb);
        const uint32_t next = aToB ? l.nodeB : l.nodeA;
        const double t = m_links[id].delay + f1 * spb + RelayLatency(next, dstNode) +
                         LongestToDestination(next, dstNode, dstRank, f1, slowest);
        best = std::max(best, t);
    }
    m_visited[node] = m_latencyCall;
    m_longest[node] = best;
    return best;
}

double
AlphaBetaModel::CachedLatency(LatencyCache& cache,
                              uint32_t srcRank,
                              uint32_t dstRank,
                              uint64_t f1) const
{
    const uint64_t frames = static_cast<uint64_t>(m_packetization.GetMaxPayload()) +
                            m_packetization.GetPerPacketOverhead() + 1; // F1 <= P + O
    uint64_t key =
        (static_cast<uint64_t>(srcRank) * m_cluster->GetNRanks() + dstRank) * frames + f1;
    auto it = cache.find(key);
    if (it == cache.end())
    {
        it = cache.emplace(key, MessageLatency(srcRank, dstRank, static_cast<double>(f1))).first;
    }
    return it->second;
}

bool
AlphaBetaModel::IsOnePath(const FluidNetwork::LinkShares& route)
{
    for (const auto& [key, share] : route)
    {
        if (share != 1.0)
        {
            return false;
        }
    }
    return !route.empty();
}

double
AlphaBetaModel::PathLatency(const FluidNetwork::LinkShares& path, uint64_t f1) const
{
    // MessageLatency's recursion over this one path: each hop's d + F1 x spb, less the
    // slowest link's frame. The terms are the same; the route lists its links sender's
    // first, then by key, so the sum's order (and last bit) may differ from the
    // recursion's where the path's links differ.
    const double frame = static_cast<double>(f1);
    double total = 0;
    double slowest = 0;
    for (auto it = path.rbegin(); it != path.rend(); ++it)
    {
        const LinkTiming& l = m_links[it->first / 2];
        const double spb = it->first % 2 == 0 ? l.secondsPerByteAtoB : l.secondsPerByteBtoA;
        slowest = std::max(slowest, spb);
        total = l.delay + frame * spb + total;
    }
    if (m_relayLatency > 0)
    {
        // Every rank node the path enters relays, but the last: the destination.
        const auto& links = m_cluster->GetLinks();
        uint32_t relays = 0;
        for (const auto& [key, share] : path)
        {
            const ClusterLink& l = links[key / 2];
            relays += IsRankNode(key % 2 == 0 ? l.nodeB : l.nodeA);
        }
        total += (relays > 1 ? relays - 1 : 0) * m_relayLatency;
    }
    return total - frame * slowest;
}

double
AlphaBetaModel::RelayLatency(uint32_t node, uint32_t dstNode) const
{
    return m_relayLatency > 0 && node != dstNode && IsRankNode(node) ? m_relayLatency : 0.0;
}

bool
AlphaBetaModel::IsRankNode(uint32_t node) const
{
    return m_cluster->GetRankOfNode(node) != std::numeric_limits<uint32_t>::max();
}

double
AlphaBetaModel::RouteLatency(uint32_t srcRank,
                             uint32_t dstRank,
                             uint64_t f1,
                             const FluidNetwork::LinkShares& route,
                             LatencyCache& cache) const
{
    return IsOnePath(route) ? PathLatency(route, f1) : CachedLatency(cache, srcRank, dstRank, f1);
}

uint32_t
AlphaBetaModel::RoutedHops(const ScheduledMessage& msg) const
{
    const uint32_t nRanks = m_cluster->GetNRanks();
    if (msg.src >= nRanks || msg.dst >= nRanks)
    {
        throw std::invalid_argument(
            "AlphaBetaModel: a message goes from rank " + std::to_string(msg.src) + " to rank " +
            std::to_string(msg.dst) + " but the cluster has " + std::to_string(nRanks) + " ranks");
    }
    if (msg.src == msg.dst || msg.bytes == 0)
    {
        return 0;
    }
    uint32_t hops = m_planner->Hops(msg.src, msg.dst);
    if (hops == std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("AlphaBetaModel: rank " + std::to_string(msg.dst) +
                                    " is unreachable from rank " + std::to_string(msg.src) +
                                    " (failed links?); remap the job or repair the fabric");
    }
    return hops;
}

StepPrediction
AlphaBetaModel::PredictStep(const CollectiveStep& step) const
{
    CheckBound();
    RefreshIfLinksFailed();
    LatencyCache latencyOf;
    return PredictStepWith(step, m_reduceTimePerByte, Routes(), latencyOf);
}

StepPrediction
AlphaBetaModel::PredictStepWith(const CollectiveStep& step,
                                double gamma,
                                const TimelineReplay::RouteFunction& route,
                                LatencyCache& latencyOf) const
{
    std::vector<double> load(2 * m_links.size(), 0.0);
    FluidNetwork::LinkShares shares;
    StepPrediction p;
    double latency = 0;
    for (const auto& msg : step.messages)
    {
        uint32_t hops = RoutedHops(msg);
        if (msg.src == msg.dst || msg.bytes == 0)
        {
            continue;
        }
        ++p.messages;
        p.maxHops = std::max(p.maxHops, hops);
        double w = static_cast<double>(m_packetization.GetWireBytes(msg.bytes));
        route(msg.src, msg.dst, shares);
        for (const auto& [key, share] : shares)
        {
            load[key] += w * share;
        }
        double lat = RouteLatency(msg.src,
                                  msg.dst,
                                  m_packetization.GetFirstFrameBytes(msg.bytes),
                                  shares,
                                  latencyOf);
        latency = std::max(latency, lat);
    }
    double bandwidth = 0;
    for (uint32_t key = 0; key < load.size(); ++key)
    {
        if (load[key] <= 0)
        {
            continue;
        }
        const LinkTiming& c = m_links[key / 2];
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
    size_t next = 0;
    return PredictStepsWith(
        [&schedule, &next]() { return next < schedule.size() ? &schedule[next++] : nullptr; },
        gamma);
}

std::vector<StepPrediction>
AlphaBetaModel::PredictStepsWith(const std::function<const CollectiveStep*()>& nextStep,
                                 double gamma) const
{
    const CollectiveStep* step = nextStep();
    if (!step)
    {
        return {};
    }
    CheckBound();
    RefreshIfLinksFailed();
    std::vector<StepPrediction> out;
    // One route cache and one latency cache for the whole schedule.
    const TimelineReplay::RouteFunction route = Routes();
    LatencyCache latencyOf;
    for (uint32_t i = 0; step; ++i, step = nextStep())
    {
        out.push_back(PredictStepWith(*step, gamma, route, latencyOf));
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
    return PredictTimelineWith(schedule, m_reduceTimePerByte, false).total;
}

std::vector<StepPrediction>
AlphaBetaModel::PredictSteps(Ptr<const Collective> collective) const
{
    if (!collective)
    {
        throw std::invalid_argument("AlphaBetaModel::Predict: the collective is null");
    }
    Ptr<const StepwiseCollective> program = DynamicCast<const StepwiseCollective>(collective);
    if (program && m_generateSchedules)
    {
        // The schedule's steps one at a time: none is kept after it is timed.
        StepwiseCollective::ScheduleCursor cursor(*program, false);
        CollectiveStep step;
        return PredictStepsWith([&cursor, &step]() { return cursor.Next(step) ? &step : nullptr; },
                                collective->GetReductionTimePerByte());
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
    return PredictCollective(collective, false).total;
}

TimelinePrediction
AlphaBetaModel::PredictCollective(Ptr<const Collective> collective, bool keepMessages) const
{
    if (!collective)
    {
        throw std::invalid_argument("AlphaBetaModel::Predict: the collective is null");
    }
    const double gamma = collective->GetReductionTimePerByte();
    Ptr<const StepwiseCollective> program = DynamicCast<const StepwiseCollective>(collective);
    keepMessages = keepMessages || !m_messageTrace.IsEmpty();
    if (program && m_generateSchedules)
    {
        // Written down: a problem small enough for the memo to keep (its form is built
        // from the schedule: PredictTimelineWith's bound, without the steps' words), or a
        // schedule much smaller than the fabric (the replay indexes only its own links
        // then). The count stops at that size.
        CheckBound();
        RefreshIfLinksFailed();
        const uint64_t small =
            std::max<uint64_t>(keepMessages ? 0 : MemoMessageBound(0), m_capacity.size() / 16);
        if (program->CountMessages(small) > small)
        {
            LatencyCache latencyOf;
            TimelinePrediction out = MakeReplay(gamma, latencyOf).Run(*program, keepMessages);
            TraceMessages(out);
            NS_LOG_DEBUG("timeline of a generated program: "
                         << out.rateUpdates << " rate updates, total " << out.total.As(Time::US));
            return out;
        }
    }
    return PredictTimelineWith(collective->GetSchedule(), gamma, keepMessages);
}

TimelineReplay
AlphaBetaModel::MakeReplay(double gamma, LatencyCache& latencyOf) const
{
    TimelineReplay::Parameters parameters;
    parameters.reductionTimePerByte = gamma;
    parameters.perMessageOverhead = m_perMessageOverhead.GetSeconds();
    parameters.nicBacklogPackets = m_nicBacklogPackets;
    parameters.sharing = GetSharing();
    return TimelineReplay(
        m_cluster->GetNRanks(),
        m_capacity,
        m_packetization,
        Routes(),
        [this](const ScheduledMessage& msg) { return RoutedHops(msg); },
        [this, &latencyOf](uint32_t src,
                           uint32_t dst,
                           uint64_t f1,
                           const FluidNetwork::LinkShares& route) {
            return RouteLatency(src, dst, f1, route, latencyOf);
        },
        parameters);
}

void
AlphaBetaModel::TraceMessages(const TimelinePrediction& prediction) const
{
    for (const auto& t : prediction.messages)
    {
        m_messageTrace(t);
    }
}

TimelinePrediction
AlphaBetaModel::PredictTimeline(const std::vector<CollectiveStep>& schedule) const
{
    return PredictTimelineWith(schedule, m_reduceTimePerByte, true);
}

TimelinePrediction
AlphaBetaModel::PredictTimeline(Ptr<const Collective> collective) const
{
    return PredictCollective(collective, true);
}

uint32_t
AlphaBetaModel::GetNicBacklogPackets() const
{
    return m_nicBacklogPackets;
}

FluidSharing
AlphaBetaModel::GetSharing() const
{
    if (m_sharing != SHARING_AUTO)
    {
        return m_sharing == SHARING_MAX_MIN ? FluidSharing::MAX_MIN : FluidSharing::LINE_RATE;
    }
    // A transport with a NIC FIFO (MaxBacklogPackets: UDP, RDMA) sends at line rate.
    UintegerValue backlog;
    return !m_flowKeys || m_flowKeys->GetAttributeFailSafe("MaxBacklogPackets", backlog)
               ? FluidSharing::LINE_RATE
               : FluidSharing::MAX_MIN;
}

std::vector<double>
AlphaBetaModel::GetLinkCapacities() const
{
    CheckBound();
    RefreshIfLinksFailed();
    return m_capacity;
}

namespace
{
/// Bytes a device's port queues: its transmit queue plus the queue disc on it.
double
PortBuffer(const Ptr<PointToPointNetDevice>& device)
{
    Ptr<Queue<Packet>> queue = device->GetQueue();
    if (!queue)
    {
        return std::numeric_limits<double>::infinity();
    }
    const uint32_t mtu = device->GetMtu();
    double bytes = Cluster::QueueBytes(queue->GetMaxSize(), mtu);
    if (Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>())
    {
        if (Ptr<QueueDisc> disc = tc->GetRootQueueDiscOnDevice(device))
        {
            bytes += Cluster::QueueBytes(disc->GetMaxSize(), mtu);
        }
    }
    return bytes;
}
} // namespace

std::vector<double>
AlphaBetaModel::GetLinkBuffers() const
{
    CheckBound();
    const auto& links = m_cluster->GetLinks();
    std::vector<double> buffers(2 * links.size());
    for (const auto& l : links)
    {
        // A graph link (no devices) says what its ports queue.
        buffers[2 * l.id] = l.devA ? PortBuffer(l.devA) : l.bufferA;
        buffers[2 * l.id + 1] = l.devB ? PortBuffer(l.devB) : l.bufferB;
    }
    return buffers;
}

double
AlphaBetaModel::MessagePath(uint32_t src,
                            uint32_t dst,
                            uint64_t bytes,
                            FluidNetwork::LinkShares& shares,
                            uint32_t& senderLinks) const
{
    CheckBound();
    RefreshIfLinksFailed();
    ScheduledMessage msg;
    msg.src = src;
    msg.dst = dst;
    msg.bytes = bytes;
    shares.clear();
    senderLinks = 0;
    const uint32_t nRanks = m_cluster->GetNRanks();
    if (src >= nRanks || dst >= nRanks || src == dst || bytes == 0)
    {
        RoutedHops(msg); // throws for a rank out of range
        return 0;
    }
    senderLinks = Routes()(src, dst, shares);
    if (shares.empty())
    {
        RoutedHops(msg); // throws: unreachable
    }
    const uint64_t f1 = GetFirstFrameBytes(bytes);
    if (IsOnePath(shares))
    {
        return PathLatency(shares, f1);
    }
    // The last latencies, one per slot of a direct-mapped cache (bounded memory).
    constexpr size_t kLatencySlots = 1u << 16;
    const uint64_t frames = static_cast<uint64_t>(m_packetization.GetMaxPayload()) +
                            m_packetization.GetPerPacketOverhead() + 1; // F1 <= P + O
    const uint64_t key = (static_cast<uint64_t>(src) * m_cluster->GetNRanks() + dst) * frames + f1;
    if (m_latencySlots.empty())
    {
        m_latencySlots.assign(kLatencySlots, {UINT64_MAX, 0.0});
    }
    auto& slot = m_latencySlots[LatencyKeyHash()(key) % kLatencySlots];
    if (slot.first != key)
    {
        slot = {key, MessageLatency(src, dst, static_cast<double>(f1))};
    }
    return slot.second;
}

double
AlphaBetaModel::CopyPath(uint32_t src,
                         uint32_t dst,
                         uint64_t bytes,
                         uint16_t srcPort,
                         uint16_t dstPort,
                         FluidNetwork::LinkShares& shares) const
{
    CheckBound();
    RefreshIfLinksFailed();
    const bool hashed = m_cluster->GetFabricSpec().loadBalancing == "hash";
    const std::vector<uint32_t>& links =
        m_cluster->GetLinksOfNode(m_cluster->GetRankNode(src)->GetId());
    if (m_pathChoice != PER_FLOW_HASH || !hashed || links.size() != 1 || bytes == 0)
    {
        return -1;
    }
    const ClusterLink& first = m_cluster->GetLink(links[0]);
    const bool aToB = first.nodeA == m_cluster->GetRankNode(src)->GetId();
    const uint32_t sw = aToB ? first.nodeB : first.nodeA;
    const Ipv4Address address = m_cluster->GetNodeAddress(sw);
    if (address == Ipv4Address::GetAny())
    {
        return -1;
    }
    FlowKey key;
    key.srcAddr = address.Get();
    key.dstAddr = m_cluster->GetRankAddress(dst).Get();
    key.protocol = 17;
    key.srcPort = srcPort;
    key.dstPort = dstPort;
    std::vector<uint32_t> path;
    m_planner->FlowPathFromNode(sw, dst, key, path);
    shares.clear();
    shares.emplace_back(2 * first.id + (aToB ? 0 : 1), 1.0);
    for (uint32_t k : path)
    {
        shares.emplace_back(k, 1.0);
    }
    const double latency = PathLatency(shares, GetFirstFrameBytes(bytes));
    shares.erase(shares.begin());
    return latency;
}

std::vector<double>
AlphaBetaModel::PredictLinkBytes(const std::vector<CollectiveStep>& schedule) const
{
    CheckBound();
    RefreshIfLinksFailed();
    std::vector<double> bytes(2 * m_links.size(), 0.0);
    const TimelineReplay::RouteFunction route = Routes();
    FluidNetwork::LinkShares shares;
    for (const CollectiveStep& step : schedule)
    {
        for (const ScheduledMessage& msg : step.messages)
        {
            if (msg.src == msg.dst || msg.bytes == 0)
            {
                continue;
            }
            RoutedHops(msg); // validates the ranks and the route
            route(msg.src, msg.dst, shares);
            const double wire = static_cast<double>(GetWireBytes(msg.bytes));
            for (const auto& [key, share] : shares)
            {
                bytes[key] += wire * share;
            }
        }
    }
    return bytes;
}

TimelinePrediction
AlphaBetaModel::PredictTimelineWith(const std::vector<CollectiveStep>& schedule,
                                    double gamma,
                                    bool keepMessages) const
{
    CheckBound();
    RefreshIfLinksFailed();
    LatencyCache latencyOf;
    // Every message's timing is kept when asked for, or when MessagePredicted has sinks.
    keepMessages = keepMessages || !m_messageTrace.IsEmpty();
    // A total alone may come from an earlier prediction of an equal problem.
    uint64_t messages = 0;
    for (const CollectiveStep& step : schedule)
    {
        messages += step.messages.size();
    }
    const bool memo = !keepMessages && messages <= MemoMessageBound(schedule.size());
    PredictionMemo::Form form;
    if (memo)
    {
        form = ProblemForm(schedule, messages, gamma, latencyOf);
        TimelinePrediction known;
        if (m_memo.Find(form, known.total))
        {
            return known;
        }
    }
    TimelinePrediction out = MakeReplay(gamma, latencyOf).Run(schedule, keepMessages);
    if (memo)
    {
        m_memo.Insert(std::move(form), out.total);
    }
    TraceMessages(out);
    NS_LOG_DEBUG("timeline: " << out.messages.size() << " messages kept, " << out.rateUpdates
                              << " rate updates, total " << out.total.As(Time::US));
    return out;
}

PredictionMemo::Form
AlphaBetaModel::ProblemForm(const std::vector<CollectiveStep>& schedule,
                            uint64_t messages,
                            double gamma,
                            LatencyCache& latencyOf) const
{
    // The ranks and the pairs of the schedule (a pair routed once, validated as the
    // replay validates it).
    struct Pair
    {
        uint32_t src;
        uint32_t dst;
        uint32_t senderLinks{0};
        FluidNetwork::LinkShares route;
        std::vector<std::pair<uint64_t, double>> latencies; //!< (F1, L), in order of use
    };

    std::vector<uint32_t> ranks;
    std::vector<Pair> pairs;
    std::unordered_map<uint64_t, uint32_t> pairOf;
    const TimelineReplay::RouteFunction& route = Routes();
    for (const CollectiveStep& step : schedule)
    {
        for (const ScheduledMessage& msg : step.messages)
        {
            const uint64_t key = (static_cast<uint64_t>(msg.src) << 32) | msg.dst;
            auto [it, fresh] = pairOf.emplace(key, static_cast<uint32_t>(pairs.size()));
            if (fresh)
            {
                RoutedHops(msg); // throws for a rank out of range
                ranks.push_back(msg.src);
                ranks.push_back(msg.dst);
                pairs.push_back({msg.src, msg.dst});
            }
            if (msg.src == msg.dst || msg.bytes == 0)
            {
                continue;
            }
            Pair& p = pairs[it->second];
            if (p.latencies.empty())
            {
                RoutedHops(msg); // throws for an unreachable pair
                p.senderLinks = route(msg.src, msg.dst, p.route);
            }
            const uint64_t f1 = GetFirstFrameBytes(msg.bytes);
            if (std::none_of(p.latencies.begin(), p.latencies.end(), [f1](const auto& l) {
                    return l.first == f1;
                }))
            {
                p.latencies.emplace_back(f1,
                                         RouteLatency(msg.src, msg.dst, f1, p.route, latencyOf));
            }
        }
    }
    std::vector<uint32_t> keys;
    for (const Pair& p : pairs)
    {
        for (const auto& share : p.route)
        {
            keys.push_back(share.first);
        }
    }
    for (std::vector<uint32_t>* names : {&ranks, &keys})
    {
        std::sort(names->begin(), names->end());
        names->erase(std::unique(names->begin(), names->end()), names->end());
    }
    auto renamed = [](const std::vector<uint32_t>& names, uint32_t name) -> uint64_t {
        return static_cast<uint64_t>(std::lower_bound(names.begin(), names.end(), name) -
                                     names.begin());
    };
    auto bits = [](double x) {
        uint64_t b;
        std::memcpy(&b, &x, sizeof b);
        return b;
    };

    PredictionMemo::Form form;
    std::vector<uint64_t>& w = form.words;
    w.reserve(16 + 2 * schedule.size() + 4 * messages + 6 * pairs.size() + keys.size());
    // What the replay takes besides the schedule; the fabric's size decides whether a
    // schedule is indexed on its own ranks and links.
    w.insert(w.end(),
             {m_cluster->GetNRanks(),
              m_capacity.size(),
              m_packetization.GetMaxPayload(),
              m_packetization.GetPerPacketOverhead(),
              m_nicBacklogPackets,
              static_cast<uint64_t>(GetSharing()),
              bits(m_perMessageOverhead.GetSeconds()),
              bits(gamma),
              ranks.size(),
              keys.size(),
              pairs.size(),
              schedule.size()});
    for (const CollectiveStep& step : schedule)
    {
        w.push_back(step.messages.size());
        w.push_back(step.reduceBytes);
        for (const ScheduledMessage& msg : step.messages)
        {
            w.push_back(renamed(ranks, msg.src) << 32 | renamed(ranks, msg.dst));
            w.push_back(msg.bytes);
            w.push_back(static_cast<uint64_t>(msg.chain) << 32 | msg.step);
            w.push_back(msg.reduce ? 1 : 0);
        }
    }
    for (const Pair& p : pairs)
    {
        w.push_back(renamed(ranks, p.src) << 32 | renamed(ranks, p.dst));
        w.push_back(static_cast<uint64_t>(p.senderLinks) << 32 | p.route.size());
        for (const auto& [key, share] : p.route)
        {
            w.push_back(renamed(keys, key));
            w.push_back(bits(share));
        }
        w.push_back(p.latencies.size());
        for (const auto& [f1, latency] : p.latencies)
        {
            w.push_back(f1);
            w.push_back(bits(latency));
        }
    }
    for (uint32_t key : keys)
    {
        w.push_back(bits(m_capacity[key]));
    }
    form.hash = PredictionMemo::Hash(w);
    return form;
}

uint64_t
AlphaBetaModel::MemoMessageBound(uint64_t steps) const
{
    const uint64_t words = m_memo.GetMaxBytes() / (16 * 8);
    const uint64_t fixed = 2 * steps + 16;
    return words > fixed ? (words - fixed) / 4 : 0;
}

void
AlphaBetaModel::SetMemoBytes(uint64_t bytes)
{
    m_memo.SetMaxBytes(bytes);
}

uint64_t
AlphaBetaModel::GetMemoBytes() const
{
    return m_memo.GetMaxBytes();
}

uint64_t
AlphaBetaModel::GetMemoHits() const
{
    return m_memo.GetHits();
}

uint64_t
AlphaBetaModel::GetMemoMisses() const
{
    return m_memo.GetMisses();
}

} // namespace ns3
