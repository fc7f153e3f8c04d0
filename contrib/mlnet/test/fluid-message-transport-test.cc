// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of FluidMessageTransport, the flow level: a lone message takes T_msg to the
 * picosecond, every collective at flow level ends when the twin's replay of its
 * schedule says (one fluid, two drivers), real payloads are reduced exactly, the
 * links count each message's wire bytes on its route (an even split's shares on every
 * branch), the same run twice gives the same times, and what a transfer sends into a
 * failed link before the routes converge is lost and repaired on UDP's timers.
 */
#include "collective-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/route-planner.h"
#include "ns3/run-health.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <numeric>

using namespace ns3;
using mlnettest::Coll;
using mlnettest::HandTransport;

namespace
{

class FluidMessageTransportTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// A fabric by flags, as the examples build it.
Ptr<Cluster>
Build(const std::string& fabric, uint32_t ranks, const std::string& dims = "")
{
    FabricOptions f;
    f.fabric = fabric;
    f.ranks = ranks;
    f.radix = 4;
    if (!dims.empty())
    {
        f.torusDims = dims;
    }
    return f.Build();
}

/// The flow level on an ideal switch of `ranks` ranks with 8 Gb/s (1 ns per byte), 1 us
/// links, standing in for HandTransport (P = 1000, O = 50).
Ptr<FluidMessageTransport>
HandFluid(uint32_t ranks)
{
    IdealSwitchHelper h(ranks);
    h.SetLinkRate(DataRate("8Gbps"));
    h.SetLinkDelay(MicroSeconds(1));
    Ptr<FluidMessageTransport> t = CreateObject<FluidMessageTransport>();
    t->SetPacketTransport(CreateObject<HandTransport>());
    t->Install(h.Install());
    return t;
}

} // namespace

TEST_F(FluidMessageTransportTest, LoneMessageTakesTMsg)
{
    // 8 Gb/s (1 ns per byte), 1 us links, P = 1000, O = 50 (HandTransport). m = 2500:
    // n = 3, W = 2650, F1 = 1050; two hops: W + F1 + 2 d = 5700 ns after the send.
    Ptr<FluidMessageTransport> t = HandFluid(2);
    Ptr<Cluster> c = t->GetCluster();
    Time delivered;
    uint32_t channel = t->RegisterChannel(MessageTransport::ReceiveCallback(
        [&delivered](const Message& m) { delivered = m.delivered; }));
    Simulator::Schedule(MicroSeconds(3), [&] { t->Send(0, 1, channel, 7, 2500); });
    Simulator::Run();
    EXPECT_EQ(delivered, MicroSeconds(3) + NanoSeconds(5700));
    EXPECT_EQ(t->GetMessagesDelivered(), 1u);
    EXPECT_EQ(t->GetBytesDelivered(), 2500u);
    EXPECT_EQ(t->GetActiveFlows(), 0u);
    // Its W and n counted on both links of its route, as its three frames would be.
    ASSERT_EQ(c->GetLinks().size(), 2u);
    for (const ClusterLink& l : c->GetLinks())
    {
        // The direction leaving rank 0 or entering rank 1.
        const bool aToB =
            l.nodeA == c->GetRankNode(0)->GetId() || l.nodeB == c->GetRankNode(1)->GetId();
        EXPECT_EQ(aToB ? l.bytesAtoB : l.bytesBtoA, 2650u) << "link " << l.id;
        EXPECT_EQ(aToB ? l.packetsAtoB : l.packetsBtoA, 3u) << "link " << l.id;
        EXPECT_EQ(aToB ? l.bytesBtoA + l.packetsBtoA : l.bytesAtoB + l.packetsAtoB, 0u)
            << "link " << l.id;
    }
    EXPECT_EQ(c->GetTotalLinkBytes(), 2 * 2650u);
}

