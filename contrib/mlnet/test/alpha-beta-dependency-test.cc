// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the dependency-aware alpha-beta twin (AlphaBetaModel::Predict): the
 * schedule carries the engine's dependencies (ScheduledMessage chain/step/reduce),
 * hand-worked fluid timelines (one message, NIC FIFO head + fair sharing, max-min
 * sharing of an incast downlink and of a link carrying forwarded and own traffic,
 * prerequisites and serialized reductions), equality with the lock-step
 * twin where both must agree, and packet-level runs over UDP on several fabrics.
 */
#include "collective-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/double.h"
#include "ns3/fabric-options.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/message-transport.h"
#include "ns3/stepwise-collective.h"
#include "ns3/string.h"
#include "ns3/torus-helper.h"
#include "ns3/transport-choice.h"

#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <tuple>

using namespace ns3;
using mlnettest::HandTransport;
using mlnettest::Msg;

namespace
{

/// 8 Gb/s: one byte serializes in exactly 1 ns, so hand-worked times are integers.
const DataRate kRate("8Gbps");
const Time kDelay = MicroSeconds(1);

class AlphaBetaDependencyTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// n hosts on one switch, 8 Gb/s, 1 us.
    static Ptr<Cluster> Switch(uint32_t n, DataRate rate = kRate)
    {
        IdealSwitchHelper h(n);
        h.SetLinkRate(rate);
        h.SetLinkDelay(kDelay);
        return h.Install();
    }

    /// Model with P = 1000, O = 50 and the given NIC FIFO.
    static Ptr<AlphaBetaModel> Model(Ptr<Cluster> c, uint32_t backlog = 8)
    {
        Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
        m->SetPacketization(1000, 50);
        m->SetAttribute("NicBacklogPackets", UintegerValue(backlog));
        m->SetCluster(c);
        return m;
    }

    static std::vector<CollectiveStep> OneStep(std::vector<ScheduledMessage> msgs)
    {
        CollectiveStep s;
        s.messages = std::move(msgs);
        return {s};
    }
};

} // namespace

TEST_F(AlphaBetaDependencyTest, ScheduleCarriesTheEnginesDependencies)
{
    // Ring all-reduce, 4 ranks, one chain: message of step g from member p goes to
    // p+1, in chain 0, step g; the reduce-scatter half (g < 3) is reduced.
    Ptr<Cluster> c = Switch(4);
    Ptr<HandTransport> t = CreateObject<HandTransport>();
    t->Install(c);
    Ptr<Collective> ring = CollectiveFactory::Create("allreduce", "ring");
    ring->Setup(t, {0, 1, 2, 3}, 4000);
    auto schedule = ring->GetSchedule();
    ASSERT_EQ(schedule.size(), 6u);
    for (uint32_t g = 0; g < schedule.size(); ++g)
    {
        ASSERT_EQ(schedule[g].messages.size(), 4u);
        for (const auto& m : schedule[g].messages)
        {
            EXPECT_EQ(m.dst, (m.src + 1) % 4);
            EXPECT_EQ(m.chain, 0u);
            EXPECT_EQ(m.step, g);
            EXPECT_EQ(m.reduce, g < 3) << "step " << g;
        }
    }
    // Hand-written messages keep the default: the index of their CollectiveStep.
    ScheduledMessage legacy{0, 1, 10};
    EXPECT_EQ(legacy.step, ScheduledMessage::kStepOfSchedule);
    EXPECT_EQ(legacy.chain, 0u);
    EXPECT_FALSE(legacy.reduce);
}

