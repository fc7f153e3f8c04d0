// SPDX-License-Identifier: GPL-2.0-only
// Rail replication (LlmWorkload::ReplicateRails, railonly-llm --replicateRails): the
// graph keeps the rail tasks of TP index 0 and every HB-domain task; on rail-only
// fabrics whose rails are one switch each, the replica's iteration equals the full
// run's at flow level (dense and MoE) and at packet level, where it is also checked
// link by link (rail 0 and NVLink carry the same bytes, rails 1..K-1 none); the flags
// it needs are refused by name. On rail-optimized fabrics, whose rails meet at spines on
// links of their own, it is exact where a rail is one leaf and a hash draw otherwise.
#include "mlnet-test-support.h"
#include "small-llm-options.h"

#include "ns3/boolean.h"
#include "ns3/llm-training-runner.h"
#include "ns3/llm-workload.h"
#include "ns3/rail-fabric-helper.h"
#include "ns3/run-report.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;
using railtest::SmallOptions;

namespace
{

/// The same model with every layer MoE (hierarchical all-to-all, per rail).
LlmRunOptions
MoeOptions()
{
    LlmRunOptions o = SmallOptions();
    o.model.experts = 32;
    o.model.moeEvery = 1;
    return o;
}

struct Counts
{
    uint32_t sends{0};    //!< pipeline sends
    uint32_t dp{0};       //!< DP all-reduces
    uint32_t domain{0};   //!< collectives inside one HB domain
    uint32_t rail{0};     //!< other collectives (per-rail MoE all-to-alls)
    uint32_t compute{0};  //!< compute tasks
    bool offRail0{false}; //!< a send or rail collective off rail 0
};

Counts
Count(const IterationGraph& g, uint32_t k)
{
    Counts c;
    for (const IterationTask& t : g.GetTasks())
    {
        if (t.kind == TaskKind::COMPUTE)
        {
            ++c.compute;
            continue;
        }
        std::vector<uint32_t> ranks =
            t.kind == TaskKind::SEND ? std::vector<uint32_t>{t.rank, t.dst} : t.collective.ranks;
        bool oneDomain = true;
        bool rail0 = true;
        for (uint32_t r : ranks)
        {
            oneDomain = oneDomain && r / k == ranks[0] / k;
            rail0 = rail0 && r % k == 0;
        }
        if (t.kind == TaskKind::SEND)
        {
            ++c.sends;
            c.offRail0 = c.offRail0 || !rail0;
        }
        else if (oneDomain)
        {
            ++c.domain;
        }
        else
        {
            ++(t.name.rfind("dp-ar", 0) == 0 ? c.dp : c.rail);
            c.offRail0 = c.offRail0 || !rail0;
        }
    }
    return c;
}

IterationGraph
Graph(const LlmRunOptions& o, bool replicate)
{
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    w->SetAttribute("ReplicateRails", BooleanValue(replicate));
    w->Setup(o.model, o.domains * o.domainSize, o.domainSize);
    return w->BuildGraph();
}

/// The rail of each link (-1: none, as NVLink), from a fabric built like the runs': the
/// rail of a switch end (a leaf, or a rail-only spine; a rail-optimized spine has none).
std::vector<int32_t>
RailOfLinks(const LlmRunOptions& o, const std::string& fabric)
{
    std::shared_ptr<RailFabricHelper> helper;
    Ptr<Cluster> cluster = LlmTrainingRunner::BuildFabric(o, fabric, &helper);
    std::vector<int32_t> rail;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        const uint32_t of = helper->GetRailOfLink(l);
        const int32_t r = of == UINT32_MAX ? -1 : int32_t(of);
        EXPECT_EQ(r >= 0, l.linkClass != "nvlink") << "link " << l.id;
        rail.push_back(r);
    }
    Simulator::Destroy();
    return rail;
}

/// The options run whole and with rail replication: {whole, replica}.
std::pair<LlmRunResult, LlmRunResult>
WholeAndReplica(LlmRunOptions o, const std::string& fabric)
{
    o.replicateRails = false;
    LlmRunResult full = LlmTrainingRunner::Run(o, fabric, false);
    Simulator::Destroy();
    o.replicateRails = true;
    LlmRunResult replica = LlmTrainingRunner::Run(o, fabric, false);
    Simulator::Destroy();
    return {full, replica};
}

