// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fabric without devices (FabricHelper::SetDataPath("none"), what --dataPath=auto
 * builds at the flow level): the graph of nodes and links the fluid reads. It has the
 * fast path's links, rates, delays, port buffers, addresses and routes and no device,
 * stack or forwarding object; flow-level runs on it give the fast path's results to the
 * bit (the same ECMP choices), with failed links too, tcp and dctcp runs the IPv4
 * path's and roce runs the fast path's with PFC and ECN marking (the fluid reads
 * neither); sending packets on it fails with one line; --dataPath=auto takes it only
 * at the flow level, without a flag that reads IPv4 or devices.
 */
#include "collective-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/ipv4.h"
#include "ns3/network-module.h"
#include "ns3/roce-message-transport.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::Coll;
using mlnettest::FatTree;
using mlnettest::RunOutcome;
using mlnettest::Torus;

namespace
{

class FlowGraphTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// The fabric as the fast path builds it, and as the flow level's auto builds it.
std::pair<Ptr<Cluster>, Ptr<Cluster>>
BuildBoth(FabricOptions f)
{
    f.dataPath = "fast";
    Ptr<Cluster> fast = f.Build();
    f.dataPath = "auto";
    f.level = RunLevel::FLOW;
    Ptr<Cluster> graph = f.Build();
    return {fast, graph};
}

RunOutcome
RunFlow(FabricOptions fabric, const std::string& dataPath, CollectiveRunOptions run)
{
    fabric.dataPath = dataPath;
    fabric.level = RunLevel::FLOW;
    fabric.transport = run.transport;
    Ptr<Cluster> cluster = fabric.Build();
    EXPECT_EQ(cluster->GetFabricSpec().dataPath, dataPath == "auto" ? "none" : dataPath);
    run.level = RunLevel::FLOW;
    return mlnettest::RunOn(cluster, run);
}

} // namespace

TEST_F(FlowGraphTest, HasTheFastPathsLinksBuffersAddressesAndRoutesAndNoDevice)
{
    for (const FabricOptions& f : {FatTree(16, 1.0), FatTree(32, 2.0), Torus("4x4")})
    {
        auto [fast, graph] = BuildBoth(f);
        const std::string what = f.Label();
        EXPECT_EQ(graph->GetFabricSpec().dataPath, "none") << what;
        ASSERT_EQ(graph->GetNRanks(), fast->GetNRanks()) << what;
        ASSERT_EQ(graph->GetLinks().size(), fast->GetLinks().size()) << what;
        // Built one after the other, the two fabrics' node ids differ by a constant.
        const uint32_t offset = graph->GetRankNode(0)->GetId() - fast->GetRankNode(0)->GetId();
        for (const ClusterLink& g : graph->GetLinks())
        {
            const ClusterLink& l = fast->GetLink(g.id);
            EXPECT_EQ(g.linkClass, l.linkClass) << what << " link " << g.id;
            EXPECT_EQ(g.nodeA, l.nodeA + offset) << what << " link " << g.id;
            EXPECT_EQ(g.nodeB, l.nodeB + offset) << what << " link " << g.id;
            EXPECT_FALSE(g.devA || g.devB) << what << " link " << g.id;
            for (bool aToB : {true, false})
            {
                EXPECT_EQ(graph->GetLinkRate(g.id, aToB), fast->GetLinkRate(g.id, aToB))
                    << what << " link " << g.id;
            }
            EXPECT_EQ(graph->GetLinkDelay(g.id), fast->GetLinkDelay(g.id)) << what;
        }
        // The bytes each port queues, as the fluid reads them (devices' queues on fast).
        Ptr<AlphaBetaModel> fastModel = CreateObject<AlphaBetaModel>();
        fastModel->SetCluster(fast);
        Ptr<AlphaBetaModel> graphModel = CreateObject<AlphaBetaModel>();
        graphModel->SetCluster(graph);
        const std::vector<double> buffers = fastModel->GetLinkBuffers();
        EXPECT_EQ(graphModel->GetLinkBuffers(), buffers) << what;
        EXPECT_GT(*std::min_element(buffers.begin(), buffers.end()), 9000.0) << what;

        NodeContainer nodes = graph->GetAllNodes();
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            Ptr<Node> n = nodes.Get(i);
            EXPECT_EQ(n->GetNDevices(), 0u) << what << " node " << n->GetId();
            EXPECT_FALSE(n->GetObject<Ipv4>()) << what;
            EXPECT_FALSE(n->GetObject<FastForwarding>()) << what;
        }
        // Same addresses, so the same flow keys (the same hash choices: the runs below).
        for (uint32_t r = 0; r < graph->GetNRanks(); ++r)
        {
            EXPECT_EQ(graph->GetRankAddress(r), fast->GetRankAddress(r)) << what;
        }
        Simulator::Destroy();
    }
}

