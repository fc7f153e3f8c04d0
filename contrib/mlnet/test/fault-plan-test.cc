// SPDX-License-Identifier: GPL-2.0-only
/*
 * FaultPlan: named and random failures, before and during a run, with a route
 * convergence delay; checked against what the fabric actually did (link flags, the
 * installed FlowHashRouting tables, the failed link's PhyRxDrop trace, the collective's
 * completion time), and the plan's checks on bad items.
 */
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-log.h"
#include "ns3/fault-plan.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/ipv4.h"
#include "ns3/node-list.h"

#include <gtest/gtest.h>
#include <mlnet-test-support.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;

namespace
{

class FaultPlanTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
        RngSeedManager::SetRun(1);
    }

    /// An 8-host 2-tier fat-tree (4 ToRs of 2 hosts, 2 aggregation switches), ipv4 path.
    static Ptr<Cluster> SmallFatTree()
    {
        return FatTreeHelper(8).Install();
    }

    /// Ids of the links that are failed.
    static std::vector<uint32_t> Failed(Ptr<Cluster> c)
    {
        std::vector<uint32_t> out;
        for (const auto& l : c->GetLinks())
        {
            if (l.failed)
            {
                out.push_back(l.id);
            }
        }
        return out;
    }

    /// Does the FlowHashRouting table of the link's end A send towards any rank over it?
    static bool RoutedOver(Ptr<Cluster> c, uint32_t linkId)
    {
        const ClusterLink& l = c->GetLink(linkId);
        Ptr<Node> node = NodeList::GetNode(l.nodeA);
        auto routing = DynamicCast<FlowHashRouting>(node->GetObject<Ipv4>()->GetRoutingProtocol());
        for (uint32_t r = 0; r < c->GetNRanks(); ++r)
        {
            for (uint32_t i : routing->GetInterfaces(r))
            {
                if (i == l.ifA)
                {
                    return true;
                }
            }
        }
        return false;
    }

    static CollectiveRunOptions AllReduce()
    {
        CollectiveRunOptions o;
        o.collective = "allreduce";
        o.algorithm = "ring";
        o.bytes = "1MiB";
        return o;
    }
};

TEST_F(FaultPlanTest, MidRunLinkFailureLosesFramesConvergesAndCompletesLater)
{
    // Failure-free baseline; the busiest tor-agg link is the one to break.
    Ptr<Cluster> c = SmallFatTree();
    CollectiveRunResult healthy = CollectiveRunner::Run(c, AllReduce());
    uint32_t victim = UINT32_MAX;
    uint64_t most = 0;
    for (const auto& l : c->GetLinks())
    {
        if (l.linkClass == "tor-agg" && l.bytesAtoB + l.bytesBtoA > most)
        {
            most = l.bytesAtoB + l.bytesBtoA;
            victim = l.id;
        }
    }
    ASSERT_NE(victim, UINT32_MAX);
    uint32_t index = 0; // its index within the class
    for (uint32_t id = 0; id < victim; ++id)
    {
        index += c->GetLink(id).linkClass == "tor-agg";
    }
    Simulator::Destroy();

    // The same run with that link failing half-way through, routes 50 us later.
    const Time at = Seconds(healthy.simulatedS / 2);
    const Time convergence = MicroSeconds(50);
    c = SmallFatTree();
    ASSERT_TRUE(RoutedOver(c, victim)) << "the victim carries routes before the failure";
    Ptr<FaultPlan> plan = CreateObject<FaultPlan>();
    plan->SetAttribute("Convergence", TimeValue(convergence));
    FaultSpec f;
    f.item = "tor-agg:" + std::to_string(index);
    f.target = FaultSpec::Target::LINK_CLASS;
    f.linkClass = "tor-agg";
    f.index = index;
    f.at = at;
    plan->Add(f);
    const size_t logStart = FaultLog::Count();
    plan->Apply(c, {"tor-agg"});
    EXPECT_FALSE(c->GetLink(victim).failed) << "a timed fault waits for its time";

    uint64_t drops = 0;
    for (auto dev : {c->GetLink(victim).devA, c->GetLink(victim).devB})
    {
        dev->TraceConnectWithoutContext("PhyRxDrop",
                                        MakeBoundCallback(
                                            +[](uint64_t* n, Ptr<const Packet>) { ++*n; },
                                            &drops));
    }
    bool failedMidway = false;
    bool routedDuringConvergence = false;
    bool routedAfter = true;
    Simulator::Schedule(at + convergence / 2, [&] {
        failedMidway = c->GetLink(victim).failed;
        routedDuringConvergence = RoutedOver(c, victim); // old routes still installed
    });
    Simulator::Schedule(at + convergence + NanoSeconds(1),
                        [&] { routedAfter = RoutedOver(c, victim); });
    CollectiveRunResult faulted = CollectiveRunner::Run(c, AllReduce());

    EXPECT_TRUE(failedMidway);
    EXPECT_TRUE(routedDuringConvergence) << "routes change only at at + convergence";
    EXPECT_FALSE(routedAfter) << "the installed routes avoid the failed link";
    EXPECT_GT(faulted.simulatedS, healthy.simulatedS) << "lost frames are repaired, later";
    EXPECT_GT(drops, 0u) << "frames in flight and sent over old routes are lost on the link";
    std::vector<FaultRecord> log = FaultLog::Since(logStart);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].links, std::vector<uint32_t>{victim});
    EXPECT_EQ(log[0].framesLost, drops) << "the report counts the frames the link dropped";
    auto seconds = [](Time t) { return static_cast<double>(t.GetPicoSeconds()) / 1e12; };
    EXPECT_EQ(log[0].atSeconds, seconds(at));
    EXPECT_EQ(log[0].convergedSeconds, seconds(at + convergence));
}

