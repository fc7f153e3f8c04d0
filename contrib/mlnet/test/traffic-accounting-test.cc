// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of TrafficAccounting: an incast into a tiny switch queue (drops counted at
 * the right link class and cause, repaired by as many re-sends, conservation holds),
 * an uncontended ring (no drops, wire bytes = the alpha-beta twin's byte count from
 * packetization), the fast and IPv4 data paths giving identical counts, a link failed
 * mid-transfer (failed-link drops, messages abandoned), a frame injected behind the
 * accounting's back (a violation), and the report section and summary line.
 */
#include "ns3/core-module.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/run-report.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"
#include "ns3/udp-message-transport.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class TrafficAccountingTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// Build an ideal switch of n ranks with a switch queue of `queue`, a transport, and
    /// the accounting.
    void Build(uint32_t n,
               const std::string& transportName,
               const std::string& dataPath = "ipv4",
               const std::string& queue = "1000p")
    {
        IdealSwitchHelper fabric(n);
        fabric.SetQueueSize(QueueSize(queue));
        fabric.SetDataPath(dataPath);
        cluster = fabric.Install();
        if (transportName == "udp")
        {
            transport = CreateObject<UdpMessageTransport>();
        }
        else
        {
            transport = CreateObject<TcpMessageTransport>();
        }
        transport->Install(cluster);
        channel = transport->RegisterChannel(MakeCallback(&TrafficAccountingTest::OnMessage, this));
        accounting = TrafficAccounting::Attach(cluster, transport);
    }

    void OnMessage(const Message&)
    {
        ++delivered;
    }

    /// A ring step: every rank sends `bytes` to its successor; run; close.
    TrafficCounts Ring(uint32_t n, uint64_t bytes)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            transport->Send(r, (r + 1) % n, channel, 0, bytes);
        }
        Simulator::Run();
        return accounting->Close();
    }

    /// Ranks 1..n-1 send `bytes` to rank 0 at once; run; close.
    TrafficCounts Incast(uint32_t n, uint64_t bytes)
    {
        for (uint32_t r = 1; r < n; ++r)
        {
            transport->Send(r, 0, channel, 0, bytes);
        }
        Simulator::Run();
        return accounting->Close();
    }

    /// On 2 ranks: a message, and a frame handed straight to a host's device (no stack
    /// sent it) that reaches the switch and is forwarded: more frames arrive than sent.
    void InjectStrayFrame()
    {
        Build(2, "udp");
        Ptr<NetDevice> dev = cluster->GetLink(0).devA;
        Simulator::Schedule(MicroSeconds(1), [this, dev]() {
            transport->Send(0, 1, channel, 0, 1000);
            Ptr<Packet> stray = Create<Packet>(100);
            Ipv4Header h;
            h.SetSource(cluster->GetRankAddress(0));
            h.SetDestination(cluster->GetRankAddress(1));
            h.SetProtocol(17);
            h.SetPayloadSize(100);
            h.SetTtl(64);
            stray->AddHeader(h);
            dev->Send(stray, dev->GetBroadcast(), 0x0800);
        });
    }

    Ptr<Cluster> cluster;
    Ptr<MessageTransport> transport;
    Ptr<TrafficAccounting> accounting;
    uint32_t channel{0};
    uint32_t delivered{0};
};

/// The identities Close checks, asserted again from the counts it returns.
void
ExpectBalanced(const TrafficCounts& c)
{
    EXPECT_EQ(c.messagesSent.count,
              c.messagesDelivered.count + c.messagesAbandoned.count + c.messagesInFlight.count);
    EXPECT_EQ(c.messagesSent.bytes,
              c.messagesDelivered.bytes + c.messagesAbandoned.bytes + c.messagesInFlight.bytes);
    EXPECT_EQ(c.framesSent.count + c.framesMirrored.count,
              c.framesDelivered.count + c.framesDropped.count + c.framesInFlight.count);
    EXPECT_EQ(c.framesSent.bytes + c.framesMirrored.bytes,
              c.framesDelivered.bytes + c.framesDropped.bytes + c.framesInFlight.bytes);
}

