// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of UdpMessageTransport and TcpMessageTransport on small hand-built
 * networks (two hosts on one link, or hosts around one router). Golden values
 * come from the point-to-point timing model: one hop costs
 * (L3 bytes + 2) * 8 / R + d, nodes store and forward whole frames, so a burst
 * of W wire bytes whose first frame F is its largest crosses h hops in
 * W*8/R + (h-1)*F*8/R + h*d.
 */
#include "ns3/cluster.h"
#include "ns3/core-module.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/internet-module.h"
#include "ns3/mlnet-transport-header.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/traffic-control-module.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace ns3;

namespace
{

/// Exactness needs picosecond resolution. It must be set once, before any
/// simulation; other test files may set it too, hence the check.
void
UsePicoseconds()
{
    static bool done = [] {
        if (Time::GetResolution() != Time::PS)
        {
            Time::SetResolution(Time::PS);
        }
        return true;
    }();
    (void)done;
}

class PicosecondEnvironment : public ::testing::Environment
{
public:
    void SetUp() override
    {
        UsePicoseconds();
    }
};

const ::testing::Environment* g_psEnvironment =
    ::testing::AddGlobalTestEnvironment(new PicosecondEnvironment);

constexpr double kRate = 100e9; // link rate (bit/s)

Time
Delay()
{
    return MicroSeconds(1);
}

/// Serialization time of a frame of L3 size `bytes` + 2 (PPP), in ps (exact at 100 Gbps).
int64_t
FramePs(uint64_t l3Bytes)
{
    return static_cast<int64_t>((l3Bytes + 2) * 8 * 10); // 8 bits * 10 ps per bit at 100 Gbps
}

/**
 * A hand-built network: either two hosts on one link (router == false) or n
 * hosts each linked to one router. Hosts get a FIFO root queue disc of 10000
 * packets, the router none.
 */
struct Net
{
    Ptr<Cluster> cluster;
    NodeContainer hosts;
    Ptr<Node> router;
    std::vector<NetDeviceContainer> links; //!< per link: host device, peer device

    Net(uint32_t nHosts, bool withRouter)
    {
        cluster = CreateObject<Cluster>();
        hosts.Create(nHosts);
        NodeContainer all(hosts);
        if (withRouter)
        {
            router = CreateObject<Node>();
            all.Add(router);
        }
        InternetStackHelper stack;
        Ipv4GlobalRoutingHelper global;
        stack.SetRoutingHelper(global);
        stack.Install(all);

        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(kRate))));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
        p2p.SetChannelAttribute("Delay", TimeValue(Delay()));
        TrafficControlHelper fifo;
        fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("10000p"));

        for (uint32_t i = 0; i < nHosts; ++i)
        {
            cluster->AddRankNode(hosts.Get(i));
        }
        if (withRouter)
        {
            cluster->AddSwitchNode(router);
        }
        Ipv4AddressHelper addr;
        auto link = [&](Ptr<Node> a, Ptr<Node> b, bool bIsHost, uint32_t subnet) {
            NetDeviceContainer d = p2p.Install(a, b);
            fifo.Install(d.Get(0));
            if (bIsHost)
            {
                fifo.Install(d.Get(1));
            }
            std::ostringstream base;
            base << "10.0." << subnet << ".0";
            addr.SetBase(base.str().c_str(), "255.255.255.0");
            Ipv4InterfaceContainer ifc = addr.Assign(d);
            if (!bIsHost)
            {
                fifo.Uninstall(d.Get(1));
            }
            uint32_t id = cluster->AddLink(DynamicCast<PointToPointNetDevice>(d.Get(0)),
                                           DynamicCast<PointToPointNetDevice>(d.Get(1)),
                                           bIsHost ? "host-host" : "host-tor");
            cluster->SetLinkInterfaces(id, ifc.Get(0).second, ifc.Get(1).second);
            cluster->AddNodeAddress(a->GetId(), ifc.GetAddress(0));
            cluster->AddNodeAddress(b->GetId(), ifc.GetAddress(1));
            links.push_back(d);
            return ifc;
        };
        if (withRouter)
        {
            for (uint32_t i = 0; i < nHosts; ++i)
            {
                Ipv4InterfaceContainer ifc = link(hosts.Get(i), router, false, i + 1);
                cluster->SetRankAddress(i, ifc.GetAddress(0));
            }
        }
        else
        {
            NS_ASSERT(nHosts == 2);
            Ipv4InterfaceContainer ifc = link(hosts.Get(0), hosts.Get(1), true, 1);
            cluster->SetRankAddress(0, ifc.GetAddress(0));
            cluster->SetRankAddress(1, ifc.GetAddress(1));
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }

    /// Device of host `rank` on its (first) link.
    Ptr<PointToPointNetDevice> HostDevice(uint32_t rank) const
    {
        if (!router)
        {
            return DynamicCast<PointToPointNetDevice>(links[0].Get(rank));
        }
        return DynamicCast<PointToPointNetDevice>(links[rank].Get(0));
    }

    /// Device that receives at host `rank` (its link peer's device for the other end).
    Ptr<PointToPointNetDevice> ReceiveDevice(uint32_t rank) const
    {
        return HostDevice(rank);
    }
};