TEST_F(FluidMessageTransportTest, ACopyMadeAtTheSwitchLoadsOnlyTheLinksBeyondIt)
{
    // The same numbers as LoneMessageTakesTMsg (W = 2650, F1 = 1050, 1 ns per byte,
    // 1 us links). Rank 0 sends m = 2500 to rank 1 and, at the same instant, its switch
    // copies it to rank 2. The copy does not cross rank 0's link, so the original has it
    // alone and both arrive W + F1 + 2 d = 5700 ns after the send; were the copy sent by
    // rank 0, the two would share its link and arrive after 2 W + F1 + 2 d = 8350 ns.
    Ptr<FluidMessageTransport> t = HandFluid(3);
    Ptr<Cluster> c = t->GetCluster();
    std::map<uint32_t, Time> delivered; // by receiving rank
    uint32_t copies = 0;
    const auto payload = std::make_shared<std::vector<uint8_t>>(2500, 0x5a);
    uint32_t channel = t->RegisterChannel(
        MessageTransport::ReceiveCallback([&delivered, &copies, &payload](const Message& m) {
            delivered[m.dst] = m.delivered;
            if (m.dst == 2)
            {
                ++copies;
                EXPECT_EQ(m.src, 0u);
                EXPECT_EQ(m.tag, 9u);
                EXPECT_EQ(m.data, payload); // the contents, shared, not copied
            }
        }));
    Simulator::Schedule(MicroSeconds(3), [&] {
        t->Send(0, 1, channel, 7, 2500, payload);
        t->SendCopy(0, 2, channel, 9, 2500, payload);
    });
    Simulator::Run();
    EXPECT_EQ(copies, 1u);
    EXPECT_EQ(delivered[1], MicroSeconds(3) + NanoSeconds(5700));
    EXPECT_EQ(delivered[2], MicroSeconds(3) + NanoSeconds(5700));
    // No rank sent the copy: the transport counts the original only.
    EXPECT_EQ(t->GetMessagesSent(), 1u);
    EXPECT_EQ(t->GetMessagesDelivered(), 1u);
    EXPECT_EQ(t->GetBytesDelivered(), 2500u);
    // The links count what crossed them: rank 0's link the original once, the links
    // into ranks 1 and 2 one message each.
    const uint32_t sw = c->GetSwitchNodes().Get(0)->GetId();
    const uint32_t rank0 = c->GetRankNode(0)->GetId();
    for (const ClusterLink& l : c->GetLinks())
    {
        const uint32_t host = l.Peer(sw);
        const bool towardSwitch = host == rank0; // rank 0 sends; ranks 1 and 2 receive
        const bool aToB = towardSwitch == (l.nodeB == sw);
        EXPECT_EQ(aToB ? l.bytesAtoB : l.bytesBtoA, 2650u) << "link " << l.id;
        EXPECT_EQ(aToB ? l.bytesBtoA : l.bytesAtoB, 0u) << "link " << l.id;
    }
    EXPECT_EQ(c->GetTotalLinkBytes(), 3 * 2650u);
    // A copy is checked as a message is: one to its own sender is refused.
    EXPECT_THROW(t->SendCopy(0, 0, channel, 1, 100), std::invalid_argument);
}

TEST_F(FluidMessageTransportTest, MessagesOfOneDeliveryInstantShareAnEventInTheirOrder)
{
    // Three equal messages leave their NICs together (each sender alone on its NIC):
    // A 0->1 and C 6->7 stay under their ToR (2 hops), B 2->4 crosses a spine (4 hops),
    // so A and C are delivered at one instant and B later. They are delivered in the
    // order one event per message would run them in: A, C (scheduled in that order, one
    // after the other), then what A's handler schedules for that instant, then B. The
    // shared event shows in the event count: adding C adds no event.
    auto run = [](bool withC, std::vector<std::string>& log, std::vector<Time>& at) {
        Ptr<Cluster> c = Build("fattree", 8);
        Ptr<FluidMessageTransport> t = CreateObject<FluidMessageTransport>();
        t->Install(c);
        uint32_t channel =
            t->RegisterChannel(MessageTransport::ReceiveCallback([&log, &at](const Message& m) {
                log.push_back(std::string(1, static_cast<char>('A' + m.tag)));
                at.push_back(m.delivered);
                if (m.tag == 0)
                {
                    Simulator::ScheduleNow([&log] { log.emplace_back("after A"); });
                }
            }));
        Simulator::Schedule(MicroSeconds(1), [=] {
            t->Send(0, 1, channel, 0, 100000);
            t->Send(2, 4, channel, 1, 100000);
            if (withC)
            {
                t->Send(6, 7, channel, 2, 100000);
            }
        });
        Simulator::Run();
        const uint64_t events = Simulator::GetEventCount();
        Simulator::Destroy();
        return events;
    };
    std::vector<std::string> log;
    std::vector<Time> at;
    const uint64_t withC = run(true, log, at);
    EXPECT_EQ(log, (std::vector<std::string>{"A", "C", "after A", "B"}));
    ASSERT_EQ(at.size(), 3u);
    EXPECT_EQ(at[0], at[1]);
    EXPECT_GT(at[2], at[0]);
    std::vector<std::string> logAB;
    std::vector<Time> atAB;
    const uint64_t withoutC = run(false, logAB, atAB);
    EXPECT_EQ(logAB, (std::vector<std::string>{"A", "after A", "B"}));
    EXPECT_EQ(atAB, (std::vector<Time>{at[0], at[2]}));
    EXPECT_EQ(withC, withoutC);
}

