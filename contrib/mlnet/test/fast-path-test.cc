// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fast data path (FabricHelper::SetDataPath("fast"): FastForwarding on every
 * node, UdpMessageTransport over frames instead of sockets) against first
 * principles and against the IPv4 path: one hop costs (L3 bytes + 2)*8/R + d;
 * collectives on an ideal switch, a 2-tier fat-tree and a torus finish at the
 * same simulated time, with the same bytes on every link (so the same ECMP path
 * choices), exact real payloads, failed links routed around; bad input throws.
 */
#include "collective-test-support.h"

#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/data-file.h"
#include "ns3/error-model.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/mlnet-transport-header.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/route-planner.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/training-runner.h"
#include "ns3/training-workload.h"
#include "ns3/transport-choice.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::Coll;
using mlnettest::FatTree;
using mlnettest::Ideal;
using mlnettest::Torus;

namespace
{

class FastPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// What one packet-level run gave, for comparing the two data paths.
struct Outcome
{
    double simulatedS{0};
    double analyticalS{0};
    std::map<std::string, uint64_t> byClass;
    std::vector<uint64_t> perLink; //!< wire bytes per link, A->B and B->A interleaved
    int realCorrect{-1};
    uint64_t events{0};
};

/// Build the fabric with `dataPath`, optionally fail a link, run one collective.
Outcome
RunPath(FabricOptions fabric,
        const std::string& dataPath,
        CollectiveRunOptions run,
        int failLink = -1)
{
    fabric.dataPath = dataPath;
    Ptr<Cluster> cluster = fabric.Build();
    if (failLink >= 0)
    {
        cluster->FailLink(failLink);
        RoutePlanner(cluster).Install();
    }
    CollectiveRunResult r = CollectiveRunner::Run(cluster, run);
    Outcome o;
    o.simulatedS = r.simulatedS;
    o.analyticalS = r.analyticalS;
    o.byClass = r.bytesByLinkClass;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        o.perLink.push_back(l.bytesAtoB);
        o.perLink.push_back(l.bytesBtoA);
    }
    o.realCorrect = r.realCorrect;
    o.events = r.events;
    Simulator::Destroy();
    return o;
}

/// Run on both data paths and expect identical completion times and link bytes.
void
ExpectSame(const FabricOptions& fabric, const CollectiveRunOptions& run, int failLink = -1)
{
    Outcome ipv4 = RunPath(fabric, "ipv4", run, failLink);
    Outcome fast = RunPath(fabric, "fast", run, failLink);
    std::string what = fabric.Label() + " " + run.collective + "/" + run.algorithm;
    ASSERT_GT(ipv4.simulatedS, 0) << what;
    // Tolerance: identical (one picosecond tick of slack for the double conversion).
    EXPECT_NEAR(fast.simulatedS, ipv4.simulatedS, 1e-12) << what;
    EXPECT_EQ(fast.byClass, ipv4.byClass) << what;
    EXPECT_EQ(fast.perLink, ipv4.perLink) << what << ": path choices differ";
    EXPECT_EQ(fast.realCorrect, ipv4.realCorrect) << what;
    if (run.real)
    {
        EXPECT_EQ(fast.realCorrect, 1) << what;
    }
    // The fast path does less work per packet: fewer simulator events, never more.
    EXPECT_LE(fast.events, ipv4.events) << what;
}

} // namespace