/// Parsed view of one of our frames as seen on a point-to-point device.
struct Frame
{
    bool ours{false};
    MlnetTransportHeader header;
};

Frame
ParseFrame(Ptr<const Packet> packet)
{
    Frame f;
    Ptr<Packet> p = packet->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    UdpHeader udp;
    p->RemoveHeader(ppp);
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
    {
        return f;
    }
    p->RemoveHeader(udp);
    p->RemoveHeader(f.header);
    f.ours = true;
    return f;
}

/**
 * Drops chosen packets of UdpMessageTransport at a receiving device: data packets
 * with the given sequence numbers (first copy only) and/or the first `acks` ACKs.
 */
class DropChosenPackets : public ErrorModel
{
public:
    std::set<uint32_t> seqs; //!< data sequence numbers to drop once
    uint32_t acks{0};        //!< ACKs to drop
    uint32_t dropped{0};     //!< packets dropped so far

private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Frame f = ParseFrame(p);
        if (!f.ours)
        {
            return false;
        }
        if (f.header.GetType() == MlnetTransportHeader::DATA && seqs.erase(f.header.GetSequence()))
        {
            ++dropped;
            return true;
        }
        if (f.header.GetType() == MlnetTransportHeader::ACK && acks > 0)
        {
            --acks;
            ++dropped;
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }
};

/// Shared fixture: leaves the simulator and the address generator clean.
class TransportFixture : public ::testing::Test
{
protected:
    void SetUp() override
    {
        UsePicoseconds();
        ASSERT_EQ(Time::GetResolution(), Time::PS) << "tests need picosecond resolution";
    }

    void TearDown() override
    {
        if (transport)
        {
            transport->Dispose();
        }
        transport = nullptr;
        net.reset();
        Simulator::Destroy();
        Ipv4AddressGenerator::Reset();
    }

    /// Register a channel recording every delivered message.
    uint32_t Record()
    {
        return transport->RegisterChannel(MakeCallback(&TransportFixture::OnMessage, this));
    }

    void OnMessage(const Message& m)
    {
        delivered.push_back(m);
    }

    std::unique_ptr<Net> net;
    Ptr<MessageTransport> transport;
    std::vector<Message> delivered;
};

class UdpMessageTransportTest : public TransportFixture
{
protected:
    Ptr<UdpMessageTransport> InstallUdp(uint32_t hosts, bool router)
    {
        net = std::make_unique<Net>(hosts, router);
        Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
        udp->Install(net->cluster);
        transport = udp;
        return udp;
    }
};

class TcpMessageTransportTest : public TransportFixture
{
protected:
    Ptr<TcpMessageTransport> InstallTcp(uint32_t hosts,
                                        bool router,
                                        const std::string& socketType = "ns3::TcpNewReno")
    {
        net = std::make_unique<Net>(hosts, router);
        Ptr<TcpMessageTransport> tcp = CreateObject<TcpMessageTransport>();
        tcp->SetAttribute("SocketType", TypeIdValue(TypeId::LookupByName(socketType)));
        tcp->Install(net->cluster);
        transport = tcp;
        return tcp;
    }
};

MessageBytes
RandomBytes(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    auto v = std::make_shared<std::vector<uint8_t>>(n);
    for (auto& b : *v)
    {
        b = static_cast<uint8_t>(rng());
    }
    return v;
}