TEST_F(FaultPlanTest, NamedFaultsHitExactlyTheirLinks)
{
    Ptr<Cluster> c = SmallFatTree();
    // The registry order of each class: host-tor:3 is the 4th host-tor link.
    std::vector<uint32_t> hostTor;
    std::vector<uint32_t> torAgg;
    for (const auto& l : c->GetLinks())
    {
        (l.linkClass == "host-tor" ? hostTor : torAgg).push_back(l.id);
    }
    ASSERT_EQ(hostTor.size(), 8u);
    ASSERT_EQ(torAgg.size(), 8u); // 4 ToRs x 2 aggregation switches
    const ClusterLink& ends = c->GetLink(torAgg[5]);
    const std::string byEnds =
        "link:" + FaultPlan::NodeName(c, ends.nodeA) + "-" + FaultPlan::NodeName(c, ends.nodeB);
    Ptr<FaultPlan> plan = CreateObject<FaultPlan>();
    plan->Add("tor-agg:2," + byEnds);
    plan->Apply(c, {"tor-agg"});
    EXPECT_EQ(Failed(c), (std::vector<uint32_t>{torAgg[2], torAgg[5]}));
    ASSERT_EQ(plan->GetRecords().size(), 2u);
    EXPECT_EQ(plan->GetRecords()[1].item, byEnds);
    EXPECT_EQ(plan->GetRecords()[1].endpoints.front(), byEnds.substr(5));
    EXPECT_DOUBLE_EQ(plan->GetRecords()[0].convergedSeconds, 0.0) << "time 0: before the run";
    EXPECT_FALSE(RoutedOver(c, torAgg[2])) << "time-0 faults get routes around them at once";
    Simulator::Destroy();

    // A switch: every one of its links; the agg switch is the last switch here.
    c = SmallFatTree();
    const uint32_t last = c->GetSwitchNodes().GetN() - 1;
    const uint32_t aggNode = c->GetSwitchNodes().Get(last)->GetId();
    plan = CreateObject<FaultPlan>();
    plan->Add("node:switch" + std::to_string(last) + "@1ms");
    plan->Apply(c, {"tor-agg"});
    EXPECT_TRUE(Failed(c).empty());
    Simulator::Run();
    EXPECT_EQ(Failed(c), c->GetLinksOfNode(aggNode));
    EXPECT_EQ(plan->GetRecords()[0].element, "node");
}