// One frame over one fast hop: serialization of (L3 bytes + 2 PPP) at R, plus d.
TEST_F(FastPathTest, OneFrameOneHopTakesSerializationPlusDelay)
{
    const DataRate rate("10Gbps");
    const Time delay = MicroSeconds(3);
    NodeContainer nodes;
    nodes.Create(2);
    Ptr<FastForwarding> ff[2];
    for (uint32_t i = 0; i < 2; ++i)
    {
        ff[i] = CreateObject<FastForwarding>();
        ff[i]->Install(nodes.Get(i));
        ff[i]->SetLocalRank(i);
    }
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(delay));
    NetDeviceContainer devs = p2p.Install(nodes);
    ff[0]->SetTable({{}, {devs.Get(0)}});
    ff[1]->SetTable({{devs.Get(1)}, {}});

    const uint32_t payload = 1000;
    Time arrival;
    FastFrameHeader got;
    uint32_t gotSize = 0;
    ff[1]->SetDeliverCallback(MakeCallback(+[](Time* t,
                                               FastFrameHeader* out,
                                               uint32_t* size,
                                               Ptr<Packet> p,
                                               const FastFrameHeader& h) {
                                  *t = Simulator::Now();
                                  *out = h;
                                  *size = p->GetSize();
                              }).Bind(&arrival, &got, &gotSize));
    FastFrameHeader h;
    h.srcRank = 0;
    h.dstRank = 1;
    h.srcAddr = 0x0a000001;
    h.dstAddr = 0x0a000002;
    h.srcPort = h.dstPort = 9000;
    Simulator::ScheduleNow([&]() { EXPECT_TRUE(ff[0]->Send(Create<Packet>(payload), h)); });
    Simulator::Run();

    const uint32_t l3 = payload + FastFrameHeader::SIZE; // what IPv4 + UDP would occupy
    Time expected = rate.CalculateBytesTxTime(l3 + 2) + delay;
    EXPECT_EQ(arrival, expected);
    EXPECT_EQ(gotSize, payload);
    EXPECT_EQ(got.srcRank, 0u);
    EXPECT_EQ(got.dstRank, 1u);
    EXPECT_EQ(got.srcPort, 9000);
    // Same wire size as IPv4 (20) + UDP (8) for a transport packet.
    EXPECT_EQ(FastFrameHeader::SIZE, 20u + 8u);
}

// One packet of the transport through the ideal switch: two hops of
// (payload + 29 + 28 + 2) bytes each, the same as the IPv4 path's 59-byte overhead.
TEST_F(FastPathTest, OnePacketMessageCrossesTheSwitchInTwoHops)
{
    FabricOptions f = Ideal(2);
    f.dataPath = "fast";
    Ptr<Cluster> cluster = f.Build();
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    EXPECT_EQ(udp->GetMaxPayload(), 9000u - 20u - 8u - MlnetTransportHeader::SIZE);
    Time delivered;
    udp->RegisterChannel(
        MakeCallback(+[](Time* t, const Message& m) { *t = m.delivered; }).Bind(&delivered));
    const uint64_t bytes = 4000;
    udp->Send(0, 1, 0, 0, bytes);
    Simulator::Run();
    DataRate rate("100Gbps");
    Time hop = rate.CalculateBytesTxTime(bytes + udp->GetPerPacketOverhead()) + MicroSeconds(1);
    EXPECT_EQ(delivered, hop + hop);
}

TEST_F(FastPathTest, IdealSwitchMatchesIpv4Path)
{
    ExpectSame(Ideal(8), Coll("allreduce", "ring", "2MiB", true));
    ExpectSame(Ideal(8), Coll("allreduce", "hd", "2MiB", true));
    ExpectSame(Ideal(8), Coll("alltoall", "pairwise", "128KiB"));
}

TEST_F(FastPathTest, FatTreeMatchesIpv4PathWithSamePathChoices)
{
    ExpectSame(FatTree(16), Coll("allreduce", "ring", "1MiB", true));
    ExpectSame(FatTree(16), Coll("allreduce", "hd", "1MiB", true));
    ExpectSame(FatTree(16), Coll("alltoall", "pairwise", "64KiB"));
}

TEST_F(FastPathTest, TorusMatchesIpv4Path)
{
    ExpectSame(Torus("4x4"), Coll("allreduce", "ring", "1MiB", true));
    ExpectSame(Torus("4x4"), Coll("allreduce", "hd", "1MiB", true));
    ExpectSame(Torus("4x4"), Coll("alltoall", "pairwise", "32KiB"));
}

// ECMP on the fast path spreads flows over a ToR's uplinks (and ExpectSame shows it
// picks exactly the IPv4 path's links).
TEST_F(FastPathTest, EcmpSpreadsFlowsOverUplinks)
{
    FabricOptions f = FatTree(16);
    f.dataPath = "fast";
    Ptr<Cluster> cluster = f.Build();
    CollectiveRunner::Run(cluster, Coll("alltoall", "pairwise", "64KiB"));
    std::map<uint32_t, uint32_t> busyUplinks; // ToR node -> uplinks that carried traffic
    for (const ClusterLink& l : cluster->GetLinks())
    {
        if (l.linkClass == "tor-agg" && l.bytesAtoB > 0)
        {
            ++busyUplinks[l.nodeA];
        }
    }
    ASSERT_FALSE(busyUplinks.empty());
    for (const auto& [tor, n] : busyUplinks)
    {
        EXPECT_GT(n, 1u) << "ToR node " << tor << " sent everything up one link";
    }
}

