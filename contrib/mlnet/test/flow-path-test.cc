// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-flow paths (RoutePlanner::FlowPath) and the twin that routes on them
 * (AlphaBetaModel PathChoice PerFlowHash): on a 2-tier fat-tree with ECMP, the twin's
 * bytes on every directed link equal the packet run's link counters on both data
 * paths (data packets on the flow's path, one 59-byte ACK per message on the
 * reverse flow's), and the flow level's counters the data frames alone; two flows the hash puts on
 * one uplink take twice the single flow's bandwidth time (first principles), an even split hides
 * it; dual-homed senders (the first hop hashed without ports); bad input; determinism.
 */
#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/route-planner.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/udp-message-transport.h"

#include <fstream>
#include <gtest/gtest.h>
#include <numeric>
#include <set>
#include <unistd.h>

using namespace ns3;

namespace
{

class FlowPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

Ptr<Cluster>
FatTree(uint32_t ranks, const std::string& dataPath)
{
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = ranks;
    f.tiers = 2;
    f.dataPath = dataPath;
    return f.Build();
}

std::vector<uint32_t>
AllRanks(Ptr<Cluster> c)
{
    std::vector<uint32_t> ranks(c->GetNRanks());
    std::iota(ranks.begin(), ranks.end(), 0);
    return ranks;
}

/// The uplink (directed key) a flow leaves its ToR by: its second hop.
uint32_t
Uplink(const RoutePlanner& planner, Ptr<UdpMessageTransport> udp, uint32_t src, uint32_t dst)
{
    FlowKey key;
    EXPECT_TRUE(udp->GetFlowKey(src, dst, key));
    std::vector<uint32_t> path = planner.FlowPath(src, dst, key);
    EXPECT_EQ(path.size(), 4u) << src << "->" << dst << " crosses a spine";
    return path.size() > 1 ? path[1] : UINT32_MAX;
}

} // namespace

// A flow's path: one link per hop, a connected walk from src to dst whose every hop is
// one of the planner's next hops, the same for every call; the reverse flow hashes on
// its own key. Unreachable and self paths.
TEST_F(FlowPathTest, FlowPathIsAShortestWalkThroughTheNextHops)
{
    Ptr<Cluster> c = FatTree(8, "fast");
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(c);
    RoutePlanner planner(c);
    planner.Compute();
    const auto& links = c->GetLinks();
    for (uint32_t s = 0; s < 8; ++s)
    {
        for (uint32_t d = 0; d < 8; ++d)
        {
            FlowKey key;
            ASSERT_TRUE(udp->GetFlowKey(s, d, key));
            std::vector<uint32_t> path = planner.FlowPath(s, d, key);
            ASSERT_EQ(path.size(), s == d ? 0u : planner.Hops(s, d));
            uint32_t node = c->GetRankNode(s)->GetId();
            for (uint32_t k : path)
            {
                const auto& next = planner.NextLinks(node, d);
                EXPECT_NE(std::find(next.begin(), next.end(), k / 2), next.end());
                const ClusterLink& l = links[k / 2];
                EXPECT_EQ(k % 2 == 0 ? l.nodeA : l.nodeB, node);
                node = k % 2 == 0 ? l.nodeB : l.nodeA;
            }
            EXPECT_EQ(node, c->GetRankNode(d)->GetId());
            EXPECT_EQ(planner.FlowPath(s, d, key), path);
            auto shares = planner.FlowShares(s, d, key);
            EXPECT_EQ(shares.size(), path.size());
            for (const auto& [k, share] : shares)
            {
                EXPECT_EQ(share, 1.0);
            }
        }
    }
    // TCP does not know its ports ahead.
    Ptr<TcpMessageTransport> tcp = CreateObject<TcpMessageTransport>();
    FlowKey key;
    EXPECT_FALSE(tcp->GetFlowKey(0, 1, key));
    EXPECT_FALSE(udp->GetFlowKey(0, 8, key)); // out of range
    // A disconnected destination: both host links of rank 7 fail.
    for (const ClusterLink& l : c->GetLinks())
    {
        if (l.nodeA == c->GetRankNode(7)->GetId() || l.nodeB == c->GetRankNode(7)->GetId())
        {
            c->FailLink(l.id);
        }
    }
    planner.Compute();
    udp->GetFlowKey(0, 7, key);
    EXPECT_THROW(planner.FlowPath(0, 7, key), std::invalid_argument);
}

namespace
{

/// Run a pairwise all-to-all of 20000 B per pair on `fabric` over both data paths;
/// expect the twin's bytes (plus one ACK per message on the reverse flow's path) on
/// every directed link, the same counters on both paths, and an even split that
/// does not match them. Then at the flow level (FluidMessageTransport standing in for
/// UDP): expect the packet run's data frames on every directed link, bytes and frames,
/// and no ACK.
void
ExpectTwinLinkBytesMatch(FabricOptions fabric)
{
    std::vector<uint64_t> perPath[2];
    std::vector<double> dataBytes;     // per directed link: the twin's, without ACKs
    std::vector<uint64_t> dataPackets; // per directed link: the packet run's, less ACKs
    int i = 0;
    for (const std::string dataPath : {"ipv4", "fast"})
    {
        fabric.dataPath = dataPath;
        Ptr<Cluster> c = fabric.Build();
        const uint32_t n = c->GetNRanks();
        Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
        udp->Install(c);
        Ptr<Collective> a2a = CollectiveFactory::Create("alltoall", "pairwise");
        a2a->Setup(udp, AllRanks(c), 20000);
        Ptr<AlphaBetaModel> twin = CreateObject<AlphaBetaModel>();
        twin->SetPacketization(udp);
        twin->SetCluster(c);
        ASSERT_EQ(twin->GetPathChoice(), AlphaBetaModel::PER_FLOW_HASH);
        const auto schedule = a2a->GetSchedule();
        std::vector<double> expected = twin->PredictLinkBytes(schedule);
        dataBytes = expected;
        std::vector<uint64_t> acks(expected.size(), 0);
        RoutePlanner planner(c);
        planner.Compute();
        for (const CollectiveStep& step : schedule)
        {
            for (const ScheduledMessage& m : step.messages)
            {
                FlowKey back;
                ASSERT_TRUE(udp->GetFlowKey(m.dst, m.src, back));
                for (uint32_t k : planner.FlowPath(m.dst, m.src, back))
                {
                    expected[k] += udp->GetPerPacketOverhead(); // the ACK
                    ++acks[k];
                }
            }
        }
        a2a->Start();
        Simulator::Run();
        ASSERT_TRUE(a2a->IsDone());
        ASSERT_EQ(udp->GetRetransmissions(), 0u);
        ASSERT_EQ(udp->GetAcksSent(), n * (n - 1));
        std::vector<uint64_t> measured;
        dataPackets.clear();
        for (const ClusterLink& l : c->GetLinks())
        {
            for (uint32_t dir = 0; dir < 2; ++dir)
            {
                uint64_t got = dir == 0 ? l.bytesAtoB : l.bytesBtoA;
                EXPECT_EQ(static_cast<double>(got), expected[2 * l.id + dir])
                    << dataPath << " link " << l.id << " (" << l.linkClass << ") dir " << dir;
                measured.push_back(got);
                dataPackets.push_back((dir == 0 ? l.packetsAtoB : l.packetsBtoA) -
                                      acks[2 * l.id + dir]);
            }
        }
        // The even split loads links the hashed flows leave idle, or loads them
        // differently: it does not match the counters.
        twin->SetPathChoice(AlphaBetaModel::EVEN_SPLIT);
        std::vector<double> even = twin->PredictLinkBytes(schedule);
        double off = 0;
        for (size_t k = 0; k < even.size(); ++k)
        {
            off += std::abs(even[k] - static_cast<double>(k < measured.size() ? measured[k] : 0));
        }
        EXPECT_GT(off, 1e5) << dataPath;
        perPath[i++] = measured;
        Simulator::Destroy();
    }
    EXPECT_EQ(perPath[0], perPath[1]) << "the data paths take different flow paths";

    // The flow level counts each message's wire bytes and frames on its route when its
    // last byte has left: the packet run's data frames, link by link.
    Ptr<Cluster> c = fabric.Build();
    Ptr<FluidMessageTransport> fluid = CreateObject<FluidMessageTransport>();
    fluid->SetPacketTransport(CreateObject<UdpMessageTransport>());
    fluid->Install(c);
    Ptr<Collective> a2a = CollectiveFactory::Create("alltoall", "pairwise");
    a2a->Setup(fluid, AllRanks(c), 20000);
    a2a->Start();
    Simulator::Run();
    ASSERT_TRUE(a2a->IsDone());
    ASSERT_EQ(dataPackets.size(), 2 * c->GetLinks().size());
    for (const ClusterLink& l : c->GetLinks())
    {
        for (uint32_t dir = 0; dir < 2; ++dir)
        {
            EXPECT_EQ(static_cast<double>(dir == 0 ? l.bytesAtoB : l.bytesBtoA),
                      dataBytes[2 * l.id + dir])
                << "flow level, link " << l.id << " (" << l.linkClass << ") dir " << dir;
            EXPECT_EQ(dir == 0 ? l.packetsAtoB : l.packetsBtoA, dataPackets[2 * l.id + dir])
                << "flow level, link " << l.id << " (" << l.linkClass << ") dir " << dir;
        }
    }
    Simulator::Destroy();
}

} // namespace

// The twin's bytes on every directed link are the packet run's, on both data paths:
// a pairwise all-to-all on a 2-tier fat-tree (16 ranks, 3 spines), data on each
// flow's hashed path plus one ACK (O = 59 wire bytes) per message on the reverse
// flow's path.
TEST_F(FlowPathTest, TwinLinkBytesEqualThePacketRunsOnBothDataPaths)
{
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = 16;
    f.tiers = 2;
    ExpectTwinLinkBytesMatch(f);
}

// Dual-homed ranks (each linked to both of two switches): the choice is made at the
// sender, whose frames both data paths hash without ports.
TEST_F(FlowPathTest, DualHomedSendersHashWithoutPorts)
{
    const std::string file =
        ::testing::TempDir() + "/flow-path-dual-" + std::to_string(getpid()) + ".json";
    {
        std::ofstream out(file);
        out << R"({"ranks": 4, "switches": 2, "links": [)";
        for (int r = 0; r < 4; ++r)
        {
            for (int sw = 0; sw < 2; ++sw)
            {
                out << (r + sw ? "," : "") << R"({"a": "r)" << r << R"(", "b": "s)" << sw
                    << R"(", "class": "host-tor"})";
            }
        }
        out << "]}";
    }
    FabricOptions f;
    f.fabric = "graph";
    f.graphFile = file;
    ExpectTwinLinkBytesMatch(f);
    std::remove(file.c_str());
}