TEST_F(AlphaBetaDependencyTest, OneMessageOnAnIdlePathTakesTMsg)
{
    Ptr<Cluster> c = Switch(4);
    for (uint32_t backlog : {0u, 8u})
    {
        Ptr<AlphaBetaModel> m = Model(c, backlog);
        // m = 2500: n = 3, W = 2650, F1 = 1050; 2 hops: W + F1 + 2d = 5700 ns.
        EXPECT_EQ(m->Predict(OneStep({Msg(0, 1, 2500, 0, 0)})), NanoSeconds(5700));
        // m = 20001: n = 21 (> 8 in the FIFO), W = 21051: 21051 + 1050 + 2000 ns.
        EXPECT_EQ(m->Predict(OneStep({Msg(2, 3, 20001, 0, 0)})), NanoSeconds(24101));
        // A hand-written (lock-step) message: the same.
        EXPECT_EQ(m->Predict(OneStep({ScheduledMessage{0, 1, 2500}})), NanoSeconds(5700));
        for (uint64_t bytes : {10ull, 1000ull, 8999ull, 123457ull})
        {
            EXPECT_EQ(m->Predict(OneStep({Msg(1, 2, bytes, 0, 0)})),
                      m->PredictMessage(bytes, 2, kRate, kDelay))
                << bytes << " B";
        }
    }
}

TEST_F(AlphaBetaDependencyTest, RingOnAnIdealSwitchEqualsTheLockStepTwin)
{
    // One message per link and step, every route 2 hops: each step of the
    // data-driven run takes exactly T_msg(c, 2) (+ gamma c), as in lock-step.
    Ptr<Cluster> c = Switch(8);
    Ptr<HandTransport> t = CreateObject<HandTransport>();
    t->Install(c);
    Ptr<AlphaBetaModel> m = Model(c);
    for (std::string collective : {"allreduce", "allgather", "reducescatter"})
    {
        for (Time gamma : {Time(0), NanoSeconds(1)})
        {
            Ptr<Collective> ring = CollectiveFactory::Create(collective, "ring");
            ring->SetAttribute("ReductionTimePerByte", DoubleValue(gamma.GetSeconds()));
            ring->Setup(t, {0, 1, 2, 3, 4, 5, 6, 7}, 8 * 5000);
            EXPECT_EQ(m->Predict(ring), m->PredictLockStep(ring)) << collective;
            EXPECT_GT(m->Predict(ring), Time(0));
        }
    }
    // At 100 Gb/s a byte is 0.08 ns: the lock-step twin rounds every step to the
    // nanosecond, the dependency-aware one once; they agree to 1 ns per step.
    Ptr<Cluster> fast = Switch(8, DataRate("100Gbps"));
    Ptr<HandTransport> t2 = CreateObject<HandTransport>();
    t2->Install(fast);
    Ptr<AlphaBetaModel> m2 = Model(fast);
    Ptr<Collective> ring = CollectiveFactory::Create("allreduce", "ring");
    ring->Setup(t2, {0, 1, 2, 3, 4, 5, 6, 7}, 1 << 20);
    EXPECT_NEAR(m2->Predict(ring).GetNanoSeconds(),
                m2->PredictLockStep(ring).GetNanoSeconds(),
                14.0);
}