// A failed ToR uplink carries nothing afterwards, on both paths, and the collective
// still finishes at the same time with exact sums.
TEST_F(FastPathTest, FailedLinkIsRoutedAround)
{
    FabricOptions f = FatTree(16);
    f.dataPath = "fast";
    Ptr<Cluster> probe = f.Build();
    int victim = -1;
    for (const ClusterLink& l : probe->GetLinks())
    {
        if (l.linkClass == "tor-agg")
        {
            victim = static_cast<int>(l.id);
            break;
        }
    }
    Simulator::Destroy();
    ASSERT_GE(victim, 0);
    Outcome fast = RunPath(FatTree(16), "fast", Coll("allreduce", "ring", "1MiB", true), victim);
    EXPECT_EQ(fast.realCorrect, 1);
    EXPECT_EQ(fast.perLink[2 * victim], 0u);
    EXPECT_EQ(fast.perLink[2 * victim + 1], 0u);
    ExpectSame(FatTree(16), Coll("allreduce", "ring", "1MiB", true), victim);
}

TEST_F(FastPathTest, BadInputThrows)
{
    FabricOptions bad = Ideal(4);
    bad.dataPath = "dpdk";
    EXPECT_THROW(bad.Build(), std::invalid_argument);

    FabricOptions f = Ideal(4);
    f.dataPath = "fast";
    Ptr<Cluster> cluster = f.Build();
    EXPECT_EQ(cluster->GetFabricSpec().dataPath, "fast");
    Ptr<MessageTransport> tcp = TransportChoice::Create("tcp");
    try
    {
        tcp->Install(cluster);
        ADD_FAILURE() << "TCP installed on a fast fabric";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("fast"), std::string::npos) << e.what();
    }
    f.traces.flowmon = "/tmp/never-written.xml";
    Simulator::Destroy();
    EXPECT_THROW(f.Build(), std::invalid_argument);
}

// Super-packets: MTU 65535 (the IPv4 limit: 65478-byte payload + 29 + 8 + 20) on both
// data paths, same completion time, and within the twin's prediction for that
// packetization.
TEST_F(FastPathTest, SuperPacketsAtMtu65535MatchTheTwin)
{
    FabricOptions f = Ideal(8);
    f.mtu = 65535;
    CollectiveRunOptions run = Coll("allreduce", "ring", "4MiB", true);
    ExpectSame(f, run);
    Outcome fast = RunPath(f, "fast", run);
    EXPECT_EQ(fast.realCorrect, 1);
    EXPECT_NEAR(fast.simulatedS, fast.analyticalS, 0.02 * fast.analyticalS)
        << "sim " << fast.simulatedS << " twin " << fast.analyticalS;
}

// The training driver runs unchanged on a fast fabric ("udp" gives the transport of
// the cluster's data path): same iteration times and link bytes as the IPv4 path.
TEST_F(FastPathTest, TrainingIterationsMatchIpv4Path)
{
    TrainingWorkload workload =
        TrainingWorkload::FromFile(DataFile::Find("workloads/training/mlp-small.json"));
    std::vector<Time> durations[2];
    std::map<std::string, uint64_t> bytes[2];
    const char* paths[2] = {"ipv4", "fast"};
    for (int i = 0; i < 2; ++i)
    {
        FabricOptions f = FatTree(8);
        f.dataPath = paths[i];
        TrainingRunResult r = TrainingRunner::Run(f.Build(), workload, "udp", 2);
        for (const IterationRecord& it : r.Iterations())
        {
            durations[i].push_back(it.GetDuration());
        }
        bytes[i] = r.bytesByLinkClass;
        Simulator::Destroy();
    }
    ASSERT_EQ(durations[0].size(), 2u);
    EXPECT_EQ(durations[1], durations[0]);
    EXPECT_EQ(bytes[1], bytes[0]);
}

