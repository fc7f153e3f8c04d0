// SPDX-License-Identifier: GPL-2.0-only
// Megatron mapper, LLM workload graph, closed-form model, and packet-level runs on
// rail fabrics: exact groups, the FLOP formula, zero spine bytes for rail-aligned
// dense GPT, rail-only = rail-optimized for dense GPT, the two-phase all-to-all's
// bytes per link class, and a failed rail switch rerouted through the HB domain.
#include "small-llm-options.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/core-module.h"
#include "ns3/llm-iteration-model.h"
#include "ns3/llm-training-runner.h"
#include "ns3/llm-workload.h"
#include "ns3/megatron-mapper.h"
#include "ns3/route-planner.h"
#include "ns3/training-driver.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace ns3;

namespace
{

/// A GPT small enough to simulate in well under a second: the shared small model on
/// 4 domains x 4 GPUs (DP 2), with the runner's default level and transport.
LlmRunOptions
TinyOptions()
{
    LlmRunOptions o = railtest::SmallOptions();
    o.domains = 4;
    o.model.dp = 2;
    o.level = LlmRunOptions().level;
    o.transport = LlmRunOptions().transport;
    return o;
}

class LlmPacketTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

} // namespace

TEST(MegatronMapperTest, GroupsAreExact)
{
    // 8 domains x 8 GPUs, t = 8, p = 2, d = 4: rank = tp + 8 * (dp + 4 * pp).
    Ptr<MegatronMapper> m = CreateObject<MegatronMapper>();
    m->Configure(64, 8, 8, 2, 4);
    EXPECT_EQ(m->GetRank(3, 2, 1), 3u + 8 * (2 + 4 * 1));
    auto tp = m->GetTpGroups();
    ASSERT_EQ(tp.size(), 8u);
    for (uint32_t g = 0; g < 8; ++g)
    {
        std::vector<uint32_t> want(8);
        std::iota(want.begin(), want.end(), 8 * g); // one whole HB domain
        EXPECT_EQ(tp[g], want);
    }
    auto dp = m->GetDpGroups();
    ASSERT_EQ(dp.size(), 16u);
    EXPECT_EQ(dp[8 + 3], (std::vector<uint32_t>{35, 43, 51, 59})); // (pp 1, tp 3): rail 3
    auto pp = m->GetPpGroups();
    ASSERT_EQ(pp.size(), 32u);
    EXPECT_EQ(pp[2 * 8 + 5], (std::vector<uint32_t>{21, 53})); // (dp 2, tp 5): rail 5
    EXPECT_EQ(m->GetStageRanks(1).front(), 32u);
    EXPECT_EQ(m->GetTpIndex(53), 5u);
    EXPECT_EQ(m->GetDpIndex(53), 2u);
    EXPECT_EQ(m->GetStage(53), 1u);
    EXPECT_TRUE(m->IsRailAligned());
    // t = 2, d = 2: the stage stride t*d = 4 < K moves PP peers 4 -> 8 across rails.
    m->Configure(64, 8, 2, 16, 2);
    EXPECT_FALSE(m->IsRailAligned());
    // t = 4, d = 4: stage stride 16 is a multiple of K: aligned again.
    m->Configure(64, 8, 4, 4, 4);
    EXPECT_TRUE(m->IsRailAligned());
}

TEST(MegatronMapperTest, RejectsDegreesThatDoNotFit)
{
    Ptr<MegatronMapper> m = CreateObject<MegatronMapper>();
    EXPECT_THROW(m->Configure(64, 8, 3, 1, 21), std::invalid_argument); // 3 does not divide 8
    EXPECT_THROW(m->Configure(64, 8, 16, 2, 2), std::invalid_argument); // TP beyond the domain
    EXPECT_THROW(m->Configure(64, 8, 8, 2, 2), std::invalid_argument);  // 32 != 64
    EXPECT_THROW(m->Configure(64, 8, 8, 0, 8), std::invalid_argument);
    try
    {
        m->Configure(64, 8, 8, 2, 2);
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("64 GPUs"), std::string::npos) << e.what();
    }
}