TEST_F(TrafficAccountingTest, UdpIncastDropsAtTheSwitchQueueAndRepairsEach)
{
    // 3 senders at line rate into one 4-frame switch queue: the queue towards rank 0
    // (on its host-tor link) overflows; every lost data frame is NACKed and re-sent.
    // On the IPv4 path ns-3's traffic control drops silently in front of the full
    // device queue, on the fast path the device queue drops (MacTxDrop): same counts.
    nlohmann::json counts[2];
    const char* paths[2] = {"ipv4", "fast"};
    for (int i = 0; i < 2; ++i)
    {
        delivered = 0;
        Build(4, "udp", paths[i], "4p");
        Ptr<UdpMessageTransport> udp = DynamicCast<UdpMessageTransport>(transport);
        const uint64_t bytes = 100ull * udp->GetMaxPayload();
        TrafficCounts c = Incast(4, bytes);
        ExpectBalanced(c);
        EXPECT_EQ(delivered, 3u);
        EXPECT_EQ(c.messagesSent.count, 3u);
        EXPECT_EQ(c.messagesDelivered.count, 3u);
        EXPECT_EQ(c.messagesDelivered.bytes, 3 * bytes);
        EXPECT_EQ(c.messagesAbandoned.count, 0u);
        EXPECT_EQ(c.messagesInFlight.count, 0u);
        EXPECT_EQ(c.framesInFlight.count, 0u);
        ASSERT_GT(c.framesDropped.count, 0u);
        ASSERT_EQ(c.drops.size(), 1u) << c.Summary();
        EXPECT_EQ(c.drops[0].where, "host-tor");
        EXPECT_EQ(c.drops[0].cause, "queue");
        // Only full data frames are dropped (NACKs and ACKs find the queue idle)...
        EXPECT_EQ(c.framesDropped.bytes,
                  c.framesDropped.count * (udp->GetMaxPayload() + udp->GetPerPacketOverhead()));
        // ...and each is re-sent once: retransmissions = drops repaired.
        EXPECT_EQ(c.framesResent, c.framesDropped.count);
        EXPECT_EQ(udp->GetRetransmissions(), c.framesResent);
        // Health: the re-sent frames are full ones like those dropped, so their wire bytes
        // are the dropped bytes; each repair began with a silent RepairTimeout (a NACK) or
        // a SenderTimeout (a probe); the busiest switch queue was full: 4 full frames.
        EXPECT_EQ(c.bytesResent, c.framesDropped.bytes);
        EXPECT_EQ(c.timeouts, udp->GetNacksSent() + udp->GetProbes());
        EXPECT_GT(c.timeouts, 0u);
        EXPECT_EQ(c.maxQueueBytes, 4 * (udp->GetMaxPayload() + udp->GetPerPacketOverhead()));
        // Frames: 100 data frames per message plus the re-sends, one ACK per message and
        // the NACKs.
        EXPECT_EQ(c.framesSent.count, 3 * 100 + c.framesResent + 3 + udp->GetNacksSent());
        std::cout << "[ measured ] udp 3-to-1 incast, 4-frame queue, " << paths[i]
                  << " data path: " << c.Summary() << std::endl;
        counts[i] = c.ToJson();
        counts[i].erase("data_path");
        Simulator::Destroy();
    }
    EXPECT_EQ(counts[0], counts[1]) << counts[0].dump() << "\n" << counts[1].dump();
}

TEST_F(TrafficAccountingTest, TcpIncastDropsAndRetransmits)
{
    Build(4, "tcp", "ipv4", "4p");
    TrafficCounts c = Incast(4, 1000000);
    ExpectBalanced(c);
    EXPECT_EQ(delivered, 3u);
    EXPECT_EQ(c.messagesDelivered.bytes, 3000000u);
    EXPECT_EQ(c.messagesInFlight.count, 0u);
    EXPECT_EQ(c.framesInFlight.count, 0u);
    ASSERT_GT(c.framesDropped.count, 0u);
    for (const auto& d : c.drops)
    {
        EXPECT_EQ(d.where, "host-tor");
        EXPECT_EQ(d.cause, "queue");
    }
    // TCP re-sends at least every lost data segment (and some it only thinks lost).
    EXPECT_GT(c.framesResent, 0u);
    EXPECT_EQ(c.framesResent, transport->GetRetransmissions());
    // Re-sent segments carry at most a full segment plus the headers each.
    EXPECT_GE(c.bytesResent, c.framesResent * transport->GetPerPacketOverhead());
    EXPECT_LE(c.bytesResent,
              c.framesResent * (transport->GetMaxPayload() + transport->GetPerPacketOverhead()));
    EXPECT_EQ(c.timeouts, transport->GetTimeouts());
    std::cout << "[ measured ] tcp 3-to-1 incast, 4-frame queue: " << c.Summary() << std::endl;
}

