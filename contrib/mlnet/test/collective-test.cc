// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of mlnet's collective algorithms over a small fake transport (delivery
 * after bytes*8/R + latency, FIFO per sender NIC), so that they do not depend on
 * the packet-level transports: real-valued results, bytes against the schedule
 * and the textbook volumes, step counts, timing against the alpha-beta formula,
 * bad input, and concurrent collectives.
 */
#include "fixed-rate-test-transport.h"

#include "ns3/cluster.h"
#include "ns3/collective-factory.h"
#include "ns3/core-module.h"
#include "ns3/direct-all-to-all.h"
#include "ns3/double.h"
#include "ns3/halving-doubling-all-reduce.h"
#include "ns3/network-module.h"
#include "ns3/pairwise-all-to-all.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/ring-all-gather.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/ring-broadcast.h"
#include "ns3/ring-reduce-scatter.h"
#include "ns3/send-recv.h"
#include "ns3/torus-all-reduce.h"

#include <gtest/gtest.h>
#include <numeric>
#include <stdexcept>
#include <tuple>

using namespace ns3;

namespace
{

using FakeTransport = FixedRateTestTransport;

class CollectiveTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// A cluster of n rank nodes without links, and the fake transport on it.
    Ptr<FakeTransport> MakeTransport(uint32_t n)
    {
        m_cluster = CreateObject<Cluster>();
        for (uint32_t i = 0; i < n; ++i)
        {
            m_cluster->AddRankNode(CreateObject<Node>());
        }
        auto t = CreateObject<FakeTransport>();
        t->Install(m_cluster);
        return t;
    }

    /// A listed collective for 8 members: the torus as 4 x 2, the hierarchical
    /// all-reduce in groups of 4.
    static Ptr<Collective> CreateListed(const std::string& coll, const std::string& alg)
    {
        auto c = CollectiveFactory::Create(coll, alg);
        if (alg == "torus")
        {
            DynamicCast<TorusAllReduce>(c)->SetDims({4, 2});
        }
        if (alg == "hierarchical")
        {
            c->SetAttribute("GroupSize", UintegerValue(4));
        }
        return c;
    }

    static std::vector<uint32_t> Members(uint32_t first, uint32_t n)
    {
        std::vector<uint32_t> r(n);
        std::iota(r.begin(), r.end(), first);
        return r;
    }

    /// Integer-valued floats, so that every sum is exact whatever the order.
    static Eigen::VectorXf Values(uint32_t len, uint32_t seed)
    {
        Eigen::VectorXf v(len);
        for (uint32_t j = 0; j < len; ++j)
        {
            v[j] = static_cast<float>((j * 7 + seed * 13) % 101) - 50.0f;
        }
        return v;
    }

    /// Run an all-reduce with real values on members and check every output is the sum.
    void CheckAllReduce(Ptr<Collective> c, Ptr<MessageTransport> t, uint32_t n, uint32_t len)
    {
        c->Setup(t, Members(0, n), 4ull * len);
        Eigen::VectorXf sum = Eigen::VectorXf::Zero(len);
        for (uint32_t m = 0; m < n; ++m)
        {
            c->SetInput(m, Values(len, m));
            sum += Values(len, m);
        }
        c->Start();
        Simulator::Run();
        ASSERT_TRUE(c->IsDone());
        for (uint32_t m = 0; m < n; ++m)
        {
            ASSERT_EQ(c->GetOutput(m).size(), len);
            EXPECT_EQ(c->GetOutput(m), sum) << c->GetAlgorithmName() << " member " << m;
        }
    }

    /// Sum of a schedule's message bytes.
    static uint64_t ScheduleBytes(const std::vector<CollectiveStep>& s)
    {
        uint64_t total = 0;
        for (const auto& step : s)
        {
            for (const auto& msg : step.messages)
            {
                total += msg.bytes;
            }
        }
        return total;
    }

    Ptr<Cluster> m_cluster;
};

// ---------------------------------------------------------------- all-reduce

TEST_F(CollectiveTest, RingAllReduceSumsExactly)
{
    auto t = MakeTransport(8);
    CheckAllReduce(CreateObject<RingAllReduce>(), t, 8, 1003); // 1003 floats: uneven chunks
}

TEST_F(CollectiveTest, MessageObserverSeesEachMessageWithItsPlaceAndContents)
{
    // 2 rings x 2 slices over 6 members, 999 floats: every message is reported once,
    // with the segment it carries, before the next event, and its real contents.
    auto t = MakeTransport(6);
    auto c = CreateObject<RingAllReduce>();
    c->SetRings({{0, 1, 2, 3, 4, 5}, {0, 2, 4, 1, 3, 5}});
    c->SetAttribute("Slices", UintegerValue(2));
    uint64_t messages = 0;
    uint64_t bytes = 0;
    c->SetMessageObserver(StepwiseCollective::MessageObserver(
        [&messages, &bytes](const StepwiseCollective::PacketInfo& info, const MessageBytes& data) {
            ++messages;
            bytes += info.length;
            EXPECT_EQ(info.byteOffset, 0u);
            EXPECT_EQ(info.length, info.seg.length * info.unit);
            ASSERT_TRUE(data);
            EXPECT_EQ(data->size(), info.length);
            EXPECT_LT(info.chain, 4u); // 2 rings x 2 slices
            EXPECT_LT(info.step, 2u * (6 - 1));
            EXPECT_NE(info.fromMember, info.toMember);
        }));
    CheckAllReduce(c, t, 6, 999);
    EXPECT_EQ(messages, t->GetMessagesSent());
    EXPECT_EQ(bytes, t->GetBytesSent());
    EXPECT_EQ(messages, 4u * 6 * 2 * (6 - 1)); // chains x members x 2(N-1) steps
}