TEST_F(AlphaBetaDependencyTest, MessagesOfOneNicShareItHeadFirstThenRoundRobin)
{
    // Rank 0 issues c, c, 2c (c = 5000 B = 5 packets, W(c) = 5250, W(2c) = 10500) to
    // ranks 1, 2, 3 at once. L = F1 + 2d = 1050 + 2000 = 3050 ns.
    Ptr<Cluster> c = Switch(4);
    auto schedule = OneStep({Msg(0, 1, 5000, 0, 0), Msg(0, 2, 5000, 0, 0), Msg(0, 3, 10000, 0, 0)});
    // Pure round-robin: all at R/3 until the two c's end at 3 W(c) = 15750 ns, then
    // 2c's remaining 5250 B alone: 21000 ns.
    TimelinePrediction rr = Model(c, 0)->PredictTimeline(schedule);
    ASSERT_EQ(rr.messages.size(), 3u);
    EXPECT_EQ(rr.messages[0].arrival, NanoSeconds(15750 + 3050));
    EXPECT_EQ(rr.messages[1].arrival, NanoSeconds(15750 + 3050));
    EXPECT_EQ(rr.messages[2].arrival, NanoSeconds(21000 + 3050));
    // FIFO of 8 packets: the first message (5 packets) fits whole, the second puts 3
    // packets (3150 B) in; they leave first (5250, then 8400 ns). Then round-robin:
    // the second's 2100 B against the third's 10500 B end at 8400 + 2*2100 = 12600;
    // the third's last 8400 B alone end at 21000 ns.
    TimelinePrediction fifo = Model(c, 8)->PredictTimeline(schedule);
    EXPECT_EQ(fifo.messages[0].arrival, NanoSeconds(5250 + 3050));
    EXPECT_EQ(fifo.messages[1].arrival, NanoSeconds(12600 + 3050));
    EXPECT_EQ(fifo.messages[2].arrival, NanoSeconds(21000 + 3050));
    EXPECT_EQ(fifo.total, NanoSeconds(24050));
    // The lock-step twin times the three as one step: the NIC carries 4 W(c) = 21000
    // ns, plus the longest latency; it only agrees on the last arrival.
    EXPECT_EQ(Model(c)->PredictLockStep(schedule), NanoSeconds(21000 + 3050));
}

TEST_F(AlphaBetaDependencyTest, IncastSharesTheDownlink)
{
    // Ranks 1 and 2 send c = 5000 B (W = 5250) to rank 0 at once. Line rate: both NICs
    // send at R, the port to rank 0 is offered 2R and holds 5250 B when they finish at
    // 5250 ns; both wait it out: 10500 ns. Max-min: R/2 each, also 10500 ns. Then
    // L = 3050 ns.
    Ptr<Cluster> c = Switch(4);
    for (const char* sharing : {"LineRate", "MaxMin"})
    {
        Ptr<AlphaBetaModel> m = Model(c);
        m->SetAttribute("Sharing", StringValue(sharing));
        TimelinePrediction p =
            m->PredictTimeline(OneStep({Msg(1, 0, 5000, 0, 0), Msg(2, 0, 5000, 0, 0)}));
        EXPECT_EQ(p.messages[0].transferEnd, NanoSeconds(10500)) << sharing;
        EXPECT_EQ(p.messages[1].arrival, NanoSeconds(10500 + 3050)) << sharing;
        EXPECT_EQ(p.total, NanoSeconds(13550)) << sharing;
    }
}

TEST_F(AlphaBetaDependencyTest, ForwardedAndOwnTrafficShareALink)
{
    // A 4-rank line (mesh 4x1, 8 Gb/s, 1 us): rank 1 forwards 0 -> 2 on its link to
    // rank 2 while sending its own 1 -> 2. c = 5000 B, W = 5250: the link 1 -> 2
    // carries both, offered 2R: both transfers end at 2 W = 10500 ns (the twin used to
    // leave rank 1's own message out of the link's load: 5250 ns for it).
    TorusHelper h({4});
    h.SetWrap(false);
    h.SetLinkRate(kRate);
    h.SetLinkDelay(kDelay);
    Ptr<Cluster> c = h.Install();
    TimelinePrediction p =
        Model(c)->PredictTimeline(OneStep({Msg(0, 2, 5000, 0, 0), Msg(1, 2, 5000, 0, 0)}));
    EXPECT_EQ(p.messages[0].transferEnd, NanoSeconds(10500));
    EXPECT_EQ(p.messages[1].transferEnd, NanoSeconds(10500));
    // Latencies: 0 -> 2 is 2 hops (F1 + 2d = 3050 ns), 1 -> 2 one hop (d = 1000 ns).
    EXPECT_EQ(p.messages[0].arrival, NanoSeconds(10500 + 3050));
    EXPECT_EQ(p.messages[1].arrival, NanoSeconds(10500 + 1000));
}

