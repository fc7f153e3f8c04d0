// SPDX-License-Identifier: GPL-2.0-only
// Fabric helpers and flow-hash routing: timing from first principles, route
// shapes, ECMP spreading, failures and bad input.
#include "ns3/core-module.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/graph-fabric-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/node-list.h"
#include "ns3/route-planner.h"
#include "ns3/socket.h"
#include "ns3/torus-helper.h"
#include "ns3/udp-socket-factory.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace ns3;

namespace
{

const DataRate kRate("100Gbps");
const Time kDelay = MicroSeconds(1);

/// Serialization time of `bytes` at the test link rate.
Time
Tx(uint32_t bytes)
{
    return kRate.CalculateBytesTxTime(bytes);
}

class FabricTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        m_sockets.clear();
        Simulator::Destroy();
    }

    /// Open a UDP receiver on rank `rank`, port `port`, recording arrival times.
    void Listen(Ptr<Cluster> c, uint32_t rank, uint16_t port)
    {
        Ptr<Socket> s = Socket::CreateSocket(c->GetRankNode(rank), UdpSocketFactory::GetTypeId());
        s->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        s->SetRecvCallback(MakeCallback(&FabricTest::Received, this));
        m_sockets.push_back(s);
    }

    /// Send `count` datagrams of `payload` bytes from `src` to `dst` at `at`.
    void SendAt(Ptr<Cluster> c,
                uint32_t src,
                uint32_t dst,
                uint16_t srcPort,
                uint16_t dstPort,
                uint32_t payload,
                uint32_t count,
                Time at)
    {
        Ptr<Socket> s = Socket::CreateSocket(c->GetRankNode(src), UdpSocketFactory::GetTypeId());
        s->Bind(InetSocketAddress(Ipv4Address::GetAny(), srcPort));
        s->Connect(InetSocketAddress(c->GetRankAddress(dst), dstPort));
        m_sockets.push_back(s);
        Simulator::Schedule(at, [s, payload, count]() {
            for (uint32_t i = 0; i < count; ++i)
            {
                s->Send(Create<Packet>(payload));
            }
        });
    }

    void Received(Ptr<Socket> s)
    {
        while (Ptr<Packet> p = s->Recv())
        {
            m_arrivals.push_back(Simulator::Now());
            m_bytes += p->GetSize();
        }
    }

    std::vector<Ptr<Socket>> m_sockets;
    std::vector<Time> m_arrivals;
    uint64_t m_bytes{0};
};

} // namespace