// Loss and repair: the same frames lost (a seeded 1% loss on the link into rank 1)
// give the same NACKs, retransmissions and completion time on both paths, and the
// sums stay exact.
TEST_F(FastPathTest, LossRepairMatchesIpv4Path)
{
    double done[2];
    uint64_t retx[2];
    const char* paths[2] = {"ipv4", "fast"};
    for (int i = 0; i < 2; ++i)
    {
        FabricOptions f = Ideal(4);
        f.dataPath = paths[i];
        Ptr<Cluster> cluster = f.Build();
        Ptr<Node> host1 = cluster->GetRankNode(1);
        for (const ClusterLink& l : cluster->GetLinks())
        {
            Ptr<PointToPointNetDevice> in = l.devA->GetNode() == host1   ? l.devA
                                            : l.devB->GetNode() == host1 ? l.devB
                                                                         : nullptr;
            if (in)
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                em->SetRate(0.01);
                em->AssignStreams(4242); // the same draws on both paths
                in->SetReceiveErrorModel(em);
            }
        }
        Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
        uint64_t* counter = &retx[i];
        udp->TraceConnectWithoutContext(
            "Retransmit",
            MakeCallback(+[](uint64_t* n, uint32_t, uint32_t, uint32_t, uint32_t) {
                ++*n;
            }).Bind(counter));
        retx[i] = 0;
        udp->Install(cluster);
        Ptr<Collective> ar = CollectiveFactory::Create("allreduce", "ring");
        std::vector<uint32_t> ranks{0, 1, 2, 3};
        const uint32_t len = 256 * 1024;
        ar->Setup(udp, ranks, 4ull * len);
        Eigen::VectorXf sum = Eigen::VectorXf::Zero(len);
        for (uint32_t m = 0; m < 4; ++m)
        {
            Eigen::VectorXf v = Eigen::VectorXf::Constant(len, static_cast<float>(m + 1));
            ar->SetInput(m, v);
            sum += v;
        }
        ar->Start();
        Simulator::Run();
        ASSERT_TRUE(ar->IsDone()) << paths[i];
        for (uint32_t m = 0; m < 4; ++m)
        {
            EXPECT_EQ(ar->GetOutput(m), sum) << paths[i] << " rank " << m;
        }
        done[i] = ar->GetDuration().GetSeconds();
        Simulator::Destroy();
    }
    EXPECT_GT(retx[0], 0u) << "no loss happened: the test would prove nothing";
    EXPECT_EQ(retx[1], retx[0]);
    EXPECT_DOUBLE_EQ(done[1], done[0]);
}

// OrderSimultaneousArrivals: two one-packet messages to rank 0 from ranks 1 and 2
// through an ideal switch, sent at the same instant but rank 2's first. Both frames
// reach the switch together; in event order rank 2's is forwarded first, in device
// order rank 1's (the switch's link to rank 1 was made first, lower ifIndex). The
// second one waits one serialization time behind the first.
TEST_F(FastPathTest, SimultaneousArrivalsTakeDeviceOrderWhenAsked)
{
    for (bool ordered : {false, true})
    {
        Config::SetDefault("ns3::FastForwarding::OrderSimultaneousArrivals", BooleanValue(ordered));
        FabricOptions f;
        f.fabric = "ideal";
        f.ranks = 3;
        f.dataPath = "fast";
        Ptr<Cluster> cluster = f.Build();
        Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
        udp->Install(cluster);
        std::map<uint32_t, Time> arrived; // src rank -> delivery time
        uint32_t ch = udp->RegisterChannel(MessageTransport::ReceiveCallback(
            [&arrived](const Message& m) { arrived[m.src] = m.delivered; }));
        Simulator::Schedule(MicroSeconds(5), [&] {
            udp->Send(2, 0, ch, 0, 1000);
            udp->Send(1, 0, ch, 0, 1000);
        });
        Simulator::Run();
        ASSERT_EQ(arrived.size(), 2u);
        // A 1000-byte message is one frame of 1000 + 29 + 28 + 2 bytes.
        Time gap = DataRate("100Gbps").CalculateBytesTxTime(1000 + 29 + 28 + 2);
        Time first = ordered ? arrived[1] : arrived[2];
        Time second = ordered ? arrived[2] : arrived[1];
        EXPECT_EQ(second - first, gap) << "ordered " << ordered;
        Simulator::Destroy();
    }
    Config::SetDefault("ns3::FastForwarding::OrderSimultaneousArrivals", BooleanValue(false));
}