TEST_F(AlphaBetaDependencyTest, SendsWaitForTheirPrerequisitesAndReductionsAreSerialized)
{
    // Chain 0: 0 -> 2 (reduced), then 2 -> 3. Chain 1: 1 -> 2 (reduced), then 2 -> 3.
    // c = 1000 B = one packet, W = F1 = 1050; gamma = 10 ns/B.
    //  - 0 -> 2 and 1 -> 2 meet on the port to rank 2: both leave it at 2100 ns and
    //    arrive at A = 2100 + F1 + 2d = 5150 ns.
    //  - Rank 2 reduces chain 0's 1000 B (5150 .. 15150), then chain 1's (.. 25150).
    //  - Each 2 -> 3 then takes T_msg = 1050 + 1050 + 2000 = 4100 ns alone.
    Ptr<Cluster> c = Switch(4);
    Ptr<AlphaBetaModel> m = Model(c);
    m->SetAttribute("ReductionTimePerByte", DoubleValue(10e-9));
    CollectiveStep s0;
    s0.messages = {Msg(0, 2, 1000, 0, 0, true), Msg(1, 2, 1000, 1, 0, true)};
    CollectiveStep s1;
    s1.messages = {Msg(2, 3, 1000, 0, 1), Msg(2, 3, 1000, 1, 1)};
    TimelinePrediction p = m->PredictTimeline({s0, s1});
    ASSERT_EQ(p.messages.size(), 4u);
    EXPECT_EQ(p.messages[0].arrival, NanoSeconds(5150));
    EXPECT_EQ(p.messages[1].arrival, NanoSeconds(5150));
    EXPECT_EQ(p.messages[2].start, NanoSeconds(15150));
    EXPECT_EQ(p.messages[3].start, NanoSeconds(25150));
    EXPECT_EQ(p.messages[2].arrival, NanoSeconds(19250));
    EXPECT_EQ(p.messages[3].arrival, NanoSeconds(29250));
    EXPECT_EQ(p.rankFinish[3], NanoSeconds(29250));
    EXPECT_EQ(p.rankFinish[2], NanoSeconds(25150)); // its last send leaves then
    EXPECT_EQ(p.total, NanoSeconds(29250));
    // The trace reports every message.
    uint32_t traced = 0;
    m->TraceConnectWithoutContext(
        "MessagePredicted",
        MakeCallback(+[](uint32_t* n, const MessageTiming&) { ++*n; }).Bind(&traced));
    m->PredictTimeline({s0, s1});
    EXPECT_EQ(traced, 4u);
}

TEST_F(AlphaBetaDependencyTest, BadSchedulesThrow)
{
    Ptr<Cluster> c = Switch(4);
    Ptr<AlphaBetaModel> m = Model(c);
    EXPECT_THROW(m->Predict(OneStep({Msg(0, 9, 100, 0, 0)})), std::invalid_argument);
    EXPECT_THROW(CreateObject<AlphaBetaModel>()->Predict(OneStep({Msg(0, 1, 100, 0, 0)})),
                 std::invalid_argument);
    EXPECT_THROW(m->Predict(Ptr<const Collective>()), std::invalid_argument);
}

// ---- Against the packet-level run (UDP transport, 100 Gb/s, 1 us links) ------------

namespace
{

struct PacketCase
{
    const char* fabric;
    const char* dims;
    uint32_t ranks;
    uint32_t tiers;
    uint32_t radix;
    const char* collective;
    const char* algorithm;
};

CollectiveRunResult
RunCase(const PacketCase& pc, const std::string& bytes)
{
    FabricOptions f;
    f.fabric = pc.fabric;
    if (std::string(pc.dims).size() > 0)
    {
        f.torusDims = pc.dims;
    }
    f.ranks = pc.ranks;
    f.tiers = pc.tiers;
    f.radix = pc.radix;
    CollectiveRunOptions r;
    r.collective = pc.collective;
    r.algorithm = pc.algorithm;
    r.bytes = bytes;
    CollectiveRunResult res = CollectiveRunner::Run(f.Build(), r);
    Simulator::Destroy();
    return res;
}

} // namespace