TEST_F(CollectiveTest, RingAllReduceTwoRingsAndSlicesSumExactly)
{
    auto t = MakeTransport(8);
    auto c = CreateObject<RingAllReduce>();
    c->SetRings({{0, 1, 2, 3, 4, 5, 6, 7}, {0, 3, 6, 1, 4, 7, 2, 5}});
    c->SetAttribute("Slices", UintegerValue(2));
    CheckAllReduce(c, t, 8, 1003);
    // 2 rings x 2 slices: every step carries 4 messages per member.
    EXPECT_EQ(c->GetSchedule()[0].messages.size(), 8u * 4);
}

/// A ring all-reduce that counts the steps it generates and fails if its whole
/// program is ever assembled.
class CountingRing : public RingAllReduce
{
public:
    mutable uint64_t built{0};

protected:
    Program BuildProgram() const override
    {
        ADD_FAILURE() << "the whole program was assembled";
        return RingAllReduce::BuildProgram();
    }

    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override
    {
        ++built;
        RingAllReduce::BuildStep(member, chain, step, out);
    }
};

TEST_F(CollectiveTest, GeneratedProgramsAreBuiltOneStepAtATime)
{
    // 8 members, 2 rings x 2 slices: 4 chains of 2 (N - 1) = 14 steps per member. Setup
    // checks the shortest message by its closed form (no step generated), the run loads
    // each step once (OnPacket is not hooked here): no whole program, and the sums are
    // exact.
    const uint32_t n = 8;
    auto t = MakeTransport(n);
    auto c = CreateObject<CountingRing>();
    c->SetRings({{0, 1, 2, 3, 4, 5, 6, 7}, {0, 3, 6, 1, 4, 7, 2, 5}});
    c->SetAttribute("Slices", UintegerValue(2));
    CheckAllReduce(c, t, n, 1003);
    EXPECT_EQ(c->built, 1ull * n * 4 * 2 * (n - 1));
    // The schedule is written from the generated steps too, each once: a ring tells its
    // receivers' reduce flags by the step (ReceiveReduces) without generating theirs.
    const uint64_t before = c->built;
    const auto schedule = c->GetSchedule();
    EXPECT_EQ(schedule.size(), 2u * (n - 1));
    EXPECT_EQ(c->built - before, 1ull * n * 4 * 2 * (n - 1));
}

/// A ring all-reduce that answers its shortest message both ways.
class ShortestMessageProbe : public RingAllReduce
{
public:
    uint64_t ClosedForm() const
    {
        return ShortestMessageUnits();
    }

    uint64_t Generated() const
    {
        return StepwiseCollective::ShortestMessageUnits();
    }
};

TEST_F(CollectiveTest, RingShortestMessageClosedFormEqualsTheGeneratedProgram)
{
    // Setup refuses a ring all-reduce with an empty message by the closed form (the last
    // part of an even split is the shortest, at the ring, chunk and slice levels); the
    // generated program (every step of every member) must agree, for every size, member
    // count, ring count and slice count tried, and Setup throws exactly when it is 0.
    uint32_t refused = 0;
    uint32_t cases = 0;
    for (uint32_t n : {1u, 2u, 3u, 5u, 8u})
    {
        auto t = MakeTransport(n);
        for (uint32_t rings : {0u, 1u, 3u})
        {
            for (uint32_t slices : {1u, 2u, 3u})
            {
                for (uint64_t bytes = 4; bytes <= 4 * 80; bytes += 4)
                {
                    auto c = CreateObject<ShortestMessageProbe>();
                    std::vector<std::vector<uint32_t>> orders;
                    for (uint32_t r = 0; r < rings; ++r)
                    {
                        std::vector<uint32_t> order(n);
                        for (uint32_t i = 0; i < n; ++i)
                        {
                            order[i] = r % 2 == 0 ? (i + r) % n : (n - 1 - i); // rotated, reversed
                        }
                        orders.push_back(order);
                    }
                    if (!orders.empty())
                    {
                        c->SetRings(orders);
                    }
                    c->SetAttribute("Slices", UintegerValue(slices));
                    bool threw = false;
                    try
                    {
                        c->Setup(t, Members(0, n), bytes);
                    }
                    catch (const std::invalid_argument& e)
                    {
                        // One member is refused for what it is; only the empty message
                        // is this test's.
                        if (std::string(e.what()).find("carry 0 bytes") == std::string::npos)
                        {
                            EXPECT_EQ(n, 1u) << e.what();
                            continue;
                        }
                        threw = true;
                    }
                    const uint64_t generated = c->Generated();
                    SCOPED_TRACE("n " + std::to_string(n) + ", rings " + std::to_string(rings) +
                                 ", slices " + std::to_string(slices) + ", bytes " +
                                 std::to_string(bytes));
                    EXPECT_EQ(c->ClosedForm(), generated);
                    EXPECT_EQ(threw, generated == 0);
                    refused += threw ? 1 : 0;
                    ++cases;
                }
            }
        }
    }
    EXPECT_GT(refused, 0u);
    EXPECT_LT(refused, cases);
}

