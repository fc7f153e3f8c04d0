// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoceMessageTransport on fast-path fabrics: an uncongested message takes exactly the
 * UDP transport's time (line rate, not paced: W*8/R + F*8/R + 2d on one switch); frame
 * classes (data priority 3 ECT(0), control priority 7 Not-ECT); a ring all-reduce of
 * real floats arrives exact; in an incast with ECN the receivers send CNPs and the
 * senders slow down; N long flows through one bottleneck converge to fair shares with
 * a bounded queue (far below the queue without congestion control); the IPv4 data path
 * is refused.
 */
#include "ns3/boolean.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/ecn-marker.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/mlnet-transport-header.h"
#include "ns3/network-module.h"
#include "ns3/roce-message-transport.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"
#include "ns3/udp-message-transport.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class RoceMessageTransportTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

FabricOptions
IdealFast(uint32_t ranks, bool ecn)
{
    FabricOptions f;
    f.fabric = "ideal";
    f.ranks = ranks;
    f.dataPath = "fast";
    f.ecn = ecn;
    f.ecnGiven = true;    // as --ecn=<ecn>: roce alone would turn marking on
    f.pfcGiven = true;    // as --pfc=false: these tests watch DCQCN alone, without PFC
    f.transport = "roce"; // --ecn on the fast path
    f.queue = "100000p";  // deep enough that no test here drops
    return f;
}

/// Delivery time of one message of `bytes` from rank 0 to 1 over `transport`.
Time
OneMessage(Ptr<MessageTransport> transport, uint64_t bytes)
{
    Ptr<Cluster> cluster = IdealFast(2, true).Build();
    transport->Install(cluster);
    Time delivered;
    uint32_t ch = transport->RegisterChannel(
        MakeCallback(+[](Time* t, const Message& m) { *t = m.delivered; }).Bind(&delivered));
    transport->Send(0, 1, ch, 0, bytes);
    Simulator::Run();
    Simulator::Destroy();
    return delivered;
}

/// The switch's device towards a rank (the bottleneck of an incast to it).
Ptr<NetDevice>
SwitchDeviceTo(Ptr<Cluster> cluster, uint32_t rank)
{
    uint32_t node = cluster->GetRankNode(rank)->GetId();
    for (const ClusterLink& l : cluster->GetLinks())
    {
        if (l.nodeA == node)
        {
            return l.devB;
        }
        if (l.nodeB == node)
        {
            return l.devA;
        }
    }
    return nullptr;
}

/// What an incast of `senders` long flows into the last rank measured.
struct Incast
{
    std::map<uint32_t, uint64_t> windowBytes; //!< wire bytes received per sender in the window
    uint64_t maxQueue{0};                     //!< bytes, sampled every 2 microseconds
    uint64_t cnps{0};
    uint64_t rateDecreases{0};
    double minRate{1e300};
    uint64_t marks{0};
};

/**
 * `senders` flows longer than the run into the last rank of an ideal switch, flow s
 * starting at s * stagger; bytes received counted in [windowStart, windowEnd), the run
 * stops at windowEnd.
 */
