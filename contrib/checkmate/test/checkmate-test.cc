// SPDX-License-Identifier: GPL-2.0-only
// Checkmate on a real data-parallel job (ideal switch, real gradients in the
// packets): the shadow copy is bit-identical to the workers after every committed
// iteration, replicate-once mirrors exactly S bytes per iteration, mirroring does
// not change worker timing, a lost clone is repaired before the commit, recovery
// resumes from the last committed iteration and reproduces the uninterrupted
// model, and the CheckFreq / Gemini interval rules on given timings. At the flow level
// (FluidGradientMirror over FluidMessageTransport) the shadows get the packet level's
// bytes and stay bit-identical, the training is the packet level's to the bit, the
// times agree within what is measured, recovery reproduces the model, and lost clones
// (no flow-level model) are refused.
#include "mlnet-test-support.h"

#include "ns3/check-freq-policy.h"
#include "ns3/checkmate-helper.h"
#include "ns3/checkmate-runner.h"
#include "ns3/clone-loss.h"
#include "ns3/core-module.h"
#include "ns3/fabric-registry.h"
#include "ns3/gemini-policy.h"
#include "ns3/gradient-tag.h"
#include "ns3/real-model.h"
#include "ns3/synthetic-dataset.h"
#include "ns3/transport-choice.h"
#include "ns3/udp-message-transport.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using namespace mlnettest;

namespace
{

class CheckmateTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// A small job: 4 workers, P = 8*16 + 16 + 4*16 + 4 = 212 parameters (S = 848 B).
    static CheckmateRunConfig Small(RunLevel level = RunLevel::PACKET)
    {
        CheckmateRunConfig c;
        c.level = level;
        c.workers = 4;
        c.shadows = 2;
        c.inputs = 8;
        c.hidden = 16;
        c.classes = 4;
        c.iterations = 8;
        c.compute = "100us";
        return c;
    }

    static nlohmann::json Run(const CheckmateRunConfig& c)
    {
        RunReport report("checkmate-test");
        return CheckmateRunner::Run(c, report);
    }

    /// The error a configuration gives (empty when it runs).
    static std::string ErrorOf(const CheckmateRunConfig& c)
    {
        try
        {
            Run(c);
        }
        catch (const std::invalid_argument& e)
        {
            return e.what();
        }
        return "";
    }
};

/// A job wired by hand: 4 workers (ranks 0-3) of the small MLP on an ideal switch of 6
/// ranks, its transport installed; ranks 4 and 5 are free for shadows.
Ptr<DataParallelTrainer>
HandJob(Ptr<MessageTransport> transport, const std::string& dataPath, uint32_t hidden = 16)
{
    FabricRequest fabric;
    fabric.fabric = "ideal";
    fabric.ranks = 6;
    fabric.dataPath = dataPath;
    transport->Install(FabricRegistry::Build(fabric));
    Ptr<RealModel> model = CreateObject<RealModel>();
    model->SetAttribute("Inputs", UintegerValue(8));
    model->SetAttribute("Hidden", UintegerValue(hidden));
    model->SetAttribute("Classes", UintegerValue(4));
    Ptr<DataParallelTrainer> trainer = CreateObject<DataParallelTrainer>();
    trainer->SetAttribute("ComputeTime", TimeValue(MicroSeconds(100)));
    trainer->Setup(transport,
                   {0, 1, 2, 3},
                   model,
                   CreateObject<SyntheticDataset>(),
                   ObjectFactory("ns3::SgdMomentum"));
    return trainer;
}

double
Relative(const nlohmann::json& flow, const nlohmann::json& packet)
{
    return flow.get<double>() / packet.get<double>() - 1;
}