TEST(LlmWorkloadTest, ComputeTasksAddUpToMegatronFlops)
{
    LlmModelConfig c = TinyOptions().model;
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    w->Setup(c, 16, 4);
    // 72*B*s*l*h^2*(1 + s/(6h) + V/(12lh)), B = b*m*d = 4 sequences.
    double b = 4, s = 128, l = 2, h = 256, v = 1024;
    double flops = 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
    EXPECT_NEAR(w->GetIterationFlops(), flops, flops * 1e-12);
    IterationGraph g = w->BuildGraph();
    double busy = 0;
    uint32_t tpAr = 0, sends = 0, dpAr = 0, gathers = 0;
    for (const auto& t : g.GetTasks())
    {
        busy += t.kind == TaskKind::COMPUTE ? t.duration.GetSeconds() : 0;
        tpAr += t.name.find("-tp-ar") != std::string::npos;
        sends += t.kind == TaskKind::SEND;
        dpAr += t.name.rfind("dp-ar", 0) == 0;
        gathers += t.collective.collective == "allgather";
    }
    // Each task's duration is rounded to the picosecond: ~1e-5 of a 100 ns task.
    EXPECT_NEAR(busy * w->GetSustainedFlops(), flops, flops * 1e-5);
    EXPECT_EQ(tpAr, 4u * 2 * 2 * 2);      // 4 per layer x l x m x d
    EXPECT_EQ(sends, 2u * 1 * 2 * 2 * 4); // fwd + bwd x (p-1) x m x d x t
    EXPECT_EQ(gathers, sends / 4);        // one TP all-gather per t sends
    EXPECT_EQ(dpAr, 4u * 2);              // one ring per rail (t = K) x p
    // Sizes: b*s*h*2 bytes per TP all-reduce, 1/t of it per PP send.
    EXPECT_EQ(w->GetTpAllReduceBytes(), 128u * 256 * 2);
    EXPECT_EQ(w->GetPpBytesPerRank(), 128u * 256 * 2 / 4);
    // Stage 0: 12h^2 per layer + V*h embedding, over t, 2 bytes.
    EXPECT_EQ(w->GetDpBytes(0), uint64_t((12.0 * h * h + v * h) / 4) * 2);
}

TEST(LlmWorkloadTest, RejectsModelsThatDoNotFit)
{
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    LlmModelConfig c = TinyOptions().model;
    c.layers = 3; // not divisible by p = 2
    EXPECT_THROW(w->Setup(c, 16, 4), std::invalid_argument);
    c = TinyOptions().model;
    c.experts = 4;
    c.topK = 5;
    EXPECT_THROW(w->Setup(c, 16, 4), std::invalid_argument);
    c = TinyOptions().model;
    EXPECT_THROW(w->Setup(c, 32, 4), std::invalid_argument); // 4*2*2 != 32
}

TEST(LlmIterationModelTest, ForwardingOverheadFollowsTheFormula)
{
    Ptr<LlmIterationModel> m = CreateObject<LlmIterationModel>();
    // Large blocks (latency negligible): G = 64 GPUs, c = 8 per domain, Dg = 8.
    double mBytes = 4e6;
    double flat = m->AllToAllTime(64, 8, mBytes, false);
    double hier = m->AllToAllTime(64, 8, mBytes, true);
    // (c-1)*Dg/(c*(Dg-1)) * B_n/B_h = 1 * 400/3600.
    EXPECT_NEAR(hier / flat - 1, 400.0 / 3600.0, 0.002);
    // Counting NVLink both ways halves it (the paper's 4.1-5.6 % vs 8.2-11.2 %).
    m->SetAttribute("HbBidirectional", BooleanValue(true));
    EXPECT_NEAR(m->AllToAllTime(64, 8, mBytes, true) / flat - 1, 400.0 / 7200.0, 0.002);
}

TEST_F(LlmPacketTest, DenseGptPutsZeroBytesOnTheSpineOfRailOptimized)
{
    LlmRunResult r = LlmTrainingRunner::Run(TinyOptions(), "rail-optimized", false);
    ASSERT_EQ(r.iterations.size(), 1u);
    EXPECT_EQ(r.bytesByLinkClass["spine"], 0u);
    EXPECT_GT(r.bytesByLinkClass["rail"], 0u);
    EXPECT_GT(r.bytesByLinkClass["nvlink"], 0u);
}

TEST_F(LlmPacketTest, RailOnlyMatchesRailOptimizedForDenseGpt)
{
    LlmRunResult opt = LlmTrainingRunner::Run(TinyOptions(), "rail-optimized", false);
    Simulator::Destroy();
    LlmRunResult only = LlmTrainingRunner::Run(TinyOptions(), "rail-only", false);
    EXPECT_NEAR(only.IterationS() / opt.IterationS(), 1.0, 0.01);
    EXPECT_EQ(only.bytesByLinkClass.count("spine"), 0u);
    // The twin runs the same graph on the same routes: within a few percent.
    EXPECT_NEAR(only.twinIterationS / only.IterationS(), 1.0, 0.05);
    // The closed form too, on this contention-free placement.
    EXPECT_NEAR(only.analytical.totalS / only.IterationS(), 1.0, 0.10);
}