TEST_F(FluidMessageTransportTest, EvenSplitSharesAreCountedOnEveryBranch)
{
    // Without a packet transport ECMP is an even split: each branch counts its share of
    // every message, so each directed link holds the twin's predicted bytes (rounded
    // once) and the total is the sum of W over every message's hops.
    Ptr<Cluster> c = Build("fattree", 8);
    Ptr<FluidMessageTransport> t = CreateObject<FluidMessageTransport>();
    t->Install(c);
    Ptr<AlphaBetaModel> model = t->GetModel(); // no flow keys: every branch its share
    // Ranks 0 and 2 sit under two ToRs (2 ranks per ToR, 2 spines): each message is
    // split over two uplinks, and an odd W (3001 + 30 bytes of one frame) in halves.
    Ptr<Collective> a2a = CollectiveFactory::Create("alltoall", "direct");
    a2a->Setup(t, {0, 2}, 3001);
    const std::vector<CollectiveStep> schedule = a2a->GetSchedule();
    const std::vector<double> predicted = model->PredictLinkBytes(schedule);
    RoutePlanner planner(c);
    planner.Compute();
    double expectedTotal = 0;
    for (const CollectiveStep& step : schedule)
    {
        for (const ScheduledMessage& m : step.messages)
        {
            expectedTotal +=
                static_cast<double>(model->GetWireBytes(m.bytes)) * planner.Hops(m.src, m.dst);
        }
    }
    a2a->Start();
    Simulator::Run();
    ASSERT_TRUE(a2a->IsDone());
    bool fraction = false;
    for (const ClusterLink& l : c->GetLinks())
    {
        for (uint32_t dir = 0; dir < 2; ++dir)
        {
            const double k = predicted[2 * l.id + dir];
            fraction = fraction || k != std::round(k);
            EXPECT_NEAR(static_cast<double>(dir == 0 ? l.bytesAtoB : l.bytesBtoA), k, 0.5 + 1e-6)
                << "link " << l.id << " dir " << dir;
        }
    }
    EXPECT_TRUE(fraction) << "the case should split messages into fractions";
    EXPECT_NEAR(static_cast<double>(c->GetTotalLinkBytes()),
                expectedTotal,
                static_cast<double>(c->GetLinks().size()));
}

TEST_F(FluidMessageTransportTest, CollectivesEndWhenTheTwinSays)
{
    // The twin replays the written-down schedule; the flow level runs the collective
    // itself over the same fluid. Both must agree to the rounding of event times.
    struct Case
    {
        const char* fabric;
        uint32_t ranks;
        const char* dims;
        const char* collective;
        const char* algorithm;
    };

    for (const Case& k : {Case{"ideal", 8, "", "allreduce", "ring"},
                          Case{"fattree", 8, "", "allreduce", "hd"},
                          Case{"fattree", 8, "", "alltoall", "direct"},
                          Case{"fattree", 8, "", "alltoall", "pairwise"},
                          Case{"torus", 0, "4x2", "allreduce", "torus"},
                          Case{"mesh", 0, "4", "alltoall", "direct"},
                          Case{"ideal", 8, "", "broadcast", "ring"}})
    {
        CollectiveRunOptions flow = Coll(k.collective, k.algorithm, "256KiB");
        flow.level = RunLevel::FLOW;
        CollectiveRunResult f = CollectiveRunner::Run(Build(k.fabric, k.ranks, k.dims), flow);
        Simulator::Destroy();
        CollectiveRunResult p = CollectiveRunner::Run(Build(k.fabric, k.ranks, k.dims),
                                                      Coll(k.collective, k.algorithm, "256KiB"));
        Simulator::Destroy();
        std::cout << k.fabric << " " << k.collective << "/" << k.algorithm << ": flow "
                  << f.simulatedS * 1e6 << " us, twin " << p.analyticalS * 1e6 << " us, ns-3 "
                  << p.simulatedS * 1e6 << " us" << std::endl;
        // The twin's times are doubles rounded once; the flow level rounds every
        // delivery to the picosecond resolution, at most 1 ps per step of a chain.
        EXPECT_NEAR(f.simulatedS, p.analyticalS, 20e-12)
            << k.fabric << " " << k.collective << "/" << k.algorithm;
        // The same data frames on the links; the packet run adds its ACKs (and no
        // repair: nothing is lost in these cases).
        EXPECT_GT(f.linkBytes, 0u);
        EXPECT_LT(f.linkBytes, p.linkBytes);
        for (const auto& [linkClass, bytes] : p.bytesByLinkClass)
        {
            // The same classes carry traffic at both levels, the flow level's no more.
            EXPECT_EQ(f.bytesByLinkClass.at(linkClass) > 0, bytes > 0) << linkClass;
            EXPECT_LE(f.bytesByLinkClass.at(linkClass), bytes) << linkClass;
        }
    }
}

TEST_F(FluidMessageTransportTest, RealPayloadsAreReducedExactly)
{
    CollectiveRunOptions r = Coll("allreduce", "ring", "64KiB", true);
    r.level = RunLevel::FLOW;
    CollectiveRunResult res = CollectiveRunner::Run(Build("fattree", 8), r);
    EXPECT_EQ(res.realCorrect, 1);
}

TEST_F(FluidMessageTransportTest, SameRunSameTimes)
{
    CollectiveRunOptions r = Coll("alltoall", "pairwise", "64KiB");
    r.level = RunLevel::FLOW;
    CollectiveRunResult a = CollectiveRunner::Run(Build("fattree", 8), r);
    Simulator::Destroy();
    CollectiveRunResult b = CollectiveRunner::Run(Build("fattree", 8), r);
    EXPECT_EQ(a.simulatedS, b.simulatedS);
    EXPECT_EQ(a.memberEnds, b.memberEnds);
}