// Two flows from one ToR to another that the hash puts on one uplink share it: the
// twin predicts 2 W * 8 / R + L, twice the single flow's bandwidth time (L: the
// pipeline latency of T_msg = W * 8 / R + L); with an even split each uplink carries
// W and the pair takes T_msg. The packet run agrees with the per-flow prediction.
TEST_F(FlowPathTest, HashCollisionOnAnUplinkDoublesTheTime)
{
    Ptr<Cluster> c = FatTree(8, "fast"); // 4 ToRs of 2 hosts, 2 spines
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(c);
    RoutePlanner planner(c);
    planner.Compute();
    // Ranks 0, 1 under one ToR; pick destinations under other ToRs so that both flows
    // leave by the same uplink (a collision), deterministic for the run's seeds.
    int32_t d0 = -1;
    int32_t d1 = -1;
    for (uint32_t a = 2; a < 8 && d0 < 0; ++a)
    {
        for (uint32_t b = 2; b < 8 && d0 < 0; ++b)
        {
            if (a / 2 != b / 2 && Uplink(planner, udp, 0, a) == Uplink(planner, udp, 1, b))
            {
                d0 = a;
                d1 = b;
            }
        }
    }
    ASSERT_GE(d0, 0) << "no colliding pair of flows on this fabric";
    const uint64_t bytes = 500000;
    CollectiveStep step;
    step.messages.push_back({0, static_cast<uint32_t>(d0), bytes, 0, 0, false});
    step.messages.push_back({1, static_cast<uint32_t>(d1), bytes, 1, 0, false});
    std::vector<CollectiveStep> schedule{step};

    Ptr<AlphaBetaModel> twin = CreateObject<AlphaBetaModel>();
    twin->SetPacketization(udp);
    twin->SetCluster(c);
    const DataRate rate("100Gbps");
    const Time single = twin->PredictMessage(bytes, 4, rate, MicroSeconds(1));
    const double bandwidth = twin->GetWireBytes(bytes) * 8.0 / rate.GetBitRate();
    const double latency = single.GetSeconds() - bandwidth;
    const double collided = twin->Predict(schedule).GetSeconds();
    EXPECT_NEAR(collided, 2 * bandwidth + latency, 1e-11);
    // Deterministic: the same prediction again, and from a second model.
    EXPECT_EQ(twin->Predict(schedule).GetSeconds(), collided);
    Ptr<AlphaBetaModel> again = CreateObject<AlphaBetaModel>();
    again->SetPacketization(udp);
    again->SetCluster(c);
    EXPECT_EQ(again->Predict(schedule).GetSeconds(), collided);

    twin->SetAttribute("PathChoice", EnumValue(AlphaBetaModel::EVEN_SPLIT));
    EXPECT_EQ(twin->GetPathChoice(), AlphaBetaModel::EVEN_SPLIT);
    EXPECT_NEAR(twin->Predict(schedule).GetSeconds(), single.GetSeconds(), 1e-11);
    // A twin given no transport (no flow keys) splits evenly too.
    Ptr<AlphaBetaModel> keyless = CreateObject<AlphaBetaModel>();
    keyless->SetPacketization(twin->GetPacketization());
    keyless->SetCluster(c);
    EXPECT_NEAR(keyless->Predict(schedule).GetSeconds(), single.GetSeconds(), 1e-11);

    // The packet run: the two messages end about when the per-flow twin says
    // (queueing of a shared FIFO: within 2%), not at the even split's T_msg.
    Time end[2];
    uint32_t channel = udp->RegisterChannel(MakeCallback(+[](Time* ends, const Message& m) {
                                                ends[m.src] = Simulator::Now();
                                            }).Bind(end));
    udp->Send(0, d0, channel, 0, bytes);
    udp->Send(1, d1, channel, 0, bytes);
    Simulator::Run();
    const double simulated = std::max(end[0], end[1]).GetSeconds();
    EXPECT_NEAR(simulated / collided, 1.0, 0.02) << simulated << " vs " << collided;
    EXPECT_GT(simulated / single.GetSeconds(), 1.8);
}