/// Run the options full and replicated; expect the same iteration, link by link.
void
ExpectReplicaEqualsFullRun(const LlmRunOptions& o, const std::string& fabric = "rail-only")
{
    const std::vector<int32_t> railOfLink = RailOfLinks(o, fabric);
    auto [full, replica] = WholeAndReplica(o, fabric);

    ASSERT_EQ(full.iterations.size(), 1u);
    ASSERT_EQ(replica.iterations.size(), 1u);
    EXPECT_EQ(full.railReplicas, 1u);
    EXPECT_EQ(replica.railReplicas, o.domainSize);
    EXPECT_TRUE(replica.oneSwitchRails);
    EXPECT_EQ(replica.Row()["rail_replication"], "exact: one switch per rail");
    EXPECT_EQ(full.Row()["rail_replication"], "off");
    EXPECT_EQ(replica.iterations[0].GetDuration(), full.iterations[0].GetDuration());
    EXPECT_EQ(replica.twinIterationS, full.twinIterationS);
    // Fewer tasks: the rail tasks of TP indices 1..K-1 are gone.
    EXPECT_LT(replica.tasks, full.tasks);
    // Every message delivered in both runs, the replica's a K-th of the rail messages.
    for (const LlmRunResult* r : {&full, &replica})
    {
        EXPECT_EQ(r->health.counts.messagesDelivered.count, r->health.counts.messagesSent.count);
        EXPECT_EQ(r->health.counts.messagesAbandoned.count, 0u);
    }
    EXPECT_LT(replica.health.counts.messagesSent.count, full.health.counts.messagesSent.count);
    if (!o.model.IsMoe())
    {
        // Rails 1..K-1 of a dense GPT: (p-1) x 2 x m x d pipeline sends and p ring
        // all-reduces of d members (2(d-1) steps of d messages) each.
        const uint64_t p = o.model.pp, m = o.model.microBatches, d = o.model.dp;
        EXPECT_EQ(full.health.counts.messagesSent.count - replica.health.counts.messagesSent.count,
                  (o.domainSize - 1) * ((p - 1) * 2 * m * d + p * 2 * (d - 1) * d));
    }
    // Link by link (at the flow level, the fluid messages' wire bytes): rail 0 and every NVLink
    // carry what they carried; rails 1..K-1 nothing.
    ASSERT_EQ(full.linkBytes.size(), 2 * railOfLink.size());
    ASSERT_EQ(replica.linkBytes.size(), full.linkBytes.size());
    uint64_t rail0 = 0;
    for (size_t i = 0; i < full.linkBytes.size(); ++i)
    {
        int32_t rail = railOfLink[i / 2];
        if (rail <= 0)
        {
            EXPECT_EQ(replica.linkBytes[i], full.linkBytes[i]) << "link " << i / 2;
            rail0 += rail == 0 ? full.linkBytes[i] : 0;
        }
        else
        {
            EXPECT_EQ(replica.linkBytes[i], 0u) << "link " << i / 2;
        }
    }
    // The rails carried the same bytes, so the replica's rail total is exact.
    EXPECT_GT(rail0, 0u);
    EXPECT_EQ(full.bytesByLinkClass["rail"], rail0 * o.domainSize);
    EXPECT_EQ(replica.bytesByLinkClass["rail"], full.bytesByLinkClass["rail"]);
    EXPECT_EQ(replica.bytesByLinkClass["nvlink"], full.bytesByLinkClass["nvlink"]);
    EXPECT_EQ(replica.bytesByLinkClass.count("spine"), full.bytesByLinkClass.count("spine"));
}

class RailReplicationTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

} // namespace

TEST_F(RailReplicationTest, GraphKeepsTheRailTasksOfTpIndexZeroAndEveryDomainTask)
{
    for (const LlmRunOptions& o : {SmallOptions(), MoeOptions()})
    {
        const uint32_t k = o.domainSize;
        Counts full = Count(Graph(o, false), k);
        Counts replica = Count(Graph(o, true), k);
        // Pipeline sends: p-1 hops x 2 directions x m micro-batches x d replicas x t ranks.
        const uint32_t p = o.model.pp, m = o.model.microBatches, d = o.model.dp;
        EXPECT_EQ(full.sends, (p - 1) * 2 * m * d * k);
        EXPECT_EQ(replica.sends, full.sends / k);
        // One DP all-reduce per (stage, TP index): p of TP index 0 remain.
        EXPECT_EQ(full.dp, p * k);
        EXPECT_EQ(replica.dp, p);
        // Per-rail MoE all-to-alls (phase 2): one rail of K.
        EXPECT_EQ(replica.rail * k, full.rail);
        EXPECT_EQ(o.model.IsMoe(), full.rail > 0);
        // Everything inside the HB domains stays, and all compute.
        EXPECT_EQ(replica.domain, full.domain);
        EXPECT_EQ(replica.compute, full.compute);
        EXPECT_TRUE(full.offRail0);
        EXPECT_FALSE(replica.offRail0);
    }
}

