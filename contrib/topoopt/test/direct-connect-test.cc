// SPDX-License-Identifier: GPL-2.0-only
/*
 * DirectConnectHelper: TopoOpt fabrics as mlnet Clusters. A ring all-reduce over
 * UDP on a TopologyFinder plan matches the alpha-beta twin; host relays add
 * exactly their latency and cap; parallel circuits stay separate links; the link
 * registry and routes follow a reconfiguration; bad input throws.
 */
#include "mlnet-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/core-module.h"
#include "ns3/direct-connect-fabric.h"
#include "ns3/direct-connect-helper.h"
#include "ns3/fabric-registry.h"
#include "ns3/host-forwarding-routing.h"
#include "ns3/internet-module.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/route-planner.h"
#include "ns3/topology-finder.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <set>

using namespace ns3;
using namespace mlnettest;

namespace
{

class DirectConnectTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// Ring 0-1-2-3-0 over two planes: plane 0 = (0,1),(2,3); plane 1 = (1,2),(0,3).
    static TopologyPlan Ring4()
    {
        TopologyPlan plan(4, 2);
        plan.AddCircuit(0, 0, 1);
        plan.AddCircuit(0, 2, 3);
        plan.AddCircuit(1, 1, 2);
        plan.AddCircuit(1, 0, 3);
        return plan;
    }

    /// Send one UDP datagram of `bytes` from rank a to rank b at `at`; return its arrival.
    Time OneDatagram(Ptr<Cluster> cluster, uint32_t a, uint32_t b, uint32_t bytes, Time at)
    {
        Ptr<Socket> rx =
            Socket::CreateSocket(cluster->GetRankNode(b), UdpSocketFactory::GetTypeId());
        rx->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
        Time arrival(-1);
        rx->SetRecvCallback(MakeCallback(+[](Time* t, Ptr<Socket> s) {
                                while (s->Recv())
                                {
                                    *t = Simulator::Now();
                                }
                            }).Bind(&arrival));
        Ptr<Socket> tx =
            Socket::CreateSocket(cluster->GetRankNode(a), UdpSocketFactory::GetTypeId());
        tx->Connect(InetSocketAddress(cluster->GetRankAddress(b), 9));
        Simulator::Schedule(at, [tx, bytes]() { tx->Send(Create<Packet>(bytes)); });
        Simulator::Run();
        return arrival;
    }
};

TEST_F(DirectConnectTest, RingAllReduceOnFinderPlanMatchesTheTwin)
{
    // n = 8, d = 4, one all-reduce group spanning all servers: the finder gives two
    // bidirectional rings (four directed jumps), each hop a circuit.
    const uint32_t n = 8;
    Ptr<TopologyFinder> finder = CreateObject<TopologyFinder>();
    finder->SetAttribute("Degree", UintegerValue(4));
    finder->AssignStreams(1);
    TopologyPlan plan = finder->Find(n, {{n, 1e6}}, Eigen::MatrixXd());
    ASSERT_FALSE(plan.GetRings().empty());
    std::vector<std::vector<uint32_t>> orders;
    for (const auto& ring : plan.GetRings())
    {
        ASSERT_EQ(ring.size, n);
        for (uint32_t j : ring.jumps)
        {
            std::vector<uint32_t> order;
            for (uint32_t k = 0; k < n; ++k)
            {
                order.push_back(k * j % n);
            }
            orders.push_back(order);
        }
    }
    DirectConnectHelper helper(plan);
    helper.SetLinkRate(DataRate("100Gbps"));
    helper.SetLinkDelay(MicroSeconds(1));
    Ptr<Cluster> cluster = helper.Install();
    EXPECT_EQ(cluster->GetLinks().size(), n * 4 / 2);
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    Ptr<RingAllReduce> c = CreateObject<RingAllReduce>();
    c->SetRings(orders);
    const uint32_t len = 200000; // 800 kB of floats
    std::vector<uint32_t> ranks(n);
    std::iota(ranks.begin(), ranks.end(), 0);
    c->Setup(udp, ranks, 4ull * len);
    Eigen::VectorXf sum = Eigen::VectorXf::Zero(len);
    for (uint32_t m = 0; m < n; ++m)
    {
        Eigen::VectorXf v(len);
        for (uint32_t j = 0; j < len; ++j)
        {
            v[j] = static_cast<float>((j * 7 + m * 13) % 41) - 20.0f;
        }
        c->SetInput(m, v);
        sum += v;
    }
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetPacketization(udp);
    model->SetCluster(cluster);
    Time predicted = model->Predict(c);
    c->Start();
    Simulator::Run();
    ASSERT_TRUE(c->IsDone());
    for (uint32_t m = 0; m < n; ++m)
    {
        EXPECT_EQ(c->GetOutput(m), sum) << "member " << m;
    }
    EXPECT_EQ(udp->GetRetransmissions(), 0u);
    Time sim = c->GetDuration();
    double error = (sim - predicted).GetSeconds() / sim.GetSeconds();
    std::cout << "ring all-reduce, " << orders.size() << " rings, 8 servers x 4 x 100G, 800 kB: "
              << "ns-3 " << sim.As(Time::US) << ", alpha-beta " << predicted.As(Time::US)
              << ", error " << error * 100 << " %" << std::endl;
    EXPECT_LT(std::abs(error), 0.05);
    EXPECT_GT(cluster->GetBytesByLinkClass()["ocs"], 2ull * 7 * 4 * len * n / 8);
    // Every hop of every ring is a circuit: nothing was relayed.
    for (uint32_t r = 0; r < n; ++r)
    {
        auto routing = DynamicCast<HostForwardingRouting>(
            cluster->GetRankNode(r)->GetObject<Ipv4>()->GetRoutingProtocol());
        ASSERT_TRUE(routing);
        EXPECT_EQ(routing->GetRelayedPackets(), 0u);
    }
}