// One 9000-byte IP packet on one 100 Gb/s, 1 us link:
// arrival = (9000 + 2 PPP) * 8 / 100e9 + 1 us = 720.16 ns + 1000 ns.
TEST_F(FabricTest, OnePacketOneLinkTimesExactly)
{
    GraphFabricHelper graph;
    graph.SetJson(R"({"ranks": 2, "links": [["r0", "r1"]]})");
    Ptr<Cluster> c = graph.Install();
    Listen(c, 1, 7);
    SendAt(c, 0, 1, 5000, 7, 9000 - 28, 1, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(m_arrivals.size(), 1u);
    EXPECT_EQ(m_arrivals[0], Tx(9002) + kDelay);
    EXPECT_EQ(m_arrivals[0], PicoSeconds(1720160));
    EXPECT_EQ(c->GetLink(0).bytesAtoB, 9002u);
}

// A train of n full packets over h store-and-forward hops: the last arrives at
// n*F/R + (h-1)*F/R + h*d.
TEST_F(FabricTest, PacketTrainOverTwoHops)
{
    IdealSwitchHelper star(4);
    Ptr<Cluster> c = star.Install();
    Listen(c, 3, 7);
    const uint32_t n = 10;
    SendAt(c, 0, 3, 5000, 7, 8972, n, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(m_arrivals.size(), n);
    EXPECT_EQ(m_arrivals.back(), Tx(9002) * n + Tx(9002) * 1 + kDelay * 2);
    // Bytes conserved: n frames on the uplink and n on the downlink, nothing else.
    EXPECT_EQ(c->GetTotalLinkBytes(), 2ull * n * 9002);
    EXPECT_EQ(c->GetBytesByLinkClass().at("host-tor"), 2ull * n * 9002);
}

// Cross-ToR on a 2-tier fat-tree is 4 hops: host-tor-spine-tor-host.
TEST_F(FabricTest, FatTreeCrossTorIsFourHops)
{
    FatTreeHelper ft(8); // radix 4 chosen: 2 hosts/ToR, 4 ToRs, 2 spines
    Ptr<Cluster> c = ft.Install();
    EXPECT_EQ(c->GetFabricSpec().radix, 4u);
    EXPECT_EQ(c->GetFabricSpec().ranksPerTor, 2u);
    EXPECT_EQ(c->GetSwitchNodes().GetN(), 6u);
    RoutePlanner planner(c);
    planner.Compute();
    EXPECT_EQ(planner.Hops(0, 1), 2u);
    EXPECT_EQ(planner.Hops(0, 7), 4u);
    Listen(c, 7, 7);
    SendAt(c, 0, 7, 5000, 7, 8972, 1, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(m_arrivals.size(), 1u);
    EXPECT_EQ(m_arrivals[0], (Tx(9002) + kDelay) * 4);
    auto bytes = c->GetBytesByLinkClass();
    EXPECT_EQ(bytes["host-tor"], 2u * 9002);
    EXPECT_EQ(bytes["tor-agg"], 2u * 9002);
}

// A node's neighbours are the far ends of its links: a host sees its ToR, a ToR its two
// hosts and the two spines; the relation is symmetric, and the list is appended to.
TEST_F(FabricTest, NeighboursAreTheFarEndsOfANodesLinks)
{
    FatTreeHelper ft(8); // radix 4: 2 hosts/ToR, 4 ToRs, 2 spines
    Ptr<Cluster> c = ft.Install();
    const uint32_t host0 = c->GetRankNode(0)->GetId();
    std::vector<uint32_t> hostSees{UINT32_MAX};
    c->AppendNeighbours(host0, hostSees);
    ASSERT_EQ(hostSees.size(), 2u);
    EXPECT_EQ(hostSees[0], UINT32_MAX); // appended, not cleared
    const uint32_t tor = hostSees[1];
    EXPECT_EQ(c->GetRankOfNode(tor), UINT32_MAX);
    std::vector<uint32_t> torSees;
    c->AppendNeighbours(tor, torSees);
    std::multiset<uint32_t> ranks;
    uint32_t switches = 0;
    for (uint32_t v : torSees)
    {
        const uint32_t rank = c->GetRankOfNode(v);
        if (rank == UINT32_MAX)
        {
            ++switches;
        }
        else
        {
            ranks.insert(rank);
        }
    }
    EXPECT_EQ(ranks, (std::multiset<uint32_t>{0, 1}));
    EXPECT_EQ(switches, 2u);
    for (const ClusterLink& l : c->GetLinks())
    {
        EXPECT_EQ(l.Peer(l.nodeA), l.nodeB);
        EXPECT_EQ(l.Peer(l.nodeB), l.nodeA);
        for (uint32_t end : {l.nodeA, l.nodeB})
        {
            std::vector<uint32_t> seen;
            c->AppendNeighbours(l.Peer(end), seen);
            EXPECT_EQ(std::count(seen.begin(), seen.end(), end), 1) << "link " << l.id;
        }
    }
}

// Three tiers: k = 4 gives pods of 2 ToRs x 2 hosts; cross-pod is 6 hops.
TEST_F(FabricTest, ThreeTierShapeAndHops)
{
    FatTreeHelper ft(16);
    ft.SetTiers(3);
    ft.SetRadix(4);
    Ptr<Cluster> c = ft.Install();
    // 8 ToRs, 4 pods x 2 aggs, 2 x 2 cores
    EXPECT_EQ(c->GetSwitchNodes().GetN(), 8u + 8u + 4u);
    RoutePlanner planner(c);
    planner.Compute();
    EXPECT_EQ(planner.Hops(0, 1), 2u);
    EXPECT_EQ(planner.Hops(0, 2), 4u);
    EXPECT_EQ(planner.Hops(0, 15), 6u);
    auto bytes = c->GetBytesByLinkClass();
    EXPECT_EQ(bytes.count("agg-core"), 1u);
}

// Flow-hash ECMP: every packet of a flow takes one path; different flows spread.
TEST_F(FabricTest, FlowHashKeepsFlowsOnOnePathAndSpreads)
{
    FatTreeHelper ft(8);
    Ptr<Cluster> c = ft.Install();
    Listen(c, 7, 7);
    const uint32_t flows = 32;
    for (uint32_t f = 0; f < flows; ++f)
    {
        SendAt(c, 0, 7, 6000 + f, 7, 1000, 4, MicroSeconds(10 * f));
    }
    Simulator::Run();
    EXPECT_EQ(m_arrivals.size(), flows * 4);
    // The two uplinks of ToR 0 both carried traffic, and every flow's 4 packets
    // were counted on one uplink only (per-link packet counts are multiples of 4).
    uint32_t used = 0;
    for (const auto& l : c->GetLinks())
    {
        if (l.linkClass == "tor-agg" && l.packetsAtoB > 0 &&
            l.nodeA == c->GetSwitchNodes().Get(0)->GetId())
        {
            ++used;
            EXPECT_EQ(l.packetsAtoB % 4, 0u);
        }
    }
    EXPECT_EQ(used, 2u);
    // Same choice when asked directly: the table is deterministic.
    auto r = DynamicCast<FlowHashRouting>(
        c->GetSwitchNodes().Get(0)->GetObject<Ipv4>()->GetRoutingProtocol());
    EXPECT_EQ(r->GetInterfaces(7).size(), 2u);
    uint32_t i1 = r->SelectInterface(7, c->GetRankAddress(0), c->GetRankAddress(7), 17, 6000, 7);
    uint32_t i2 = r->SelectInterface(7, c->GetRankAddress(0), c->GetRankAddress(7), 17, 6000, 7);
    EXPECT_EQ(i1, i2);
}

// Dimension-order routing on a 4x4 torus: hops are ring distances summed.
TEST_F(FabricTest, TorusDimensionOrderHops)
{
    TorusHelper torus({4, 4});
    Ptr<Cluster> c = torus.Install();
    EXPECT_EQ(c->GetLinks().size(), 32u); // 2 links per node
    RoutePlanner planner(c);
    planner.Compute();
    EXPECT_EQ(planner.Hops(0, 1), 1u);
    EXPECT_EQ(planner.Hops(0, 3), 1u);  // wraparound
    EXPECT_EQ(planner.Hops(0, 10), 4u); // (2,2)
    EXPECT_EQ(planner.Hops(0, 15), 2u); // (3,3) = (-1,-1)
    // X first: from 0 towards (1,1)=5 the first hop is to (1,0)=1.
    const auto& next = planner.NextLinks(c->GetRankNode(0)->GetId(), 5);
    ASSERT_EQ(next.size(), 1u);
    const ClusterLink& l = c->GetLink(next[0]);
    EXPECT_TRUE(l.nodeA == c->GetRankNode(1)->GetId() || l.nodeB == c->GetRankNode(1)->GetId());
    // Mesh: no wraparound, 0 -> 3 is 3 hops.
    TorusHelper mesh({4, 4});
    mesh.SetWrap(false);
    Ptr<Cluster> m = mesh.Install();
    EXPECT_EQ(m->GetLinks().size(), 24u);
    RoutePlanner mp(m);
    mp.Compute();
    EXPECT_EQ(mp.Hops(0, 3), 3u);
}

// A failed link is avoided: traffic still arrives, taking a longer path.
TEST_F(FabricTest, FailedTorusLinkIsRoutedAround)
{
    TorusHelper torus({4, 4});
    Ptr<Cluster> c = torus.Install();
    // Fail the link between ranks 0 and 1.
    uint32_t victim = UINT32_MAX;
    for (const auto& l : c->GetLinks())
    {
        if (l.nodeA == c->GetRankNode(0)->GetId() && l.nodeB == c->GetRankNode(1)->GetId())
        {
            victim = l.id;
        }
    }
    ASSERT_NE(victim, UINT32_MAX);
    c->FailLink(victim);
    RoutePlanner planner(c);
    planner.Install();
    EXPECT_EQ(planner.Hops(0, 1), 3u);
    Listen(c, 1, 7);
    SendAt(c, 0, 1, 5000, 7, 8972, 1, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(m_arrivals.size(), 1u);
    EXPECT_EQ(m_arrivals[0], (Tx(9002) + kDelay) * 3);
    EXPECT_EQ(c->GetLink(victim).packetsAtoB, 0u);
}

TEST_F(FabricTest, FailRandomLinksKeepsRanksConnected)
{
    FatTreeHelper ft(8);
    Ptr<Cluster> c = ft.Install();
    auto failed = FabricHelper::FailRandomLinks(c, 3, {"tor-agg"});
    EXPECT_EQ(failed.size(), 3u);
    RoutePlanner planner(c);
    planner.Compute();
    for (uint32_t a = 0; a < 8; ++a)
    {
        for (uint32_t b = 0; b < 8; ++b)
        {
            if (a != b)
            {
                EXPECT_NE(planner.Hops(a, b), UINT32_MAX);
            }
        }
    }
    // 8 tor-agg links; 4 ToRs each need one: at most 4 can fail.
    EXPECT_THROW(FabricHelper::FailRandomLinks(c, 2, {"tor-agg"}), std::invalid_argument);
}

TEST_F(FabricTest, BadInputIsRejectedWithAMessage)
{
    IdealSwitchHelper zeroRate(4);
    zeroRate.SetLinkRate(DataRate(0));
    EXPECT_THROW(zeroRate.Install(), std::invalid_argument);
    EXPECT_THROW(IdealSwitchHelper(1).Install(), std::invalid_argument);
    EXPECT_THROW(TorusHelper::ParseDims("4x"), std::invalid_argument);
    EXPECT_THROW(TorusHelper::ParseDims("4xa"), std::invalid_argument);
    EXPECT_EQ(TorusHelper::ParseDims("4x2x3"), (std::vector<uint32_t>{4, 2, 3}));
    EXPECT_THROW(TorusHelper({4, 1}).Install(), std::invalid_argument);
    FatTreeHelper odd(8);
    odd.SetRadix(8);
    odd.SetOversubscription(2); // 8 / 3 is no integer
    try
    {
        odd.Install();
        FAIL() << "expected an error";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("radix 8"), std::string::npos);
    }
    FatTreeHelper small(100);
    small.SetRadix(4);
    EXPECT_THROW(small.Install(), std::invalid_argument);
    GraphFabricHelper bad;
    bad.SetJson("{\"ranks\": 2, \"links\": [[\"r0\", \"r1\"]");
    EXPECT_THROW(bad.Install(), std::invalid_argument);
    GraphFabricHelper unknown;
    unknown.SetJson(R"({"ranks": 2, "links": [["r0", "s3"]]})");
    EXPECT_THROW(unknown.Install(), std::invalid_argument);
    GraphFabricHelper disconnected;
    disconnected.SetJson(R"({"ranks": 3, "links": [["r0", "r1"], ["r1", "r0"]]})");
    EXPECT_THROW(disconnected.Install(), std::invalid_argument);
    GraphFabricHelper badRate;
    badRate.SetJson(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1", "rate": "fast"}]})");
    EXPECT_THROW(badRate.Install(), std::invalid_argument);
}

// Partitions for distributed runs. In one process a split fabric is refused (it needs
// mpirun -np N), but the placement is done by then: a 2-tier fat-tree of 16 ranks at
// radix 8 (4 leaves of 4 hosts, 4 spines) over 2 processes puts leaves 0-1 with their
// hosts on process 0, leaves 2-3 on 1, and deals the spines 0, 1, 0, 1.
TEST_F(FabricTest, PartitionsFollowLeavesAndNeedMatchingProcesses)
{
    FatTreeHelper ft(16);
    ft.SetRadix(8);
    ft.SetPartitions(2);
    try
    {
        ft.Install();
        FAIL() << "a 2-partition fabric in one process must be refused";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("mpirun -np 2"), std::string::npos) << e.what();
    }
    ASSERT_EQ(NodeList::GetNNodes(), 16u + 4 + 4);
    for (uint32_t r = 0; r < 16; ++r)
    {
        EXPECT_EQ(NodeList::GetNode(r)->GetSystemId(), r < 8 ? 0u : 1u) << "host " << r;
    }
    const uint32_t leaves[] = {0, 0, 1, 1};
    const uint32_t spines[] = {0, 1, 0, 1};
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(NodeList::GetNode(16 + i)->GetSystemId(), leaves[i]) << "leaf " << i;
        EXPECT_EQ(NodeList::GetNode(20 + i)->GetSystemId(), spines[i]) << "spine " << i;
    }
    Simulator::Destroy();

    TorusHelper torus({2, 2});
    torus.SetPartitions(2);
    EXPECT_THROW(torus.Install(), std::invalid_argument); // no partitioning for a torus
    Simulator::Destroy();
    IdealSwitchHelper star(4);
    star.SetPartitions(8);
    try
    {
        star.Install();
        FAIL() << "4 hosts cannot feed 8 processes";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("4 groups"), std::string::npos) << e.what();
    }
    EXPECT_THROW(star.SetPartitions(0), std::invalid_argument);
}

// Oversubscription 3 at radix 8: 6 hosts and 2 uplinks per ToR.
TEST_F(FabricTest, OversubscribedTorPortSplit)
{
    EXPECT_EQ(FatTreeHelper::HostsPerTor(8, 3.0), 6u);
    EXPECT_EQ(FatTreeHelper::HostsPerTor(8, 1.0), 4u);
    EXPECT_EQ(FatTreeHelper::HostsPerTor(8, 2.0), 0u);
    FatTreeHelper ft(24);
    ft.SetRadix(8);
    ft.SetOversubscription(3);
    Ptr<Cluster> c = ft.Install();
    EXPECT_EQ(c->GetFabricSpec().ranksPerTor, 6u);
    EXPECT_EQ(c->GetSwitchNodes().GetN(), 4u + 2u);
    EXPECT_EQ(c->GetBytesByLinkClass().size(), 2u);
}