TEST_F(FluidMessageTransportTest, StandsInForTheNamedTransport)
{
    // TransportChoice at the flow level wraps the named transport: its packetization
    // and its flow keys (the UDP pair key), which route the flows as the packets go.
    Ptr<Cluster> c = Build("fattree", 8);
    Ptr<MessageTransport> t = TransportChoice::Create("udp", RunLevel::FLOW);
    Ptr<FluidMessageTransport> fluid = DynamicCast<FluidMessageTransport>(t);
    ASSERT_TRUE(fluid);
    t->Install(c);
    Ptr<MessageTransport> udp = fluid->GetPacketTransport();
    ASSERT_TRUE(udp);
    EXPECT_EQ(t->GetMaxPayload(), udp->GetMaxPayload());
    EXPECT_EQ(t->GetPerPacketOverhead(), udp->GetPerPacketOverhead());
    FlowKey a;
    FlowKey b;
    ASSERT_TRUE(t->GetFlowKey(0, 5, a));
    ASSERT_TRUE(udp->GetFlowKey(0, 5, b));
    EXPECT_EQ(a.srcAddr, b.srcAddr);
    EXPECT_EQ(a.srcPort, b.srcPort);
    EXPECT_FALSE(DynamicCast<FluidMessageTransport>(TransportChoice::Create("udp")));
    // A model given the fluid transport models the transport it stands for: UDP's
    // 8-packet NIC FIFO and line-rate sharing; a transport without a NIC FIFO (as TCP)
    // max-min.
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetCluster(c);
    model->SetPacketization(t);
    EXPECT_EQ(model->GetSharing(), FluidSharing::LINE_RATE);
    EXPECT_EQ(model->GetNicBacklogPackets(), 8u);
    EXPECT_EQ(model->GetSharing(), fluid->GetModel()->GetSharing());
    model->SetPacketization(CreateObject<HandTransport>());
    EXPECT_EQ(model->GetSharing(), FluidSharing::MAX_MIN);
    // Used wrongly: one clear error.
    EXPECT_THROW(fluid->SetPacketTransport(udp), std::invalid_argument);
    EXPECT_THROW(t->Send(0, 0, 0, 0, 10), std::invalid_argument);
}

TEST_F(FluidMessageTransportTest, NoNodeMakesAForwardingTableAtFlowLevel)
{
    // Node tables are made on a node's first lookup (DeferredRankTable); a flow-level run
    // forwards no frame, so it makes none, while a packet run makes those it forwards with.
    auto tablesMade = [](Ptr<Cluster> c) {
        uint32_t made = 0;
        NodeContainer all = c->GetAllNodes();
        for (uint32_t i = 0; i < all.GetN(); ++i)
        {
            Ptr<Node> node = all.Get(i);
            Ptr<FastForwarding> fast = node->GetObject<FastForwarding>();
            Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
            Ptr<FlowHashRouting> routing =
                ipv4 ? DynamicCast<FlowHashRouting>(ipv4->GetRoutingProtocol()) : nullptr;
            EXPECT_TRUE(fast || routing);
            made += (fast && fast->IsTableMade()) || (routing && routing->IsTableMade()) ? 1 : 0;
        }
        return made;
    };
    CollectiveRunOptions r = Coll("alltoall", "pairwise", "64KiB");
    r.level = RunLevel::FLOW;
    Ptr<Cluster> flow = Build("fattree", 8);
    const uint32_t nodes = flow->GetAllNodes().GetN();
    EXPECT_EQ(tablesMade(flow), 0u);
    CollectiveRunResult f = CollectiveRunner::Run(flow, r);
    EXPECT_GT(f.simulatedS, 0);
    EXPECT_EQ(tablesMade(flow), 0u);
    Simulator::Destroy();

    r.level = RunLevel::PACKET;
    Ptr<Cluster> packet = Build("fattree", 8);
    CollectiveRunResult p = CollectiveRunner::Run(packet, r);
    EXPECT_EQ(tablesMade(packet), nodes); // every rank sends, every switch forwards
    EXPECT_NEAR(f.simulatedS, p.simulatedS, 0.05 * p.simulatedS);
}

namespace
{
/// Ranks 1-3 each send `bytes` to rank 0 at once over an ideal switch whose ports queue
/// 100 frames, at `level` (the flow level's switch ports held lossless or dropping);
/// returns the run's closed accounting, and when each message was delivered (by sender).
TrafficCounts
Incast(RunLevel level,
       uint64_t bytes,
       Ptr<MessageTransport>* used = nullptr,
       bool lossless = true,
       std::vector<Time>* deliveries = nullptr)
{
    IdealSwitchHelper h(4);
    h.SetQueueSize(QueueSize("100p"));
    Ptr<Cluster> c = h.Install();
    Ptr<MessageTransport> t = TransportChoice::Create("udp", level);
    if (level == RunLevel::FLOW)
    {
        t->SetAttribute("Lossless", BooleanValue(lossless));
    }
    t->Install(c);
    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(c, t);
    std::vector<Time> delivered(4);
    uint32_t channel = t->RegisterChannel(MessageTransport::ReceiveCallback(
        [&delivered](const Message& m) { delivered[m.src] = m.delivered; }));
    for (uint32_t s = 1; s < 4; ++s)
    {
        t->Send(s, 0, channel, 0, bytes);
    }
    Simulator::Run();
    if (used)
    {
        *used = t;
    }
    if (deliveries)
    {
        *deliveries = delivered;
    }
    return accounting->Close();
}
} // namespace