/// Wire bytes of a message of `bytes` over UDP.
uint64_t
WireBytes(uint64_t bytes, uint32_t maxPayload, uint32_t overhead)
{
    uint64_t packets = (bytes + maxPayload - 1) / maxPayload;
    return bytes + packets * overhead;
}

} // namespace

TEST_F(UdpMessageTransportTest, HeaderSizeAndOverhead)
{
    MlnetTransportHeader h;
    h.SetType(MlnetTransportHeader::NACK);
    h.SetRealPayload(true);
    h.SetChannel(7);
    h.SetTag(0xdeadbeef);
    h.SetMessageId(42);
    h.SetSequence(1234567);
    h.SetPacketCount(7654321);
    h.SetMessageBytes(0x123456789aULL);
    Ptr<Packet> p = Create<Packet>(10);
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), 10u + 29u);
    MlnetTransportHeader g;
    p->RemoveHeader(g);
    EXPECT_EQ(g.GetType(), MlnetTransportHeader::NACK);
    EXPECT_TRUE(g.HasRealPayload());
    EXPECT_EQ(g.GetChannel(), 7u);
    EXPECT_EQ(g.GetTag(), 0xdeadbeefu);
    EXPECT_EQ(g.GetMessageId(), 42u);
    EXPECT_EQ(g.GetSequence(), 1234567u);
    EXPECT_EQ(g.GetPacketCount(), 7654321u);
    EXPECT_EQ(g.GetMessageBytes(), 0x123456789aULL);

    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    EXPECT_THROW(udp->GetMaxPayload(), std::invalid_argument);
    EXPECT_EQ(udp->GetPerPacketOverhead(), 29u + 8u + 20u + 2u);
    udp = InstallUdp(2, false);
    EXPECT_EQ(udp->GetMaxPayload(), 9000u - 20u - 8u - 29u);
}

TEST_F(UdpMessageTransportTest, RejectsBadSends)
{
    Ptr<UdpMessageTransport> fresh = CreateObject<UdpMessageTransport>();
    EXPECT_THROW(fresh->Send(0, 1, 0, 0, 100), std::invalid_argument);
    Ptr<UdpMessageTransport> udp = InstallUdp(2, false);
    uint32_t ch = Record();
    EXPECT_THROW(udp->Send(0, 0, ch, 0, 100), std::invalid_argument);
    EXPECT_THROW(udp->Send(0, 2, ch, 0, 100), std::invalid_argument);
    EXPECT_THROW(udp->Send(0, 1, ch, 0, 0), std::invalid_argument);
    auto data = std::make_shared<const std::vector<uint8_t>>(10);
    EXPECT_THROW(udp->Send(0, 1, ch, 0, 11, data), std::invalid_argument);
    EXPECT_THROW(udp->Install(net->cluster), std::invalid_argument);
}

TEST_F(UdpMessageTransportTest, OneFullPacketOneHop)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(2, false);
    uint32_t ch = Record();
    uint32_t payload = udp->GetMaxPayload();
    udp->Send(0, 1, ch, 5, payload);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    // (MaxPayload + overhead) * 8 / R + d: the overhead already includes PPP's 2 bytes.
    int64_t golden = (payload + udp->GetPerPacketOverhead()) * 8 * 10 + Delay().GetPicoSeconds();
    EXPECT_EQ(delivered[0].delivered.GetPicoSeconds(), golden);
    EXPECT_EQ(delivered[0].sent, Seconds(0));
    EXPECT_EQ(delivered[0].src, 0u);
    EXPECT_EQ(delivered[0].dst, 1u);
    EXPECT_EQ(delivered[0].tag, 5u);
    EXPECT_EQ(delivered[0].bytes, payload);
    EXPECT_EQ(delivered[0].data, nullptr);
    EXPECT_EQ(udp->GetPacketsSent(), 1u);
    EXPECT_EQ(udp->GetAcksSent(), 1u);
    EXPECT_EQ(udp->GetMessagesInFlight(), 0u);
}

