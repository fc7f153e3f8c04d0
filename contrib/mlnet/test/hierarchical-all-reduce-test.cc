// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of HierarchicalAllReduce: its schedule is the three phases (ring reduce-scatter
 * in each group, ring all-reduce per local index across groups, ring all-gather in
 * each group) with the textbook sizes; real values are summed exactly for every group
 * size and uneven splits; on an ideal switch its time is the sum of its steps' T_msg
 * at the flow level (to the picosecond rounding) and at the packet level (within 1 %);
 * bad group sizes are one clear error.
 */
#include "collective-test-support.h"

#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/hierarchical-all-reduce.h"
#include "ns3/transport-choice.h"

#include <cmath>
#include <gtest/gtest.h>
#include <numeric>

using namespace ns3;
using mlnettest::Coll;

namespace
{

class HierarchicalAllReduceTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

Ptr<Cluster>
Ideal(uint32_t ranks)
{
    FabricOptions f;
    f.fabric = "ideal";
    f.ranks = ranks;
    return f.Build();
}

std::vector<uint32_t>
Members(uint32_t n)
{
    std::vector<uint32_t> m(n);
    std::iota(m.begin(), m.end(), 0);
    return m;
}

CollectiveRunOptions
Hier(const std::string& bytes, uint32_t groupSize, bool real = false)
{
    CollectiveRunOptions o = Coll("allreduce", "hierarchical", bytes, real);
    o.groupSize = groupSize;
    return o;
}

} // namespace

// 8 ranks in groups of 4 (M = 2), S = 8 KiB: steps 0-2 inside the groups with S / 4
// reduced, steps 3-4 between the two members of each local index with S / 8 (reduced,
// then copied), steps 5-7 inside the groups with S / 4 copied. Every member sends
// 2 (G-1)/G S + 2 (M-1)/(G M) S = 2 (N-1)/N S, a flat ring's volume.
TEST_F(HierarchicalAllReduceTest, ScheduleIsTheThreePhases)
{
    Ptr<Cluster> c = Ideal(8);
    Ptr<FluidMessageTransport> t = CreateObject<FluidMessageTransport>();
    t->Install(c);
    const uint64_t s = 8192;
    Ptr<HierarchicalAllReduce> h = CreateObject<HierarchicalAllReduce>();
    h->SetAttribute("GroupSize", UintegerValue(4));
    h->Setup(t, Members(8), s);
    EXPECT_EQ(h->GetGroupSize(), 4u);
    const std::vector<CollectiveStep> schedule = h->GetSchedule();
    ASSERT_EQ(schedule.size(), 8u);
    uint64_t total = 0;
    for (uint32_t step = 0; step < 8; ++step)
    {
        const bool across = step == 3 || step == 4;
        ASSERT_EQ(schedule[step].messages.size(), 8u) << "step " << step;
        for (const ScheduledMessage& m : schedule[step].messages)
        {
            total += m.bytes;
            if (across)
            {
                EXPECT_EQ(m.src % 4, m.dst % 4) << "step " << step;
                EXPECT_NE(m.src / 4, m.dst / 4) << "step " << step;
                EXPECT_EQ(m.bytes, s / 8);
                EXPECT_EQ(m.reduce, step == 3);
            }
            else
            {
                EXPECT_EQ(m.src / 4, m.dst / 4) << "step " << step;
                EXPECT_EQ(m.dst % 4, (m.src + 1) % 4) << "step " << step;
                EXPECT_EQ(m.bytes, s / 4);
                EXPECT_EQ(m.reduce, step < 3);
            }
        }
    }
    EXPECT_EQ(total, 2 * (8 - 1) * s);
}