TEST_F(RailReplicationTest, ReplicaEqualsTheFullRunAtFlowLevel)
{
    ExpectReplicaEqualsFullRun(SmallOptions());
}

TEST_F(RailReplicationTest, ReplicaEqualsTheFullRunWithMoeAtFlowLevel)
{
    ExpectReplicaEqualsFullRun(MoeOptions());
}

TEST_F(RailReplicationTest, ReplicaEqualsTheFullRunAtPacketLevel)
{
    LlmRunOptions o = SmallOptions();
    o.level = RunLevel::PACKET;
    ExpectReplicaEqualsFullRun(o);
}

// Rail-optimized: each rail's GPUs on one leaf (8 domains, radix 64), so a rail's
// traffic never leaves its leaf and the replica is exact, link by link.
TEST_F(RailReplicationTest, RailOptimizedReplicaEqualsTheFullRunWhereEachRailIsOneLeaf)
{
    LlmRunOptions o = SmallOptions();
    ExpectReplicaEqualsFullRun(o, "rail-optimized");
    o.level = RunLevel::PACKET;
    ExpectReplicaEqualsFullRun(o, "rail-optimized");
    // MoE with the hierarchical all-to-all (per rail; flat is the default there).
    LlmRunOptions moe = MoeOptions();
    moe.moeAllToAll = "hierarchical";
    ExpectReplicaEqualsFullRun(moe, "rail-optimized");
}

TEST_F(RailReplicationTest, RailOptimizedRailsMeetAtSpinesOnLinksOfTheirOwn)
{
    // Radix 8: a leaf holds 4 GPUs of one rail, so each rail is two leaves whose traffic
    // crosses the 4 shared spines, each rail on its leaves' own uplinks. The replica's
    // rail 0 hashes its flows over the spines as it did in the full run; the full run
    // waits for the slowest rail's draw.
    LlmRunOptions o = SmallOptions();
    o.radix = 8;
    auto [full, replica] = WholeAndReplica(o, "rail-optimized");
    ASSERT_EQ(replica.iterations.size(), 1u);
    EXPECT_FALSE(replica.oneSwitchRails);
    EXPECT_EQ(replica.railReplicas, o.domainSize);
    EXPECT_EQ(replica.Row()["rail_replication"],
              "rails meeting at spines on links of their own: rail 0's flow-hash choices "
              "stand for every rail's");
    // The rails crossed the spines. A message between two leaves crosses two spine links
    // whichever spine its hash picks, so each rail's spine bytes are the same and the
    // replica's K-fold count is the full run's exactly.
    EXPECT_GT(full.bytesByLinkClass["spine"], 0u);
    EXPECT_EQ(replica.bytesByLinkClass["spine"], full.bytesByLinkClass["spine"]);
    EXPECT_EQ(replica.bytesByLinkClass["rail"], full.bytesByLinkClass["rail"]);
    // The link balance counts rail 0's links (its leaves' uplinks among them), not the
    // idle rails' spine links.
    EXPECT_EQ(replica.health.imbalanceClass, full.health.imbalanceClass);
    EXPECT_GT(replica.health.linkImbalance, 1.0);
    EXPECT_LT(replica.health.linkImbalance, 1.5 * full.health.linkImbalance);
    EXPECT_EQ(replica.bytesByLinkClass["nvlink"], full.bytesByLinkClass["nvlink"]);
    EXPECT_LE(replica.IterationS(), full.IterationS());
    EXPECT_NEAR(replica.IterationS() / full.IterationS(), 1.0, 0.03);
}