TEST_F(CollectiveTest, RingAllReduceSumsExactlyWhenMembersRunOutOfStep)
{
    // Rank 2 sends 10x slower, so its neighbours receive later steps early and
    // must buffer them; the result must not change.
    auto t = MakeTransport(6);
    t->SetRate(2, DataRate("800Mbps"));
    auto c = CreateObject<RingAllReduce>();
    c->SetAttribute("Slices", UintegerValue(3));
    CheckAllReduce(c, t, 6, 999);
}

TEST_F(CollectiveTest, HalvingDoublingAllReduceSumsExactly)
{
    auto t = MakeTransport(8);
    t->SetRate(5, DataRate("1Gbps"));
    CheckAllReduce(CreateObject<HalvingDoublingAllReduce>(), t, 8, 1001);
}

TEST_F(CollectiveTest, TorusAllReduceSumsExactly2x2)
{
    auto t = MakeTransport(4);
    auto c = CreateObject<TorusAllReduce>();
    c->SetDims({2, 2});
    CheckAllReduce(c, t, 4, 1001);
}

TEST_F(CollectiveTest, TorusAllReduceSumsExactly4x2)
{
    auto t = MakeTransport(8);
    t->SetRate(3, DataRate("1Gbps"));
    auto c = CreateObject<TorusAllReduce>();
    c->SetAttribute("Dims", StringValue("4x2"));
    CheckAllReduce(c, t, 8, 1001);
}

TEST_F(CollectiveTest, TorusAllReduceSumsExactly3x1x2)
{
    // Three dimensions, one of them of size 1 (no steps), an odd size that splits
    // unevenly at every level; generated step by step.
    auto t = MakeTransport(6);
    t->SetRate(4, DataRate("1Gbps"));
    auto c = CreateObject<TorusAllReduce>();
    c->SetDims({3, 1, 2});
    CheckAllReduce(c, t, 6, 997);
}

TEST_F(CollectiveTest, TorusAllReduceOnMeshTakesDimsFromFabricAndRunsLines)
{
    auto t = MakeTransport(8);
    FabricSpec spec;
    spec.kind = "torus";
    spec.ranks = 8;
    spec.dims = {4, 2};
    spec.wrap = false;
    m_cluster->SetFabricSpec(spec);
    auto c = CreateObject<TorusAllReduce>();
    CheckAllReduce(c, t, 8, 1001);
    EXPECT_EQ(c->GetDims(), (std::vector<uint32_t>{4, 2}));
    EXPECT_TRUE(c->IsRingDegraded(0, 0));
    // Both halves go the + direction: step 0 of member 0 sends two messages to member 1.
    uint32_t toNext = 0;
    auto schedule = c->GetSchedule();
    for (const auto& m : schedule[0].messages)
    {
        EXPECT_EQ(m.dst, (m.src / 4) * 4 + (m.src % 4 + 1) % 4);
        toNext += m.src == 0 ? 1 : 0;
    }
    EXPECT_EQ(toNext, 2u);
}

TEST_F(CollectiveTest, TorusAllReduceDegradesOnlyTheRingWithAFailedLink)
{
    // A real 4x2 torus of point-to-point links between the rank nodes; fail the
    // x-link between members 0 and 1. The fake transport ignores links, so this
    // checks the algorithm's choice and that it still sums exactly.
    auto t = MakeTransport(8);
    PointToPointHelper p2p;
    uint32_t failedLink = 0;
    for (uint32_t m = 0; m < 8; ++m)
    {
        uint32_t x = m % 4;
        uint32_t y = m / 4;
        uint32_t east = y * 4 + (x + 1) % 4;
        NetDeviceContainer d = p2p.Install(m_cluster->GetRankNode(m), m_cluster->GetRankNode(east));
        uint32_t id = m_cluster->AddLink(DynamicCast<PointToPointNetDevice>(d.Get(0)),
                                         DynamicCast<PointToPointNetDevice>(d.Get(1)),
                                         "torus");
        if (m == 0)
        {
            failedLink = id;
        }
        if (y == 0) // one y-link per column (k = 2)
        {
            d = p2p.Install(m_cluster->GetRankNode(m), m_cluster->GetRankNode(m + 4));
            m_cluster->AddLink(DynamicCast<PointToPointNetDevice>(d.Get(0)),
                               DynamicCast<PointToPointNetDevice>(d.Get(1)),
                               "torus");
        }
    }
    FabricSpec spec;
    spec.kind = "torus";
    spec.ranks = 8;
    spec.dims = {4, 2};
    m_cluster->SetFabricSpec(spec);
    m_cluster->FailLink(failedLink);
    auto c = CreateObject<TorusAllReduce>();
    CheckAllReduce(c, t, 8, 1001);
    EXPECT_TRUE(c->IsRingDegraded(2, 0));  // same x-ring as members 0 and 1
    EXPECT_FALSE(c->IsRingDegraded(5, 0)); // the other x-ring
    EXPECT_FALSE(c->IsRingDegraded(0, 1)); // y-rings untouched
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> step0;
    auto schedule = c->GetSchedule();
    for (const auto& m : schedule[0].messages)
    {
        ++step0[{m.src, m.dst}];
    }
    EXPECT_EQ((step0[{0, 1}]), 2u); // degraded ring: both halves go +
    EXPECT_EQ((step0[{0, 3}]), 0u);
    EXPECT_EQ((step0[{4, 5}]), 1u); // healthy ring: one half each way
    EXPECT_EQ((step0[{4, 7}]), 1u);
}