TEST_F(FluidMessageTransportTest, FluidBacklogBeyondAPortsBufferIsWhereThePacketRunDrops)
{
    // Three senders at line rate into one 100-frame switch port, held lossless (PFC):
    // the fluid's backlog there grows at 2R for W/R, to 2W; 2W - 100 (MTU + 2) bytes do
    // not fit, and are counted.
    const uint64_t bytes = 4 << 20;
    Ptr<MessageTransport> used;
    const TrafficCounts flow = Incast(RunLevel::FLOW, bytes, &used);
    Ptr<FluidMessageTransport> fluid = DynamicCast<FluidMessageTransport>(used);
    ASSERT_TRUE(fluid);
    const double w = static_cast<double>(fluid->GetModel()->GetWireBytes(bytes));
    const double buffer = 100.0 * (fluid->GetCluster()->GetLinks()[0].devA->GetMtu() + 2);
    const double overflow = 2 * w - buffer;
    EXPECT_EQ(flow.fluidPeakBacklogBytes, static_cast<uint64_t>(std::llround(2 * w)));
    EXPECT_EQ(flow.fluidOverflow.bytes, static_cast<uint64_t>(std::llround(overflow)));
    EXPECT_EQ(flow.fluidOverflow.count,
              static_cast<uint64_t>(std::llround(overflow / fluid->GetFrameWireBytes())));
    ASSERT_EQ(flow.fluidOverflows.size(), 1u);
    EXPECT_EQ(flow.fluidOverflows[0].where, "host-tor");
    EXPECT_EQ(flow.fluidOverflows[0].cause, TrafficCounts::SWITCH_BUFFER);
    EXPECT_EQ(flow.framesDropped.count, 0u); // a prediction, not a drop
    EXPECT_EQ(flow.fluidDropRepaired.count, 0u);
    Simulator::Destroy();

    // The packet run drops frames at that port (and drops some of its repairs too).
    const TrafficCounts packet = Incast(RunLevel::PACKET, bytes);
    ASSERT_FALSE(packet.drops.empty());
    EXPECT_EQ(packet.drops[0].where, "host-tor");
    EXPECT_EQ(packet.drops[0].cause, "queue");
    EXPECT_GE(packet.framesDropped.count, flow.fluidOverflow.count);
    EXPECT_EQ(packet.fluidOverflow.count, 0u);
    Simulator::Destroy();

    // A quarter of the bytes fit: 2W < 100 frames, nothing over.
    const TrafficCounts small = Incast(RunLevel::FLOW, 128 << 10);
    EXPECT_GT(small.fluidPeakBacklogBytes, 0u);
    EXPECT_EQ(small.fluidOverflow.bytes, 0u);
    EXPECT_TRUE(small.fluidOverflows.empty());
}