Incast
RunIncast(uint32_t senders,
          bool ecn,
          const std::string& rate,
          Time stagger,
          Time windowStart,
          Time windowEnd)
{
    FabricOptions fo = IdealFast(senders + 1, ecn);
    fo.rate = rate;
    Ptr<Cluster> cluster = fo.Build();
    Ptr<RoceMessageTransport> roce = CreateObject<RoceMessageTransport>();
    roce->Install(cluster);
    uint32_t ch = roce->RegisterChannel(MakeCallback(+[](const Message&) {}));
    Incast r;
    const uint32_t sink = senders;

    struct Window
    {
        Incast* r;
        Time start;
        Time end;
    } w{&r, windowStart, windowEnd};

    cluster->GetRankNode(sink)->GetObject<FastForwarding>()->TraceConnectWithoutContext(
        "Deliver",
        MakeCallback(+[](Window* w, Ptr<const Packet> p, uint32_t) {
            Time now = Simulator::Now();
            if (now >= w->start && now < w->end)
            {
                FastFrameHeader h;
                p->PeekHeader(h);
                w->r->windowBytes[h.srcRank] += p->GetSize() + 2; // + PPP: wire bytes
            }
        }).Bind(&w));
    roce->TraceConnectWithoutContext(
        "Rate",
        MakeCallback(+[](Incast* r, uint32_t, uint32_t, uint32_t, double rate) {
            r->minRate = std::min(r->minRate, rate);
        }).Bind(&r));
    Ptr<NetDevice> bottleneck = SwitchDeviceTo(cluster, sink);
    Ptr<FastForwarding> sw = bottleneck->GetNode()->GetObject<FastForwarding>();
    for (Time t = MicroSeconds(2); t < windowEnd; t += MicroSeconds(2))
    {
        Simulator::Schedule(t, [&r, sw, bottleneck]() {
            r.maxQueue = std::max(r.maxQueue, sw->GetQueuedBytes(bottleneck));
        });
    }
    for (uint32_t s = 0; s < senders; ++s)
    {
        Simulator::Schedule(stagger * s, [roce, s, sink, ch]() {
            roce->Send(s, sink, ch, 0, 1ull << 30); // longer than the run
        });
    }
    Simulator::Stop(windowEnd);
    Simulator::Run();
    r.cnps = roce->GetCnpsSent();
    r.rateDecreases = roce->GetRateDecreases();
    r.marks = sw->GetEcnMarker() ? sw->GetEcnMarker()->GetMarks() : 0;
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(RoceMessageTransportTest, IdleLinkTakesTheUdpTransportsTime)
{
    Ptr<RoceMessageTransport> roce = CreateObject<RoceMessageTransport>();
    const uint64_t bytes = 20ull * 8943 + 500;
    Time tRoce = OneMessage(roce, bytes);
    Time tUdp = OneMessage(CreateObject<UdpMessageTransport>(), bytes);
    // W*8/R + F*8/R + 2d at 100 Gbps (80 ps per byte), d = 1 us: 21 packets, the
    // last of 500 bytes, 59 bytes of overhead each.
    int64_t wire = 20 * (8943 + 59) + (500 + 59);
    int64_t golden = wire * 80 + (8943 + 59) * 80 + 2 * 1000000;
    EXPECT_EQ(tUdp.GetPicoSeconds(), golden);
    EXPECT_EQ(tRoce.GetPicoSeconds(), golden);
    EXPECT_EQ(roce->GetCnpsSent(), 0u);
    EXPECT_EQ(roce->GetTimeouts(), 0u);
}

TEST_F(RoceMessageTransportTest, FramesCarryTheirClass)
{
    Ptr<Cluster> cluster = IdealFast(2, false).Build();
    Ptr<RoceMessageTransport> roce = CreateObject<RoceMessageTransport>();
    roce->Install(cluster);
    uint32_t ch = roce->RegisterChannel(MakeCallback(+[](const Message&) {}));
    // (type, priority, ecn) of every frame sent by a rank
    using Seen = std::vector<std::tuple<int, int, int>>;
    Seen seen;
    for (uint32_t r = 0; r < 2; ++r)
    {
        cluster->GetRankNode(r)->GetObject<FastForwarding>()->TraceConnectWithoutContext(
            "Tx",
            MakeCallback(+[](Seen* seen, Ptr<const Packet> p, uint32_t) {
                Ptr<Packet> copy = p->Copy();
                FastFrameHeader f;
                copy->RemoveHeader(f);
                MlnetTransportHeader t;
                copy->PeekHeader(t);
                seen->emplace_back(t.GetType(), f.priority, f.ecn);
            }).Bind(&seen));
    }
    roce->Send(0, 1, ch, 0, 3 * roce->GetMaxPayload());
    Simulator::Run();
    ASSERT_EQ(seen.size(), 4u); // three data frames, one ACK
    for (const auto& [type, priority, ecn] : seen)
    {
        bool data = type == MlnetTransportHeader::DATA;
        EXPECT_EQ(priority, data ? 3 : FastFrameHeader::MAX_PRIORITY);
        EXPECT_EQ(ecn, data ? FastFrameHeader::ECT0 : FastFrameHeader::NOT_ECT);
    }
    EXPECT_EQ(std::get<0>(seen.back()), MlnetTransportHeader::ACK);
}

TEST_F(RoceMessageTransportTest, RingAllReduceOfRealFloatsIsExact)
{
    FabricOptions f = IdealFast(4, true);
    f.fabric = "fattree";
    f.ranks = 8;
    CollectiveRunOptions run;
    run.collective = "allreduce";
    run.algorithm = "ring";
    run.bytes = "2MiB";
    run.transport = "roce";
    run.real = true;
    CollectiveRunResult r = CollectiveRunner::Run(f.Build(), run);
    EXPECT_EQ(r.realCorrect, 1);
    EXPECT_GT(r.simulatedS, 0);
}

TEST_F(RoceMessageTransportTest, CnpsSlowTheSendersDown)
{
    Incast r = RunIncast(2, true, "100Gbps", Time(0), Time(0), MicroSeconds(300));
    EXPECT_GT(r.marks, 0u);
    EXPECT_GT(r.cnps, 0u);
    EXPECT_GT(r.rateDecreases, 0u);
    EXPECT_LT(r.minRate, 100e9 / 2 + 1); // the first CNP halves a sender's rate
    // Without marking no CNP is sent and the senders stay at line rate.
    Incast plain = RunIncast(2, false, "100Gbps", Time(0), Time(0), MicroSeconds(300));
    EXPECT_EQ(plain.cnps, 0u);
    EXPECT_EQ(plain.marks, 0u);
    EXPECT_EQ(plain.minRate, 1e300);
}

TEST_F(RoceMessageTransportTest, FourFlowsConvergeToFairShares)
{
    // The DCQCN paper's setting: 40 Gbps links, its default parameters. Four flows
    // start 1 ms apart into one 40 Gbps link (ECN marking at the switch); from 20 ms on
    // each gets its fair share of 10 Gbps within 15% over the 20 ms window, and the link
    // stays busy. (Measured: 9.31 to 10.35 Gbps per flow; queue at most 621 KB,
    // against 44.9 MB after 5 ms without marking.)
    const uint32_t n = 4;
    const double line = 40e9;
    Time start = MilliSeconds(20);
    Time end = MilliSeconds(40);
    // The paper's 40 Gbps marking profile (EcnMarker's defaults are for 100 Gbps).
    Config::SetDefault("ns3::EcnMarker::Kmin", UintegerValue(5000));
    Config::SetDefault("ns3::EcnMarker::Kmax", UintegerValue(200000));
    Config::SetDefault("ns3::EcnMarker::Pmax", DoubleValue(0.01));
    Incast r = RunIncast(n, true, "40Gbps", MilliSeconds(1), start, end);
    Config::Reset();
    double window = (end - start).GetSeconds();
    double total = 0;
    ASSERT_EQ(r.windowBytes.size(), n);
    for (const auto& [src, bytes] : r.windowBytes)
    {
        double rate = bytes * 8.0 / window;
        total += rate;
        EXPECT_NEAR(rate, line / n, 0.15 * line / n) << "flow from rank " << src;
        RecordProperty("gbps_flow_" + std::to_string(src), std::to_string(rate / 1e9));
    }
    EXPECT_GT(total, 0.95 * line);
    EXPECT_GT(r.cnps, 0u);
    // The queue stays bounded: without marking (no CNP, every flow at line rate) it
    // holds more after 5 ms than ten times the most it held with DCQCN in 40 ms.
    Incast plain = RunIncast(n, false, "40Gbps", MilliSeconds(1), Time(0), MilliSeconds(5));
    EXPECT_EQ(plain.cnps, 0u);
    EXPECT_GT(plain.maxQueue, 10 * r.maxQueue);
    RecordProperty("max_queue_dcqcn", std::to_string(r.maxQueue));
    RecordProperty("max_queue_no_cc", std::to_string(plain.maxQueue));
}

TEST_F(RoceMessageTransportTest, NeedsTheFastDataPath)
{
    FabricOptions f = IdealFast(2, false);
    f.dataPath = "ipv4";
    f.transport = "udp"; // a fabric on the IPv4 path (roce's own flags would refuse it)
    Ptr<Cluster> cluster = f.Build();
    Ptr<MessageTransport> roce = TransportChoice::Create("roce");
    EXPECT_EQ(roce->GetInstanceTypeId().GetName(), "ns3::RoceMessageTransport");
    try
    {
        roce->Install(cluster);
        ADD_FAILURE() << "RoCE installed on the IPv4 data path";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("--dataPath=fast"), std::string::npos) << e.what();
    }
}