TEST_F(AlphaBetaDependencyTest, PacketLevelRunsMatchTheTwinWithinOnePercent)
{
    // Measured errors (sim - twin)/sim at 1 MiB, listed in doc/alpha-beta-model.md;
    // the lock-step twin was off by -10 % (torus ring), -11 % (fat-tree ring),
    // -28 % (mesh ring), -40 % (3-tier ring) and +30 % (broadcast).
    for (const PacketCase& pc : {
             PacketCase{"ideal", "", 8, 2, 0, "allreduce", "ring"},
             PacketCase{"fattree", "", 8, 2, 4, "allreduce", "ring"},
             PacketCase{"fattree", "", 16, 3, 4, "allreduce", "ring"},
             PacketCase{"torus", "4x2", 0, 2, 0, "allreduce", "ring"},
             PacketCase{"mesh", "4x2", 0, 2, 0, "allreduce", "ring"},
             PacketCase{"torus", "4x2", 0, 2, 0, "allreduce", "torus"},
             PacketCase{"ideal", "", 8, 2, 0, "broadcast", "ring"},
             PacketCase{"ideal", "", 8, 2, 0, "allgather", "ring"},
             PacketCase{"ideal", "", 8, 2, 0, "allreduce", "hd"},
             PacketCase{"ideal", "", 8, 2, 0, "alltoall", "direct"},
             PacketCase{"torus", "4x4", 0, 2, 0, "alltoall", "direct"},
         })
    {
        CollectiveRunResult res = RunCase(pc, "1MiB");
        std::cout << pc.fabric << " " << pc.dims << " " << pc.collective << "/" << pc.algorithm
                  << " 1 MiB: ns-3 " << res.simulatedS * 1e6 << " us, twin "
                  << res.analyticalS * 1e6 << " us, error " << res.error * 100 << " %" << std::endl;
        EXPECT_LT(std::abs(res.error), 0.01)
            << pc.fabric << " " << pc.dims << " " << pc.collective << "/" << pc.algorithm;
    }
}

TEST_F(AlphaBetaDependencyTest, BroadcastNicSharingAcrossSizes)
{
    // The root issues all its scatter sends at once; the NIC's 8-packet FIFO sends
    // the first ones ahead, the rest round-robin. Measured: 64 KiB +0.1 %, 1 MiB
    // +0.7 %, 8 MiB -2.2 % (the fluid round-robin hands out shares byte by byte,
    // the transport packet by packet; the difference accumulates along the ring).
    for (auto [bytes, bound] :
         {std::pair{"64KiB", 0.01}, std::pair{"1MiB", 0.01}, std::pair{"8MiB", 0.03}})
    {
        CollectiveRunResult res =
            RunCase(PacketCase{"ideal", "", 8, 2, 0, "broadcast", "ring"}, bytes);
        std::cout << "broadcast " << bytes << ": ns-3 " << res.simulatedS * 1e6 << " us, twin "
                  << res.analyticalS * 1e6 << " us, error " << res.error * 100 << " %" << std::endl;
        EXPECT_LT(std::abs(res.error), bound) << bytes;
    }
}

