// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopoOpt direct-connect fabrics without devices (DirectConnectHelper with
 * SetDataPath("none"), what --dataPath=auto builds at the flow level): every circuit a
 * graph link of class "ocs" at its plane's rate and fibre delay, registered in the
 * fast path's order, with the fast path's port addresses and port buffers, and no
 * device, stack, forwarding object, OCS port or DirectConnectFabric. Flow-level ring
 * all-reduce and direct all-to-all on it end when they end on the fast path, with the
 * same bytes on every link (the same hash choices), on a ring-and-chords plan, a plan
 * with an unused port and the expander.
 */
#include "collective-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/direct-connect-fabric.h"
#include "ns3/direct-connect-helper.h"
#include "ns3/fabric-registry.h"
#include "ns3/fast-forwarding.h"
#include "ns3/internet-module.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::Coll;

namespace
{

class DirectConnectFlowGraphTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// 8 servers: plane 0 and 1 make the ring 0-1-...-7-0; plane 2 joins 0-4, 2-6 and
/// 3-7 (server 1's and 5's third ports stay unused).
TopologyPlan
RingWithChords()
{
    TopologyPlan plan(8, 3);
    for (uint32_t i = 0; i < 8; i += 2)
    {
        plan.AddCircuit(0, i, i + 1);
        plan.AddCircuit(1, i + 1, (i + 2) % 8);
    }
    // Given out of order, high port first: links are stored by lower port.
    plan.AddCircuit(2, 3, 7);
    plan.AddCircuit(2, 6, 2);
    plan.AddCircuit(2, 4, 0);
    return plan;
}

Ptr<Cluster>
Build(bool expander, const std::string& dataPath)
{
    if (expander)
    {
        FabricRequest r;
        r.fabric = "expander";
        r.ranks = 16;
        r.degree = 3;
        r.linkRate = DataRate("25Gbps");
        r.linkDelay = MicroSeconds(2);
        r.opticalAttributes = {{"Technology", "patch-panel"}};
        r.dataPath = dataPath;
        return FabricRegistry::Build(r);
    }
    DirectConnectHelper h(RingWithChords());
    h.SetLinkRate(DataRate("25Gbps"));
    h.SetLinkDelay(MicroSeconds(2));
    h.SetOcsAttribute("Technology", StringValue("patch-panel"));
    h.SetDataPath(dataPath);
    return h.Install();
}

mlnettest::RunOutcome
RunFlow(bool expander, const std::string& dataPath, CollectiveRunOptions run)
{
    run.level = RunLevel::FLOW;
    return mlnettest::RunOn(Build(expander, dataPath), run);
}

} // namespace

TEST_F(DirectConnectFlowGraphTest, HasTheFastPathsCircuitsAddressesAndBuffersAndNoDevice)
{
    for (bool expander : {false, true})
    {
        const std::string what = expander ? "expander" : "ring with chords";
        Ptr<Cluster> fast = Build(expander, "fast");
        Ptr<Cluster> graph = Build(expander, "none");
        EXPECT_EQ(graph->GetFabricSpec().dataPath, "none") << what;
        EXPECT_EQ(graph->GetFabricSpec().kind, fast->GetFabricSpec().kind) << what;
        EXPECT_FALSE(graph->GetObject<DirectConnectFabric>()) << what;
        ASSERT_EQ(graph->GetNRanks(), fast->GetNRanks()) << what;
        ASSERT_EQ(graph->GetLinks().size(), fast->GetLinks().size()) << what;
        const uint32_t offset = graph->GetRankNode(0)->GetId() - fast->GetRankNode(0)->GetId();
        for (const ClusterLink& g : graph->GetLinks())
        {
            const ClusterLink& l = fast->GetLink(g.id);
            EXPECT_EQ(g.linkClass, "ocs") << what;
            EXPECT_EQ(g.nodeA, l.nodeA + offset) << what << " link " << g.id;
            EXPECT_EQ(g.nodeB, l.nodeB + offset) << what << " link " << g.id;
            EXPECT_LT(g.nodeA, g.nodeB) << what << " link " << g.id;
            EXPECT_FALSE(g.devA || g.devB) << what;
            EXPECT_EQ(graph->GetLinkRate(g.id, true), DataRate("25Gbps")) << what;
            EXPECT_EQ(graph->GetLinkRate(g.id, false), fast->GetLinkRate(g.id, false)) << what;
            EXPECT_EQ(graph->GetLinkDelay(g.id), MicroSeconds(2)) << what;
            EXPECT_EQ(graph->GetLinkDelay(g.id), fast->GetLinkDelay(g.id)) << what;
        }
        Ptr<AlphaBetaModel> fastModel = CreateObject<AlphaBetaModel>();
        fastModel->SetCluster(fast);
        Ptr<AlphaBetaModel> graphModel = CreateObject<AlphaBetaModel>();
        graphModel->SetCluster(graph);
        EXPECT_EQ(graphModel->GetLinkBuffers(), fastModel->GetLinkBuffers()) << what;
        for (uint32_t r = 0; r < graph->GetNRanks(); ++r)
        {
            Ptr<Node> node = graph->GetRankNode(r);
            EXPECT_EQ(graph->GetRankAddress(r), fast->GetRankAddress(r)) << what << " rank " << r;
            EXPECT_EQ(node->GetNDevices(), 0u) << what;
            EXPECT_FALSE(node->GetObject<Ipv4>()) << what;
            EXPECT_FALSE(node->GetObject<FastForwarding>()) << what;
        }
        Simulator::Destroy();
    }
}

TEST_F(DirectConnectFlowGraphTest, FlowLevelRunsGiveTheFastPathsResultsToTheBit)
{
    for (bool expander : {false, true})
    {
        for (const CollectiveRunOptions& run :
             {Coll("allreduce", "ring", "1MiB"), Coll("alltoall", "direct", "256KiB")})
        {
            const std::string what = std::string(expander ? "expander " : "ring with chords ") +
                                     run.collective + "/" + run.algorithm;
            mlnettest::RunOutcome fast = RunFlow(expander, "fast", run);
            mlnettest::RunOutcome graph = RunFlow(expander, "none", run);
            ASSERT_GT(fast.simulatedS, 0) << what;
            EXPECT_EQ(graph.simulatedS, fast.simulatedS) << what;
            EXPECT_EQ(graph.perLink, fast.perLink) << what << ": path choices differ";
        }
    }
}