// ---------------------------------------------------------- other collectives

TEST_F(CollectiveTest, RingAllGatherGathersEveryChunk)
{
    const uint32_t n = 5;
    const uint32_t len = 5 * 7 + 3; // uneven: members 0..2 contribute 8 floats, 3..4 seven
    auto t = MakeTransport(n);
    auto c = CreateObject<RingAllGather>();
    c->Setup(t, Members(0, n), 4ull * len);
    Eigen::VectorXf expected(len);
    uint32_t offset = 0;
    for (uint32_t m = 0; m < n; ++m)
    {
        uint32_t part = len / n + (m < len % n ? 1 : 0);
        Eigen::VectorXf mine = Values(part, m);
        c->SetInput(m, mine);
        expected.segment(offset, part) = mine;
        offset += part;
    }
    c->Start();
    Simulator::Run();
    ASSERT_TRUE(c->IsDone());
    for (uint32_t m = 0; m < n; ++m)
    {
        EXPECT_EQ(c->GetOutput(m), expected) << "member " << m;
    }
}

TEST_F(CollectiveTest, RingReduceScatterLeavesEachMemberItsReducedChunk)
{
    const uint32_t n = 5;
    const uint32_t len = 5 * 7 + 3;
    auto t = MakeTransport(n);
    auto c = CreateObject<RingReduceScatter>();
    c->Setup(t, Members(0, n), 4ull * len);
    Eigen::VectorXf sum = Eigen::VectorXf::Zero(len);
    for (uint32_t m = 0; m < n; ++m)
    {
        c->SetInput(m, Values(len, m));
        sum += Values(len, m);
    }
    c->Start();
    Simulator::Run();
    ASSERT_TRUE(c->IsDone());
    uint32_t offset = 0;
    for (uint32_t m = 0; m < n; ++m)
    {
        uint32_t part = len / n + (m < len % n ? 1 : 0);
        EXPECT_EQ(c->GetOutput(m), sum.segment(offset, part)) << "member " << m;
        offset += part;
    }
}

TEST_F(CollectiveTest, AllToAllDeliversEveryBlockToItsOwner)
{
    const uint32_t n = 6;
    const uint32_t block = 10; // floats per (sender, receiver) pair
    for (std::string algorithm : {"pairwise", "direct"})
    {
        auto t = MakeTransport(n);
        t->SetRate(1, DataRate("1Gbps")); // out of step: early messages get buffered
        auto c = CollectiveFactory::Create("alltoall", algorithm);
        c->Setup(t, Members(0, n), 4ull * block);
        // Member i's block for j holds i*1000 + j*100 + k.
        for (uint32_t i = 0; i < n; ++i)
        {
            Eigen::VectorXf in(n * block);
            for (uint32_t j = 0; j < n; ++j)
            {
                for (uint32_t k = 0; k < block; ++k)
                {
                    in[j * block + k] = static_cast<float>(i * 1000 + j * 100 + k);
                }
            }
            c->SetInput(i, in);
        }
        c->Start();
        Simulator::Run();
        ASSERT_TRUE(c->IsDone()) << algorithm;
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                for (uint32_t k = 0; k < block; ++k)
                {
                    // Block j of i's output is what j sent to i.
                    ASSERT_EQ(c->GetOutput(i)[j * block + k],
                              static_cast<float>(j * 1000 + i * 100 + k))
                        << algorithm << " member " << i << " block " << j;
                }
            }
        }
        Simulator::Destroy();
    }
}

TEST_F(CollectiveTest, VirtualPayloadsCompleteEveryStepWhenRealOnesDo)
{
    // Without real values a member keeps no message it awaits: it counts its step's
    // bytes as they come and takes those that came early when it loads the step (a
    // step of over 64 receives drops them then). Each run here has a slow rank, so
    // messages come early and late, and reductions take time: every member must
    // complete every step at the same instant as with real values, where each message
    // is kept until its step completes.
    struct Case
    {
        std::string collective;
        std::string algorithm;
        uint32_t n;
        uint64_t bytes;  //!< Setup's size
        uint64_t floats; //!< a member's input
    };

    const std::vector<Case> cases{
        {"allreduce", "ring", 6, 4 * 999, 999},
        {"allreduce", "hd", 8, 4 * 800, 800},
        {"alltoall", "pairwise", 6, 4 * 10, 6 * 10},
        {"alltoall", "direct", 70, 4 * 3, 70 * 3},
    };
    using StepTime = std::tuple<uint32_t, uint32_t, uint32_t, int64_t>;
    for (const Case& k : cases)
    {
        std::vector<StepTime> steps[2];
        for (bool real : {true, false})
        {
            auto t = MakeTransport(k.n);
            t->SetRate(1, DataRate("800Mbps"));
            auto c = CollectiveFactory::Create(k.collective, k.algorithm);
            c->SetAttribute("ReductionTimePerByte", DoubleValue(1e-9));
            c->Setup(t, Members(0, k.n), k.bytes);
            if (real)
            {
                for (uint32_t m = 0; m < k.n; ++m)
                {
                    c->SetInput(m, Values(k.floats, m));
                }
            }
            std::vector<StepTime>& out = steps[real ? 0 : 1];
            c->TraceConnectWithoutContext(
                "MemberStep",
                MakeBoundCallback(
                    +[](std::vector<StepTime>* v, uint32_t m, uint32_t chain, uint32_t step) {
                        v->emplace_back(m, chain, step, Simulator::Now().GetTimeStep());
                    },
                    &out));
            c->Start();
            Simulator::Run();
            EXPECT_TRUE(c->IsDone()) << k.algorithm << (real ? " real" : " virtual");
            Simulator::Destroy();
        }
        EXPECT_FALSE(steps[0].empty()) << k.algorithm;
        EXPECT_EQ(steps[0], steps[1]) << k.collective << " " << k.algorithm;
    }
}

