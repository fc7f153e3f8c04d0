// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of PriorityFlowControl on the fast data path: a 4-to-1 UDP incast on an ideal
 * switch drops frames without PFC and none with it (pauses sent, the incast finishing
 * at the receiver's line rate, conservation holding, the same times twice); a PAUSE
 * holds a sender for exactly 65535 x 512 bit times, an XON releases it early; a flow
 * sharing a paused NIC with an incast flow is blocked behind it (head of line); a ring
 * whose routes all turn the same way is reported as a PFC deadlock, not a hang; PFC on
 * the IPv4 data path is refused.
 */
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/network-module.h"
#include "ns3/priority-flow-control.h"
#include "ns3/traffic-accounting.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class PriorityFlowControlTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// Ideal switch of n ranks on the fast path, switch device queues of `queue`, PFC
    /// on or off (buffer `buffer` bytes at every node), UDP, accounting.
    void Build(uint32_t n, bool pfc, uint64_t buffer, const std::string& queue = "20p")
    {
        IdealSwitchHelper fabric(n);
        fabric.SetQueueSize(QueueSize(queue));
        fabric.SetDataPath("fast");
        fabric.SetPfc(pfc);
        cluster = fabric.Install();
        SetBuffer(buffer);
        Start();
    }

    void SetBuffer(uint64_t buffer)
    {
        NodeContainer nodes = cluster->GetAllNodes();
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            if (Ptr<PriorityFlowControl> p = nodes.Get(i)->GetObject<PriorityFlowControl>())
            {
                p->SetAttribute("BufferSize", UintegerValue(buffer));
            }
        }
    }

    void Start()
    {
        udp = CreateObject<UdpMessageTransport>();
        udp->Install(cluster);
        channel = udp->RegisterChannel(MakeCallback(&PriorityFlowControlTest::OnMessage, this));
        accounting = TrafficAccounting::Attach(cluster, udp);
    }

    void OnMessage(const Message&)
    {
        ++delivered;
        last = Simulator::Now();
    }

    Ptr<PriorityFlowControl> Pfc(uint32_t rank) const
    {
        return cluster->GetRankNode(rank)->GetObject<PriorityFlowControl>();
    }

    Ptr<Cluster> cluster;
    Ptr<UdpMessageTransport> udp;
    Ptr<TrafficAccounting> accounting;
    uint32_t channel{0};
    uint32_t delivered{0};
    Time last{0};
};

/// What one incast gave.
struct Incast
{
    TrafficCounts counts;
    double seconds{0};
    uint32_t delivered{0};
    uint64_t frameBytes{0}; //!< wire bytes of one full data frame
};

constexpr uint32_t kSenders = 4;
constexpr uint32_t kFrames = 200; //!< full frames per message