TEST_F(CheckmateTest, ShadowIsBitIdenticalAfterEveryCommittedIteration)
{
    for (const char* opt : {"adamw", "sgd"})
    {
        CheckmateRunConfig c = Small();
        c.optimizer = opt;
        nlohmann::json r = Run(c);
        ASSERT_EQ(r["iterations"].size(), 8u);
        for (const auto& row : r["iterations"])
        {
            EXPECT_TRUE(row["shadow_matches_workers"].get<bool>()) << opt << " " << row.dump();
        }
        EXPECT_EQ(r["summary"]["checkpoints"], 8);
        EXPECT_EQ(r["summary"]["checkpoint_interval_iterations"].get<double>(), 1.0);
        EXPECT_TRUE(r["summary"]["shadow_keeps_up"].get<bool>());
    }
}

TEST_F(CheckmateTest, ReplicateOnceMirrorsExactlySBytesPerIteration)
{
    CheckmateRunConfig c = Small();
    nlohmann::json once = Run(c);
    const uint64_t s = 4 * 212; // gradient bytes of one all-reduce
    EXPECT_EQ(once["summary"]["mirrored_bytes"].get<uint64_t>(), 8 * s);
    c.replicate = "all";
    nlohmann::json all = Run(c);
    // Every all-gather packet: (N-1) x S per iteration; still bit-identical.
    EXPECT_EQ(all["summary"]["mirrored_bytes"].get<uint64_t>(), 8 * 3 * s);
    EXPECT_TRUE(all["summary"]["shadow_matches_workers"].get<bool>());
}

TEST_F(CheckmateTest, FatTreeMirrorsEachChunkOnceAtItsIngressSwitch)
{
    // 8 workers + 2 shadows on a 2-tier fat-tree: packets cross up to three switches,
    // but only the sender's ToR clones them. P = 8*20 + 20 + 4*20 + 4 = 264.
    CheckmateRunConfig c = Small();
    c.fabric = "fattree";
    c.workers = 8;
    c.hidden = 20;
    c.iterations = 4;
    nlohmann::json r = Run(c);
    EXPECT_EQ(r["summary"]["mirrored_bytes"].get<uint64_t>(), 4u * 4 * 264);
    EXPECT_TRUE(r["summary"]["shadow_matches_workers"].get<bool>());
    EXPECT_EQ(r["summary"]["throughput_overhead"].get<double>(), 0.0);
}

TEST_F(CheckmateTest, SlowShadowCpuIsReportedAndDelaysCommitsNotTraining)
{
    // 106 parameters per shard x 28 B at 1 MB/s = 2.968 ms per update, far above the
    // ~112 us iteration: the shadow falls behind, commits lag more and more, the
    // workers' iteration times do not change.
    CheckmateRunConfig c = Small();
    c.shadowMemoryBandwidth = 1e6;
    nlohmann::json r = Run(c);
    const auto& s = r["summary"];
    EXPECT_FALSE(s["shadow_keeps_up"].get<bool>());
    EXPECT_NEAR(s["shadow_apply_s"].get<double>(), 106 * 28 / 1e6, 1e-12);
    EXPECT_EQ(s["throughput_overhead"].get<double>(), 0.0);
    EXPECT_EQ(s["checkpoints"], 8);
    EXPECT_TRUE(s["shadow_matches_workers"].get<bool>());
    double first = r["iterations"][0]["commit_lag_s"].get<double>();
    double last = r["iterations"][7]["commit_lag_s"].get<double>();
    EXPECT_GT(last, first + 6 * (106 * 28 / 1e6 - 200e-6));
}

TEST_F(CheckmateTest, MirroringLeavesWorkerIterationTimesUnchanged)
{
    CheckmateRunConfig c = Small();
    c.replicate = "all";
    nlohmann::json with = Run(c);
    c.mode = "none";
    nlohmann::json without = Run(c);
    ASSERT_EQ(with["iterations"].size(), without["iterations"].size());
    for (size_t i = 0; i < with["iterations"].size(); ++i)
    {
        EXPECT_EQ(with["iterations"][i]["iteration_s"], without["iterations"][i]["iteration_s"]);
        EXPECT_EQ(with["iterations"][i]["loss"], without["iterations"][i]["loss"]);
    }
    EXPECT_EQ(with["summary"]["throughput_overhead"].get<double>(), 0.0);
}