TEST_F(LlmPacketTest, TwoPhaseAllToAllMovesTheFormulasBytesPerLinkClass)
{
    // Rail-only 4 x 4, one rail switch each; all 16 GPUs exchange m bytes per pair.
    LlmRunOptions o = TinyOptions();
    o.model.tp = 4;
    o.model.pp = 1;
    o.model.dp = 4;
    o.model.experts = 16;
    o.model.moeEvery = 1;
    Ptr<Cluster> cluster = LlmTrainingRunner::BuildFabric(o, "rail-only");
    Ptr<UdpMessageTransport> transport = CreateObject<UdpMessageTransport>();
    transport->Install(cluster);
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    w->Setup(o.model, 16, 4);
    const uint64_t m = 20000;
    IterationGraph g;
    std::vector<uint32_t> all(16);
    std::iota(all.begin(), all.end(), 0);
    auto ends = w->AddAllToAll(g, "a2a", all, m, {});
    EXPECT_EQ(g.GetNTasks(), 4u + 4u); // 4 domain shuffles + 4 rail exchanges
    EXPECT_EQ(ends.size(), 4u);
    Ptr<TrainingDriver> d = CreateObject<TrainingDriver>();
    d->SetGraph(g);
    d->SetTransport(transport);
    d->SetCollectiveCreator(&CollectiveFactory::Create);
    d->Start();
    Simulator::Run();
    ASSERT_TRUE(d->IsDone());
    Ptr<AlphaBetaModel> ab = CreateObject<AlphaBetaModel>();
    ab->SetPacketization(transport);
    const uint64_t n = 16, k = 4, domains = 4;
    // Every message also brings back one ACK: a packet of headers only (O bytes).
    const uint64_t ack = transport->GetPerPacketOverhead();
    // Phase 1: each GPU sends (K-1) blocks of D*m over 2 NVLink hops.
    uint64_t nvlink = n * (k - 1) * (ab->GetWireBytes(domains * m) + ack) * 2;
    // Phase 2: each GPU sends (D-1) blocks of K*m over 2 rail hops (GPU-switch-GPU).
    uint64_t rail = n * (domains - 1) * (ab->GetWireBytes(k * m) + ack) * 2;
    auto bytes = cluster->GetBytesByLinkClass();
    EXPECT_EQ(bytes["nvlink"], nvlink);
    EXPECT_EQ(bytes["rail"], rail);
    // NIC volume equals a flat all-to-all's: (N-K)*m application bytes per GPU.
    EXPECT_EQ((domains - 1) * k * m, (n - k) * m);
    // Its time against the closed form (same packetization).
    Ptr<LlmIterationModel> model = CreateObject<LlmIterationModel>();
    model->SetPacketization(transport->GetMaxPayload(), transport->GetPerPacketOverhead());
    double want = model->AllToAllTime(16, 4, m, true);
    EXPECT_NEAR(d->GetMeanIterationTime().GetSeconds() / want, 1.0, 0.05);
}

TEST_F(LlmPacketTest, FailedRailSwitchIsForwardedThroughTheHbDomain)
{
    LlmRunOptions o = TinyOptions();
    o.failRailSwitch = 1;
    LlmRunResult healthy = LlmTrainingRunner::Run(o, "rail-only", false);
    Simulator::Destroy();
    LlmRunResult failed = LlmTrainingRunner::Run(o, "rail-only", true);
    ASSERT_EQ(failed.iterations.size(), 1u);
    EXPECT_EQ(failed.failure, "rail-switch 1");
    EXPECT_EQ(failed.failedLinks, 4u); // the rail switch's 4 GPU links
    // Rail 1's DP and PP bytes now also cross NVLink twice: more NVLink bytes, slower.
    EXPECT_GT(failed.bytesByLinkClass["nvlink"], healthy.bytesByLinkClass["nvlink"]);
    EXPECT_GT(failed.IterationS(), healthy.IterationS());
    EXPECT_THROW(LlmTrainingRunner::Run(
                     [] {
                         LlmRunOptions bad = TinyOptions();
                         bad.failRailSwitch = 9;
                         return bad;
                     }(),
                     "rail-only",
                     true),
                 std::invalid_argument);
}

TEST_F(LlmPacketTest, FailedRailSwitchLeavesSixHopRoutesThroughNvlink)
{
    std::shared_ptr<RailFabricHelper> helper;
    Ptr<Cluster> c = LlmTrainingRunner::BuildFabric(TinyOptions(), "rail-only", &helper);
    RoutePlanner before(c);
    before.Compute();
    EXPECT_EQ(before.Hops(1, 5), 2u); // GPU 0:1 -> 1:1 over rail 1's switch
    EXPECT_EQ(LlmTrainingRunner::FailRail(c, *helper, 1), 4u);
    RoutePlanner after(c);
    after.Compute();
    // 0:1 -NVLink-> NVSwitch 0 -> 0:j -rail j-> 1:j -> NVSwitch 1 -NVLink-> 1:1
    EXPECT_EQ(after.Hops(1, 5), 6u);
    // Every first hop from GPU 1 is its NVLink (its NIC is gone); at NVSwitch 0 flows
    // spread over the K-1 = 3 healthy rails.
    for (uint32_t id : after.NextLinks(c->GetRankNode(1)->GetId(), 5))
    {
        EXPECT_EQ(c->GetLink(id).linkClass, "nvlink");
    }
    EXPECT_EQ(after.NextLinks(helper->GetNvSwitchIds()[0], 5).size(), 3u);
    // A GPU of another rail reaches 1:1 by its own rail, then NVLink (4 hops).
    EXPECT_EQ(after.Hops(2, 5), 4u);
}