TEST_F(UdpMessageTransportTest, MultiPacketTwoHopsExact)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(2, true);
    uint32_t ch = Record();
    uint32_t mp = udp->GetMaxPayload();
    uint32_t oh = udp->GetPerPacketOverhead();
    uint64_t bytes = 5ull * mp + 1000;
    udp->Send(0, 1, ch, 0, bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    // W*8/R + (h-1)*F_first*8/R + h*d with h = 2 hops, F_first = mp + oh wire bytes.
    uint64_t wire = WireBytes(bytes, mp, oh);
    EXPECT_EQ(wire, 5ull * (mp + oh) + 1000 + oh);
    int64_t golden =
        static_cast<int64_t>(wire) * 80 + 1 * (mp + oh) * 80 + 2 * Delay().GetPicoSeconds();
    EXPECT_EQ(delivered[0].delivered.GetPicoSeconds(), golden);
    EXPECT_EQ(net->cluster->GetTotalLinkBytes(), 2 * wire + 2 * (29 + 8 + 20 + 2)); // + ACK, 2 hops
}

TEST_F(UdpMessageTransportTest, WirePacketSizesMatchOverhead)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(2, false);
    uint32_t ch = Record();
    uint32_t mp = udp->GetMaxPayload();
    uint64_t bytes = 3ull * mp + 77;
    std::vector<uint32_t> sizes;
    std::vector<uint32_t> payloads;
    net->HostDevice(0)->TraceConnectWithoutContext(
        "PhyTxBegin",
        MakeBoundCallback(
            +[](std::vector<uint32_t>* s, std::vector<uint32_t>* pl, Ptr<const Packet> p) {
                Frame f = ParseFrame(p);
                if (f.ours && f.header.GetType() == MlnetTransportHeader::DATA)
                {
                    s->push_back(p->GetSize());
                    uint64_t total = f.header.GetMessageBytes();
                    uint64_t mpay = 9000 - 57;
                    uint64_t off = uint64_t(f.header.GetSequence()) * mpay;
                    pl->push_back(static_cast<uint32_t>(std::min(mpay, total - off)));
                }
            },
            &sizes,
            &payloads));
    udp->Send(0, 1, ch, 0, bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    ASSERT_EQ(sizes.size(), 4u);
    for (size_t i = 0; i < sizes.size(); ++i)
    {
        EXPECT_EQ(sizes[i], payloads[i] + udp->GetPerPacketOverhead()) << "packet " << i;
    }
    EXPECT_EQ(sizes[0], 9002u); // a full packet fills the 9000-byte MTU, + 2 PPP
    EXPECT_EQ(sizes[3], 77u + udp->GetPerPacketOverhead());
}

TEST_F(UdpMessageTransportTest, RealBytesArriveIntact)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(2, true);
    uint32_t ch = Record();
    std::mt19937 rng(12345);
    auto bytes = std::make_shared<std::vector<uint8_t>>(3 * udp->GetMaxPayload() + 4321);
    for (auto& b : *bytes)
    {
        b = static_cast<uint8_t>(rng());
    }
    udp->Send(1, 0, ch, 9, bytes->size(), bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    ASSERT_NE(delivered[0].data, nullptr);
    EXPECT_NE(delivered[0].data.get(), bytes.get()) << "receiver must reassemble a new vector";
    EXPECT_EQ(*delivered[0].data, *bytes);
}

TEST_F(UdpMessageTransportTest, RepairsDroppedPackets)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(2, false);
    uint32_t ch = Record();
    Ptr<DropChosenPackets> drop = CreateObject<DropChosenPackets>();
    drop->seqs = {10, 11, 50, 99}; // two in a row, one alone, and the tail
    net->ReceiveDevice(1)->SetReceiveErrorModel(drop);
    std::mt19937 rng(7);
    auto bytes = std::make_shared<std::vector<uint8_t>>(100ull * udp->GetMaxPayload());
    for (auto& b : *bytes)
    {
        b = static_cast<uint8_t>(rng());
    }
    udp->Send(0, 1, ch, 0, bytes->size(), bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(*delivered[0].data, *bytes);
    EXPECT_EQ(drop->dropped, 4u);
    EXPECT_EQ(udp->GetRetransmissions(), 4u);
    EXPECT_EQ(udp->GetPacketsSent(), 104u);
    EXPECT_EQ(udp->GetNacksSent(), 1u); // one NACK lists all three ranges
    EXPECT_EQ(udp->GetDuplicates(), 0u);
    EXPECT_EQ(udp->GetProbes(), 0u);
    EXPECT_EQ(udp->GetMessagesInFlight(), 0u);
    // Packet 98 arrives at 99 frames + d; the NACK follows a silent RepairTimeout.
    Time last = PicoSeconds(99 * FramePs(9000) + Delay().GetPicoSeconds());
    EXPECT_GT(delivered[0].delivered, last + MicroSeconds(200));
    EXPECT_LT(delivered[0].delivered, last + MicroSeconds(210));
}