TEST_F(DirectConnectTest, HostRelayAddsLatencyAndCap)
{
    // Rank 0 -> rank 2 is two hops on the 4-ring; rank 1 or 3 relays. One hop costs
    // (L3 bytes + 2) * 8 / R + d; the relay adds its latency, and with a cap, the
    // IP packet's time through the relay engine (IP bytes * 8 / cap).
    const uint32_t payload = 1000;
    const uint32_t ip = payload + 8 + 20;
    const DataRate rate("10Gbps");
    const Time delay = MicroSeconds(1);
    const Time hop = rate.CalculateBytesTxTime(ip + 2) + delay;
    const Time at = MicroSeconds(5);

    struct Case
    {
        Time latency;
        DataRate cap;
        Time expected;
    };

    const DataRate cap("1Gbps");
    for (const Case& k :
         {Case{Time(0), DataRate(0), 2 * hop},
          Case{MicroSeconds(3), DataRate(0), 2 * hop + MicroSeconds(3)},
          Case{MicroSeconds(3), cap, 2 * hop + MicroSeconds(3) + cap.CalculateBytesTxTime(ip)}})
    {
        DirectConnectHelper helper(Ring4());
        helper.SetLinkRate(rate);
        helper.SetLinkDelay(delay);
        helper.SetForwardingLatency(k.latency);
        helper.SetForwardingRate(k.cap);
        Ptr<Cluster> cluster = helper.Install();
        EXPECT_EQ(OneDatagram(cluster, 0, 2, payload, at), at + k.expected)
            << "latency " << k.latency << " cap " << k.cap;
        Simulator::Destroy();
    }
}

TEST_F(DirectConnectTest, ParallelCircuitsStaySeparateLinks)
{
    // Planes 0 and 1 both join 0-1 and 2-3; plane 2 joins 1-2 and 0-3.
    TopologyPlan plan(4, 3);
    for (uint32_t p : {0u, 1u})
    {
        plan.AddCircuit(p, 0, 1);
        plan.AddCircuit(p, 2, 3);
    }
    plan.AddCircuit(2, 1, 2);
    plan.AddCircuit(2, 0, 3);
    DirectConnectHelper helper(plan);
    Ptr<Cluster> cluster = helper.Install();
    ASSERT_EQ(cluster->GetLinks().size(), 6u);
    std::set<PointToPointNetDevice*> devices;
    uint32_t between01 = 0;
    uint32_t n0 = cluster->GetRankNode(0)->GetId();
    uint32_t n1 = cluster->GetRankNode(1)->GetId();
    for (const auto& l : cluster->GetLinks())
    {
        EXPECT_EQ(l.linkClass, "ocs");
        devices.insert(PeekPointer(l.devA));
        devices.insert(PeekPointer(l.devB));
        between01 += (l.nodeA == n0 && l.nodeB == n1) || (l.nodeA == n1 && l.nodeB == n0);
    }
    EXPECT_EQ(devices.size(), 12u); // every circuit has its own two ports
    EXPECT_EQ(between01, 2u);
    EXPECT_EQ(cluster->GetInjectionRate(0).GetBitRate(), 3 * helper.GetLinkRate().GetBitRate());
    RoutePlanner planner(cluster);
    planner.Compute();
    EXPECT_EQ(planner.NextLinks(n0, 1).size(), 2u); // both circuits carry 0 -> 1
}