TEST_F(CheckmateTest, LostCloneIsRepairedAndTheCommitWaits)
{
    for (RunLevel level : {RunLevel::PACKET, RunLevel::FLOW})
    {
        CheckmateRunConfig c = Small(level);
        c.dropClone = 3;
        nlohmann::json r = Run(c);
        EXPECT_EQ(r["summary"]["mirror_lost_packets"].get<uint64_t>(), 1u) << ToString(level);
        EXPECT_EQ(r["summary"]["repaired_packets"].get<uint64_t>(), 1u) << ToString(level);
        EXPECT_GT(r["summary"]["repaired_bytes"].get<uint64_t>(), 0u) << ToString(level);
        EXPECT_TRUE(r["summary"]["shadow_matches_workers"].get<bool>()) << ToString(level);
        EXPECT_EQ(r["summary"]["checkpoints"], 8) << ToString(level);
        // The commit of iteration 3 waits for the repair: it is asked for when clones of
        // iteration 4 arrive (after its 100 us compute, sooner than the 200 us timeout),
        // then one request/response round trip. Other iterations commit before the
        // workers even finish their all-gather (negative lag).
        double lag3 = r["iterations"][3]["commit_lag_s"].get<double>();
        double lag2 = r["iterations"][2]["commit_lag_s"].get<double>();
        EXPECT_GT(lag3, 100e-6) << ToString(level);
        EXPECT_LT(lag2, 0.0) << ToString(level);
    }
}

TEST_F(CheckmateTest, RecoveryResumesFromTheLastCommitAndReproducesTheModel)
{
    for (RunLevel level : {RunLevel::PACKET, RunLevel::FLOW})
    {
        CheckmateRunConfig c = Small(level);
        c.failAt = 5;
        nlohmann::json r = Run(c);
        const auto& s = r["summary"];
        EXPECT_EQ(s["restored_from_iteration"], 4) << ToString(level);
        EXPECT_EQ(s["repeated_iterations_after_failure"], 0) << ToString(level);
        EXPECT_TRUE(s["recovery_state_matches_checkpoint"].get<bool>()) << ToString(level);
        EXPECT_TRUE(s["final_model_matches_uninterrupted"].get<bool>()) << ToString(level);
        EXPECT_GT(s["recovery_s"].get<double>(), 0.0) << ToString(level);
        // Iterations 0..4, then 5..7 after recovery.
        EXPECT_EQ(r["iterations"].size(), 8u) << ToString(level);
        EXPECT_EQ(r["iterations"][5]["iteration"], 5) << ToString(level);
        // Without checkpoints the job restarts from scratch: 5 repeated iterations.
        c.mode = "none";
        nlohmann::json none = Run(c);
        EXPECT_EQ(none["summary"]["repeated_iterations_after_failure"], 5) << ToString(level);
        EXPECT_TRUE(none["summary"]["final_model_matches_uninterrupted"].get<bool>())
            << ToString(level);
    }
}

TEST_F(CheckmateTest, RandomFailureIsDrawnOnceAndRecovered)
{
    CheckmateRunConfig c = Small();
    c.failRandom = true;
    nlohmann::json a = Run(c);
    nlohmann::json b = Run(c);
    int64_t at = a["summary"]["fail_at"].get<int64_t>();
    EXPECT_GE(at, 1);
    EXPECT_LE(at, 7);
    EXPECT_EQ(b["summary"]["fail_at"].get<int64_t>(), at); // same RngRun, same draw
    EXPECT_LE(a["summary"]["repeated_iterations_after_failure"].get<int64_t>(), 1);
    EXPECT_TRUE(a["summary"]["final_model_matches_uninterrupted"].get<bool>());
    // Goodput counts the recovery: below the no-failure rate of 1 / iteration time.
    EXPECT_LT(a["summary"]["goodput_iterations_per_s"].get<double>(),
              1.0 / a["summary"]["mean_iteration_s"].get<double>());
    c.failAt = 3;
    EXPECT_THROW(Run(c), std::invalid_argument);
}