TEST_F(UdpMessageTransportTest, ProbeRecoversLostMessageAndLostAck)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(2, false);
    uint32_t ch = Record();
    Ptr<DropChosenPackets> dropData = CreateObject<DropChosenPackets>();
    dropData->seqs = {0}; // the only packet of message 1
    net->ReceiveDevice(1)->SetReceiveErrorModel(dropData);
    udp->Send(0, 1, ch, 1, 1000);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(udp->GetProbes(), 1u);
    EXPECT_EQ(udp->GetRetransmissions(), 1u);
    EXPECT_EQ(udp->GetNacksSent(), 0u);
    EXPECT_GT(delivered[0].delivered, MilliSeconds(1));
    EXPECT_LT(delivered[0].delivered, MilliSeconds(1) + MicroSeconds(5));

    // Now lose the ACK of a message: the probe is a duplicate, answered by a new ACK.
    Ptr<DropChosenPackets> dropAck = CreateObject<DropChosenPackets>();
    dropAck->acks = 1;
    net->ReceiveDevice(0)->SetReceiveErrorModel(dropAck);
    Simulator::Schedule(MilliSeconds(5), [&]() { udp->Send(0, 1, ch, 2, 3000); });
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 2u) << "a duplicate must not be delivered twice";
    EXPECT_EQ(dropAck->dropped, 1u);
    EXPECT_EQ(udp->GetProbes(), 2u);
    EXPECT_EQ(udp->GetDuplicates(), 1u);
    EXPECT_EQ(udp->GetMessagesInFlight(), 0u);
    EXPECT_EQ(udp->GetMessagesAbandoned(), 0u);
}

TEST_F(UdpMessageTransportTest, ConcurrentMessagesShareTheNic)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(3, true);
    uint32_t ch = Record();
    uint32_t mp = udp->GetMaxPayload();
    uint32_t oh = udp->GetPerPacketOverhead();
    uint64_t bytes = 200ull * mp;
    udp->Send(0, 1, ch, 0, bytes);
    udp->Send(0, 2, ch, 0, bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 2u);
    // Alone, one message takes W*8/R + F*8/R + 2d; sharing the NIC fairly, both
    // finish near 2W*8/R + F*8/R + 2d. The first message had a head start of the
    // backlog its Send filled (MaxBacklogPackets queued + 1 on the wire) before
    // the second joined the round-robin, so they end up to backlog + 1 frames apart.
    int64_t w = static_cast<int64_t>(WireBytes(bytes, mp, oh)) * 80;
    int64_t f = int64_t(mp + oh) * 80;
    int64_t shared = 2 * w + f + 2 * Delay().GetPicoSeconds();
    int64_t headStart = (8 + 2) * f;
    for (const auto& m : delivered)
    {
        EXPECT_LE(m.delivered.GetPicoSeconds(), shared);
        EXPECT_GE(m.delivered.GetPicoSeconds(), shared - headStart);
    }
    EXPECT_EQ(delivered[1].delivered.GetPicoSeconds(), shared) << "the NIC never idles";
    EXPECT_LE((delivered[1].delivered - delivered[0].delivered).GetPicoSeconds(), headStart);
    // Together they take about twice as long as one message alone.
    EXPECT_NEAR(double(delivered[1].delivered.GetPicoSeconds()) / (w + f + 2e6), 2.0, 0.02);
}

