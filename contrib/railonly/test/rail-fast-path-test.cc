// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rail fabrics on the fast data path (FabricHelper::SetDataPath("fast")) against the
 * IPv4 path, in one process: the same completion time (to the picosecond tick) and the
 * same wire bytes on every link in each direction, so the same relays through the HB
 * domain and the same flow-hash choices. Rail-only 2 domains x 4 GPUs with cross-rail
 * traffic under each cross-rail policy, 2-tier rails, rail-optimized and the NVLink
 * fat-tree with their spine, one HB domain, LLM iterations through LlmTrainingRunner,
 * a failed rail switch, a failed NIC, a rail switch failing during a run with a route
 * convergence delay, a relay queue that overflows; and the --dataPath choice.
 */
#include "collective-test-support.h"

#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fabric-registry.h"
#include "ns3/fast-forwarding.h"
#include "ns3/fault-log.h"
#include "ns3/hb-domain-helper.h"
#include "ns3/llm-training-runner.h"
#include "ns3/node.h"
#include "ns3/rail-fabric-helper.h"
#include "ns3/rail-only-helper.h"
#include "ns3/route-planner.h"
#include "ns3/udp-message-transport.h"

#include <functional>
#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::Coll;

namespace
{

class RailFastPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// What one packet-level run gave, to compare the two data paths.
struct Outcome
{
    double simulatedS{0};
    std::vector<uint64_t> perLink; //!< wire bytes per link, A->B and B->A interleaved
    std::map<std::string, uint64_t> byClass;
    int realCorrect{-1};
    uint64_t relayed{0};    //!< frames GPUs forwarded (fast path only; 0 on IPv4)
    uint64_t framesLost{0}; //!< frames the run's faults lost (FaultLog)
};

std::vector<uint64_t>
PerLink(Ptr<Cluster> cluster)
{
    std::vector<uint64_t> out;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        out.push_back(l.bytesAtoB);
        out.push_back(l.bytesBtoA);
    }
    return out;
}

/// A rail fabric of `domains` x `domainSize` GPUs (NIC 400 Gbps, NVLink 3600 Gbps).
FabricOptions
Rail(const std::string& fabric, uint32_t domains, uint32_t domainSize)
{
    FabricOptions f;
    f.fabric = fabric;
    f.ranks = domains * domainSize;
    f.rate = "400Gbps";
    f.delay = "500ns";
    return f;
}

/// Builds a fabric on the data path it is given.
using Builder = std::function<Ptr<Cluster>(const std::string& dataPath)>;

/**
 * A registered fabric with a cross-rail policy ("" = the fabric's default) and the
 * faults of `fabric` (FabricOptions: --fail, --convergence) applied.
 */
Builder
ByName(const FabricOptions& fabric, uint32_t domainSize, uint32_t radix, const std::string& policy)
{
    return [=](const std::string& dataPath) {
        FabricRequest request = fabric.Request();
        request.domainSize = domainSize;
        request.radix = radix;
        request.crossRailPolicy = policy;
        request.dataPath = dataPath;
        return fabric.Build(request);
    };
}

/// Build on `dataPath`, run one collective, collect what both paths must agree on.
Outcome
RunPath(const Builder& build, const std::string& dataPath, const CollectiveRunOptions& run)
{
    const size_t logStart = FaultLog::Count();
    Ptr<Cluster> cluster = build(dataPath);
    CollectiveRunResult r = CollectiveRunner::Run(cluster, run);
    Outcome o;
    o.simulatedS = r.simulatedS;
    o.perLink = PerLink(cluster);
    o.byClass = r.bytesByLinkClass;
    o.realCorrect = r.realCorrect;
    for (uint32_t rank = 0; rank < cluster->GetNRanks(); ++rank)
    {
        if (auto fast = cluster->GetRankNode(rank)->GetObject<FastForwarding>())
        {
            o.relayed += fast->GetFramesForwarded();
        }
    }
    for (const FaultRecord& f : FaultLog::Since(logStart))
    {
        o.framesLost += f.framesLost;
    }
    Simulator::Destroy();
    return o;
}

/**
 * Run on both data paths; expect identical times and bytes on every link and direction.
 *
eturn the fast path's outcome
 */
Outcome
ExpectSame(const Builder& build, const CollectiveRunOptions& run, const std::string& what)
{
    Outcome ipv4 = RunPath(build, "ipv4", run);
    Outcome fast = RunPath(build, "fast", run);
    const std::string label = what + " " + run.collective + "/" + run.algorithm;
    EXPECT_GT(ipv4.simulatedS, 0) << label;
    // One picosecond tick of slack for the conversion to double seconds.
    EXPECT_NEAR(fast.simulatedS, ipv4.simulatedS, 1e-12) << label;
    EXPECT_EQ(fast.perLink, ipv4.perLink) << label << ": relays or path choices differ";
    EXPECT_EQ(fast.byClass, ipv4.byClass) << label;
    EXPECT_EQ(fast.framesLost, ipv4.framesLost) << label;
    if (run.real)
    {
        EXPECT_EQ(ipv4.realCorrect, 1) << label;
        EXPECT_EQ(fast.realCorrect, 1) << label;
    }
    return fast;
}