TEST_F(AlphaBetaDependencyTest, KnownGapsAreWhereTheDocSaysTheyAre)
{
    // Flow hashing: on the fat-tree, hd all-reduce and all-to-all put two flows on
    // one uplink. Split evenly over the uplinks (PathChoice EvenSplit, the ECMP
    // expectation) the twin misses it and the run is slower: measured +39 % and +22 %
    // at 1 MiB. On each flow's hashed path (PerFlowHash, the default) it sees the
    // collision: measured -4.5 % and -0.02 %.
    Config::SetDefault("ns3::AlphaBetaModel::PathChoice", EnumValue(AlphaBetaModel::EVEN_SPLIT));
    CollectiveRunResult hd = RunCase(PacketCase{"fattree", "", 8, 2, 4, "allreduce", "hd"}, "1MiB");
    EXPECT_GT(hd.error, 0.2);
    CollectiveRunResult a2a =
        RunCase(PacketCase{"fattree", "", 8, 2, 4, "alltoall", "direct"}, "1MiB");
    EXPECT_GT(a2a.error, 0.1);
    Config::SetDefault("ns3::AlphaBetaModel::PathChoice", EnumValue(AlphaBetaModel::PER_FLOW_HASH));
    hd = RunCase(PacketCase{"fattree", "", 8, 2, 4, "allreduce", "hd"}, "1MiB");
    EXPECT_LT(std::abs(hd.error), 0.06);
    a2a = RunCase(PacketCase{"fattree", "", 8, 2, 4, "alltoall", "direct"}, "1MiB");
    EXPECT_LT(std::abs(a2a.error), 0.01);
    // Torus algorithm on a mesh: both halves run in the + direction and the wrap
    // message crosses k-1 hops. The twin is slower than the run (measured -10.7 %);
    // step by step the two agree through the reduce-scatter and drift apart in the
    // all-gather of dimension 0. Not explained yet; a suspect is the downstream
    // backlog model, which offers every message at its NIC rate on each hop instead
    // of the rate the hop before lets through.
    CollectiveRunResult mesh =
        RunCase(PacketCase{"mesh", "4x2", 0, 2, 0, "allreduce", "torus"}, "1MiB");
    EXPECT_LT(mesh.error, 0.0);
    EXPECT_GT(mesh.error, -0.15);
}

TEST_F(AlphaBetaDependencyTest, ForwardingRanksShareTheirLinksAsInThePacketRun)
{
    // An all-to-all on a 4-rank line (mesh 4): the middle ranks forward while they send.
    // The link 1 -> 2 carries 0->2, 0->3, 1->2 and 1->3, 4 W at R: the hard bound is
    // 4 W * 8 / R plus a latency. Measured: ns-3 340.50 us, twin 342.21 us (-0.5 %);
    // the twin that left a rank's own messages out of the load of the links it also
    // forwards on said 257.8 us (+24 %), below the bound.
    CollectiveRunResult res =
        RunCase(PacketCase{"mesh", "4", 0, 2, 0, "alltoall", "direct"}, "1MiB");
    std::cout << "mesh 4 alltoall/direct 1 MiB: ns-3 " << res.simulatedS * 1e6 << " us, twin "
              << res.analyticalS * 1e6 << " us, error " << res.error * 100 << " %" << std::endl;
    EXPECT_LT(std::abs(res.error), 0.02);
    const double w = 1048576.0 + std::ceil(1048576.0 / 8943) * 59; // W(1 MiB), UDP
    EXPECT_GE(res.analyticalS, 4 * w * 8 / 100e9);
}