TEST_F(CollectiveTest, DirectAllToAllStepIsEveryPairNearestFirst)
{
    // One step in which member m sends its block to m + 1, m + 2, ... (mod n), nothing
    // reduced (the step is generated on demand; this checks what it holds).
    for (uint32_t n : {2u, 3u, 5u})
    {
        auto t = MakeTransport(n);
        auto c = CollectiveFactory::Create("alltoall", "direct");
        c->Setup(t, Members(0, n), 12);
        const auto schedule = c->GetSchedule();
        ASSERT_EQ(schedule.size(), 1u) << n;
        EXPECT_EQ(schedule[0].reduceBytes, 0u);
        ASSERT_EQ(schedule[0].messages.size(), n * (n - 1)) << n;
        size_t i = 0;
        for (uint32_t m = 0; m < n; ++m)
        {
            for (uint32_t s = 1; s < n; ++s, ++i)
            {
                const ScheduledMessage& msg = schedule[0].messages[i];
                EXPECT_EQ(msg.src, m);
                EXPECT_EQ(msg.dst, (m + s) % n);
                EXPECT_EQ(msg.bytes, 12u);
                EXPECT_EQ(msg.chain, 0u);
                EXPECT_EQ(msg.step, 0u);
                EXPECT_FALSE(msg.reduce);
            }
        }
        Simulator::Destroy();
    }
}

TEST_F(CollectiveTest, BroadcastReplicatesTheRootInput)
{
    // 8: binomial scatter; 6: linear scatter. Roots 0 and 3.
    for (uint32_t n : {8u, 6u})
    {
        for (uint32_t root : {0u, 3u})
        {
            const uint32_t len = 997;
            auto t = MakeTransport(n);
            auto c = CreateObject<RingBroadcast>();
            c->SetAttribute("Root", UintegerValue(root));
            c->Setup(t, Members(0, n), 4ull * len);
            for (uint32_t m = 0; m < n; ++m)
            {
                c->SetInput(m, m == root ? Values(len, 42) : Eigen::VectorXf::Zero(len));
            }
            c->Start();
            Simulator::Run();
            ASSERT_TRUE(c->IsDone());
            for (uint32_t m = 0; m < n; ++m)
            {
                EXPECT_EQ(c->GetOutput(m), Values(len, 42)) << n << " ranks, root " << root;
            }
            Simulator::Destroy();
        }
    }
}

TEST_F(CollectiveTest, SendRecvDeliversEachPairsMessage)
{
    // Member 1 receives three messages, two of them from member 0 (distinct chains),
    // and lays them out in pair order; member 0 receives one; member 3 is idle.
    auto t = MakeTransport(4);
    auto c = CreateObject<SendRecv>();
    c->SetPairs({{0, 1}, {2, 1}, {1, 0}, {0, 1}});
    c->Setup(t, Members(0, 4), 4 * 16);
    for (uint32_t m = 0; m < 4; ++m)
    {
        c->SetInput(m, Values(16, m));
    }
    c->Start();
    Simulator::Run();
    ASSERT_TRUE(c->IsDone());
    Eigen::VectorXf three(48);
    three << Values(16, 0), Values(16, 2), Values(16, 0);
    EXPECT_EQ(c->GetOutput(1), three);
    EXPECT_EQ(c->GetOutput(0), Values(16, 1));
    EXPECT_EQ(c->GetOutput(2), Values(16, 2));
    EXPECT_EQ(c->GetOutput(3), Values(16, 3));
    EXPECT_EQ(t->GetBytesSent(), 4u * 4 * 16);
    // The schedule the twin replays: one step, the four messages, none reduced.
    const std::vector<CollectiveStep> schedule = c->GetSchedule();
    ASSERT_EQ(schedule.size(), 1u);
    ASSERT_EQ(schedule[0].messages.size(), 4u);
    for (const ScheduledMessage& m : schedule[0].messages)
    {
        EXPECT_EQ(m.bytes, 4u * 16);
        EXPECT_FALSE(m.reduce);
    }
}

// ---------------------------------------------------- volumes and step counts