/// A tiny Megatron job on 2 domains x 4 GPUs (TP 4 in a domain, PP 2 across them).
LlmRunOptions
TinyLlm(const std::string& dataPath)
{
    LlmRunOptions o;
    o.transport = "udp"; // the UDP transport runs on both data paths (roce: fast only)
    o.domains = 2;
    o.domainSize = 4;
    o.radix = 8;
    o.model.layers = 2;
    o.model.hidden = 256;
    o.model.seqLength = 64;
    o.model.microBatches = 2;
    o.model.vocab = 1024;
    o.model.tp = 4;
    o.model.pp = 2;
    o.model.dp = 1;
    o.dataPath = dataPath;
    return o;
}

/// LlmTrainingRunner::Run on both data paths: same iteration times, link bytes, failures.
void
ExpectSameLlm(LlmRunOptions options, const std::string& fabric, bool failed)
{
    LlmRunResult r[2];
    const char* paths[2] = {"ipv4", "fast"};
    for (int i = 0; i < 2; ++i)
    {
        options.dataPath = paths[i];
        r[i] = LlmTrainingRunner::Run(options, fabric, failed);
        Simulator::Destroy();
        EXPECT_EQ(r[i].dataPath, paths[i]);
    }
    const std::string what = fabric + " failure " + r[0].failure;
    ASSERT_EQ(r[0].iterations.size(), options.iterations) << what;
    ASSERT_EQ(r[1].iterations.size(), r[0].iterations.size()) << what;
    for (size_t i = 0; i < r[0].iterations.size(); ++i)
    {
        EXPECT_EQ(r[1].iterations[i].GetDuration(), r[0].iterations[i].GetDuration())
            << what << " iteration " << i;
    }
    EXPECT_EQ(r[1].linkBytes, r[0].linkBytes) << what << ": relays or path choices differ";
    EXPECT_EQ(r[1].bytesByLinkClass, r[0].bytesByLinkClass) << what;
    EXPECT_EQ(r[1].failure, r[0].failure) << what;
    EXPECT_EQ(r[1].failedLinks, r[0].failedLinks) << what;
    EXPECT_EQ(r[0].failedLinks > 0, failed) << what;
    EXPECT_EQ(r[1].moeAllToAllS, r[0].moeAllToAllS) << what;
    // The twin and the closed form read the same routes and packetization.
    EXPECT_EQ(r[1].twinIterationS, r[0].twinIterationS) << what;
    EXPECT_EQ(r[1].analytical.totalS, r[0].analytical.totalS) << what;
}

} // namespace

// Rail-only, 2 domains of 4 GPUs: an all-to-all makes every GPU send to every other,
// so 3 of its 4 peers in the other domain are cross-rail and relay through a GPU
// (over NVLink at the source or at the destination, as the policy says); the ring
// relays at each domain boundary. Both paths relay the same frames over the same links.
TEST_F(RailFastPathTest, RailOnlyRelaysCrossRailTrafficLikeIpv4UnderEveryPolicy)
{
    for (const std::string policy : {"source", "destination", "network"})
    {
        Builder railOnly = ByName(Rail("rail-only", 2, 4), 4, 64, policy);
        Outcome a2a = ExpectSame(railOnly, Coll("alltoall", "pairwise", "64KiB"), policy);
        EXPECT_GT(a2a.relayed, 0u) << policy << ": cross-rail frames are relayed by GPUs";
        EXPECT_GT(a2a.byClass["nvlink"], 0u) << policy;
        EXPECT_GT(a2a.byClass["rail"], 0u) << policy;
        Outcome ring = ExpectSame(railOnly, Coll("allreduce", "ring", "256KiB", true), policy);
        EXPECT_GT(ring.relayed, 0u) << policy << ": ring hops 3->4 and 7->0 cross rails";
    }
}

// Rails wider than the radix are 2-tier Clos networks (8 domains of 2 GPUs, radix 4:
// two leaves of 2 GPUs and 2 spines per rail): flow hashing picks among the spines.
TEST_F(RailFastPathTest, TwoTierRailsMatchIpv4)
{
    Builder wide = ByName(Rail("rail-only", 8, 2), 2, 4, "");
    Outcome a2a = ExpectSame(wide, Coll("alltoall", "pairwise", "16KiB"), "2-tier rails");
    EXPECT_GT(a2a.relayed, 0u);
    ExpectSame(wide, Coll("allreduce", "ring", "128KiB", true), "2-tier rails");
}