TEST_F(PriorityFlowControlTest, IncastIsLosslessAtLineRateWithPfc)
{
    // 4 senders at line rate into one switch port: 4x overload for the receiver's link.
    // Switch device queues of 20 frames; with PFC a 2 MiB shared buffer per node.
    auto run = [this](bool pfc) {
        Build(kSenders + 1, pfc, 2u << 20);
        const uint64_t bytes = uint64_t{kFrames} * udp->GetMaxPayload();
        for (uint32_t r = 1; r <= kSenders; ++r)
        {
            udp->Send(r, 0, channel, 0, bytes);
        }
        Simulator::Run();
        Incast out;
        out.counts = accounting->Close(); // throws if traffic is not conserved
        out.seconds = last.GetSeconds();
        out.delivered = delivered;
        out.frameBytes = udp->GetMaxPayload() + udp->GetPerPacketOverhead();
        Simulator::Destroy();
        delivered = 0;
        return out;
    };
    Incast off = run(false);
    Incast on = run(true);
    Incast again = run(true);

    EXPECT_EQ(off.delivered, kSenders);
    ASSERT_GT(off.counts.framesDropped.count, 0u) << "the overload must drop without PFC";
    EXPECT_EQ(off.counts.drops[0].cause, "queue");
    EXPECT_EQ(off.counts.pfcPausesSent, 0u);

    EXPECT_EQ(on.delivered, kSenders);
    EXPECT_EQ(on.counts.framesDropped.count, 0u) << on.counts.Summary();
    EXPECT_EQ(on.counts.framesResent, 0u);
    EXPECT_GT(on.counts.pfcPausesSent, 0u);
    // Every PAUSE reaches its neighbour (none lost, none left on the wire at the end).
    EXPECT_EQ(on.counts.pfcPausesReceived, on.counts.pfcPausesSent);
    EXPECT_GT(on.counts.pfcPausedSeconds, 0.0);
    EXPECT_EQ(on.counts.framesInFlight.count, 0u);
    EXPECT_EQ(on.counts.framesSent.count + on.counts.framesMirrored.count,
              on.counts.framesDelivered.count);
    EXPECT_GT(on.counts.maxQueueBytes, 0u);

    // First principles: the receiver's link carries the 800 data frames back to back;
    // before them the first frame crosses the sender's link (one frame time + 1 us) and
    // the last one then the receiver's link's propagation delay (1 us).
    const double rate = 100e9;
    const double frame = on.frameBytes * 8 / rate;
    const double expected = kSenders * kFrames * frame + frame + 2e-6;
    EXPECT_NEAR(on.seconds, expected, 0.01 * expected)
        << "PFC must keep the receiver's link busy (line rate)";
    std::cout << "[ measured ] 4-to-1 incast, 200 x 9 kB frames each: without PFC "
              << off.seconds * 1e6 << " us, " << off.counts.Summary() << "; with PFC "
              << on.seconds * 1e6 << " us (line rate " << expected * 1e6 << " us), "
              << on.counts.pfcPausesSent << " PAUSE frames, paused "
              << on.counts.pfcPausedSeconds * 1e6 << " us in all, max queue "
              << on.counts.maxQueueBytes << " bytes" << std::endl;

    // Deterministic: the same run gives the same times and counts.
    EXPECT_EQ(again.seconds, on.seconds);
    EXPECT_EQ(again.counts.pfcPausesSent, on.counts.pfcPausesSent);
    EXPECT_EQ(again.counts.pfcPausedSeconds, on.counts.pfcPausedSeconds);
    EXPECT_EQ(again.counts.maxQueueBytes, on.counts.maxQueueBytes);
}

TEST_F(PriorityFlowControlTest, PauseHoldsForItsQuantaAndXonResumes)
{
    // 65535 quanta x 512 bit times at 100 Gb/s = 33553920 bits / 1e11 = 335.5392 us.
    EXPECT_EQ(PriorityFlowControl::PauseDuration(65535, DataRate("100Gbps")),
              NanoSeconds(335539) + PicoSeconds(200));
    EXPECT_EQ(PriorityFlowControl::PauseDuration(1, DataRate("10Gbps")),
              NanoSeconds(51) + PicoSeconds(200));
    EXPECT_EQ(PriorityFlowControl::PauseDuration(0, DataRate("100Gbps")), Time(0));

    // One 10-frame message from rank 1 to rank 0; rank 1's NIC is paused at t = 0.
    auto run = [this](int xonAtUs) {
        Build(2, true, 16u << 20);
        Ptr<PriorityFlowControl> sender = Pfc(1);
        Ptr<NetDevice> nic = cluster->GetRankNode(1)->GetDevice(0);
        Time pausedFor{0};
        sender->TraceConnectWithoutContext(
            "Resume",
            MakeBoundCallback(
                +[](Time* out, Ptr<NetDevice>, uint8_t, Time t) { *out = t; },
                &pausedFor));
        if (xonAtUs >= 0)
        {
            FastFrameHeader pause;
            pause.priority = 0;
            pause.srcPort = 65535;
            sender->ReceivePause(nic->GetIfIndex(), pause);
            FastFrameHeader xon = pause;
            xon.srcPort = 0;
            if (xonAtUs > 0)
            {
                Simulator::Schedule(MicroSeconds(xonAtUs),
                                    &PriorityFlowControl::ReceivePause,
                                    sender,
                                    nic->GetIfIndex(),
                                    xon);
            }
        }
        udp->Send(1, 0, channel, 0, 10ull * udp->GetMaxPayload());
        Simulator::Run();
        // No Close: the injected PAUSE was received without being sent.
        std::pair<Time, Time> out{last, pausedFor};
        Simulator::Destroy();
        delivered = 0;
        return out;
    };
    auto [free, none] = run(-1);
    auto [paused, held] = run(0);
    auto [released, heldShort] = run(10);
    const Time quanta = PriorityFlowControl::PauseDuration(65535, DataRate("100Gbps"));
    EXPECT_EQ(none, Time(0));
    EXPECT_EQ(held, quanta);
    EXPECT_EQ(paused - free, quanta) << "the message waits out the pause exactly";
    EXPECT_EQ(heldShort, MicroSeconds(10));
    EXPECT_EQ(released - free, MicroSeconds(10)) << "XON resumes at once";
}