TEST_F(AlphaBetaDependencyTest, SmallSchedulesIndexOnlyTheirRanksAndLinksWithTheSameResult)
{
    // A 512-rank two-tier fat-tree (radix 32: 32 ToRs of 16 hosts, 16 spines): 512
    // ranks and 2048 directed link keys. A 4-rank ring all-reduce over 4 ToRs with two
    // sends into one of its members has 26 messages: fewer than 1/16 as many as ranks
    // or keys, so the replay indexes only its own. Padded with one empty message to
    // itself per rank (a chain of its own each: delivered at once, they change no time),
    // the same schedule indexes the whole fabric. Both sharings, both path choices:
    // every message's times, every rank's finish and the total are the same to the bit.
    FatTreeHelper ft(512);
    ft.SetRadix(32);
    ft.SetLinkRate(kRate);
    ft.SetLinkDelay(kDelay);
    Ptr<Cluster> c = ft.Install();
    ASSERT_EQ(c->GetNRanks(), 512u);
    Ptr<MessageTransport> t = TransportChoice::Create("udp"); // its flow keys
    t->Install(c);
    Ptr<Collective> ring = CollectiveFactory::Create("allreduce", "ring");
    ring->Setup(t, {0, 17, 34, 51}, 64000);
    std::vector<CollectiveStep> small = ring->GetSchedule();
    small.push_back(OneStep({Msg(2, 17, 30000, 1, 0), Msg(40, 17, 30000, 2, 0)}).front());
    std::vector<CollectiveStep> padded = small;
    CollectiveStep pad;
    for (uint32_t r = 0; r < c->GetNRanks(); ++r)
    {
        pad.messages.push_back(Msg(r, r, 0, 100 + r, 0));
    }
    padded.push_back(pad);
    size_t n = 0;
    for (const auto& s : small)
    {
        n += s.messages.size();
    }
    ASSERT_LT(16 * n, c->GetNRanks());
    ASSERT_GE(16 * (n + c->GetNRanks()), 2 * c->GetLinks().size());

    for (const char* sharing : {"LineRate", "MaxMin"})
    {
        for (auto choice : {AlphaBetaModel::PER_FLOW_HASH, AlphaBetaModel::EVEN_SPLIT})
        {
            Ptr<AlphaBetaModel> m = Model(c);
            m->SetPacketization(t);
            m->SetAttribute("Sharing", StringValue(sharing));
            m->SetPathChoice(choice);
            TimelinePrediction a = m->PredictTimeline(small);
            TimelinePrediction b = m->PredictTimeline(padded);
            SCOPED_TRACE(std::string(sharing) +
                         (choice == AlphaBetaModel::EVEN_SPLIT ? " even split" : " flow hash"));
            EXPECT_GT(a.total, Time(0));
            EXPECT_EQ(a.total, b.total);
            EXPECT_EQ(a.rateUpdates, b.rateUpdates);
            ASSERT_EQ(a.messages.size(), n);
            ASSERT_EQ(b.messages.size(), n + c->GetNRanks());
            for (size_t i = 0; i < n; ++i)
            {
                EXPECT_EQ(a.messages[i].start, b.messages[i].start) << i;
                EXPECT_EQ(a.messages[i].transferEnd, b.messages[i].transferEnd) << i;
                EXPECT_EQ(a.messages[i].arrival, b.messages[i].arrival) << i;
                EXPECT_EQ(a.messages[i].latency, b.messages[i].latency) << i;
            }
            // Per rank of the cluster in both: the ring's members when their last message
            // arrived, the others (rank 17's senders too: a send does not wait) at 0.
            ASSERT_EQ(a.rankFinish.size(), c->GetNRanks());
            EXPECT_EQ(a.rankFinish, b.rankFinish);
            EXPECT_GT(a.rankFinish[17], Time(0));
            EXPECT_EQ(a.rankFinish[40], Time(0));
        }
    }
}