// The paths of checkmate.md's table: the shadow cluster by name, each switch's mirror
// aggregated to its node, each shadow node an application of its node.
TEST_F(CheckmateTest, TracesAreReachableByConfigPath)
{
    g_traceCalls.clear();
    // The runner runs a baseline simulation first; wire one job by hand so the paths
    // are connected in the simulation that has Checkmate.
    Ptr<UdpMessageTransport> transport = CreateObject<UdpMessageTransport>();
    Ptr<DataParallelTrainer> trainer = HandJob(transport, "ipv4");
    CheckmateHelper helper;
    helper.Install(trainer, transport, {4, 5});
    Config::Connect("/Names/ShadowCluster/Commit", MakeCallback(&CountTraceCall<uint32_t, Time>));
    Config::Connect("/NodeList/*/$ns3::GradientMirror/Mirrored",
                    MakeCallback(&CountTraceCall<const GradientTag&, Ipv4Address>));
    Config::Connect("/NodeList/*/ApplicationList/*/$ns3::ShadowNode/Committed",
                    MakeCallback(&CountTraceCall<uint32_t>));
    trainer->Run(0, 8);
    Simulator::Run();
    // One commit of the cluster per iteration; each of the 2 shadows commits each one.
    EXPECT_EQ(g_traceCalls["/Names/ShadowCluster/Commit"], 8u);
    uint32_t mirrored = 0;
    uint32_t shadowCommits = 0;
    for (const auto& [context, n] : g_traceCalls)
    {
        if (context.find("$ns3::GradientMirror/Mirrored") != std::string::npos)
        {
            mirrored += n;
        }
        if (context.find("$ns3::ShadowNode/Committed") != std::string::npos)
        {
            EXPECT_EQ(n, 8u) << context;
            shadowCommits += n;
        }
    }
    EXPECT_GT(mirrored, 0u);
    EXPECT_EQ(shadowCommits, 2u * 8u);
}

// The flow level (FluidGradientMirror over FluidMessageTransport).
TEST_F(CheckmateTest, FlowLevelShadowsGetThePacketLevelsBytesAndStayBitIdentical)
{
    for (const char* replicate : {"once", "all"})
    {
        CheckmateRunConfig c = Small(RunLevel::FLOW);
        c.replicate = replicate;
        nlohmann::json flow = Run(c);
        c.level = RunLevel::PACKET;
        nlohmann::json packet = Run(c);
        ASSERT_EQ(flow["iterations"].size(), 8u) << replicate;
        for (size_t i = 0; i < 8; ++i)
        {
            const auto& row = flow["iterations"][i];
            EXPECT_TRUE(row["shadow_matches_workers"].get<bool>()) << replicate << row.dump();
            // The same real training: the losses are the packet level's, bit for bit.
            EXPECT_EQ(row["loss"], packet["iterations"][i]["loss"]) << replicate << i;
        }
        const auto& f = flow["summary"];
        const auto& p = packet["summary"];
        EXPECT_EQ(f["checkpoints"], 8) << replicate;
        // The same clones: S per iteration once, (N-1) x S with ReplicateAll.
        EXPECT_EQ(f["mirrored_bytes"], p["mirrored_bytes"]) << replicate;
        EXPECT_EQ(f["mirrored_bytes"].get<uint64_t>(),
                  8u * 4 * 212 * (std::string(replicate) == "all" ? 3 : 1))
            << replicate;
        EXPECT_EQ(f["repaired_bytes"], 0) << replicate;
        // Ideal switch, 2 workers' copies into each shadow's port: the all-reduce within
        // 1 % of the packet level (measured: -0.25 %, 31 ns), the iteration within 0.1 %
        // (-0.03 %), the shadows' commits within 0.1 us of the packet level's (12 ns).
        EXPECT_LT(std::abs(Relative(f["mean_allreduce_s"], p["mean_allreduce_s"])), 0.01)
            << replicate;
        EXPECT_LT(std::abs(Relative(f["mean_iteration_s"], p["mean_iteration_s"])), 0.001)
            << replicate;
        EXPECT_NEAR(f["mean_commit_lag_s"].get<double>(),
                    p["mean_commit_lag_s"].get<double>(),
                    0.1e-6)
            << replicate;
    }
}