TEST_F(TrafficAccountingTest, UdpRingIsExactlyTheTwinsBytes)
{
    // An uncontended ring step: nothing dropped or re-sent, every frame crosses the
    // switch once, and the wire bytes are packetization's: per message of m bytes in
    // P = ceil(m / payload) packets, m + P x overhead, plus one ACK (a header-only
    // packet: overhead bytes) per message.
    const uint32_t n = 4;
    Build(n, "udp");
    const uint64_t payload = transport->GetMaxPayload();
    const uint64_t overhead = transport->GetPerPacketOverhead();
    const uint64_t bytes = 20 * payload + 500;
    const uint64_t packets = (bytes + payload - 1) / payload;
    TrafficCounts c = Ring(n, bytes);
    ExpectBalanced(c);
    EXPECT_EQ(c.messagesSent.count, n);
    EXPECT_EQ(c.messagesSent.bytes, n * bytes);
    EXPECT_EQ(c.messagesDelivered.bytes, n * bytes);
    EXPECT_EQ(c.framesDropped.count, 0u);
    EXPECT_TRUE(c.drops.empty());
    EXPECT_EQ(c.framesResent, 0u);
    EXPECT_EQ(c.framesInFlight.count, 0u);
    EXPECT_EQ(c.framesSent.count, n * (packets + 1));
    EXPECT_EQ(c.framesSent.bytes, n * (bytes + packets * overhead + overhead));
    EXPECT_EQ(c.framesDelivered.count, c.framesSent.count);
    EXPECT_EQ(c.framesDelivered.bytes, c.framesSent.bytes);
    EXPECT_EQ(c.framesForwarded.count, c.framesSent.count); // one switch hop each
    EXPECT_EQ(c.framesForwarded.bytes, c.framesSent.bytes);
    EXPECT_EQ(c.framesMirrored.count, 0u);
    // The link registry saw the same bytes twice (host -> switch, switch -> host).
    EXPECT_EQ(cluster->GetTotalLinkBytes(), 2 * c.framesSent.bytes);
    EXPECT_EQ(c.Summary(), "");
}

TEST_F(TrafficAccountingTest, TcpRingDeliversEverything)
{
    const uint32_t n = 4;
    Build(n, "tcp");
    TrafficCounts c = Ring(n, 300000);
    ExpectBalanced(c);
    EXPECT_EQ(c.messagesDelivered.count, n);
    EXPECT_EQ(c.messagesDelivered.bytes, n * 300000u);
    EXPECT_EQ(c.framesDropped.count, 0u);
    EXPECT_EQ(c.framesResent, 0u);
    EXPECT_EQ(c.framesDelivered.count, c.framesSent.count);
    EXPECT_EQ(c.framesDelivered.bytes, c.framesSent.bytes);
    EXPECT_EQ(cluster->GetTotalLinkBytes(), 2 * c.framesSent.bytes);
}

TEST_F(TrafficAccountingTest, FastAndIpv4PathsCountTheSame)
{
    nlohmann::json counts[2];
    const char* paths[2] = {"ipv4", "fast"};
    for (int i = 0; i < 2; ++i)
    {
        Build(8, "udp", paths[i]);
        counts[i] = Ring(8, 123456).ToJson();
        Simulator::Destroy();
        counts[i].erase("data_path");
    }
    EXPECT_EQ(counts[0], counts[1]) << counts[0].dump() << "\n" << counts[1].dump();
}

TEST_F(TrafficAccountingTest, LinkFailedMidTransferDropsAsFailedLinkAndAbandons)
{
    // Rank 1 -> rank 0 while rank 0's only link fails 5 us into the transfer and stays
    // down (no rerouting is possible on an ideal switch): the frames on the wire and all
    // later ones are failed-link drops; the sender gives up after MaxRetries probes.
    Build(2, "udp");
    transport->SetAttribute("MaxRetries", UintegerValue(2));
    uint32_t link = cluster->GetLinksOfNode(cluster->GetRankNode(0)->GetId()).front();
    Simulator::Schedule(MicroSeconds(5), &Cluster::FailLink, cluster, link);
    const uint64_t bytes = 50ull * transport->GetMaxPayload();
    transport->Send(1, 0, channel, 0, bytes);
    Simulator::Run();
    TrafficCounts c = accounting->Close();
    ExpectBalanced(c);
    EXPECT_EQ(delivered, 0u);
    EXPECT_EQ(c.messagesAbandoned.count, 1u);
    EXPECT_EQ(c.messagesAbandoned.bytes, bytes);
    EXPECT_EQ(c.messagesInFlight.count, 0u);
    ASSERT_GT(c.framesDropped.count, 0u);
    for (const auto& d : c.drops)
    {
        EXPECT_EQ(d.where, "host-tor");
        EXPECT_EQ(d.cause, "failed-link");
    }
    EXPECT_EQ(c.framesInFlight.count, 0u);
    EXPECT_NE(c.Summary().find("host-tor failed link"), std::string::npos) << c.Summary();
}