TEST_F(DirectConnectTest, RegistryAndRoutesFollowReconfiguration)
{
    DirectConnectHelper helper(Ring4());
    helper.SetLinkRate(DataRate("10Gbps"));
    helper.SetOcsAttribute("ReconfigurationDelay", TimeValue(MicroSeconds(5)));
    Ptr<Cluster> cluster = helper.Install();
    Ptr<DirectConnectFabric> fabric = cluster->GetObject<DirectConnectFabric>();
    ASSERT_TRUE(fabric);
    {
        RoutePlanner p(cluster);
        p.Compute();
        EXPECT_EQ(p.Hops(0, 2), 2u);
    }
    int64_t old01 = fabric->GetLinkOfPort(0, 0);
    ASSERT_GE(old01, 0);
    // Plane 0: (0,1),(2,3) -> (0,2),(1,3) at 1 us, dark until 6 us.
    Simulator::Schedule(MicroSeconds(1),
                        &DirectConnectFabric::Reconfigure,
                        fabric,
                        0u,
                        OpticalCircuitSwitch::Matching{{0, 2}, {1, 3}});
    Simulator::Schedule(MicroSeconds(3), [cluster, fabric, old01]() {
        EXPECT_TRUE(cluster->GetLink(old01).failed);
        EXPECT_TRUE(cluster->GetLink(old01).detached);
        EXPECT_EQ(fabric->GetLinkOfPort(0, 0), -1);
        EXPECT_TRUE(fabric->GetPlane(0)->IsDark(0));
    });
    // After the circuits are up a datagram 0 -> 2 takes the new circuit: one hop.
    const Time at = MicroSeconds(10);
    Time arrival = OneDatagram(cluster, 0, 2, 1000, at);
    EXPECT_EQ(arrival,
              at + DataRate("10Gbps").CalculateBytesTxTime(1000 + 28 + 2) + helper.GetLinkDelay());
    ASSERT_EQ(cluster->GetLinks().size(), 6u);
    int64_t new02 = fabric->GetLinkOfPort(0, 0);
    ASSERT_GE(new02, 4);
    EXPECT_EQ(fabric->GetLinkOfPort(0, 2), new02);
    EXPECT_FALSE(cluster->GetLink(new02).failed);
    EXPECT_EQ(cluster->GetLink(new02).packetsAtoB, 1u);
    EXPECT_EQ(cluster->GetLink(old01).packetsAtoB + cluster->GetLink(old01).packetsBtoA, 0u);
    RoutePlanner p(cluster);
    p.Compute();
    EXPECT_EQ(p.Hops(0, 2), 1u);
    EXPECT_EQ(p.Hops(0, 1), 2u);
    EXPECT_GE(fabric->GetRouteInstalls(), 1u);

    // Back to the first matching: the old circuits get their old links back.
    fabric->Reconfigure(0, {{0, 1}, {2, 3}});
    Simulator::Run();
    EXPECT_EQ(cluster->GetLinks().size(), 6u);
    EXPECT_EQ(fabric->GetLinkOfPort(0, 0), old01);
    EXPECT_FALSE(cluster->GetLink(old01).failed);
    EXPECT_TRUE(cluster->GetLink(new02).failed);
    EXPECT_EQ(fabric->GetPlane(0)->GetDarkTime(0), MicroSeconds(10));
}

TEST_F(DirectConnectTest, BadInputThrows)
{
    auto throwsWith = [](DirectConnectHelper& h, const std::string& words) {
        try
        {
            h.Install();
            ADD_FAILURE() << "no exception; expected: " << words;
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    {
        DirectConnectHelper h(Ring4());
        h.SetPortsPerServer(1);
        throwsWith(h, "degree 2 is larger than the 1 ports per server");
    }
    {
        DirectConnectHelper h(Ring4());
        h.SetOcsAttribute("PortCount", UintegerValue(3));
        throwsWith(h, "servers 0..3 but plane 0 has only 3 ports");
    }
    {
        DirectConnectHelper h(Ring4());
        h.SetOcsAttribute("InsertionLossDb", DoubleValue(20));
        throwsWith(h, "infeasible power budget");
    }
    {
        DirectConnectHelper h;
        throwsWith(h, "no plan");
    }
    {
        TopologyPlan disconnected(4, 1);
        disconnected.AddCircuit(0, 0, 1);
        disconnected.AddCircuit(0, 2, 3);
        DirectConnectHelper h(disconnected);
        throwsWith(h, "cannot be reached");
    }
    EXPECT_THROW(TopologyPlan::FromJson(R"({"format": "topoopt-plan", "version": 1,
        "servers": 4, "degree": 1, "planes": [[[0, 7]]]})"),
                 std::invalid_argument);
    DirectConnectHelper h(Ring4());
    Ptr<DirectConnectFabric> fabric = h.Install()->GetObject<DirectConnectFabric>();
    EXPECT_THROW(fabric->Reconfigure(0, {{0, 7}}), std::invalid_argument);
    EXPECT_THROW(fabric->Reconfigure(2, {{0, 1}}), std::invalid_argument);
    EXPECT_THROW(fabric->ApplyPlan(TopologyPlan(4, 3)), std::invalid_argument);
}

} // namespace