TEST_F(CheckmateTest, FlowLevelCopiesTakeTheClonesPathsOnAFatTree)
{
    // 8 workers + 2 shadows on a 2-tier fat-tree, P = 271,368 (1.09 MB of gradient):
    // the copies leave the workers' ToRs on the uplinks the clones' flow key hashes to
    // (the switch's address, the mirror's ports), where the ring's messages cross too.
    // Measured: the all-reduce -0.02 % from the packet level's and the commits 0.02 %;
    // with the copies on the workers' own routes to the shadows, -3.6 %.
    CheckmateRunConfig c = Small(RunLevel::FLOW);
    c.fabric = "fattree";
    c.workers = 8;
    c.inputs = 256;
    c.hidden = 1024;
    c.classes = 8;
    c.iterations = 2;
    nlohmann::json flow = Run(c);
    c.level = RunLevel::PACKET;
    nlohmann::json packet = Run(c);
    const auto& f = flow["summary"];
    const auto& p = packet["summary"];
    EXPECT_TRUE(f["shadow_matches_workers"].get<bool>());
    EXPECT_EQ(f["mirrored_bytes"], p["mirrored_bytes"]);
    EXPECT_LT(std::abs(Relative(f["mean_allreduce_s"], p["mean_allreduce_s"])), 0.001);
    EXPECT_LT(std::abs(Relative(f["mean_commit_lag_s"], p["mean_commit_lag_s"])), 0.001);
}

TEST_F(CheckmateTest, FlowLevelEverySchemeRunsAndTheSameRunGivesTheSameDocument)
{
    CheckmateRunConfig c = Small(RunLevel::FLOW);
    c.mode = "all";
    c.failAt = 5;
    nlohmann::json a = Run(c);
    nlohmann::json b = Run(c);
    EXPECT_EQ(a, b);
    for (const char* mode : {"checkmate", "checkfreq", "gemini", "none"})
    {
        ASSERT_TRUE(a["modes"].contains(mode)) << mode;
        EXPECT_TRUE(a["modes"][mode]["final_model_matches_uninterrupted"].get<bool>()) << mode;
    }
}

TEST_F(CheckmateTest, FlowLevelLostClonesLeaveTheShadowsMatchingAndFollowTheRngRun)
{
    // 8 iterations x 3 all-gather steps x 4 messages copied (ReplicateAll), one packet
    // each (212 B): at 30 % some are lost and repaired from a worker, the shadows still
    // match, and the same RngRun draws the same losses.
    CheckmateRunConfig c = Small(RunLevel::FLOW);
    c.replicate = "all";
    c.mirrorLoss = 0.3;
    nlohmann::json a = Run(c);
    const auto& s = a["summary"];
    EXPECT_GT(s["mirror_lost_packets"].get<uint64_t>(), 0u);
    EXPECT_LT(s["mirror_lost_packets"].get<uint64_t>(), 8u * 4 * 3);
    EXPECT_TRUE(s["shadow_matches_workers"].get<bool>());
    EXPECT_EQ(s["checkpoints"], 8);
    EXPECT_EQ(Run(c), a);
    c.level = RunLevel::ANALYTIC;
    const std::string e = ErrorOf(c);
    EXPECT_NE(e.find("--level=flow"), std::string::npos) << e;
}