TEST_F(UdpMessageTransportTest, HundredMegabytesWithoutHostDrops)
{
    Ptr<UdpMessageTransport> udp = InstallUdp(2, false);
    uint32_t ch = Record();
    uint32_t mp = udp->GetMaxPayload();
    uint64_t bytes = 100000000;
    uint32_t maxQueued = 0;
    Ptr<QueueDisc> qdisc =
        net->hosts.Get(0)->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(
            net->HostDevice(0));
    ASSERT_NE(qdisc, nullptr);
    net->HostDevice(0)->GetQueue()->TraceConnectWithoutContext(
        "PacketsInQueue",
        MakeBoundCallback(
            +[](uint32_t* mx, uint32_t, uint32_t now) { *mx = std::max(*mx, now); },
            &maxQueued));
    udp->Send(0, 1, ch, 0, bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    uint64_t packets = (bytes + mp - 1) / mp;
    EXPECT_EQ(udp->GetPacketsSent(), packets);
    EXPECT_EQ(udp->GetRetransmissions(), 0u);
    EXPECT_EQ(udp->GetNacksSent(), 0u);
    EXPECT_EQ(qdisc->GetStats().nTotalDroppedPackets, 0u);
    EXPECT_LE(maxQueued, 8u) << "the NIC scheduler keeps at most MaxBacklogPackets queued";
    // Line rate, back to back: W*8/R + d.
    int64_t golden = static_cast<int64_t>(WireBytes(bytes, mp, udp->GetPerPacketOverhead())) * 80 +
                     Delay().GetPicoSeconds();
    EXPECT_EQ(delivered[0].delivered.GetPicoSeconds(), golden);
}

TEST_F(UdpMessageTransportTest, RingAndAllToAllOverIdealSwitch)
{
    IdealSwitchHelper fabric(4);
    Ptr<Cluster> cluster = fabric.Install();
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    transport = udp;
    uint32_t ch = Record();
    uint32_t mp = udp->GetMaxPayload();
    uint32_t oh = udp->GetPerPacketOverhead();
    // A ring step: every rank sends to its successor at once. A permutation on a
    // non-blocking switch runs each message as if alone: W*8/R + F*8/R + 2d.
    uint64_t bytes = 20ull * mp + 500;
    for (uint32_t r = 0; r < 4; ++r)
    {
        udp->Send(r, (r + 1) % 4, ch, r, bytes);
    }
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 4u);
    int64_t golden = static_cast<int64_t>(WireBytes(bytes, mp, oh)) * 80 + int64_t(mp + oh) * 80 +
                     2 * Delay().GetPicoSeconds();
    for (const auto& m : delivered)
    {
        EXPECT_EQ(m.dst, (m.src + 1) % 4);
        EXPECT_EQ(m.delivered.GetPicoSeconds(), golden) << "from rank " << m.src;
    }
    // All-to-all with real bytes: 12 messages, each rank's NIC shared by 3.
    delivered.clear();
    std::map<std::pair<uint32_t, uint32_t>, MessageBytes> sent;
    Simulator::Schedule(MilliSeconds(1), [&]() {
        for (uint32_t s = 0; s < 4; ++s)
        {
            for (uint32_t d = 0; d < 4; ++d)
            {
                if (s != d)
                {
                    MessageBytes data = RandomBytes(5 * mp + s * 10 + d, s * 4 + d);
                    sent[{s, d}] = data;
                    udp->Send(s, d, ch, 0, data->size(), data);
                }
            }
        }
    });
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 12u);
    for (const auto& m : delivered)
    {
        ASSERT_NE(m.data, nullptr);
        EXPECT_TRUE(*m.data == *sent.at({m.src, m.dst})) << m.src << " -> " << m.dst;
    }
    EXPECT_EQ(udp->GetRetransmissions(), 0u);
    EXPECT_EQ(udp->GetMessagesInFlight(), 0u);
}

TEST_F(TcpMessageTransportTest, SettingsAndOverhead)
{
    Ptr<TcpMessageTransport> tcp = InstallTcp(2, false);
    EXPECT_EQ(tcp->GetMaxPayload(), 9000u - 52u);
    EXPECT_EQ(tcp->GetPerPacketOverhead(), 32u + 20u + 2u);
    Ptr<TcpMessageTransport> bad = CreateObject<TcpMessageTransport>();
    bad->SetAttribute("SocketType", TypeIdValue(TypeId::LookupByName("ns3::UdpMessageTransport")));
    EXPECT_THROW(bad->Install(net->cluster), std::invalid_argument);
    Ptr<TcpMessageTransport> big = CreateObject<TcpMessageTransport>();
    big->SetAttribute("SegmentSize", UintegerValue(9000));
    EXPECT_THROW(big->Install(net->cluster), std::invalid_argument);
    EXPECT_THROW(tcp->Send(0, 0, 0, 0, 10), std::invalid_argument);
}