// The direct-connect fabrics by name (FabricRegistry): topoopt over a given plan, the
// expander over a random regular plan of the request's degree; no plan, no fabric.
TEST(DirectConnectRegistryTest, DirectConnectFabricsAreBuiltByName)
{
    FabricRequest r;
    r.fabric = "topoopt";
    r.ranks = 8;
    r.degree = 2;
    EXPECT_THROW(FabricRegistry::Build(r), std::invalid_argument); // no plan
    Ptr<TopologyFinder> finder = CreateObject<TopologyFinder>();
    finder->SetAttribute("Degree", UintegerValue(2));
    finder->AssignStreams(1);
    TopologyPlan plan = finder->Find(8, {{8, 1e6}}, Eigen::MatrixXd());
    r.plan = plan;
    r.opticalAttributes = {{"Technology", "patch-panel"}};
    Ptr<Cluster> c = FabricRegistry::Build(r);
    EXPECT_EQ(c->GetNRanks(), 8u);
    size_t circuits = 0;
    for (uint32_t p = 0; p < plan.GetDegree(); ++p)
    {
        circuits += plan.GetCircuits(p).size();
    }
    EXPECT_EQ(c->GetLinks().size(), circuits); // one link per circuit
    Simulator::Destroy();

    r.fabric = "expander";
    std::shared_ptr<FabricHelper> helper;
    c = FabricRegistry::Build(r, &helper);
    auto dc = std::dynamic_pointer_cast<DirectConnectHelper>(helper);
    ASSERT_TRUE(dc);
    EXPECT_EQ(dc->GetPlan().GetServers(), 8u);
    EXPECT_EQ(dc->GetPlan().GetDegree(), 2u);
    EXPECT_EQ(c->GetNRanks(), 8u);
    Simulator::Destroy();
}

// topoopt.md's table: OCS planes by name, the fabric aggregated to the named cluster,
// each host's relaying routing protocol by node id.
TEST_F(DirectConnectTest, TracesAreReachableByConfigPath)
{
    g_traceCalls.clear();
    DirectConnectHelper helper(Ring4());
    helper.SetOcsAttribute("ReconfigurationDelay", TimeValue(MicroSeconds(5)));
    Ptr<Cluster> cluster = helper.Install();
    Ptr<DirectConnectFabric> fabric = cluster->GetObject<DirectConnectFabric>();
    Config::Connect("/Names/OpticalCircuitSwitch/ReconfigurationStart",
                    MakeCallback(&CountTraceCall<uint32_t, const std::vector<uint32_t>&>));
    Config::Connect("/Names/OpticalCircuitSwitch-2/ReconfigurationStart",
                    MakeCallback(&CountTraceCall<uint32_t, const std::vector<uint32_t>&>));
    Config::Connect("/Names/Cluster/$ns3::DirectConnectFabric/RoutesInstalled",
                    MakeCallback(&CountTraceCall<uint32_t>));
    for (uint32_t r = 0; r < 4; ++r)
    {
        Config::Connect("/Names/Routing-" + std::to_string(cluster->GetRankNode(r)->GetId()) +
                            "/Relay",
                        MakeCallback(&CountTraceCall<Ptr<const Packet>, Time>));
    }
    // Rank 0 -> rank 2 is two hops: rank 1 or rank 3 relays the datagram once.
    OneDatagram(cluster, 0, 2, 1000, MicroSeconds(1));
    uint32_t relays = 0;
    for (const auto& [context, n] : g_traceCalls)
    {
        if (context.find("/Relay") != std::string::npos)
        {
            EXPECT_TRUE(context == "/Names/Routing-" +
                                       std::to_string(cluster->GetRankNode(1)->GetId()) +
                                       "/Relay" ||
                        context == "/Names/Routing-" +
                                       std::to_string(cluster->GetRankNode(3)->GetId()) + "/Relay")
                << context;
            relays += n;
        }
    }
    EXPECT_EQ(relays, 1u);
    // Reconfiguring plane 1 (the second OCS) starts it and reinstalls routes.
    fabric->Reconfigure(1, {{0, 2}, {1, 3}});
    Simulator::Run();
    EXPECT_EQ(g_traceCalls["/Names/OpticalCircuitSwitch-2/ReconfigurationStart"], 1u);
    EXPECT_EQ(g_traceCalls.count("/Names/OpticalCircuitSwitch/ReconfigurationStart"), 0u);
    EXPECT_GE(g_traceCalls["/Names/Cluster/$ns3::DirectConnectFabric/RoutesInstalled"], 1u);
}