TEST_F(FluidMessageTransportTest, AFullSwitchPortDropsWhatItCannotHoldAndTheReceiverRepairsIt)
{
    // The incast above with the switch port dropping (the UDP transport on a lossy
    // fabric). A round of three transfers of W' wire bytes at R into the port (R, b =
    // 100 frames of MTU + 2): the backlog grows at 2R to min(2W', b), and 2W' - b is
    // dropped, a third from each; each ends W'/R + min(2W', b)/R after the round's
    // start. The receiver asks RepairTimeout after each tail arrived (L after the end),
    // the NACK takes L, and the three repairs are the next round, until 2W' fits in b.
    const uint64_t bytes = 4 << 20;
    Ptr<MessageTransport> used;
    std::vector<Time> deliveries;
    const TrafficCounts flow = Incast(RunLevel::FLOW, bytes, &used, false, &deliveries);
    const Time last = *std::max_element(deliveries.begin(), deliveries.end());
    Ptr<FluidMessageTransport> fluid = DynamicCast<FluidMessageTransport>(used);
    ASSERT_TRUE(fluid);
    EXPECT_TRUE(fluid->GetDropsAtFullPorts());
    ASSERT_EQ(flow.fluidOverflows.size(), 1u);
    EXPECT_EQ(flow.fluidOverflows[0].cause, TrafficCounts::SWITCH_DROP);
    Ptr<AlphaBetaModel> model = fluid->GetModel();
    const double rate = model->GetLinkCapacities()[0];
    const double frame = fluid->GetFrameWireBytes();
    const double buffer = 100.0 * (fluid->GetCluster()->GetLinks()[0].devA->GetMtu() + 2);
    FluidNetwork::LinkShares shares;
    uint32_t senderLinks = 0;
    const double latency = model->MessagePath(1, 0, bytes, shares, senderLinks);
    TimeValue repairTimeout;
    fluid->GetPacketTransport()->GetAttribute("RepairTimeout", repairTimeout);
    double start = 0;
    const double w = static_cast<double>(model->GetWireBytes(bytes));
    double wire = w;
    double perPacket = w / static_cast<double>(model->GetPacketCount(bytes));
    double lost = 0; // packets, all rounds
    uint32_t rounds = 0;
    double delivered = 0;
    for (;;)
    {
        const double end = start + wire / rate + std::min(2 * wire, buffer) / rate;
        const double packets = std::max(0.0, 2 * wire - buffer) / 3 / perPacket;
        if (packets < 0.5)
        {
            delivered = end + latency;
            break;
        }
        ++rounds;
        lost += 3 * packets;
        start = end + latency + repairTimeout.Get().GetSeconds() + latency;
        wire = std::round(packets) * frame;
        perPacket = frame;
    }
    EXPECT_EQ(rounds, 4u);
    const FluidMessageTransport::Repairs d = fluid->GetDropRepairs();
    EXPECT_EQ(d.messages, 3u);
    EXPECT_EQ(d.timeouts, 3 * rounds);
    EXPECT_NEAR(static_cast<double>(d.lostPackets), lost, 3.0 * rounds); // whole packets
    EXPECT_NEAR(static_cast<double>(d.resentWireBytes), lost * frame, 3.0 * rounds * frame);
    EXPECT_EQ(flow.fluidDropRepaired.count, d.lostPackets);
    // What the port dropped is what the transfers lost (one full port on the route).
    EXPECT_NEAR(static_cast<double>(flow.fluidOverflow.count), lost, 3.0 * rounds);
    EXPECT_EQ(flow.messagesDelivered.count, 3u);
    EXPECT_NEAR(last.GetSeconds(), delivered, 0.01 * delivered);
    // Dropped and repaired: no warning about the overflow.
    RunHealth health;
    health.flowLevel = true;
    health.counts = flow;
    EXPECT_EQ(health.OverflowWarning("incast", last.GetSeconds()), "");
    Simulator::Destroy();

    // The packet run: its three senders are in lockstep, and the first sender's frame
    // reaches the full port first at every slot, so that sender takes every place that
    // frees. Its message is delivered whole at (W' + b)/R + L (its last frame behind a
    // full buffer), and the first round's 2W' - b falls on the other two, half each. In
    // the second round those two re-send W2 = (2W' - b)/2 each, and the second of them
    // loses W2 - b; the third round, one sender, loses nothing. Measured: 1232 frames
    // and 4 timeouts against the fluid's 1538 and 12, the last message at 1016 us
    // against 1835 us: the fluid spreads the drops over the senders by rate.
    std::vector<Time> packetAt;
    const TrafficCounts packet = Incast(RunLevel::PACKET, bytes, nullptr, true, &packetAt);
    std::sort(packetAt.begin() + 1, packetAt.end());
    EXPECT_NEAR(packetAt[1].GetSeconds(),
                (w + buffer) / rate + latency,
                0.005 * packetAt[1].GetSeconds());
    EXPECT_GT(packetAt[2].GetSeconds(),
              packetAt[1].GetSeconds() + repairTimeout.Get().GetSeconds());
    const double round1 = std::round((2 * w - buffer) / frame);
    const double round2 = std::round((round1 / 2 * frame - buffer) / frame);
    EXPECT_NEAR(static_cast<double>(packet.framesDropped.count),
                round1 + round2,
                0.1 * (round1 + round2));
    EXPECT_EQ(packet.messagesDelivered.count, 3u);
}

TEST_F(FluidMessageTransportTest, FullSwitchPortsDropUnlessTheFabricIsLosslessOrTheSendersAdapt)
{
    // At the flow level of a fat-tree: UDP drops at full switch ports; RDMA's fabric runs
    // PFC (no devices: the transport says it; devices: PFC is installed unless
    // --pfc=false); an explicit --pfc keeps PFC devices for UDP too; TCP's max-min
    // sharing never overfills a port.
    struct Case
    {
        std::string transport;
        bool pfc;
        bool pfcGiven;
        bool drops;
    };

    for (const Case& c : std::vector<Case>{{"udp", false, false, true},
                                           {"roce", false, false, false},
                                           {"roce", false, true, true},
                                           {"udp", true, true, false},
                                           {"tcp", false, false, false}})
    {
        FabricOptions f;
        f.fabric = "fattree";
        f.ranks = 8;
        f.radix = 4;
        f.transport = c.transport;
        f.level = RunLevel::FLOW;
        f.pfc = c.pfc;
        f.pfcGiven = c.pfcGiven;
        Ptr<Cluster> cluster = f.Build();
        Ptr<MessageTransport> t = TransportChoice::Create(c.transport, RunLevel::FLOW);
        t->Install(cluster);
        Ptr<FluidMessageTransport> fluid = DynamicCast<FluidMessageTransport>(t);
        ASSERT_TRUE(fluid);
        EXPECT_EQ(fluid->GetDropsAtFullPorts(), c.drops)
            << c.transport << " pfc " << c.pfc << " given " << c.pfcGiven;
        Simulator::Destroy();
    }
}