TEST_F(FlowGraphTest, FlowLevelRunsGiveTheFastPathsResultsToTheBit)
{
    FabricOptions failed = FatTree(16, 1.0);
    failed.failLinks = 2;
    for (const auto& [f, run] : {std::pair{FatTree(16, 1.0), Coll("allreduce", "ring", "1MiB")},
                                 std::pair{FatTree(32, 2.0), Coll("alltoall", "direct", "64KiB")},
                                 std::pair{Torus("4x4"), Coll("allreduce", "torus", "256KiB")},
                                 std::pair{failed, Coll("alltoall", "pairwise", "256KiB")}})
    {
        const std::string what = f.Label() + " " + run.collective + "/" + run.algorithm;
        RunOutcome fast = RunFlow(f, "fast", run);
        RunOutcome graph = RunFlow(f, "auto", run);
        ASSERT_GT(fast.simulatedS, 0) << what;
        EXPECT_EQ(graph.simulatedS, fast.simulatedS) << what;
        EXPECT_EQ(graph.perLink, fast.perLink) << what << ": path choices differ";
        // Fewer: no node has a device or forwarding object to start.
        EXPECT_LE(graph.events, fast.events) << what;
    }
}

TEST_F(FlowGraphTest, OtherTransportsFlowLevelRunsGiveTheirDevicePathsResultsToTheBit)
{
    // tcp and dctcp: max-min sharing over the even ECMP split, with the IPv4 path's
    // segments; dctcp's switches mark ECN there. roce: the fast path with PFC and
    // ECN marking, its frames. The graph has neither marking nor PFC.
    FabricOptions failed = FatTree(16, 1.0);
    failed.failLinks = 1;
    for (const auto& [transport, devices] :
         {std::pair{"tcp", "ipv4"}, std::pair{"dctcp", "ipv4"}, std::pair{"roce", "fast"}})
    {
        for (const auto& [f, coll] :
             {std::pair{FatTree(16, 1.0), Coll("allreduce", "ring", "1MiB")},
              std::pair{FatTree(32, 2.0), Coll("alltoall", "direct", "64KiB")},
              std::pair{failed, Coll("alltoall", "pairwise", "256KiB")}})
        {
            CollectiveRunOptions run = coll;
            run.transport = transport;
            const std::string what =
                f.Label() + " " + transport + " " + run.collective + "/" + run.algorithm;
            FabricOptions onDevices = f;
            onDevices.transport = transport;
            onDevices.dataPath = devices;
            const FabricRequest request = onDevices.Request();
            EXPECT_EQ(request.ecn, std::string(transport) != "tcp") << what;
            EXPECT_EQ(request.pfc, std::string(transport) == "roce") << what;
            RunOutcome withDevices = RunFlow(f, devices, run);
            RunOutcome graph = RunFlow(f, "auto", run);
            ASSERT_GT(withDevices.simulatedS, 0) << what;
            EXPECT_EQ(graph.simulatedS, withDevices.simulatedS) << what;
            EXPECT_EQ(graph.perLink, withDevices.perLink) << what;
            EXPECT_LE(graph.events, withDevices.events) << what;
        }
    }
}

