// SPDX-License-Identifier: GPL-2.0-only
/*
 * LocalPointToPointChannel against ns-3's PointToPointChannel: the same arrival
 * times for a queued burst (and the first-principles ones: the k-th frame of a
 * back-to-back burst arrives after the serialisation of frames 0..k plus the delay),
 * the receiver gets the very frame the sender put on the wire (ns-3's channel a copy)
 * after the sender's traces have seen it whole, and FabricHelper puts it on every
 * one-process link unless an InterframeGap asks for ns-3's channel.
 */
#include "ns3/core-module.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/local-point-to-point-channel.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class LocalPointToPointChannelTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

const DataRate kRate("10Gbps");
const Time kDelay = MicroSeconds(2);

/// Two nodes joined by `channel` (a LocalPointToPointChannel) or, when null, by
/// PointToPointHelper's ns-3 channel.
std::pair<Ptr<PointToPointNetDevice>, Ptr<PointToPointNetDevice>>
Link(Ptr<PointToPointChannel> channel)
{
    NodeContainer nodes;
    nodes.Create(2);
    if (!channel)
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(kRate));
        p2p.SetChannelAttribute("Delay", TimeValue(kDelay));
        NetDeviceContainer d = p2p.Install(nodes);
        return {DynamicCast<PointToPointNetDevice>(d.Get(0)),
                DynamicCast<PointToPointNetDevice>(d.Get(1))};
    }
    channel->SetAttribute("Delay", TimeValue(kDelay));
    Ptr<PointToPointNetDevice> devs[2];
    for (uint32_t i = 0; i < 2; ++i)
    {
        devs[i] = CreateObject<PointToPointNetDevice>();
        devs[i]->SetAddress(Mac48Address::Allocate());
        devs[i]->SetDataRate(kRate);
        devs[i]->SetQueue(CreateObject<DropTailQueue<Packet>>());
        nodes.Get(i)->AddDevice(devs[i]);
        devs[i]->Attach(channel);
    }
    return {devs[0], devs[1]};
}

/// Arrival times at the receiver of a burst of frames sent at t = 0 and one at 50 us
/// (and, if asked, the sizes of the frames in the order they arrived).
std::vector<Time>
Arrivals(Ptr<PointToPointChannel> channel,
         const std::vector<uint32_t>& sizes,
         std::vector<uint32_t>* order = nullptr)
{
    auto [tx, rx] = Link(channel);
    std::pair<std::vector<Time>, std::vector<uint32_t>> seen;
    rx->SetReceiveCallback(
        MakeCallback(+[](std::pair<std::vector<Time>, std::vector<uint32_t>>* out,
                         Ptr<NetDevice>,
                         Ptr<const Packet> p,
                         uint16_t,
                         const Address&) {
            out->first.push_back(Simulator::Now());
            out->second.push_back(p->GetSize());
            return true;
        }).Bind(&seen));
    std::vector<Time>& at = seen.first;
    Simulator::ScheduleNow([tx = tx, sizes]() {
        for (size_t i = 0; i + 1 < sizes.size(); ++i)
        {
            tx->Send(Create<Packet>(sizes[i]), tx->GetBroadcast(), 0x0800);
        }
    });
    Simulator::Schedule(MicroSeconds(50), [tx = tx, sizes]() {
        tx->Send(Create<Packet>(sizes.back()), tx->GetBroadcast(), 0x0800);
    });
    Simulator::Run();
    Simulator::Destroy();
    if (order)
    {
        *order = seen.second;
    }
    return at;
}

TEST_F(LocalPointToPointChannelTest, ArrivalTimesEqualPointToPointChannel)
{
    const std::vector<uint32_t> sizes = {1000, 9000, 64, 4000, 1500};
    std::vector<Time> stock = Arrivals(nullptr, sizes);
    std::vector<Time> local = Arrivals(CreateObject<LocalPointToPointChannel>(), sizes);
    ASSERT_EQ(stock.size(), sizes.size());
    EXPECT_EQ(local, stock);
    // First principles: back-to-back frames (payload + 2-byte PPP header) arrive one
    // serialisation after another, each plus the delay; the late one on an idle wire.
    Time sent;
    for (size_t i = 0; i + 1 < sizes.size(); ++i)
    {
        sent += kRate.CalculateBytesTxTime(sizes[i] + 2);
        EXPECT_EQ(local[i], sent + kDelay) << "frame " << i;
    }
    EXPECT_EQ(local.back(),
              MicroSeconds(50) + kRate.CalculateBytesTxTime(sizes.back() + 2) + kDelay);
}

/// A LocalPointToPointChannel with Jitter `jitter`, its draws from `stream`.
Ptr<LocalPointToPointChannel>
Jittery(Time jitter, int64_t stream)
{
    Ptr<LocalPointToPointChannel> c = CreateObject<LocalPointToPointChannel>();
    c->SetAttribute("Jitter", TimeValue(jitter));
    c->AssignStreams(stream);
    return c;
}