TEST_F(CollectiveTest, BytesSentEqualScheduleAndTextbookVolumes)
{
    const uint32_t n = 8;
    const uint64_t s = 8 * 1024; // divides evenly into every chunk of every algorithm
    // Textbook total bytes over all members (Thakur et al. 2005).
    std::map<std::pair<std::string, std::string>, uint64_t> textbook{
        {{"allreduce", "ring"}, 2 * (n - 1) * s}, // 2(N-1)/N S per member
        {{"allreduce", "hd"}, 2 * (n - 1) * s},
        {{"allreduce", "torus"}, 2 * (n - 1) * s}, // sum_d 2(k_d-1)/k_d S/prod_{e<d}k_e telescopes
        // 2(G-1)/G S + 2(M-1)/(GM) S = 2(GM-1)/(GM) S per member, as the flat ring
        {{"allreduce", "hierarchical"}, 2 * (n - 1) * s},
        {{"allgather", "ring"}, (n - 1) * s}, // (N-1)/N S per member
        {{"reducescatter", "ring"}, (n - 1) * s},
        {{"alltoall", "pairwise"}, n * (n - 1) * s}, // (N-1) messages of S per member
        {{"alltoall", "direct"}, n * (n - 1) * s},
        // Binomial scatter: lg N = 3 steps moving S/2 in total each; ring: (N-1) S.
        {{"broadcast", "ring"}, 3 * s / 2 + (n - 1) * s},
        {{"sendrecv", "direct"}, s},
    };
    std::map<std::pair<std::string, std::string>, size_t> steps{
        {{"allreduce", "ring"}, 2 * (n - 1)},
        {{"allreduce", "hd"}, 2 * 3},
        {{"allreduce", "torus"}, 2 * ((4 - 1) + (2 - 1))},
        {{"allreduce", "hierarchical"}, 2 * (4 - 1) + 2 * (2 - 1)}, // G = 4, M = 2
        {{"allgather", "ring"}, n - 1},
        {{"reducescatter", "ring"}, n - 1},
        {{"alltoall", "pairwise"}, n - 1},
        {{"alltoall", "direct"}, 1},
        {{"broadcast", "ring"}, 3 + (n - 1)},
        {{"sendrecv", "direct"}, 1},
    };
    ASSERT_EQ(CollectiveFactory::List().size(), textbook.size());
    for (const auto& [coll, alg] : CollectiveFactory::List())
    {
        auto t = MakeTransport(n);
        auto c = CreateListed(coll, alg);
        c->Setup(t, Members(0, n), s);
        auto schedule = c->GetSchedule();
        c->Start();
        Simulator::Run();
        ASSERT_TRUE(c->IsDone()) << coll << "/" << alg;
        EXPECT_EQ(c->GetCollectiveName(), coll);
        EXPECT_EQ(c->GetAlgorithmName(), alg);
        EXPECT_EQ(t->GetBytesSent(), ScheduleBytes(schedule)) << coll << "/" << alg;
        EXPECT_EQ(t->GetBytesSent(), (textbook[{coll, alg}])) << coll << "/" << alg;
        EXPECT_EQ(schedule.size(), (steps[{coll, alg}])) << coll << "/" << alg;
        Simulator::Destroy();
    }
}

TEST_F(CollectiveTest, ScheduleReduceBytesAreWhatEachReceiverAdds)
{
    auto t = MakeTransport(4);
    auto c = CreateObject<RingAllReduce>();
    c->Setup(t, Members(0, 4), 4000);
    auto s = c->GetSchedule();
    ASSERT_EQ(s.size(), 6u);
    for (size_t g = 0; g < s.size(); ++g)
    {
        // Reduce-scatter steps add one chunk (S/N); all-gather steps only copy.
        EXPECT_EQ(s[g].reduceBytes, g < 3 ? 1000u : 0u) << "step " << g;
        EXPECT_EQ(s[g].messages.size(), 4u);
    }
    auto hd = CreateObject<HalvingDoublingAllReduce>();
    hd->Setup(t, Members(0, 4), 4000);
    auto h = hd->GetSchedule();
    ASSERT_EQ(h.size(), 4u);
    EXPECT_EQ(h[0].reduceBytes, 2000u); // half
    EXPECT_EQ(h[1].reduceBytes, 1000u); // quarter
    EXPECT_EQ(h[2].reduceBytes, 0u);
    EXPECT_EQ(h[0].messages[0].bytes, 2000u);
    EXPECT_EQ(h[3].messages[0].bytes, 2000u);
}

TEST_F(CollectiveTest, ReceiveReducesIsEveryStepsReceiveFlag)
{
    // ReceiveReduces stands for the receiver's step where an algorithm answers it
    // without generating the step (the schedule's and the twin's reduce flags): for
    // every algorithm, member, chain, step and receive it agrees with the step's own
    // flag. The ring all-reduce runs with two rings and two slices (four chains).
    const uint32_t n = 8;
    for (const auto& [coll, alg] : CollectiveFactory::List())
    {
        auto t = MakeTransport(n);
        auto c = CreateListed(coll, alg);
        if (coll == "allreduce" && alg == "ring")
        {
            DynamicCast<RingAllReduce>(c)->SetRings(
                {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 3, 6, 1, 4, 7, 2, 5}});
            c->SetAttribute("Slices", UintegerValue(2));
        }
        c->Setup(t, Members(0, n), 8 * 1024);
        auto program = DynamicCast<StepwiseCollective>(c);
        ASSERT_TRUE(program) << coll << "/" << alg;
        uint64_t receives = 0;
        uint64_t reduced = 0;
        StepwiseCollective::Step step;
        for (uint32_t m = 0; m < n; ++m)
        {
            const std::vector<uint32_t> lengths = program->GetChainLengths(m);
            for (uint32_t ch = 0; ch < lengths.size(); ++ch)
            {
                for (uint32_t g = 0; g < lengths[ch]; ++g)
                {
                    program->GetStep(m, ch, g, step);
                    for (const auto& recv : step.recvs)
                    {
                        EXPECT_EQ(program->ReceiveReduces(m, ch, g, recv.from), recv.reduce)
                            << coll << "/" << alg << " member " << m << " chain " << ch << " step "
                            << g << " from " << recv.from;
                        ++receives;
                        reduced += recv.reduce ? 1 : 0;
                    }
                }
            }
        }
        EXPECT_GT(receives, 0u) << coll << "/" << alg;
        if (coll == "allreduce" || coll == "reducescatter")
        {
            EXPECT_GT(reduced, 0u) << coll << "/" << alg;
        }
        Simulator::Destroy();
    }
}