TEST(CloneLossTest, TheHookNamesPacketsPerIterationWithoutShiftingTheDraws)
{
    // No rate: exactly the named packets are lost, counted from 0 in each iteration.
    CloneLoss hook;
    hook.Drop(0, 1);
    hook.Drop(1, 0);
    hook.Drop(3, 2);
    std::vector<bool> lost;
    for (uint32_t it : {0u, 0u, 0u, 1u, 1u, 2u, 3u, 3u, 3u})
    {
        lost.push_back(hook.NextIsLost(it, 0.0));
    }
    EXPECT_EQ(lost,
              (std::vector<bool>{false, true, false, true, false, false, false, false, true}));

    // At a rate: the same stream loses the same packets, and a named packet takes
    // its draw too, so the others' fates do not move.
    CloneLoss drawn;
    CloneLoss named;
    drawn.SetStream(77);
    named.SetStream(77);
    named.Drop(0, 3);
    uint32_t losses = 0;
    for (uint32_t k = 0; k < 2000; ++k)
    {
        const bool a = drawn.NextIsLost(0, 0.25);
        const bool b = named.NextIsLost(0, 0.25);
        EXPECT_EQ(b, a || k == 3) << "packet " << k;
        losses += a;
    }
    // 2000 draws at 0.25: 500 expected, sd 19.4; 5 sd either side.
    EXPECT_GT(losses, 403u);
    EXPECT_LT(losses, 597u);
}

TEST_F(CheckmateTest, FlowLevelLossesLeaveHolesTheShadowRepairs)
{
    // Hidden 1024: P = 8*1024 + 1024 + 4*1024 + 4 = 13,316, chunks of 13,316 B, two
    // packets each at the UDP transport's payload (8943 B). Iteration 0: the second
    // packet of the first copy is dropped, and all of the third. The shadows receive
    // the rest, repair exactly the missing bytes from the workers, and commit both
    // iterations.
    Ptr<MessageTransport> transport = TransportChoice::Create("udp", RunLevel::FLOW);
    Ptr<DataParallelTrainer> trainer = HandJob(transport, "none", 1024);
    CheckmateHelper helper;
    Ptr<ShadowCluster> sc = helper.Install(trainer, transport, {4, 5});
    Ptr<FluidGradientMirror> m = helper.GetFluidMirror();
    ASSERT_NE(m, nullptr);
    const uint64_t chunk = 13316;
    const uint64_t payload = transport->GetMaxPayload();
    ASSERT_LT(payload, chunk);
    ASSERT_GE(2 * payload, chunk);
    m->DropClone(0, 1); // copy 0's second packet
    m->DropClone(0, 4); // copy 2, both packets
    m->DropClone(0, 5);
    trainer->Run(0, 2);
    Simulator::Run();
    EXPECT_EQ(m->GetMirroredPackets(), 2u * 4 * 2);
    EXPECT_EQ(m->GetDroppedPackets(), 3u);
    const uint64_t lost = (chunk - payload) + chunk;
    uint64_t received = 0;
    for (const auto& shadow : sc->GetShadows())
    {
        received += shadow->GetReceivedBytes();
    }
    EXPECT_EQ(received, 2 * 4 * chunk - lost);
    EXPECT_EQ(sc->GetRepairBytes(), lost);
    EXPECT_EQ(sc->GetCommittedIteration(), 1);
    trainer->Dispose();
}

TEST_F(CheckmateTest, FlowLevelHelperInstallsOneMirrorForTheFabric)
{
    Ptr<MessageTransport> transport = TransportChoice::Create("udp", RunLevel::FLOW);
    Ptr<DataParallelTrainer> trainer = HandJob(transport, "none");
    Ptr<Cluster> cluster = transport->GetCluster();
    CheckmateHelper plain;
    plain.Install(trainer, transport, {4, 5});
    EXPECT_NE(plain.GetFluidMirror(), nullptr);
    EXPECT_TRUE(plain.GetMirrors().empty());
    EXPECT_EQ(cluster->GetRankNode(4)->GetNApplications(), 1u);
    // Its trace by Config path: one copy per all-gather step-0 message, 4 per iteration.
    uint32_t copies = 0;
    Config::ConnectWithoutContext(
        "/Names/FluidGradientMirror/Mirrored",
        MakeCallback(+[](uint32_t* n, const GradientTag& tag, uint32_t shadow) {
            EXPECT_EQ(tag.phase, GradientTag::ALL_GATHER);
            EXPECT_EQ(tag.step, 0u);
            EXPECT_EQ(shadow, tag.chunk < 2 ? 4u : 5u); // 2 chunks per shard
            ++*n;
        }).Bind(&copies));
    trainer->Run(0, 2);
    Simulator::Run();
    EXPECT_EQ(copies, 8u);
    EXPECT_EQ(plain.GetFluidMirror()->GetMirroredMessages(), 8u);
    EXPECT_EQ(plain.GetMirroredBytes(), 2u * 4 * 212);
    trainer->Dispose();
}