TEST_F(LocalPointToPointChannelTest, JitterDelaysEachFrameWithinItsBoundAndKeepsTheirOrder)
{
    // Frames of 64 bytes take 52.8 ns at 10 Gbps: a jitter of 200 ns would reorder
    // them, were a frame allowed to arrive before the one sent before it.
    const std::vector<uint32_t> sizes = {64, 65, 66, 9000, 67, 68, 69, 1500, 70};
    const Time jitter = NanoSeconds(200);
    const std::vector<Time> nominal = Arrivals(nullptr, sizes);
    std::vector<uint32_t> order;
    const std::vector<Time> jittered = Arrivals(Jittery(jitter, 7), sizes, &order);
    ASSERT_EQ(jittered.size(), sizes.size());
    EXPECT_EQ(order, sizes) << "a frame overtook the one sent before it";
    uint32_t later = 0;
    for (size_t i = 0; i < sizes.size(); ++i)
    {
        EXPECT_GE(jittered[i], nominal[i]) << "frame " << i;
        EXPECT_LE(jittered[i], nominal[i] + jitter) << "frame " << i;
        later += jittered[i] > nominal[i] ? 1 : 0;
    }
    EXPECT_GE(later, sizes.size() - 1) << "the jitter is drawn for every frame";
    // Same stream, same arrivals; another stream, others.
    EXPECT_EQ(Arrivals(Jittery(jitter, 7), sizes), jittered);
    EXPECT_NE(Arrivals(Jittery(jitter, 8), sizes), jittered);
    // No jitter: ns-3's channel, to the picosecond.
    EXPECT_EQ(Arrivals(Jittery(Time(0), 7), sizes), nominal);
}

/// Per frame: the packet the sender started, its size then and at transmit-complete,
/// and the packet the receiver got.
struct Seen
{
    const Packet* sent{nullptr};
    uint32_t sizeAtTxBegin{0};
    uint32_t sizeAtTxEnd{0};
    const Packet* received{nullptr};
};

Seen
OneFrame(Ptr<PointToPointChannel> channel)
{
    auto [tx, rx] = Link(channel);
    Seen s;
    tx->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(+[](Seen* s, Ptr<const Packet> p) {
                                                     s->sent = PeekPointer(p);
                                                     s->sizeAtTxBegin = p->GetSize();
                                                 }).Bind(&s));
    tx->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(+[](Seen* s, Ptr<const Packet> p) {
                                                   s->sizeAtTxEnd = p->GetSize();
                                               }).Bind(&s));
    rx->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(+[](Seen* s, Ptr<const Packet> p) {
                                                   s->received = PeekPointer(p);
                                               }).Bind(&s));
    // Keep the frame alive past the run so that its address cannot be reused.
    Ptr<Packet> frame = Create<Packet>(1000);
    Simulator::ScheduleNow([tx = tx, frame]() { tx->Send(frame, tx->GetBroadcast(), 0x0800); });
    Simulator::Run();
    Simulator::Destroy();
    return s;
}

TEST_F(LocalPointToPointChannelTest, ReceiverGetsTheSentFrameNotACopy)
{
    Seen local = OneFrame(CreateObject<LocalPointToPointChannel>());
    ASSERT_NE(local.sent, nullptr);
    EXPECT_EQ(local.received, local.sent);
    // The sender's traces see the whole frame (1000 + 2-byte PPP header) until
    // transmit-complete: the receiver strips the header only after that.
    EXPECT_EQ(local.sizeAtTxBegin, 1002u);
    EXPECT_EQ(local.sizeAtTxEnd, 1002u);
    // ns-3's channel hands the receiver a copy: the check tells them apart.
    Seen stock = OneFrame(nullptr);
    ASSERT_NE(stock.sent, nullptr);
    EXPECT_NE(stock.received, stock.sent);
    EXPECT_EQ(stock.sizeAtTxEnd, 1002u);
}

TEST_F(LocalPointToPointChannelTest, FabricHelperUsesItUnlessAnInterframeGapIsSet)
{
    for (const std::string dataPath : {"ipv4", "fast"})
    {
        IdealSwitchHelper star(4);
        star.SetDataPath(dataPath);
        Ptr<Cluster> cluster = star.Install();
        ASSERT_EQ(cluster->GetLinks().size(), 4u);
        for (const auto& l : cluster->GetLinks())
        {
            EXPECT_TRUE(DynamicCast<LocalPointToPointChannel>(l.devA->GetChannel())) << dataPath;
            EXPECT_EQ(l.devB->GetChannel(), l.devA->GetChannel());
        }
        Simulator::Destroy();
    }
    IdealSwitchHelper gap(4);
    gap.SetDeviceAttribute("InterframeGap", TimeValue(NanoSeconds(10)));
    Ptr<Cluster> cluster = gap.Install();
    for (const auto& l : cluster->GetLinks())
    {
        Ptr<Channel> channel = l.devA->GetChannel();
        EXPECT_FALSE(DynamicCast<LocalPointToPointChannel>(channel));
        EXPECT_TRUE(DynamicCast<PointToPointChannel>(channel));
    }
    Simulator::Destroy();
    // A link jitter reaches every channel; ns-3's channels (an interframe gap) have none,
    // and a jitter there is refused, not dropped.
    IdealSwitchHelper jittery(4);
    jittery.SetLinkJitter(NanoSeconds(10));
    for (const auto& l : jittery.Install()->GetLinks())
    {
        Ptr<LocalPointToPointChannel> channel =
            DynamicCast<LocalPointToPointChannel>(l.devA->GetChannel());
        ASSERT_TRUE(channel);
        EXPECT_EQ(channel->GetJitter(), NanoSeconds(10));
    }
    Simulator::Destroy();
    IdealSwitchHelper both(4);
    both.SetLinkJitter(NanoSeconds(10));
    both.SetDeviceAttribute("InterframeGap", TimeValue(NanoSeconds(10)));
    EXPECT_THROW(both.Install(), std::invalid_argument);
}

} // namespace