TEST_F(FluidMessageTransportTest, AMessageCaughtByALinkFailureIsCountedNotLost)
{
    // 8 Gb/s, 1 us links, m = 2500 (2650 wire bytes, 2650 ns alone on a link). Rank 0
    // sends to ranks 1 and 2 at 0, sharing its link; the switch's link to rank 1 fails
    // at 1 us, under the first. The fluid keeps its route (it is delivered) and counts
    // it caught; the message whose route avoids the link, and one sent after the
    // failure, are not caught.
    Ptr<FluidMessageTransport> t = HandFluid(3);
    Ptr<Cluster> c = t->GetCluster();
    uint32_t toRank1 = UINT32_MAX;
    for (const ClusterLink& l : c->GetLinks())
    {
        if (l.nodeA == c->GetRankNode(1)->GetId() || l.nodeB == c->GetRankNode(1)->GetId())
        {
            toRank1 = l.id;
        }
    }
    ASSERT_NE(toRank1, UINT32_MAX);
    std::vector<Time> delivered;
    uint32_t channel = t->RegisterChannel(MessageTransport::ReceiveCallback(
        [&delivered](const Message& m) { delivered.push_back(m.delivered); }));
    t->Send(0, 1, channel, 1, 2500);
    t->Send(0, 2, channel, 2, 2500); // shares rank 0's link, not rank 1's
    Simulator::Schedule(MicroSeconds(1), [&] { c->FailLink(toRank1); });
    Simulator::Run();
    ASSERT_EQ(delivered.size(), 2u);
    EXPECT_EQ(t->GetCaughtByFailures().messages, 1u);
    EXPECT_EQ(t->GetCaughtByFailures().wireBytes, 2650u);
    EXPECT_EQ(t->GetMessagesDelivered(), 2u);
    // Sent to rank 2 after the failure: its route avoids the failed link.
    Simulator::Schedule(MicroSeconds(1), [&] { t->Send(0, 2, channel, 3, 2500); });
    Simulator::Run();
    EXPECT_EQ(t->GetCaughtByFailures().messages, 1u);
}

namespace
{
/// One message of `bytes` from rank 0 to rank 7 of an 8-rank fat-tree at the flow level,
/// standing in for UDP, sent at `sendAt`; the tor-agg link of its route fails at
/// `failAt` and the routes around it are installed at `reroutedAt` (held until then).
struct FailedUnderAMessage
{
    Time sendAt;
    Time failAt;
    Time reroutedAt;
    uint64_t bytes;

    Time delivered;                             //!< when the message arrived
    FluidMessageTransport::FailureCatch caught; //!< the transport's counts
    double latency{0};                          //!< its path's L + PerMessageOverhead, before
    double repairLatency{0};                    //!< the same after the reroute, for `lost`
    uint64_t lostBytes{0};                      //!< what `lost` packets carry

    void Run(uint32_t lost)
    {
        Ptr<Cluster> c = Build("fattree", 8);
        Ptr<MessageTransport> t = TransportChoice::Create("udp", RunLevel::FLOW);
        t->Install(c);
        Ptr<FluidMessageTransport> fluid = DynamicCast<FluidMessageTransport>(t);
        Ptr<AlphaBetaModel> model = fluid->GetModel();
        FluidNetwork::LinkShares shares;
        uint32_t senderLinks = 0;
        latency = model->MessagePath(0, 7, bytes, shares, senderLinks);
        uint32_t link = UINT32_MAX; // its first tor-agg link
        for (const auto& [key, share] : shares)
        {
            if (link == UINT32_MAX && c->GetLink(key / 2).linkClass == "tor-agg")
            {
                link = key / 2;
                ASSERT_EQ(share, 1.0) << "one path: the flow hash's";
            }
        }
        ASSERT_NE(link, UINT32_MAX) << "rank 7 is under another ToR";
        uint32_t channel = t->RegisterChannel(MessageTransport::ReceiveCallback(
            [this](const Message& m) { delivered = m.delivered; }));
        Simulator::Schedule(sendAt, [&] { t->Send(0, 7, channel, 0, bytes); });
        Simulator::Schedule(failAt, [&] {
            c->HoldRoutes();
            c->FailLink(link);
        });
        Simulator::Schedule(reroutedAt, [&] { c->ReleaseRoutes(); });
        Simulator::Run();
        caught = fluid->GetCaughtByFailures();
        lostBytes = std::min<uint64_t>(bytes, uint64_t{lost} * t->GetMaxPayload());
        repairLatency = model->MessagePath(0, 7, lostBytes, shares, senderLinks);
        for (const auto& [key, share] : shares)
        {
            EXPECT_NE(key / 2, link) << "the repair avoids the failed link";
        }
        Simulator::Destroy();
    }

    /// \return how long the fluid takes to send b application bytes alone (s)
    static double Send(const Ptr<AlphaBetaModel>& model, uint64_t b, double rate)
    {
        return static_cast<double>(model->GetWireBytes(b)) / rate;
    }
};
} // namespace