TEST_F(FaultPlanTest, BadFaultsAreRejectedNamingTheItem)
{
    // Syntax (FaultPlan::Parse).
    for (const char* bad : {"bogus",
                            "tor-agg:x",
                            "tor-agg:-1",
                            "tor-agg:1@-5us",
                            "tor-agg:1@5",
                            "tor-agg:1@5min",
                            "random:0",
                            "random:-2",
                            "link:",
                            "link:rank0-agg1",
                            "node:agg0",
                            "nic:switch1",
                            "tor-agg:1,",
                            "tor-agg:1,,host-tor:0",
                            "tor-agg:99999999999"})
    {
        std::string what = InvalidArgumentMessage([&] { FaultPlan::Parse(bad); });
        EXPECT_NE(what.find("fault"), std::string::npos) << bad << ": " << what;
        EXPECT_NE(what.find("e.g. tor-agg:0@200us"), std::string::npos) << bad << ": " << what;
    }
    // Against the fabric (FaultPlan::Apply): the message names the item and what is valid.
    const std::pair<const char*, const char*> cases[] = {
        {"torus:0", "its classes are host-tor, tor-agg"},
        {"tor-agg:8", "tor-agg:0..tor-agg:7"},
        {"link:16", "links are 0..15"},
        {"node:switch6", "switch0..switch5"},
        {"node:rank99999999999", "ranks are rank0..rank7"},
        {"link:rank0-rank1", "no link joins rank0 and rank1"},
        {"host-tor:3", "leaves rank 3 unreachable from rank 0"},
        {"nic:rank2", "leaves rank 2 unreachable"},
        {"tor-agg:0,tor-agg:1", "'tor-agg:1' leaves rank "}, // ToR 0's uplinks
        {"tor-agg:3,tor-agg:3@1ms", "already down by 'tor-agg:3'"},
        {"random:5", "cannot fail 5 random links of class tor-agg and keep every rank reachable"},
    };
    for (const auto& [item, expected] : cases)
    {
        Ptr<Cluster> c = SmallFatTree();
        Ptr<FaultPlan> plan = CreateObject<FaultPlan>();
        plan->Add(item);
        std::string what = InvalidArgumentMessage([&] { plan->Apply(c, {"tor-agg"}); });
        EXPECT_NE(what.find(std::string("fault '")), std::string::npos) << item << ": " << what;
        EXPECT_NE(what.find(expected), std::string::npos) << item << ": " << what;
        EXPECT_TRUE(Failed(c).empty()) << item << ": nothing fails when the plan is refused";
        Simulator::Destroy();
    }
}

TEST_F(FaultPlanTest, BothDataPathsFailTheSameRandomLinks)
{
    auto pick = [](const std::string& dataPath, uint32_t run) {
        RngSeedManager::SetRun(run);
        FabricOptions o;
        o.fabric = "fattree";
        o.ranks = 16;
        o.dataPath = dataPath;
        o.failLinks = 3;
        Ptr<Cluster> c = o.Build();
        std::vector<uint32_t> failed = Failed(c);
        Simulator::Destroy();
        return failed;
    };
    std::set<std::vector<uint32_t>> distinct;
    for (uint32_t run : {1u, 2u, 3u})
    {
        std::vector<uint32_t> ipv4 = pick("ipv4", run);
        EXPECT_EQ(ipv4.size(), 3u);
        EXPECT_EQ(ipv4, pick("fast", run)) << "run " << run;
        EXPECT_EQ(ipv4, pick("ipv4", run)) << "run " << run << ": same run, same links";
        distinct.insert(ipv4);
    }
    EXPECT_GT(distinct.size(), 1u) << "the run number seeds the choice";
}

TEST_F(FaultPlanTest, FabricOptionsFlagsAreStrict)
{
    auto build = [](FabricOptions o) {
        o.fabric = "fattree";
        return InvalidArgumentMessage([&] {
            o.Build();
            Simulator::Destroy();
        });
    };
    FabricOptions o;
    o.fail = "tor-agg:x";
    EXPECT_EQ(build(o).rfind("--fail: fault 'tor-agg:x'", 0), 0u) << build(o);
    o = FabricOptions();
    o.convergence = "-5us";
    EXPECT_EQ(build(o).rfind("--convergence:", 0), 0u) << build(o);
    o = FabricOptions();
    o.failAt = "1ms";
    EXPECT_NE(build(o).find("give --failLinks=N too"), std::string::npos) << build(o);
    o = FabricOptions();
    o.failLinks = 9;
    EXPECT_EQ(build(o).rfind("--failLinks: fault 'failLinks=9'", 0), 0u) << build(o);
    o = FabricOptions();
    o.fail = "tor-agg:1@100us";
    o.convergence = "20us";
    EXPECT_EQ(build(o), "no exception");
}

} // namespace