// Rail-optimized (rail leaves, a spine above them; radix 4: two GPUs per leaf) and the
// NVLink fat-tree (leaves not rail-aligned): the spine carries cross-rail traffic under
// "network", GPUs relay it under the two forwarding policies.
TEST_F(RailFastPathTest, RailOptimizedAndNvlinkFatTreeMatchIpv4WithTheirSpine)
{
    for (const std::string policy : {"network", "source", "destination"})
    {
        Outcome o = ExpectSame(ByName(Rail("rail-optimized", 2, 4), 4, 4, policy),
                               Coll("alltoall", "pairwise", "64KiB"),
                               "rail-optimized " + policy);
        if (policy == "network")
        {
            EXPECT_GT(o.byClass["spine"], 0u) << "no relaying: the spine joins the rails";
            EXPECT_EQ(o.relayed, 0u) << "network keeps frames out of GPUs they are not for";
        }
        else
        {
            EXPECT_GT(o.relayed, 0u) << policy;
        }
    }
    Builder fatTree = ByName(Rail("nvlink-fattree", 2, 4), 4, 4, "");
    Outcome ring = ExpectSame(fatTree, Coll("allreduce", "ring", "256KiB", true), "nvlink-fattree");
    EXPECT_GT(ring.byClass["spine"], 0u);
    ExpectSame(fatTree, Coll("alltoall", "pairwise", "64KiB"), "nvlink-fattree");
}

// One HB domain alone (HbDomainHelper): NVLink only, nothing relayed.
TEST_F(RailFastPathTest, HbDomainMatchesIpv4)
{
    Builder domain = [](const std::string& dataPath) {
        HbDomainHelper h(8);
        h.SetDataPath(dataPath);
        return h.Install();
    };
    Outcome o = ExpectSame(domain, Coll("allreduce", "ring", "256KiB", true), "hb-domain");
    EXPECT_EQ(o.relayed, 0u);
    EXPECT_EQ(o.byClass.size(), 1u);
    EXPECT_GT(o.byClass["nvlink"], 0u);
}

// The railonly-llm scenario's runner: a dense Megatron iteration (TP in a domain, PP
// across domains, rail-aligned) on each fabric, and MoE with the flat all-to-all,
// whose cross-rail pairs relay through the HB domains on rail-only.
TEST_F(RailFastPathTest, LlmIterationMatchesIpv4OnEveryFabric)
{
    for (const std::string fabric : {"rail-only", "rail-optimized", "fat-tree"})
    {
        ExpectSameLlm(TinyLlm("fast"), fabric, false);
    }
    LlmRunOptions moe = TinyLlm("fast");
    moe.model.name = "gpt-moe";
    moe.model.experts = 8;
    moe.model.moeEvery = 2;
    moe.moeAllToAll = "flat";
    ExpectSameLlm(moe, "rail-only", false);
}

// A failed rail switch (FailRail: every link of the switches of rail 1) and a failed
// NIC (FailNic: GPU 5's rail link): traffic on that rail detours through the HB
// domains, the same way on both paths.
TEST_F(RailFastPathTest, FailedRailSwitchAndNicRerouteLikeIpv4)
{
    LlmRunOptions rail = TinyLlm("fast");
    rail.failRailSwitch = 1;
    ExpectSameLlm(rail, "rail-only", true);
    ExpectSameLlm(rail, "rail-optimized", true);
    LlmRunOptions nic = TinyLlm("fast");
    nic.failNic = 5;
    ExpectSameLlm(nic, "rail-only", true);
    ExpectSameLlm(nic, "fat-tree", true);
}

// A rail switch fails during a ring all-reduce (FaultPlan: node:switch<N>@t, routes
// around it 5 us later): frames in flight and frames sent on the old routes are lost
// on its links, the same frames on both paths, and the UDP repair finishes the ring at
// the same time. switch0, switch1 are the NVSwitches; switch2 is the switch of rail 0,
// which carries the ring's two domain crossings (3->4 and 7->0 relay to local rank 0).
TEST_F(RailFastPathTest, TimedRailSwitchFailureLosesAndRepairsLikeIpv4)
{
    const CollectiveRunOptions ring = Coll("allreduce", "ring", "256KiB", true);
    Outcome healthy = RunPath(ByName(Rail("rail-only", 2, 4), 4, 64, ""), "fast", ring);
    FabricOptions failing = Rail("rail-only", 2, 4);
    const auto half = static_cast<int64_t>(healthy.simulatedS / 2 * 1e9);
    failing.fail = "node:switch2@" + std::to_string(half) + "ns";
    failing.convergence = "5us";
    Outcome failed = ExpectSame(ByName(failing, 4, 64, ""), ring, failing.fail);
    EXPECT_GT(failed.framesLost, 0u) << "the failure hits traffic in flight";
    EXPECT_GT(failed.simulatedS, healthy.simulatedS) << "lost frames are repaired, later";
}