TEST_F(TcpMessageTransportTest, TenMegabytesRealBytesIntact)
{
    Ptr<TcpMessageTransport> tcp = InstallTcp(2, true);
    uint32_t ch = Record();
    MessageBytes data = RandomBytes(10000000, 99);
    tcp->Send(0, 1, ch, 3, data->size(), data);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(delivered[0].bytes, data->size());
    ASSERT_NE(delivered[0].data, nullptr);
    EXPECT_NE(delivered[0].data.get(), data.get());
    EXPECT_TRUE(*delivered[0].data == *data) << "payload corrupted";
    EXPECT_EQ(delivered[0].tag, 3u);
    EXPECT_EQ(tcp->GetConnections(), 1u);
}

TEST_F(TcpMessageTransportTest, FramesManyMessagesInOrder)
{
    Ptr<TcpMessageTransport> tcp = InstallTcp(2, false);
    uint32_t ch = Record();
    // Sizes that put frame headers at every position relative to segments.
    std::vector<uint64_t> sizes = {1, 100, 8948 - 24, 8948, 12345, 3 * 8948 + 5, 7, 200000};
    std::vector<MessageBytes> datas;
    for (size_t i = 0; i < sizes.size(); ++i)
    {
        MessageBytes d = (i % 2) ? RandomBytes(sizes[i], 1000 + i) : nullptr;
        datas.push_back(d);
        tcp->Send(0, 1, ch, static_cast<uint32_t>(i), sizes[i], d);
    }
    tcp->Send(1, 0, ch, 77, 5000); // the reverse direction opens its own connection
    Simulator::Run();
    ASSERT_EQ(delivered.size(), sizes.size() + 1);
    size_t k = 0;
    for (const auto& m : delivered)
    {
        if (m.src == 1)
        {
            EXPECT_EQ(m.tag, 77u);
            EXPECT_EQ(m.bytes, 5000u);
            continue;
        }
        EXPECT_EQ(m.tag, k) << "messages on one pair arrive in Send order";
        EXPECT_EQ(m.bytes, sizes[k]);
        if (datas[k])
        {
            ASSERT_NE(m.data, nullptr);
            EXPECT_TRUE(*m.data == *datas[k]) << "message " << k;
        }
        else
        {
            EXPECT_EQ(m.data, nullptr);
        }
        EXPECT_GE(m.delivered, m.sent);
        ++k;
    }
    EXPECT_EQ(tcp->GetConnections(), 2u);
}