TEST_F(PriorityFlowControlTest, PausedNicBlocksAVictimFlowBehindIt)
{
    // Head-of-line blocking. Ideal switch of 5 ranks: ranks 1..4 send 300 frames each to
    // rank 0 (a 4-to-1 incast); rank 1 also sends a 100-frame victim message to rank 4,
    // whose receiving link is otherwise idle. Rank 1's NIC alternates its two messages.
    // Without PFC the victim gets half of rank 1's line rate (about 2x its time alone);
    // with PFC the switch pauses rank 1's NIC whenever its frames for rank 0 pile up, so
    // the victim's frames wait behind them: rank 1 then drains at rank 0's share, 1/4 of
    // line rate, and the victim gets half of that (about 4x its time alone).
    auto victim = [this](bool pfc, bool hot) {
        Build(5, pfc, 2u << 20);
        Time victimDone{0};
        uint32_t victimChannel = udp->RegisterChannel(MakeBoundCallback(
            +[](Time* t, const Message&) { *t = Simulator::Now(); },
            &victimDone));
        const uint64_t frame = udp->GetMaxPayload();
        for (uint32_t r = 1; hot && r <= 4; ++r)
        {
            udp->Send(r, 0, channel, 0, 300 * frame);
        }
        udp->Send(1, 4, victimChannel, 0, 100 * frame);
        Simulator::Run();
        accounting->Close();
        uint64_t nicPauses = pfc ? Pfc(1)->GetPausesReceived() : 0;
        Simulator::Destroy();
        delivered = 0;
        return std::make_pair(victimDone.GetSeconds(), nicPauses);
    };
    auto [alone, none] = victim(true, false);
    auto [shared, zero] = victim(false, true);
    auto [blocked, pauses] = victim(true, true);
    EXPECT_EQ(none, 0u);
    EXPECT_EQ(zero, 0u);
    EXPECT_GT(pauses, 0u) << "the switch must pause rank 1's NIC";
    EXPECT_NEAR(shared / alone, 2.0, 0.2) << "without PFC: half of the NIC";
    EXPECT_GT(blocked, 1.5 * shared) << "with PFC the victim waits behind the paused frames";
    std::cout << "[ measured ] victim (100 frames, idle receiver) alone " << alone * 1e6
              << " us; sharing its NIC with an incast flow: without PFC " << shared * 1e6 << " us ("
              << shared / alone << "x), with PFC " << blocked * 1e6 << " us (" << blocked / alone
              << "x), " << pauses << " PAUSE frames at its NIC" << std::endl;
}

TEST_F(PriorityFlowControlTest, RingTurningOneWayIsReportedAsDeadlock)
{
    // 5 ranks in a ring (1-D torus), each sending to the rank two hops clockwise: every
    // link carries a local and a transit flow, and each transit frame waits in a node
    // whose next link is itself paused: a cyclic buffer dependency.
    FabricOptions f;
    f.fabric = "torus";
    f.torusDims = "5";
    f.dataPath = "fast";
    f.pfc = true;
    cluster = f.Build();
    SetBuffer(300000);
    Start();
    for (uint32_t r = 0; r < 5; ++r)
    {
        udp->Send(r, (r + 2) % 5, channel, 0, 400ull * udp->GetMaxPayload());
    }
    std::string message;
    try
    {
        Simulator::Run();
    }
    catch (const std::runtime_error& e)
    {
        message = e.what();
    }
    ASSERT_FALSE(message.empty()) << "the run must end in a deadlock error";
    EXPECT_NE(message.find("PFC deadlock: cycle of paused ports"), std::string::npos) << message;
    // The cycle is the whole ring: all five nodes' clockwise ports.
    for (uint32_t r = 0; r < 5; ++r)
    {
        EXPECT_NE(
            message.find("node " + std::to_string(cluster->GetRankNode(r)->GetId()) + " dev "),
            std::string::npos)
            << message;
    }
    EXPECT_NE(message.find("break the cyclic buffer dependency"), std::string::npos) << message;
    EXPECT_LT(Simulator::Now(), MilliSeconds(50)) << "found within a few DeadlockTimeouts";
    std::cout << "[ measured ] " << message << std::endl;
}

TEST_F(PriorityFlowControlTest, PfcNeedsTheFastDataPath)
{
    IdealSwitchHelper fabric(4);
    fabric.SetPfc(true);
    try
    {
        fabric.Install();
        FAIL() << "PFC on the IPv4 data path must be refused";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("PFC needs the fast data path"), std::string::npos);
    }
}

} // namespace