TEST_F(CollectiveTest, MessageCountsInClosedFormAreTheGeneratedPrograms)
{
    // CountMessages answers from an algorithm's closed form where it has one (the twin
    // asks it of every collective it predicts) and walks the steps otherwise: for every
    // listed algorithm, at 8 members and at every member count it takes of 1 to 9 (the
    // ring all-reduce also with three rings and two slices), the answer is the number
    // of sends its steps generate, and a limit below it gives limit + 1.
    auto walked = [](const StepwiseCollective& program, uint32_t n) {
        uint64_t sends = 0;
        StepwiseCollective::Step step;
        for (uint32_t m = 0; m < n; ++m)
        {
            const std::vector<uint32_t> lengths = program.GetChainLengths(m);
            for (uint32_t ch = 0; ch < lengths.size(); ++ch)
            {
                for (uint32_t g = 0; g < lengths[ch]; ++g)
                {
                    program.GetStep(m, ch, g, step);
                    sends += step.sends.size();
                }
            }
        }
        return sends;
    };
    uint32_t checked = 0;
    for (const auto& [coll, alg] : CollectiveFactory::List())
    {
        for (uint32_t n = 1; n <= 9; ++n)
        {
            for (const bool rings : {false, true})
            {
                if (rings && !(coll == "allreduce" && alg == "ring"))
                {
                    continue;
                }
                auto t = MakeTransport(n);
                auto c = n == 8 ? CreateListed(coll, alg) : CollectiveFactory::Create(coll, alg);
                if (rings)
                {
                    std::vector<std::vector<uint32_t>> orders(3, Members(0, n));
                    std::reverse(orders[1].begin(), orders[1].end());
                    std::rotate(orders[2].begin(), orders[2].begin() + n / 2, orders[2].end());
                    DynamicCast<RingAllReduce>(c)->SetRings(orders);
                    c->SetAttribute("Slices", UintegerValue(2));
                }
                try
                {
                    c->Setup(t, Members(0, n), 4 * 2520); // 2520 divides by 1 to 9
                }
                catch (const std::invalid_argument&)
                {
                    continue; // a member count the algorithm refuses (hd, torus, ...)
                }
                auto program = DynamicCast<StepwiseCollective>(c);
                ASSERT_TRUE(program) << coll << "/" << alg;
                const uint64_t messages = walked(*program, n);
                EXPECT_EQ(program->CountMessages(), messages) << coll << "/" << alg << " n " << n;
                if (messages > 1)
                {
                    EXPECT_EQ(program->CountMessages(messages / 2), messages / 2 + 1)
                        << coll << "/" << alg << " n " << n;
                }
                ++checked;
            }
        }
    }
    EXPECT_GE(checked, 60u);
}

TEST_F(CollectiveTest, RingStepCountIsTwoNMinusTwoForManySizes)
{
    for (uint32_t n : {2u, 3u, 7u, 16u})
    {
        auto t = MakeTransport(n);
        auto c = CreateObject<RingAllReduce>();
        c->Setup(t, Members(0, n), 4 * 64 * n);
        EXPECT_EQ(c->GetSchedule().size(), 2u * (n - 1));
        auto pw = CreateObject<PairwiseAllToAll>();
        pw->Setup(t, Members(0, n), 64);
        EXPECT_EQ(pw->GetSchedule().size(), n - 1);
    }
}

// ------------------------------------------------------------------- timing

TEST_F(CollectiveTest, RingAllReduceTimeFollowsAlphaBetaGamma)
{
    // Fake transport: beta = 1 ns/B (8 Gb/s), alpha = 1 us per step, FIFO NIC.
    // Ring, N = 4, S = 16000 B: chunk S/N = 4000 B, every step 4 us + 1 us.
    // T = 2(N-1)(alpha + S/N beta) + (N-1) S/N gamma.
    const uint32_t n = 4;
    const uint64_t s = 16000;
    const double alpha = 1e-6;
    const double beta = 1e-9;
    {
        auto t = MakeTransport(n);
        auto c = CreateObject<RingAllReduce>();
        c->Setup(t, Members(0, n), s);
        c->Start();
        Simulator::Run();
        double expected = 2 * (n - 1) * (alpha + s / n * beta);
        EXPECT_NEAR(c->GetDuration().GetSeconds(), expected, 1e-12);
        Simulator::Destroy();
    }
    {
        auto t = MakeTransport(n);
        auto c = CreateObject<RingAllReduce>();
        c->SetAttribute("ReductionTimePerByte", DoubleValue(1e-9));
        c->Setup(t, Members(0, n), s);
        c->Start();
        Simulator::Run();
        double gamma = 1e-9;
        double expected = 2 * (n - 1) * (alpha + s / n * beta) + (n - 1) * s / n * gamma;
        EXPECT_NEAR(c->GetDuration().GetSeconds(), expected, 1e-12);
    }
}