TEST_F(RailReplicationTest, TwoTierRailsSayTheReplicaSamplesOneRailsHashChoices)
{
    // 32 domains at radix 16: each rail is a leaf-spine, its flows hashed over the
    // spines with the rail's own addresses, so rail 0 stands for the others only in
    // distribution. Measured: the replica 2.3 % under the full run (the pipeline's
    // all-gather waits for the slowest of the K rails, the replica for rail 0).
    LlmRunOptions o = SmallOptions();
    o.domains = 32;
    o.domainSize = 8;
    o.radix = 16;
    o.model = LlmModelConfig{}; // railonly-llm's default GPT (4 layers, h = 1024)
    o.model.tp = 8;
    o.model.pp = 4;
    o.model.dp = 8;
    auto [full, replica] = WholeAndReplica(o, "rail-only");
    EXPECT_FALSE(replica.oneSwitchRails);
    EXPECT_EQ(replica.Row()["rail_replication"],
              "two-tier rails: rail 0's flow-hash choices stand for every rail's");
    EXPECT_NE(replica.IterationS(), full.IterationS());
    EXPECT_NEAR(replica.IterationS() / full.IterationS(), 1.0, 0.03);
}

TEST_F(RailReplicationTest, TwoTierReplicaMeasuresLinkBalanceOnTheRailItSimulated)
{
    // Packet level, two-tier rails: rails 1..K-1 carry nothing in the replica, so its
    // link imbalance counts rail 0's links (and NVLink); counted over every rail it
    // would be K times the busiest-over-mean of rail 0. Each is a hash sample, so the
    // replica's is bounded by the full run's, not equal to it.
    LlmRunOptions o = SmallOptions();
    o.domains = 32;
    o.domainSize = 4;
    o.radix = 16;
    o.model.pp = 2;
    o.model.dp = 16;
    o.level = RunLevel::PACKET;
    auto [full, replica] = WholeAndReplica(o, "rail-only");
    ASSERT_EQ(replica.iterations.size(), 1u);
    ASSERT_FALSE(replica.oneSwitchRails);
    // Measured: 6.52 over the full run's rails, 3.68 over the replica's rail 0 (14.7
    // had the idle rails been counted: K times the mean's dilution).
    EXPECT_EQ(replica.health.imbalanceClass, full.health.imbalanceClass);
    EXPECT_GT(replica.health.linkImbalance, 1.0);
    EXPECT_LT(replica.health.linkImbalance, 1.5 * full.health.linkImbalance);
}

TEST_F(RailReplicationTest, RefusesWhereTheRailsDoNotCarryTheSameTraffic)
{
    LlmRunOptions o = SmallOptions();
    o.replicateRails = true;
    EXPECT_NO_THROW(o.Validate());
    auto has = [](const std::string& s, const std::string& part) {
        return s.find(part) != std::string::npos;
    };
    LlmRunOptions tp = o;
    tp.model.tp = 2;
    tp.model.dp = 8;
    std::string e = InvalidArgumentMessage([&] { tp.Validate(); });
    EXPECT_TRUE(has(e, "--replicateRails") && has(e, "--tp=2")) << e;
    LlmRunOptions failed = o;
    failed.failNic = 3;
    e = InvalidArgumentMessage([&] { failed.Validate(); });
    EXPECT_TRUE(has(e, "--replicateRails") && has(e, "--failNic")) << e;
    LlmRunOptions flat = MoeOptions();
    flat.replicateRails = true;
    flat.moeAllToAll = "flat";
    e = InvalidArgumentMessage([&] { flat.Validate(); });
    EXPECT_TRUE(has(e, "--replicateRails") && has(e, "flat")) << e;
    // The fat-tree has no rails.
    {
        RunReport report("rail-replication-test");
        e = InvalidArgumentMessage([&] { LlmTrainingRunner::RunAll(o, {"fat-tree"}, report); });
        EXPECT_TRUE(has(e, "--replicateRails") && has(e, "--fabric=rail-only") &&
                    has(e, "--fabric=rail-optimized"))
            << e;
        Simulator::Destroy();
    }
    // Rail-optimized with a MoE model: its all-to-all is flat there by default.
    {
        LlmRunOptions moe = MoeOptions();
        moe.replicateRails = true;
        e = InvalidArgumentMessage([&] { LlmTrainingRunner::Run(moe, "rail-optimized", false); });
        EXPECT_TRUE(has(e, "rail replication") && has(e, "flat")) << e;
        Simulator::Destroy();
    }
    // The workload refuses on its own too (a caller that skips the runner).
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    w->SetAttribute("ReplicateRails", BooleanValue(true));
    w->Setup(tp.model, 32, 4);
    EXPECT_THROW(w->BuildGraph(), std::invalid_argument);
}