// Relays queue: under ForwardAtSource, GPUs 1..3 of domain 0 each send 2 MB to GPU 0
// of domain 1, all over NVLink into GPU 0 of domain 0 (3600 Gbps in) and out by its
// 400 Gbps NIC. With queues shrunk to 100 packets per switch port and 200 on a host
// (the IPv4 path's queue disc; the fast path folds it into the device queue, 300 in
// all on both), the relay's NIC queue overflows: both paths drop the same frames
// there, repair them with the same retransmissions and deliver every message at the
// same instants.
TEST_F(RailFastPathTest, OverflowingRelayQueueDropsAndRepairsLikeIpv4)
{
    std::vector<Time> delivered[2];
    uint64_t retransmissions[2];
    std::vector<uint64_t> perLink[2];
    const char* paths[2] = {"ipv4", "fast"};
    for (int i = 0; i < 2; ++i)
    {
        RailOnlyHelper h(2, 4);
        h.SetCrossRailPolicy(RailRoutePreference::FORWARD_AT_SOURCE);
        h.SetQueueSize(QueueSize("100p"));
        h.SetHostQueueSize(QueueSize("200p"));
        h.SetDataPath(paths[i]);
        Ptr<Cluster> c = h.Install();
        auto udp = CreateObject<UdpMessageTransport>();
        udp->Install(c);
        uint32_t channel = udp->RegisterChannel(MessageTransport::ReceiveCallback(
            [&delivered, i](const Message& m) { delivered[i].push_back(m.delivered); }));
        for (uint32_t src : {1u, 2u, 3u})
        {
            udp->Send(src, 4, channel, 0, 2000000);
        }
        Simulator::Run();
        retransmissions[i] = udp->GetRetransmissions();
        perLink[i] = PerLink(c);
        Simulator::Destroy();
    }
    ASSERT_EQ(delivered[0].size(), 3u);
    EXPECT_GT(retransmissions[0], 0u) << "the relay queue did not overflow: nothing tested";
    EXPECT_EQ(retransmissions[1], retransmissions[0]);
    EXPECT_EQ(delivered[1], delivered[0]);
    EXPECT_EQ(perLink[1], perLink[0]);
}

// --dataPath=auto runs UDP on the fast path and TCP (or FlowMonitor) on IPv4; an
// explicit fast path with TCP or FlowMonitor is an error naming --dataPath.
TEST_F(RailFastPathTest, DataPathChoiceFollowsTransportAndTraces)
{
    LlmRunOptions o = TinyLlm("auto");
    EXPECT_EQ(o.ResolveDataPath(), "fast");
    o.transport = "tcp";
    EXPECT_EQ(o.ResolveDataPath(), "ipv4");
    o.transport = "dctcp";
    EXPECT_EQ(o.ResolveDataPath(), "ipv4");
    o.transport = "udp";
    o.traces.flowmon = "flows.xml";
    EXPECT_EQ(o.ResolveDataPath(), "ipv4");
    o.traces.flowmon.clear();
    o.traces.pcap = "captures";
    EXPECT_EQ(o.ResolveDataPath(), "fast") << "pcap works on the fast path";
    o.traces.pcap.clear();
    o.dataPath = "ipv4";
    EXPECT_EQ(o.ResolveDataPath(), "ipv4");

    auto message = [](const LlmRunOptions& bad) {
        try
        {
            bad.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    LlmRunOptions tcp = TinyLlm("fast");
    tcp.transport = "tcp";
    EXPECT_NE(message(tcp).find("--dataPath=fast"), std::string::npos) << message(tcp);
    EXPECT_NE(message(tcp).find("--transport=tcp"), std::string::npos) << message(tcp);
    LlmRunOptions flowmon = TinyLlm("fast");
    flowmon.traces.flowmon = "flows.xml";
    EXPECT_NE(message(flowmon).find("--dataPath=fast"), std::string::npos) << message(flowmon);
    EXPECT_NE(message(flowmon).find("--flowmon"), std::string::npos) << message(flowmon);
    LlmRunOptions unknown = TinyLlm("dpdk");
    EXPECT_NE(message(unknown).find("--dataPath"), std::string::npos) << message(unknown);
    EXPECT_EQ(message(TinyLlm("fast")), "no error");
    EXPECT_EQ(message(TinyLlm("auto")), "no error");

    // The fabric is built on the path the options resolve to.
    LlmRunOptions autoPath = TinyLlm("auto");
    Ptr<Cluster> c = LlmTrainingRunner::BuildFabric(autoPath, "rail-only");
    EXPECT_EQ(c->GetFabricSpec().dataPath, "fast");
    EXPECT_TRUE(c->GetRankNode(0)->GetObject<FastForwarding>());
}
