// SPDX-License-Identifier: GPL-2.0-only
/*
 * Timed failures (FaultPlan, --fail=<item>@<time> with --convergence) on the fast data
 * path against the IPv4 path, in one process: a link, a switch and random links fail
 * during a ring all-reduce on a 2-tier fat-tree; both paths fail the same links at the
 * same instant, lose the same number of frames on them, install the same routes after
 * the convergence delay, repair the same way and finish at the same time with the same
 * bytes on every link and direction.
 */
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fault-log.h"
#include "ns3/fault-plan.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class FaultFastPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
        RngSeedManager::SetRun(1);
    }
};

/// What a run with faults gave, to compare the two data paths.
struct Outcome
{
    double simulatedS{0};
    std::vector<uint64_t> perLink; //!< wire bytes per link, A->B and B->A interleaved
    std::vector<uint32_t> failed;  //!< ids of the links down at the end
    std::vector<FaultRecord> faults;
    int realCorrect{-1};
};

/// An 8-host 2-tier fat-tree (4 ToRs of 2 hosts, 2 aggregation switches).
FabricOptions
SmallFatTree()
{
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = 8;
    f.tiers = 2;
    return f;
}

CollectiveRunOptions
Ring()
{
    CollectiveRunOptions r;
    r.collective = "allreduce";
    r.algorithm = "ring";
    r.bytes = "1MiB";
    r.real = true;
    return r;
}

Outcome
RunPath(FabricOptions fabric, const std::string& dataPath)
{
    fabric.dataPath = dataPath;
    const size_t logStart = FaultLog::Count();
    Ptr<Cluster> cluster = fabric.Build();
    CollectiveRunResult r = CollectiveRunner::Run(cluster, Ring());
    Outcome o;
    o.simulatedS = r.simulatedS;
    o.realCorrect = r.realCorrect;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        o.perLink.push_back(l.bytesAtoB);
        o.perLink.push_back(l.bytesBtoA);
        if (l.failed)
        {
            o.failed.push_back(l.id);
        }
    }
    o.faults = FaultLog::Since(logStart);
    Simulator::Destroy();
    return o;
}

/// Both paths with the faults of `fabric`: everything the same. \return the fast outcome
Outcome
ExpectSame(const FabricOptions& fabric)
{
    Outcome ipv4 = RunPath(fabric, "ipv4");
    Outcome fast = RunPath(fabric, "fast");
    const std::string what = "--fail=" + fabric.fail +
                             " --failLinks=" + std::to_string(fabric.failLinks) +
                             " --failAt=" + fabric.failAt + " --convergence=" + fabric.convergence;
    EXPECT_GT(ipv4.simulatedS, 0) << what;
    EXPECT_NEAR(fast.simulatedS, ipv4.simulatedS, 1e-12) << what;
    EXPECT_EQ(fast.perLink, ipv4.perLink) << what << ": reroutes or repairs differ";
    EXPECT_EQ(fast.failed, ipv4.failed) << what;
    EXPECT_EQ(ipv4.realCorrect, 1) << what;
    EXPECT_EQ(fast.realCorrect, 1) << what;
    EXPECT_EQ(fast.faults.size(), ipv4.faults.size()) << what;
    for (size_t i = 0; i < std::min(fast.faults.size(), ipv4.faults.size()); ++i)
    {
        EXPECT_EQ(fast.faults[i].links, ipv4.faults[i].links) << what << " fault " << i;
        EXPECT_EQ(fast.faults[i].atSeconds, ipv4.faults[i].atSeconds) << what;
        EXPECT_EQ(fast.faults[i].convergedSeconds, ipv4.faults[i].convergedSeconds) << what;
        EXPECT_EQ(fast.faults[i].framesLost, ipv4.faults[i].framesLost)
            << what << " fault " << i << ": frames lost on the dead link";
    }
    return fast;
}

/// Healthy completion time and the index (within tor-agg) of the busiest tor-agg link.
std::pair<Time, uint32_t>
Baseline()
{
    FabricOptions f = SmallFatTree();
    f.dataPath = "fast";
    Ptr<Cluster> cluster = f.Build();
    CollectiveRunResult r = CollectiveRunner::Run(cluster, Ring());
    uint32_t index = 0;
    uint32_t busiest = 0;
    uint64_t most = 0;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        if (l.linkClass != "tor-agg")
        {
            continue;
        }
        if (l.bytesAtoB + l.bytesBtoA > most)
        {
            most = l.bytesAtoB + l.bytesBtoA;
            busiest = index;
        }
        ++index;
    }
    Simulator::Destroy();
    return {Seconds(r.simulatedS), busiest};
}

std::string
At(Time t)
{
    return "@" + std::to_string(t.GetNanoSeconds()) + "ns";
}

} // namespace

// The busiest ToR uplink fails half-way through the ring, routes around it 50 us later.
TEST_F(FaultFastPathTest, TimedLinkFailureWithConvergenceMatchesIpv4)
{
    auto [healthy, victim] = Baseline();
    FabricOptions f = SmallFatTree();
    f.fail = "tor-agg:" + std::to_string(victim) + At(healthy / 2);
    f.convergence = "50us";
    Outcome fast = ExpectSame(f);
    ASSERT_EQ(fast.faults.size(), 1u);
    EXPECT_GT(fast.faults[0].framesLost, 0u) << "the test would prove nothing without loss";
    EXPECT_GT(fast.simulatedS, healthy.GetSeconds()) << "lost frames are repaired, later";
    // Without a convergence delay fewer frames are lost: only those already on the wire
    // or queued for the dead link, none sent into it over stale routes.
    f.convergence = "0s";
    Outcome quick = ExpectSame(f);
    ASSERT_EQ(quick.faults.size(), 1u);
    EXPECT_LE(quick.faults[0].framesLost, fast.faults[0].framesLost);
}

// A whole aggregation switch (switch4: after the 4 ToRs) and two random links
// (--failLinks=2 --failAt, its own random stream: the same picks on both paths) fail
// at different instants of one run.
TEST_F(FaultFastPathTest, TimedSwitchAndRandomFailuresMatchIpv4)
{
    auto [healthy, victim] = Baseline();
    FabricOptions f = SmallFatTree();
    f.fail = "node:switch4" + At(healthy / 3);
    f.convergence = "20us";
    Outcome node = ExpectSame(f);
    ASSERT_EQ(node.faults.size(), 1u);
    EXPECT_EQ(node.faults[0].element, "node");
    EXPECT_GT(node.faults[0].framesLost, 0u);

    // --failLinks draws tor-agg links (the fat-tree's failable class), keeping every ToR
    // connected.
    FabricOptions r = SmallFatTree();
    r.failLinks = 2;
    r.failAt = std::to_string(healthy.GetNanoSeconds() / 2) + "ns";
    r.convergence = "20us";
    Outcome random = ExpectSame(r);
    EXPECT_EQ(random.failed.size(), 2u);
}