TEST(CheckFreqPolicyTest, IntervalRuleOnGivenTimings)
{
    // k = max(ceil((t_f - t_c) / t_i), 1)
    EXPECT_EQ(CheckFreqPolicy::Interval(0.1, 0.02, 0.52), 5u);
    EXPECT_EQ(CheckFreqPolicy::Interval(0.1, 0.02, 0.5201), 6u);
    EXPECT_EQ(CheckFreqPolicy::Interval(1.0, 0.5, 0.6), 1u);
    EXPECT_THROW(CheckFreqPolicy::Interval(0, 0.1, 0.2), std::invalid_argument);
    Ptr<CheckFreqPolicy> p = CreateObject<CheckFreqPolicy>();
    // 515 MB at 515 MB/s persists in 1 s; 12 GB/s snapshots it in 42.9 ms.
    EXPECT_DOUBLE_EQ(p->GetPersistTime(515000000).GetSeconds(), 1.0);
    EXPECT_EQ(p->ChooseInterval(515000000, MilliSeconds(100)), 10u);
    // Adaptive: overhead above 5% adds 2 iterations.
    EXPECT_EQ(p->Adapt(10, 0.06), 12u);
    EXPECT_EQ(p->Adapt(10, 0.04), 10u);
    // The snapshot hides behind the next compute when it is shorter.
    EXPECT_EQ(p->GetStall(12000000, MilliSeconds(2)), Time(0));
    EXPECT_EQ(p->GetStall(12000000, MicroSeconds(400)), MicroSeconds(600));
}

TEST(GeminiPolicyTest, IntervalIsBoundedByIdleBandwidth)
{
    Ptr<GeminiPolicy> g = CreateObject<GeminiPolicy>();
    // 12 MB checkpoint, 4 workers: 3 MB each to one peer; 10 Gb/s x 1 ms idle = 1.25 MB
    // per iteration -> ceil(3 / 1.25) = 3 iterations.
    EXPECT_EQ(g->GetBytesPerWorker(12000000, 4), 3000000u);
    EXPECT_EQ(g->ChooseInterval(12000000, 4, DataRate("10Gbps"), MilliSeconds(1)), 3u);
    EXPECT_EQ(g->ChooseInterval(1000, 4, DataRate("10Gbps"), MilliSeconds(1)), 1u);
}

TEST(GradientTagTest, SerializesEveryField)
{
    GradientTag t;
    t.job = 1;
    t.iteration = 2;
    t.bucket = 3;
    t.ring = 4;
    t.phase = GradientTag::ALL_GATHER;
    t.step = 5;
    t.chunk = 6;
    t.offset = 1ull << 40;
    t.length = 8943;
    Ptr<Packet> p = Create<Packet>(10);
    p->AddPacketTag(t);
    GradientTag u;
    ASSERT_TRUE(p->PeekPacketTag(u));
    EXPECT_EQ(u.job, 1u);
    EXPECT_EQ(u.iteration, 2u);
    EXPECT_EQ(u.bucket, 3u);
    EXPECT_EQ(u.ring, 4u);
    EXPECT_EQ(u.phase, GradientTag::ALL_GATHER);
    EXPECT_EQ(u.step, 5u);
    EXPECT_EQ(u.chunk, 6u);
    EXPECT_EQ(u.offset, 1ull << 40);
    EXPECT_EQ(u.length, 8943u);
}

} // namespace