namespace
{
/**
 * Ranks 0 and 1 each send 8 MB to rank 2 at once (marked: both rates are cut), then,
 * 100 us after the incast ends, rank 0 sends one more message of `bytes` to rank 2 on an
 * idle fabric. \return how long that last message takes.
 */
Time
SecondMessageAfterIncast(bool perPeer, uint64_t bytes)
{
    Ptr<Cluster> cluster = IdealFast(3, true).Build();
    Ptr<RoceMessageTransport> roce = CreateObject<RoceMessageTransport>();
    roce->SetAttribute("QueuePairPerPeer", BooleanValue(perPeer));
    roce->Install(cluster);

    struct State
    {
        Ptr<RoceMessageTransport> roce;
        uint32_t ch{0};
        uint32_t done{0};
        uint64_t bytes{0};
        Time sent;
        Time took;
    } st;

    st.roce = roce;
    st.bytes = bytes;
    st.ch = roce->RegisterChannel(MakeCallback(+[](State* s, const Message& m) {
                                      if (++s->done == 2)
                                      {
                                          Simulator::Schedule(MicroSeconds(100), [s]() {
                                              s->sent = Simulator::Now();
                                              s->roce->Send(0, 2, s->ch, 1, s->bytes);
                                          });
                                      }
                                      else if (s->done == 3)
                                      {
                                          s->took = m.delivered - s->sent;
                                      }
                                  }).Bind(&st));
    roce->Send(0, 2, st.ch, 0, 8000000);
    roce->Send(1, 2, st.ch, 0, 8000000);
    Simulator::Run();
    EXPECT_GT(roce->GetRateDecreases(), 0u) << "the incast must cut the rates";
    EXPECT_EQ(st.done, 3u);
    Simulator::Destroy();
    return st.took;
}
} // namespace

// A queue pair per message starts at line rate; a queue pair per peer keeps the rate the
// incast cut it to (DCQCN recovers it by RateAi per RateIncreaseInterval), so the same
// message on an idle fabric takes longer.
TEST_F(RoceMessageTransportTest, QueuePairPerPeerKeepsItsRateAcrossMessages)
{
    const uint64_t bytes = 20ull * 8943;
    Ptr<RoceMessageTransport> fresh = CreateObject<RoceMessageTransport>();
    Time idle = OneMessage(fresh, bytes);
    Time perMessage = SecondMessageAfterIncast(false, bytes);
    Time perPeer = SecondMessageAfterIncast(true, bytes);
    EXPECT_EQ(perMessage, idle) << "a new queue pair starts at line rate";
    EXPECT_GT(perPeer.GetSeconds(), 1.5 * idle.GetSeconds()) << "the pair's cut rate persists";
}