// Every group size of 8 and 12 ranks, even and uneven splits: each member ends with
// the exact sum (the reduction order is fixed by the program).
TEST_F(HierarchicalAllReduceTest, RealValuesAreSummedExactly)
{
    struct Case
    {
        uint32_t ranks;
        uint32_t groupSize;
        const char* bytes;
    };

    for (const Case& k : {Case{8, 1, "64KiB"},
                          Case{8, 2, "64KiB"},
                          Case{8, 4, "64KiB"},
                          Case{8, 8, "64KiB"},
                          Case{12, 3, "4004"},
                          Case{12, 4, "1000KiB"}})
    {
        for (RunLevel level : {RunLevel::FLOW, RunLevel::PACKET})
        {
            CollectiveRunOptions o = Hier(k.bytes, k.groupSize, true);
            o.level = level;
            CollectiveRunResult r = CollectiveRunner::Run(Ideal(k.ranks), o);
            EXPECT_EQ(r.realCorrect, 1) << k.ranks << " ranks, G = " << k.groupSize << ", "
                                        << k.bytes << ", level " << static_cast<int>(level);
            EXPECT_EQ(r.record.algorithm, "hierarchical");
            Simulator::Destroy();
        }
    }
}

// On an ideal switch (100 Gbps, 1 us links, two hops) every member sends one message
// per step and every port carries one, so the collective takes the sum over its steps
// of T_msg = (W + F1) * 8 / R + 2 d, W = m + n O, F1 = min(m, P) + O: at the flow level
// to the rounding of event times, at the packet level within 1 %.
TEST_F(HierarchicalAllReduceTest, IdealSwitchTimeIsTheSumOfItsSteps)
{
    const uint64_t s = 1 << 20;
    for (uint32_t g : {2u, 4u})
    {
        CollectiveRunOptions o = Hier("1MiB", g);
        o.level = RunLevel::FLOW;
        Ptr<Cluster> c = Ideal(8);
        CollectiveRunResult flow = CollectiveRunner::Run(c, o);
        Simulator::Destroy();
        CollectiveRunResult packet = CollectiveRunner::Run(Ideal(8), Hier("1MiB", g));
        Simulator::Destroy();

        Ptr<MessageTransport> udp = TransportChoice::Create("udp");
        udp->Install(Ideal(8));
        const double p = udp->GetMaxPayload();
        const double oh = udp->GetPerPacketOverhead();
        Simulator::Destroy();
        auto tMsg = [&](double m) {
            const double w = m + std::ceil(m / p) * oh;
            const double f1 = std::min(m, p) + oh;
            return (w + f1) * 8 / 100e9 + 2e-6;
        };
        const uint32_t groups = 8 / g;
        const double expected = 2 * (g - 1) * tMsg(static_cast<double>(s) / g) +
                                2 * (groups - 1) * tMsg(static_cast<double>(s) / (g * groups));
        EXPECT_NEAR(flow.simulatedS, expected, 20e-12) << "G = " << g;
        EXPECT_NEAR(packet.simulatedS, expected, 0.01 * expected) << "G = " << g;
        EXPECT_NEAR(packet.analyticalS, expected, 20e-12) << "G = " << g;
    }
}

// A group size that does not divide the ranks, none on a fabric without HB domains,
// --groupSize with another algorithm: one error each, naming the fix.
TEST_F(HierarchicalAllReduceTest, BadGroupSizesAreClearErrors)
{
    auto error = [](uint32_t ranks, const CollectiveRunOptions& o) -> std::string {
        try
        {
            CollectiveRunner::Run(Ideal(ranks), o);
        }
        catch (const std::invalid_argument& e)
        {
            Simulator::Destroy();
            return e.what();
        }
        Simulator::Destroy();
        return "no error";
    };
    EXPECT_NE(error(8, Hier("64KiB", 3)).find("does not divide the 8 ranks"), std::string::npos);
    EXPECT_NE(error(8, Hier("64KiB", 0)).find("has no HB domains"), std::string::npos);
    CollectiveRunOptions ring = Coll("allreduce", "ring", "64KiB");
    ring.groupSize = 4;
    EXPECT_NE(error(8, ring).find("use --algorithm=hierarchical"), std::string::npos);
    // Too small to give every member of every phase a unit: the program check refuses.
    EXPECT_NE(error(8, Hier("4", 4)), "no error");
}