TEST_F(TcpMessageTransportTest, LargeMessageNearLineRate)
{
    Ptr<TcpMessageTransport> tcp = InstallTcp(2, true);
    uint32_t ch = Record();
    uint32_t maxFrame = 0;
    net->HostDevice(0)->TraceConnectWithoutContext(
        "PhyTxBegin",
        MakeBoundCallback(
            +[](uint32_t* mx, Ptr<const Packet> p) { *mx = std::max(*mx, p->GetSize()); },
            &maxFrame));
    uint64_t bytes = 30000000;
    tcp->Send(0, 1, ch, 0, bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(maxFrame, tcp->GetMaxPayload() + tcp->GetPerPacketOverhead());
    EXPECT_EQ(maxFrame, 9002u);
    // Lower bound: every wire byte at line rate (stream = frame header + message).
    uint64_t stream = bytes + MlnetFrameHeader::SIZE;
    uint64_t segments = (stream + tcp->GetMaxPayload() - 1) / tcp->GetMaxPayload();
    double lineTime = double(stream + segments * tcp->GetPerPacketOverhead()) * 8 / kRate;
    double took = (delivered[0].delivered - delivered[0].sent).GetSeconds();
    EXPECT_GE(took, lineTime);
    // The goodput bound at line rate is R * MSS / (MSS + overhead); after the
    // handshake and slow start TCP must reach 90% of it over 30 MB.
    double goodput = bytes * 8 / took;
    double bound =
        kRate * tcp->GetMaxPayload() / (tcp->GetMaxPayload() + tcp->GetPerPacketOverhead());
    EXPECT_GE(goodput, 0.9 * bound)
        << "took " << took << " s for " << lineTime << " s at line rate";
    std::cout << "[ measured ] TCP NewReno 30 MB over 2 hops: " << took * 1e6
              << " us, line-rate bound " << lineTime * 1e6 << " us, goodput " << goodput / 1e9
              << " Gb/s of " << bound / 1e9 << std::endl;
}

TEST_F(TcpMessageTransportTest, DctcpRunsWithEcn)
{
    Ptr<TcpMessageTransport> tcp = InstallTcp(2, true, "ns3::TcpDctcp");
    uint32_t ch = Record();
    uint32_t ectData = 0;
    uint32_t notEctData = 0;
    net->HostDevice(0)->TraceConnectWithoutContext(
        "PhyTxBegin",
        MakeBoundCallback(
            +[](uint32_t* ect, uint32_t* notEct, Ptr<const Packet> packet) {
                Ptr<Packet> p = packet->Copy();
                PppHeader ppp;
                Ipv4Header ip;
                p->RemoveHeader(ppp);
                p->RemoveHeader(ip);
                if (ip.GetPayloadSize() > 100)
                {
                    (ip.GetEcn() == Ipv4Header::ECN_NotECT ? *notEct : *ect) += 1;
                }
            },
            &ectData,
            &notEctData));
    MessageBytes data = RandomBytes(2000000, 5);
    tcp->Send(0, 1, ch, 0, data->size(), data);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_TRUE(*delivered[0].data == *data);
    EXPECT_GT(ectData, 200u) << "DCTCP data segments must be ECN-capable";
    EXPECT_EQ(notEctData, 0u);
    Ptr<Socket> s = tcp->GetSocket(0, 1);
    ASSERT_NE(s, nullptr);
}

TEST_F(TcpMessageTransportTest, DctcpIncastOverEcnSwitch)
{
    IdealSwitchHelper fabric(3);
    fabric.SetSwitchEcn(true, 65);
    Ptr<Cluster> cluster = fabric.Install();
    // With ECN on, the helper keeps switch device queues at two frames so that the
    // backlog forms in the RED queue disc, where it is marked.
    Ptr<Node> sw = cluster->GetSwitchNodes().Get(0);
    for (uint32_t d = 0; d < sw->GetNDevices(); ++d)
    {
        if (auto ppp = DynamicCast<PointToPointNetDevice>(sw->GetDevice(d)))
        {
            EXPECT_EQ(ppp->GetQueue()->GetMaxSize(), QueueSize("2p"));
        }
    }
    Ptr<TcpMessageTransport> tcp = CreateObject<TcpMessageTransport>();
    tcp->SetAttribute("SocketType", StringValue("ns3::TcpDctcp"));
    tcp->Install(cluster);
    transport = tcp;
    uint32_t ch = Record();
    uint64_t bytes = 5000000;
    tcp->Send(1, 0, ch, 1, bytes);
    tcp->Send(2, 0, ch, 2, bytes);
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 2u);
    // Two senders share rank 0's downlink: together they need at least 2x the
    // line-rate time of one message, and DCTCP keeps them within 15% of it.
    uint64_t stream = bytes + MlnetFrameHeader::SIZE;
    uint64_t segments = (stream + tcp->GetMaxPayload() - 1) / tcp->GetMaxPayload();
    double lineTime = double(stream + segments * tcp->GetPerPacketOverhead()) * 8 / kRate;
    double last = std::max(delivered[0].delivered, delivered[1].delivered).GetSeconds();
    EXPECT_GE(last, 2 * lineTime);
    EXPECT_LE(last, 1.15 * 2 * lineTime);
    // The switch marked instead of dropping: DCTCP reacted to ECN.
    uint64_t marks = 0;
    uint64_t drops = 0;
    for (uint32_t i = 0; i < cluster->GetSwitchNodes().GetN(); ++i)
    {
        Ptr<Node> sw = cluster->GetSwitchNodes().Get(i);
        Ptr<TrafficControlLayer> tc = sw->GetObject<TrafficControlLayer>();
        for (uint32_t d = 0; d < sw->GetNDevices(); ++d)
        {
            Ptr<QueueDisc> q = tc->GetRootQueueDiscOnDevice(sw->GetDevice(d));
            if (q)
            {
                marks += q->GetStats().GetNMarkedPackets(RedQueueDisc::UNFORCED_MARK);
                drops += q->GetStats().nTotalDroppedPackets;
            }
        }
    }
    EXPECT_GT(marks, 0u);
    EXPECT_EQ(drops, 0u);
    std::cout << "[ measured ] DCTCP 2-to-1 incast of 5 MB each: " << last * 1e6
              << " us, line-rate bound " << 2 * lineTime * 1e6 << " us, " << marks << " ECN marks, "
              << drops << " drops" << std::endl;
}