TEST_F(FluidMessageTransportTest, ALinkFailureUnderAMessageLosesWhatItSendsUntilTheReroute)
{
    // Standing in for UDP (RepairTimeout RT = 200 us, SenderTimeout 1 ms). Alone, the
    // message leaves its NIC from s to s + D at line rate; the failed link takes what it
    // sends between the failure and the reroute, and the repair follows UDP's timers.
    Ptr<Cluster> probe = Build("fattree", 8);
    Ptr<MessageTransport> udp = TransportChoice::Create("udp", RunLevel::FLOW);
    udp->Install(probe);
    Ptr<AlphaBetaModel> model = DynamicCast<FluidMessageTransport>(udp)->GetModel();
    const uint64_t m = 4 << 20;
    const uint64_t n = model->GetPacketCount(m);
    const double rate = static_cast<double>(probe->GetLinkRate(0, true).GetBitRate()) / 8;
    const double d = FailedUnderAMessage::Send(model, m, rate);
    const double rt = 200e-6;
    Simulator::Destroy();

    // 1. It fails half-way through the sending and the routes come back after it: the
    // second half is lost. The receiver's last arrival is the byte sent at the failure
    // (tf + L); it NACKs RT later, the sender gets the NACK after L and re-sends the
    // missing packets over the new route.
    FailedUnderAMessage half{MicroSeconds(10),
                             Seconds(10e-6 + d / 2),
                             Seconds(10e-6 + d + 5e-6),
                             m};
    const auto lost = static_cast<uint32_t>(std::ceil(0.5 * static_cast<double>(n)));
    half.Run(lost);
    const double resend = half.failAt.GetSeconds() + half.latency + rt + half.latency;
    const double expected =
        resend + FailedUnderAMessage::Send(model, half.lostBytes, rate) + half.repairLatency;
    EXPECT_NEAR(half.delivered.GetSeconds(), expected, 5e-12);
    EXPECT_EQ(half.caught.repaired.messages, 1u);
    EXPECT_EQ(half.caught.repaired.lostPackets, lost);
    EXPECT_EQ(half.caught.repaired.resentWireBytes, model->GetWireBytes(half.lostBytes));
    EXPECT_EQ(half.caught.repaired.timeouts, 1u);
    EXPECT_EQ(half.caught.messages, 0u) << "repaired, not counted as kept on its route";

    // 2. The same with the reroute after the first NACK: that NACK (or what it asks for)
    // goes into the failed link, and the receiver asks again RT later.
    FailedUnderAMessage late = half;
    late.reroutedAt = half.failAt + MicroSeconds(250);
    late.Run(lost);
    EXPECT_NEAR(late.delivered.GetSeconds(), expected + rt, 5e-12);
    EXPECT_EQ(late.caught.repaired.timeouts, 2u);

    // 3. Sent while the routes are held: it takes the old route and loses every packet.
    // The receiver knows nothing of it; the sender probes (its last packet again) a
    // SenderTimeout after its last byte left, the receiver NACKs the rest RT after the
    // probe arrives, and they are re-sent.
    FailedUnderAMessage all{MicroSeconds(20),
                            MicroSeconds(10),
                            MicroSeconds(20) + Seconds(d) + MicroSeconds(5),
                            m};
    all.Run(static_cast<uint32_t>(n - 1));
    const double probeAt = 20e-6 + d + 1e-3;
    const double allResend = probeAt + all.latency + rt + all.latency;
    EXPECT_NEAR(all.delivered.GetSeconds(),
                allResend + FailedUnderAMessage::Send(model, all.lostBytes, rate) +
                    all.repairLatency,
                5e-12);
    EXPECT_EQ(all.caught.repaired.lostPackets, n);
    EXPECT_EQ(all.caught.repaired.timeouts, 2u); // the probe, the NACK

    // 5. The routes come back while it is still sending: the part sent by then (half of
    // its packets) lost what it sent after the failure (half of that part), and the
    // message goes on over the new route from the reroute on, at its rate: its tail
    // leaves when it would have unmoved, at d. The receiver NACKs RT after the tail
    // arrived, and the lost packets follow.
    FailedUnderAMessage mid{MicroSeconds(10), Seconds(10e-6 + d / 4), Seconds(10e-6 + d / 2), m};
    const auto rest = static_cast<uint32_t>(std::ceil(0.5 * static_cast<double>(n) - 1e-9));
    const auto midLost =
        static_cast<uint32_t>(std::ceil(0.5 * static_cast<double>(n - rest) - 1e-9));
    mid.Run(midLost);
    // One path length and first packet for the moved message and the repair: one latency.
    const double restTail = 10e-6 + d;
    const double midResend = restTail + mid.repairLatency + rt + mid.repairLatency;
    EXPECT_NEAR(mid.delivered.GetSeconds(),
                midResend + FailedUnderAMessage::Send(model, mid.lostBytes, rate) +
                    mid.repairLatency,
                5e-12);
    EXPECT_EQ(mid.caught.repaired.messages, 1u);
    EXPECT_EQ(mid.caught.repaired.lostPackets, midLost);
    EXPECT_EQ(mid.caught.repaired.timeouts, 1u);
    EXPECT_EQ(mid.caught.messages, 0u);
    // Before this, the transfer kept the failed link to its end, lost a quarter of the
    // message and was delivered at the end of case 1's timeline for that quarter.

    // 4. Sent after the reroute: untouched, T_msg.
    FailedUnderAMessage after{MicroSeconds(30), MicroSeconds(10), MicroSeconds(20), m};
    after.Run(1);
    EXPECT_NEAR(after.delivered.GetSeconds(), 30e-6 + d + after.latency, 5e-12);
    EXPECT_EQ(after.caught.repaired.messages + after.caught.repaired.lostPackets +
                  after.caught.repaired.timeouts,
              0u);
}