TEST_F(FlowGraphTest, SendingPacketsOnItFailsWithOneLine)
{
    FabricOptions f = FatTree(8, 1.0);
    f.level = RunLevel::FLOW;
    Ptr<Cluster> graph = f.Build();
    ASSERT_EQ(graph->GetFabricSpec().dataPath, "none");
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(graph); // what FluidMessageTransport asks of it: packets and flow keys
    EXPECT_GT(udp->GetMaxPayload(), 8000u);
    Ptr<TcpMessageTransport> tcp = CreateObject<TcpMessageTransport>();
    tcp->Install(graph);
    EXPECT_EQ(tcp->GetMaxPayload(), graph->GetFabricSpec().mtu - 52); // IPv4 + TCP options
    Ptr<RoceMessageTransport> roce = CreateObject<RoceMessageTransport>();
    roce->Install(graph);
    EXPECT_EQ(roce->GetMaxPayload(), udp->GetMaxPayload());
    for (Ptr<MessageTransport> transport :
         {Ptr<MessageTransport>(udp), Ptr<MessageTransport>(tcp), Ptr<MessageTransport>(roce)})
    {
        try
        {
            transport->Send(0, 1, 0, 0, 1000, nullptr);
            FAIL() << "a send on a fabric without devices went through";
        }
        catch (const std::invalid_argument& e)
        {
            const std::string message = e.what();
            EXPECT_NE(message.find("no devices"), std::string::npos) << message;
            EXPECT_NE(message.find("--level=flow"), std::string::npos) << message;
            EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        }
    }
}

TEST_F(FlowGraphTest, AutoTakesItAtTheFlowLevelWithoutFlagsThatReadDevices)
{
    const RunLevel flow = RunLevel::FLOW;
    const RunLevel packet = RunLevel::PACKET;
    EXPECT_EQ(DataPathChoice::Resolve("auto", "udp", {}, flow, {}), "none");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "udp", {}, packet, {}), "fast");
    EXPECT_EQ(DataPathChoice::Resolve("fast", "udp", {}, flow, {}), "fast");
    EXPECT_EQ(DataPathChoice::Resolve("ipv4", "udp", {}, flow, {}), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "udp", {}, flow, {"--pcap"}), "fast");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "udp", {"--flowmon"}, flow, {}), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "tcp", {}, flow, {}), "none");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "tcp", {}, packet, {}), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "dctcp", {}, flow, {}), "none");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "dctcp", {}, packet, {}), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "udp", {"--ecn"}, flow, {}), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "roce", {}, flow, {}), "none");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "roce", {}, packet, {}), "fast");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "roce", {}, flow, {"--pfc"}), "fast");

    // What roce implies is left off on the graph (ECN marking) or recorded there (PFC:
    // the fluid's full ports hold back); asked for, it keeps the devices.
    FabricOptions roce = FatTree(8, 1.0);
    roce.level = flow;
    roce.transport = "roce";
    FabricRequest implied = roce.Request();
    EXPECT_EQ(implied.dataPath, "none");
    EXPECT_TRUE(implied.pfc);
    EXPECT_TRUE(roce.Build()->GetFabricSpec().lossless);
    EXPECT_FALSE(implied.ecn);
    roce.pfc = roce.pfcGiven = true;
    EXPECT_EQ(roce.Request().dataPath, "fast");
    EXPECT_TRUE(roce.Request().pfc);
    roce.pfc = roce.pfcGiven = false;
    roce.ecn = roce.ecnGiven = true;
    EXPECT_EQ(roce.Request().dataPath, "fast");
    EXPECT_TRUE(roce.Request().ecn);
    FabricOptions udpPfc = FatTree(8, 1.0);
    udpPfc.level = flow;
    udpPfc.pfc = udpPfc.pfcGiven = true;
    EXPECT_EQ(udpPfc.Request().dataPath, "fast");

    FabricOptions withPcap = FatTree(8, 1.0);
    withPcap.level = flow;
    withPcap.traces.pcap = "unused";
    EXPECT_EQ(withPcap.Request().dataPath, "fast");
    withPcap.traces.pcap.clear();
    withPcap.traces.monitors.linkMonitor = "unused.csv";
    EXPECT_EQ(withPcap.Request().dataPath, "fast");
}

TEST_F(FlowGraphTest, EcnOnAFabricWithoutDevicesFailsNamingTheFlags)
{
    FabricRequest request;
    request.fabric = "fattree";
    request.ranks = 8;
    request.dataPath = "none";
    request.ecn = true;
    try
    {
        FabricRegistry::Build(request);
        FAIL() << "ECN on a fabric without devices was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string message = e.what();
        EXPECT_NE(message.find("--ecn"), std::string::npos) << message;
        EXPECT_NE(message.find("--dataPath"), std::string::npos) << message;
    }
}