TEST_F(CollectiveTest, HalvingDoublingTimeFollowsAlphaBeta)
{
    // N = 4, S = 16000 B: steps carry S/2, S/4, S/4, S/2.
    // T = 2 lg N alpha + 2 (N-1)/N S beta = 4 us + 24 us.
    auto t = MakeTransport(4);
    auto c = CreateObject<HalvingDoublingAllReduce>();
    c->Setup(t, Members(0, 4), 16000);
    c->Start();
    Simulator::Run();
    EXPECT_EQ(c->GetDuration(), MicroSeconds(4 + 24));
}

// ---------------------------------------------------------------- bad input

TEST_F(CollectiveTest, BadInputThrowsUsefulMessages)
{
    auto t = MakeTransport(8);
    auto expectThrow = [](std::function<void()> f, const std::string& needle) {
        try
        {
            f();
            ADD_FAILURE() << "no exception; expected one saying '" << needle << "'";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectThrow(
        [&] { CreateObject<HalvingDoublingAllReduce>()->Setup(t, Members(0, 6), 4096); },
        "halving-doubling needs a power-of-two number of ranks, got 6; use --algorithm=ring");
    expectThrow(
        [&] {
            auto c = CreateObject<TorusAllReduce>();
            c->SetDims({2, 2});
            c->Setup(t, Members(0, 8), 4096);
        },
        "torus dims 2x2 hold 4 ranks but the communicator has 8");
    expectThrow([&] { CreateObject<TorusAllReduce>()->Setup(t, Members(0, 8), 4096); },
                "call SetDims");
    expectThrow(
        [&] {
            auto c = CreateObject<RingAllReduce>();
            c->Setup(t, Members(0, 4), 4001);
            for (uint32_t m = 0; m < 4; ++m)
            {
                c->SetInput(m, Eigen::VectorXf::Zero(1000));
            }
            c->Start();
        },
        "bytes must be 4 x the number of floats, got 4001 bytes");
    expectThrow(
        [&] {
            auto c = CreateObject<RingAllReduce>();
            c->Setup(t, Members(0, 4), 4000);
            for (uint32_t m = 0; m < 4; ++m)
            {
                c->SetInput(m, Eigen::VectorXf::Zero(999));
            }
            c->Start();
        },
        "member 0 input has 999 floats but 4000 bytes need 1000 floats");
    expectThrow([] { CollectiveFactory::Create("allreduce", "foo"); },
                "unknown algorithm 'foo' for allreduce; valid: ring, hd, torus, hierarchical");
    expectThrow([] { CollectiveFactory::Create("allscatter", "ring"); },
                "unknown collective 'allscatter'; valid: allreduce, allgather, reducescatter, "
                "alltoall, broadcast, sendrecv");
    expectThrow(
        [&] {
            auto c = CreateObject<RingAllReduce>();
            c->SetRings({{0, 1, 2, 2}});
            c->Setup(t, Members(0, 4), 4096);
        },
        "ring 0 is not a permutation");
    expectThrow([&] { CreateObject<RingAllReduce>()->Setup(t, Members(0, 8), 7); },
                "some message would carry 0 bytes");
    expectThrow(
        [&] {
            auto c = CreateObject<RingBroadcast>();
            c->SetAttribute("Root", UintegerValue(9));
            c->Setup(t, Members(0, 8), 4096);
        },
        "Root 9 is not a member index");
}

// --------------------------------------------------------------- concurrency

TEST_F(CollectiveTest, ConcurrentAllReducesOnDisjointAndSameRanksAreBothRight)
{
    auto t = MakeTransport(8);
    const uint32_t len = 501;

    struct Run
    {
        Ptr<Collective> c;
        std::vector<uint32_t> ranks;
        uint32_t seed;
    };

    std::vector<Run> runs{
        {CreateObject<RingAllReduce>(), Members(0, 4), 1},
        {CreateObject<HalvingDoublingAllReduce>(), Members(4, 4), 2},
        {CreateObject<RingAllReduce>(), Members(0, 8), 3},
        {CreateObject<HalvingDoublingAllReduce>(), {7, 6, 5, 4, 3, 2, 1, 0}, 4},
    };
    std::vector<Eigen::VectorXf> sums;
    for (auto& r : runs)
    {
        r.c->Setup(t, r.ranks, 4ull * len);
        Eigen::VectorXf sum = Eigen::VectorXf::Zero(len);
        for (uint32_t m = 0; m < r.ranks.size(); ++m)
        {
            r.c->SetInput(m, Values(len, r.seed * 10 + m));
            sum += Values(len, r.seed * 10 + m);
        }
        sums.push_back(sum);
        r.c->Start();
    }
    Simulator::Run();
    for (size_t i = 0; i < runs.size(); ++i)
    {
        ASSERT_TRUE(runs[i].c->IsDone()) << "run " << i;
        for (uint32_t m = 0; m < runs[i].ranks.size(); ++m)
        {
            EXPECT_EQ(runs[i].c->GetOutput(m), sums[i]) << "run " << i << " member " << m;
        }
    }
}

} // namespace