TEST_F(TrafficAccountingTest, FlowLevelConnectsNoFrameTraceUntilAFrameTransportComes)
{
    // Attached with the flow level's transport, nothing is connected to the devices:
    // no frame moves. A packet transport added later (on its first send) connects
    // them, and its frames are counted and conserved.
    IdealSwitchHelper fabric(4);
    cluster = fabric.Install();
    Ptr<MessageTransport> fluid = TransportChoice::Create("udp", RunLevel::FLOW);
    fluid->Install(cluster);
    accounting = TrafficAccounting::Attach(cluster, fluid);
    EXPECT_FALSE(accounting->AreFramesCounted());
    uint32_t fluidChannel = fluid->RegisterChannel(
        MessageTransport::ReceiveCallback([this](const Message&) { ++delivered; }));
    fluid->Send(0, 1, fluidChannel, 0, 100000);
    Simulator::Run();
    TrafficCounts flow = accounting->Close();
    EXPECT_EQ(flow.messagesDelivered.count, 1u);
    EXPECT_EQ(flow.framesSent.count, 0u);

    transport = CreateObject<UdpMessageTransport>();
    transport->SetAttribute("Port", UintegerValue(9001)); // the fluid's own holds 9000
    transport->Install(cluster);
    EXPECT_FALSE(accounting->AreFramesCounted());
    channel = transport->RegisterChannel(
        MessageTransport::ReceiveCallback([this](const Message&) { ++delivered; }));
    // Its first send announces it to the cluster (ObjectBound), before its first frame.
    TrafficCounts both = Ring(4, 100000);
    EXPECT_TRUE(accounting->AreFramesCounted());
    EXPECT_EQ(both.messagesDelivered.count, 5u);
    EXPECT_GT(both.framesSent.count, 4u * 11); // 12 data frames a message, ACKs too
    EXPECT_EQ(both.framesDelivered.count, both.framesSent.count);

    // Attached with nothing, or with a packet transport, frames are counted at once.
    Simulator::Destroy();
    Build(4, "udp");
    EXPECT_TRUE(accounting->AreFramesCounted());
}

TEST_F(TrafficAccountingTest, FrameBehindItsBackIsAViolation)
{
    InjectStrayFrame();
    Simulator::Run();
    try
    {
        accounting->Close();
        FAIL() << "Close accepted a frame nobody sent";
    }
    catch (const std::logic_error& e)
    {
        std::string what = e.what();
        EXPECT_NE(what.find("traffic is not conserved on the ideal fabric"), std::string::npos)
            << what;
        EXPECT_NE(what.find("sent by hosts"), std::string::npos) << what;
    }
}

TEST_F(TrafficAccountingTest, ViolationIsOneErrorLineAndExitOne)
{
    // What an example does with it: RunReport::Main turns the std::logic_error into one
    // "error: traffic is not conserved ..." line on stderr and exit code 1.
    InjectStrayFrame();
    testing::internal::CaptureStderr();
    int rc = RunReport::Main([this]() {
        Simulator::Run();
        accounting->Close();
    });
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(err.rfind("error: traffic is not conserved on the ideal fabric", 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(TrafficAccountingTest, ReportHasTheSectionAndTheLine)
{
    RunReport report("accounting-test");
    Build(4, "udp", "ipv4", "4p");
    TrafficCounts c = Incast(4, 50ull * transport->GetMaxPayload());
    nlohmann::json doc = report.ToJson();
    ASSERT_TRUE(doc.contains("accounting"));
    ASSERT_EQ(doc["accounting"].size(), 1u);
    EXPECT_EQ(doc["accounting"][0], c.ToJson());
    EXPECT_EQ(doc["accounting"][0]["fabric"], "ideal");
    EXPECT_EQ(doc["accounting"][0]["frames"]["dropped"]["frames"], c.framesDropped.count);
    // Closing again (a second run on the same cluster) replaces the entry.
    accounting->Close();
    EXPECT_EQ(report.ToJson()["accounting"].size(), 1u);
    std::ostringstream out;
    report.Finish(out, "");
    // Re-sent data frames are full ones, like the dropped ones; every repair waited for a
    // RepairTimeout (NACK); the switch queue held its 4 frames at most.
    Ptr<UdpMessageTransport> udp = DynamicCast<UdpMessageTransport>(transport);
    ASSERT_GT(udp->GetNacksSent(), 0u);
    std::string expected = "accounting: dropped " + std::to_string(c.framesDropped.count) +
                           " frames (host-tor queue " + std::to_string(c.framesDropped.count) +
                           "), re-sent " + std::to_string(c.framesResent) + " (" +
                           std::to_string(c.framesDropped.bytes) + " bytes), " +
                           std::to_string(udp->GetTimeouts()) + " timeouts, max queue " +
                           std::to_string(c.maxQueueBytes) + " bytes\n";
    EXPECT_NE(out.str().find(expected), std::string::npos) << out.str();
    EXPECT_THROW(report.Set("accounting", 1), std::invalid_argument);
}

} // namespace