TEST_F(AlphaBetaDependencyTest, GeneratedProgramsPredictAsWrittenSchedules)
{
    // GenerateSchedules (the default) replays a StepwiseCollective's program step by
    // step instead of writing its schedule down, and gives the lock-step twin its steps
    // one at a time: on a 128-rank fat-tree with the UDP transport's flow keys, every
    // algorithm over all ranks and over four ranks on four ToRs (whose replay indexes
    // only its ranks), the totals, every step's and every message's account (the
    // MessagePredicted trace too) and every rank's finish are the same to the bit.
    FatTreeHelper ft(128);
    ft.SetRadix(16);
    ft.SetLinkRate(kRate);
    ft.SetLinkDelay(kDelay);
    Ptr<Cluster> c = ft.Install();
    Ptr<MessageTransport> t = TransportChoice::Create("udp");
    t->Install(c);
    std::vector<uint32_t> all(c->GetNRanks());
    std::iota(all.begin(), all.end(), 0);
    const std::vector<std::vector<uint32_t>> communicators = {all, {51, 0, 34, 17}};
    auto model = [&](bool generate) {
        Ptr<AlphaBetaModel> m = Model(c);
        m->SetPacketization(t);
        m->SetAttribute("ReductionTimePerByte", DoubleValue(1e-11));
        m->SetAttribute("PredictionMemoBytes", UintegerValue(0)); // every total replayed
        m->SetAttribute("GenerateSchedules", BooleanValue(generate));
        return m;
    };
    Ptr<AlphaBetaModel> written = model(false);
    Ptr<AlphaBetaModel> generated = model(true);
    std::vector<std::pair<uint32_t, Time>> tracedWritten;
    std::vector<std::pair<uint32_t, Time>> tracedGenerated;
    uint32_t compared = 0;
    for (const auto& [collective, algorithm] : CollectiveFactory::List())
    {
        for (const auto& members : communicators)
        {
            Ptr<Collective> a = CollectiveFactory::Create(collective, algorithm);
            if (algorithm == "hierarchical")
            {
                a->SetAttribute("GroupSize", UintegerValue(members.size() == 4 ? 2 : 16));
            }
            try
            {
                a->Setup(t, members, 48000);
            }
            catch (const std::invalid_argument&)
            {
                continue; // not on these ranks
            }
            SCOPED_TRACE(collective + "/" + algorithm + " on " + std::to_string(members.size()));
            EXPECT_EQ(generated->Predict(a), written->Predict(a));
            // The lock-step twin reads the schedule's steps one at a time.
            const std::vector<StepPrediction> ws = written->PredictSteps(a);
            const std::vector<StepPrediction> gs = generated->PredictSteps(a);
            ASSERT_EQ(gs.size(), ws.size());
            ASSERT_EQ(ws.size(), a->GetSchedule().size());
            for (size_t i = 0; i < ws.size(); ++i)
            {
                EXPECT_EQ(gs[i].total, ws[i].total) << "step " << i;
                EXPECT_EQ(gs[i].bottleneckLink, ws[i].bottleneckLink) << "step " << i;
            }
            const TimelinePrediction w = written->PredictTimeline(a);
            const TimelinePrediction g = generated->PredictTimeline(a);
            EXPECT_GT(g.total, Time(0));
            EXPECT_EQ(g.total, w.total);
            EXPECT_EQ(g.rateUpdates, w.rateUpdates);
            EXPECT_EQ(g.rankFinish, w.rankFinish);
            ASSERT_EQ(g.messages.size(), w.messages.size());
            for (size_t i = 0; i < w.messages.size(); ++i)
            {
                EXPECT_EQ(g.messages[i].message.src, w.messages[i].message.src) << i;
                EXPECT_EQ(g.messages[i].message.dst, w.messages[i].message.dst) << i;
                EXPECT_EQ(g.messages[i].start, w.messages[i].start) << i;
                EXPECT_EQ(g.messages[i].arrival, w.messages[i].arrival) << i;
            }
            // The trace sees the same messages in the same order.
            tracedWritten.clear();
            tracedGenerated.clear();
            auto sink = [](std::vector<std::pair<uint32_t, Time>>* out, const MessageTiming& m) {
                out->emplace_back(m.message.src, m.arrival);
            };
            written->TraceConnectWithoutContext("MessagePredicted",
                                                MakeBoundCallback(+sink, &tracedWritten));
            generated->TraceConnectWithoutContext("MessagePredicted",
                                                  MakeBoundCallback(+sink, &tracedGenerated));
            written->Predict(a);
            generated->Predict(a);
            written->TraceDisconnectWithoutContext("MessagePredicted",
                                                   MakeBoundCallback(+sink, &tracedWritten));
            generated->TraceDisconnectWithoutContext("MessagePredicted",
                                                     MakeBoundCallback(+sink, &tracedGenerated));
            EXPECT_EQ(tracedGenerated.size(), w.messages.size());
            EXPECT_EQ(tracedGenerated, tracedWritten);
            ++compared;
        }
    }
    EXPECT_GE(compared, CollectiveFactory::List().size());
}
