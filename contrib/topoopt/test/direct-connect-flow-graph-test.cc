// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopoOpt direct-connect fabrics without devices (DirectConnectHelper with
 * SetDataPath("none"), what --dataPath=auto builds at the flow level): every circuit a
 * graph link of class "ocs" at its plane's rate and fibre delay, registered in the
 * fast path's order, with the fast path's port addresses and port buffers, and no
 * device, stack, forwarding object, OCS port or DirectConnectFabric. Flow-level ring
 * all-reduce and direct all-to-all on it end when they end on the fast path, with the
 * same bytes on every link (the same hash choices), on a ring-and-chords plan, a plan
 * with an unused port and the expander. A server's relay latency (forwarding latency)
 * delays a relayed message by the same time at the packet level, in its twin and at the
 * flow level; a relay rate cap is refused at the flow level.
 */
#include "collective-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/direct-connect-fabric.h"
#include "ns3/direct-connect-helper.h"
#include "ns3/fabric-registry.h"
#include "ns3/fast-forwarding.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/internet-module.h"
#include "ns3/trace-names.h"
#include "ns3/udp-message-transport.h"

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

namespace
{

/// 4 servers on the ring 0-2-1-3-0 (plane 0: 0-2, 1-3; plane 1: 2-1, 3-0): a message
/// from rank 0 to rank 1 takes two hops, relayed by server 2 or 3.
TopologyPlan
RelayRing()
{
    TopologyPlan plan(4, 2);
    plan.AddCircuit(0, 0, 2);
    plan.AddCircuit(0, 1, 3);
    plan.AddCircuit(1, 2, 1);
    plan.AddCircuit(1, 3, 0);
    return plan;
}

Ptr<Cluster>
RelayCluster(const std::string& dataPath, Time latency, DataRate cap = DataRate(0))
{
    DirectConnectHelper h(RelayRing());
    h.SetLinkRate(DataRate("10Gbps"));
    h.SetLinkDelay(MicroSeconds(1));
    h.SetForwardingLatency(latency);
    h.SetForwardingRate(cap);
    h.SetDataPath(dataPath);
    return h.Install();
}

} // namespace

TEST_F(DirectConnectFlowGraphTest, RelayLatencyDelaysARelayedMessageAtEveryLevel)
{
    // Send-recv 0 -> 1 (two hops, one relay): the relay latency adds itself once to the
    // packet run (every frame waits it at the relaying server), to its twin and to the
    // flow level; with none, the flow level is the packet run's time (a lone message on
    // an idle path).
    const Time relay = MicroSeconds(3);
    CollectiveRunOptions run = Coll("sendrecv", "direct", "64KiB");
    CollectiveRunResult packet[2];
    CollectiveRunResult flow[2];
    for (int with : {0, 1})
    {
        run.level = RunLevel::PACKET;
        packet[with] = CollectiveRunner::Run(RelayCluster("fast", with * relay), run);
        Simulator::Destroy();
        run.level = RunLevel::FLOW;
        flow[with] = CollectiveRunner::Run(RelayCluster("none", with * relay), run);
        Simulator::Destroy();
    }
    const double r = relay.GetSeconds();
    EXPECT_NEAR(packet[1].simulatedS - packet[0].simulatedS, r, 1e-12);
    EXPECT_NEAR(packet[1].analyticalS - packet[0].analyticalS, r, 1e-12);
    EXPECT_NEAR(flow[1].simulatedS - flow[0].simulatedS, r, 1e-12);
    for (int with : {0, 1})
    {
        EXPECT_NEAR(flow[with].simulatedS, packet[with].simulatedS, 1e-12) << with;
        EXPECT_NEAR(packet[with].analyticalS, packet[with].simulatedS, 1e-12) << with;
    }
    // The first principles: W wire bytes behind the first hop, the first frame F1 again
    // on the second, two fibre delays and the relay.
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    Ptr<Cluster> cluster = RelayCluster("none", relay);
    model->SetCluster(cluster);
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster); // its packets: the MTU's payload and header bytes
    model->SetPacketization(udp);
    const uint64_t bytes = 64 * 1024;
    const double spb = 8.0 / 10e9;
    const double expected =
        (model->GetWireBytes(bytes) + model->GetFirstFrameBytes(bytes)) * spb + 2e-6 + r;
    EXPECT_NEAR(flow[1].simulatedS, expected, 1e-12);
    // Split evenly over both relays (the recursion over the routing DAG, not one path),
    // the latency is the same: each branch has one relay.
    FluidNetwork::LinkShares shares;
    uint32_t senderLinks = 0;
    const double hashed = model->MessagePath(0, 1, bytes, shares, senderLinks);
    model->SetPathChoice(AlphaBetaModel::EVEN_SPLIT);
    const double split = model->MessagePath(0, 1, bytes, shares, senderLinks);
    EXPECT_EQ(shares.size(), 4u); // two links out of rank 0, two into rank 1
    EXPECT_NEAR(split, hashed, 1e-15);
    EXPECT_NEAR(hashed, model->GetFirstFrameBytes(bytes) * spb + 2e-6 + r, 1e-15);
}

TEST_F(DirectConnectFlowGraphTest, ARelayRateCapIsRefusedAtTheFlowLevel)
{
    CollectiveRunOptions run = Coll("sendrecv", "direct", "64KiB");
    run.level = RunLevel::FLOW;
    try
    {
        CollectiveRunner::Run(RelayCluster("none", Time(0), DataRate("1Gbps")), run);
        FAIL() << "a relay rate cap was accepted at the flow level";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string message = e.what();
        EXPECT_NE(message.find("forwarding rate"), std::string::npos) << message;
        EXPECT_NE(message.find("--level=packet"), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
    // Refused before it registered anything: not installed, no trace name, and the
    // cluster takes a fluid transport that installs once the cap is gone.
    Ptr<Cluster> capped = RelayCluster("none", Time(0), DataRate("1Gbps"));
    Ptr<FluidMessageTransport> t = CreateObject<FluidMessageTransport>();
    t->SetPacketTransport(CreateObject<UdpMessageTransport>());
    EXPECT_THROW(t->Install(capped), std::invalid_argument);
    EXPECT_EQ(t->GetCluster(), nullptr);
    EXPECT_EQ(TraceNames::PathOf(t), "");
    Ptr<FluidMessageTransport> fine = CreateObject<FluidMessageTransport>();
    fine->SetPacketTransport(CreateObject<UdpMessageTransport>());
    fine->Install(RelayCluster("none", Time(0)));
    EXPECT_NE(TraceNames::PathOf(fine), "");
}
