// SPDX-License-Identifier: GPL-2.0-only
/*
 * OpticalCircuitSwitch: a live circuit times exactly like a point-to-point link;
 * nothing crosses a dark port; Drop / Buffer / DrainThenSwitch counters and
 * delivery; a partial reconfiguration leaves other circuits' timing untouched;
 * the power budget rejects a lossy configuration; schedules repeat.
 *
 * Frames are sent straight into the devices (protocol 0x0800, so each carries a
 * 2-byte PPP header) and timed at the receiving device's receive callback.
 */
#include "ns3/core-module.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/network-module.h"
#include "ns3/ocs-port-channel.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Arrival (time, payload size) per receiving device.
struct Arrival
{
    Time at;
    uint32_t size;

    bool operator==(const Arrival& o) const
    {
        return at == o.at && size == o.size;
    }
};

class OcsTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    Ptr<PointToPointNetDevice> NewDevice(Ptr<Node> node)
    {
        Ptr<PointToPointNetDevice> dev = CreateObject<PointToPointNetDevice>();
        dev->SetAddress(Mac48Address::Allocate());
        dev->SetQueue(CreateObject<DropTailQueue<Packet>>());
        node->AddDevice(dev);
        Record(dev);
        return dev;
    }

    void Record(Ptr<NetDevice> dev)
    {
        dev->SetReceiveCallback(MakeCallback(&OcsTest::Rx, this));
    }

    bool Rx(Ptr<NetDevice> dev, Ptr<const Packet> p, uint16_t, const Address&)
    {
        m_rx[PeekPointer(dev)].push_back({Simulator::Now(), p->GetSize()});
        return true;
    }

    /// An OCS with `ports` ports on as many nodes, rate 10 Gbps, fibre 1.5 us.
    Ptr<OpticalCircuitSwitch> MakeSwitch(uint32_t ports, const std::string& policy = "drop")
    {
        Ptr<OpticalCircuitSwitch> ocs = CreateObject<OpticalCircuitSwitch>();
        ocs->SetAttribute("DataRate", DataRateValue(m_rate));
        ocs->SetAttribute("FibreDelay", TimeValue(m_delay));
        ocs->SetAttribute("DarkPortPolicy", StringValue(policy));
        ocs->SetAttribute("ReconfigurationDelay", TimeValue(MicroSeconds(20)));
        for (uint32_t i = 0; i < ports; ++i)
        {
            ocs->AddPort(NewDevice(CreateObject<Node>()));
        }
        return ocs;
    }

    static void Send(Ptr<NetDevice> dev, uint32_t bytes)
    {
        dev->Send(Create<Packet>(bytes), dev->GetBroadcast(), 0x0800);
    }

    /// Frames of `bytes` every `gap` from `from` to `to` (exclusive).
    void Stream(Ptr<NetDevice> dev, uint32_t bytes, Time gap, Time from, Time to)
    {
        for (Time t = from; t < to; t += gap)
        {
            Simulator::Schedule(t, &OcsTest::Send, dev, bytes);
            ++m_sent;
        }
    }

    /// One frame's time on the wire: (L3 bytes + 2) * 8 / R.
    Time Tx(uint32_t bytes) const
    {
        return m_rate.CalculateBytesTxTime(bytes + 2);
    }

    const std::vector<Arrival>& At(Ptr<NetDevice> dev)
    {
        return m_rx[PeekPointer(dev)];
    }

    DataRate m_rate{"10Gbps"};
    Time m_delay{NanoSeconds(1500)};
    uint32_t m_sent{0};
    std::map<NetDevice*, std::vector<Arrival>> m_rx;
};

TEST_F(OcsTest, LiveCircuitTimesLikePointToPoint)
{
    // Same frames on a PointToPointHelper link and on an OCS circuit of the same rate
    // and delay, both directions, with back-to-back bursts (device queueing) and gaps.
    NodeContainer pair;
    pair.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_rate));
    p2p.SetChannelAttribute("Delay", TimeValue(m_delay));
    NetDeviceContainer link = p2p.Install(pair);
    Record(link.Get(0));
    Record(link.Get(1));

    Ptr<OpticalCircuitSwitch> ocs = MakeSwitch(4);
    ocs->SetMatching({{2, 1}, {0, 3}}); // circuit 0 <-> 3 is the one compared
    Ptr<NetDevice> a = ocs->GetPortDevice(0);
    Ptr<NetDevice> b = ocs->GetPortDevice(3);

    const std::vector<std::pair<double, std::vector<uint32_t>>> bursts = {
        {0.0, {100, 1500, 9000, 64, 3000}},
        {3.0, {500}},
        {20.0, {9000, 9000, 40}},
        {55.5, {1234}},
    };
    for (const auto& [us, sizes] : bursts)
    {
        for (uint32_t s : sizes)
        {
            for (auto [from, ocsFrom] : {std::make_pair(link.Get(0), a), {link.Get(1), b}})
            {
                Simulator::Schedule(MicroSeconds(us), &OcsTest::Send, from, s);
                Simulator::Schedule(MicroSeconds(us), &OcsTest::Send, ocsFrom, s);
            }
        }
    }
    Simulator::Run();

    ASSERT_EQ(At(link.Get(1)).size(), 10u);
    EXPECT_EQ(At(b), At(link.Get(1)));
    EXPECT_EQ(At(a), At(link.Get(0)));
    // First frame: one hop = (L3 bytes + 2) * 8 / R + d.
    EXPECT_EQ(At(b).front().at, Tx(100) + m_delay);
    // Second frame waits behind the first: both serializations, then the delay.
    EXPECT_EQ(At(b)[1].at, Tx(100) + Tx(1500) + m_delay);
    EXPECT_EQ(ocs->GetFramesDelivered(), 20u);
    EXPECT_EQ(ocs->GetFramesDroppedWhileDark(), 0u);
    EXPECT_TRUE(At(ocs->GetPortDevice(1)).empty());
    // The port channel shows the device pair ns-3 expects of a point-to-point channel.
    Ptr<Channel> ch = a->GetChannel();
    EXPECT_EQ(ch->GetNDevices(), 2u);
    EXPECT_EQ(ch->GetDevice(1), b);
    TimeValue delay;
    ch->GetAttribute("Delay", delay);
    EXPECT_EQ(delay.Get(), m_delay);
}

/// Port 0 streams to its peer; at 30.5 us the switch moves 0-1, 2-3 to 0-2, 1-3.
class OcsPolicyTest : public OcsTest
{
protected:
    void Run(const std::string& policy)
    {
        m_ocs = MakeSwitch(4, policy);
        m_ocs->SetMatching({{0, 1}, {2, 3}});
        m_ocs->TraceConnectWithoutContext("DroppedWhileDark",
                                          MakeCallback(&OcsPolicyTest::Dropped, this));
        m_ocs->TraceConnectWithoutContext("ReconfigurationStart",
                                          MakeCallback(&OcsPolicyTest::Start, this));
        m_ocs->TraceConnectWithoutContext("ReconfigurationEnd",
                                          MakeCallback(&OcsPolicyTest::End, this));
        // 1000 B every 1 us at 10 Gbps (0.8016 us on the wire): no queueing while live.
        Stream(m_ocs->GetPortDevice(0), 1000, MicroSeconds(1), Seconds(0), MicroSeconds(80));
        Simulator::Schedule(NanoSeconds(30500),
                            &OpticalCircuitSwitch::Reconfigure,
                            m_ocs,
                            OpticalCircuitSwitch::Matching{{0, 2}, {1, 3}});
        Simulator::Run();
    }

    void Dropped(Ptr<const Packet>, uint32_t port)
    {
        ++m_dropTrace;
        EXPECT_EQ(port, 0u);
    }

    void Start(uint32_t, const std::vector<uint32_t>& ports)
    {
        m_start = Simulator::Now();
        EXPECT_EQ(ports, (std::vector<uint32_t>{0, 1, 2, 3}));
    }

    void End(uint32_t, const std::vector<uint32_t>&)
    {
        m_end = Simulator::Now();
    }

    uint64_t Delivered()
    {
        return At(m_ocs->GetPortDevice(1)).size() + At(m_ocs->GetPortDevice(2)).size();
    }

    Ptr<OpticalCircuitSwitch> m_ocs;
    uint32_t m_dropTrace{0};
    Time m_start{-1};
    Time m_end{-1};
};

TEST_F(OcsPolicyTest, DropLosesDarkTrafficAndDeliversNothingAcrossDarkPort)
{
    Run("drop");
    EXPECT_EQ(m_start, NanoSeconds(30500));
    EXPECT_EQ(m_end, NanoSeconds(50500));
    // Nothing arrives anywhere while the ports are dark.
    for (uint32_t p = 0; p < 4; ++p)
    {
        for (const auto& a : At(m_ocs->GetPortDevice(p)))
        {
            EXPECT_FALSE(a.at > m_start && a.at < m_end) << "port " << p << " at " << a.at;
        }
    }
    // The old peer gets only what arrived by 30.5 us; the new peer what was sent after 50.5 us.
    for (const auto& a : At(m_ocs->GetPortDevice(1)))
    {
        EXPECT_LE(a.at, m_start);
    }
    ASSERT_FALSE(At(m_ocs->GetPortDevice(2)).empty());
    EXPECT_EQ(At(m_ocs->GetPortDevice(2)).front().at, MicroSeconds(51) + Tx(1000) + m_delay);
    // Frames sent at t us arrive at t + 0.8016 + 1.5 us: those of 0..28 us by 30.5 us
    // (29 frames); those of 29 and 30 us are on the fibre at 30.5 us and are lost; those
    // of 31..50 us are sent dark (20 frames).
    EXPECT_EQ(At(m_ocs->GetPortDevice(1)).size(), 29u);
    EXPECT_EQ(m_ocs->GetFramesDroppedWhileDark(), 2u + 20u);
    EXPECT_EQ(m_dropTrace, m_ocs->GetFramesDroppedWhileDark());
    EXPECT_EQ(Delivered() + m_ocs->GetFramesDroppedWhileDark(), m_sent);
    EXPECT_EQ(m_ocs->GetFramesHeld(), 0u);
    for (uint32_t p = 0; p < 4; ++p)
    {
        EXPECT_EQ(m_ocs->GetDarkTime(p), MicroSeconds(20));
    }
}

TEST_F(OcsPolicyTest, BufferHoldsDarkTrafficForTheNewCircuit)
{
    Run("buffer");
    EXPECT_EQ(m_start, NanoSeconds(30500));
    EXPECT_EQ(m_end, NanoSeconds(50500));
    // Only the two frames on the fibre at 30.5 us are lost; the 20 sent dark are held.
    EXPECT_EQ(m_ocs->GetFramesDroppedWhileDark(), 2u);
    EXPECT_EQ(m_ocs->GetFramesHeld(), 20u);
    EXPECT_EQ(Delivered() + 2u, m_sent);
    const auto& fresh = At(m_ocs->GetPortDevice(2));
    ASSERT_EQ(fresh.size(), 20u + 29u); // held, then sent at 51..79 us
    // Held frames leave back to back when the circuit is up: the k-th arrives at
    // 50.5 us + (k+1) tx + d; later frames queue behind (the backlog of 20 frames
    // shrinks by only 0.1984 us per frame, so it lasts to the end).
    for (uint32_t k = 0; k < fresh.size(); ++k)
    {
        EXPECT_EQ(fresh[k].at, NanoSeconds(50500) + Tx(1000) * (k + 1) + m_delay) << k;
    }
    for (const auto& a : At(m_ocs->GetPortDevice(1)))
    {
        EXPECT_LE(a.at, m_start);
    }
}

TEST_F(OcsPolicyTest, DrainThenSwitchIsLossless)
{
    Run("drain-then-switch");
    // The frame sent at 30 us is the last on the fibre at 30.5 us: it arrives at
    // 30 + 0.8016 + 1.5 us, then the mirrors move and the ports stay dark for 20 us.
    Time drained = MicroSeconds(30) + Tx(1000) + m_delay;
    EXPECT_EQ(m_start, drained);
    EXPECT_EQ(m_end, drained + MicroSeconds(20));
    EXPECT_EQ(m_ocs->GetFramesDroppedWhileDark(), 0u);
    EXPECT_EQ(m_dropTrace, 0u);
    EXPECT_EQ(Delivered(), m_sent);
    EXPECT_EQ(At(m_ocs->GetPortDevice(1)).size(), 31u); // everything sent by 30.5 us
    EXPECT_EQ(At(m_ocs->GetPortDevice(1)).back().at, drained);
    EXPECT_GT(m_ocs->GetFramesHeld(), 0u);
    EXPECT_EQ(At(m_ocs->GetPortDevice(2)).front().at, m_end + Tx(1000) + m_delay);
    EXPECT_EQ(m_ocs->GetDarkTime(0), MicroSeconds(20));
}

TEST_F(OcsTest, PartialReconfigurationLeavesOtherCircuitsUntouched)
{
    // Circuits 0-1, 2-3, 4-5 with traffic both ways on 4-5; one run reconfigures
    // 0-1, 2-3 into 0-2 (1 and 3 left unconnected) at 10 us, the other does not.
    std::vector<Arrival> runs[2][2];
    for (int reconfigure = 0; reconfigure < 2; ++reconfigure)
    {
        m_rx.clear();
        Ptr<OpticalCircuitSwitch> ocs = MakeSwitch(6);
        ocs->SetMatching({{0, 1}, {2, 3}, {4, 5}});
        for (uint32_t p : {0u, 2u, 4u, 5u})
        {
            Stream(ocs->GetPortDevice(p), 1400, NanoSeconds(700), Seconds(0), MicroSeconds(40));
        }
        if (reconfigure)
        {
            Simulator::Schedule(MicroSeconds(10),
                                &OpticalCircuitSwitch::ReconfigurePartial,
                                ocs,
                                OpticalCircuitSwitch::Matching{{0, 2}});
        }
        Simulator::Run();
        runs[reconfigure][0] = At(ocs->GetPortDevice(5));
        runs[reconfigure][1] = At(ocs->GetPortDevice(4));
        if (reconfigure)
        {
            EXPECT_EQ(ocs->GetMatching(), (OpticalCircuitSwitch::Matching{{0, 2}, {4, 5}}));
            EXPECT_EQ(ocs->GetDarkTime(4), Time(0));
            EXPECT_EQ(ocs->GetDarkTime(5), Time(0));
            EXPECT_EQ(ocs->GetDarkTime(1), MicroSeconds(20));
            EXPECT_EQ(ocs->GetPeer(1), -1);
            EXPECT_GT(ocs->GetFramesDroppedWhileDark(), 0u);
        }
        Simulator::Destroy();
    }
    ASSERT_GT(runs[0][0].size(), 50u);
    EXPECT_EQ(runs[1][0], runs[0][0]);
    EXPECT_EQ(runs[1][1], runs[0][1]);
}

TEST_F(OcsTest, PowerBudgetRejectsLossyConfiguration)
{
    Ptr<OpticalCircuitSwitch> ocs = MakeSwitch(2);
    // Defaults: 0 dBm - 2 dB (ocs) = -2 dBm >= -10 dBm + 3 dB.
    EXPECT_DOUBLE_EQ(ocs->GetPowerBudgetSlackDb(), 0.0 - 2.0 + 10.0 - 3.0);
    EXPECT_NO_THROW(ocs->SetMatching({{0, 1}}));
    ocs->SetAttribute("InsertionLossDb", DoubleValue(7.5)); // -7.5 dBm < -7 dBm
    try
    {
        ocs->Reconfigure({{0, 1}});
        ADD_FAILURE() << "a 7.5 dB circuit passed a 7 dB budget";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("infeasible power budget"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(ocs->SetMatching({{0, 1}}), std::invalid_argument);
    ocs->SetAttribute("LaunchPowerDbm", DoubleValue(1.0)); // -6.5 dBm: feasible again
    EXPECT_NO_THROW(ocs->SetMatching({{0, 1}}));
}

TEST_F(OcsTest, TechnologyDefaultsAndBadInput)
{
    Ptr<OpticalCircuitSwitch> ocs = CreateObject<OpticalCircuitSwitch>();
    EXPECT_EQ(ocs->GetReconfigurationDelay(), MilliSeconds(10));
    EXPECT_DOUBLE_EQ(ocs->GetInsertionLossDb(), 2.0);
    ocs->SetAttribute("Technology", StringValue("patch-panel"));
    EXPECT_EQ(ocs->GetReconfigurationDelay(), Seconds(120));
    EXPECT_DOUBLE_EQ(ocs->GetInsertionLossDb(), 0.5);
    ocs->SetAttribute("ReconfigurationDelay", TimeValue(MilliSeconds(1)));
    EXPECT_EQ(ocs->GetReconfigurationDelay(), MilliSeconds(1));

    Ptr<OpticalCircuitSwitch> small = MakeSwitch(0);
    small->SetAttribute("PortCount", UintegerValue(2));
    small->AddPort(NewDevice(CreateObject<Node>()));
    small->AddPort(NewDevice(CreateObject<Node>()));
    EXPECT_THROW(small->AddPort(NewDevice(CreateObject<Node>())), std::invalid_argument);
    EXPECT_THROW(small->SetMatching({{0, 2}}), std::invalid_argument); // port out of range
    EXPECT_THROW(small->SetMatching({{0, 0}}), std::invalid_argument); // self loop
    Ptr<OpticalCircuitSwitch> four = MakeSwitch(4);
    EXPECT_THROW(four->SetMatching({{0, 1}, {1, 2}}), std::invalid_argument); // port twice
    // A port still dark cannot be reconfigured again.
    four->SetMatching({{0, 1}, {2, 3}});
    Simulator::Schedule(MicroSeconds(1), [four]() {
        four->Reconfigure({{0, 2}, {1, 3}});
        EXPECT_THROW(four->ReconfigurePartial({{0, 3}}), std::invalid_argument);
    });
    Simulator::Run();
    EXPECT_EQ(four->GetMatching(), (OpticalCircuitSwitch::Matching{{0, 2}, {1, 3}}));
}

TEST_F(OcsTest, ScheduleRepeatsMatchings)
{
    // Two slots (0-1, 2-3) and (0-2, 1-3), dark 2 us, live 10 us, twice, from the
    // first slot's matching: reconfigurations at 10, 22, 34 us (three changes).
    Ptr<OpticalCircuitSwitch> ocs = MakeSwitch(4);
    ocs->SetMatching({{0, 1}, {2, 3}});
    std::vector<Time> starts;
    std::vector<Time> ends;
    ocs->TraceConnectWithoutContext(
        "ReconfigurationStart",
        MakeCallback(+[](std::vector<Time>* v, uint32_t, const std::vector<uint32_t>&) {
            v->push_back(Simulator::Now());
        }).Bind(&starts));
    ocs->TraceConnectWithoutContext(
        "ReconfigurationEnd",
        MakeCallback(+[](std::vector<Time>* v, uint32_t, const std::vector<uint32_t>&) {
            v->push_back(Simulator::Now());
        }).Bind(&ends));
    std::vector<OpticalCircuitSwitch::ScheduleEntry> slots = {
        {{{0, 1}, {2, 3}}, MicroSeconds(10), MicroSeconds(2)},
        {{{0, 2}, {1, 3}}, MicroSeconds(10), MicroSeconds(2)},
    };
    ocs->SetSchedule(slots, 2);
    EXPECT_THROW(ocs->Reconfigure({{0, 3}}), std::invalid_argument);
    Simulator::Run();
    EXPECT_EQ(starts, (std::vector<Time>{MicroSeconds(10), MicroSeconds(22), MicroSeconds(34)}));
    EXPECT_EQ(ends, (std::vector<Time>{MicroSeconds(12), MicroSeconds(24), MicroSeconds(36)}));
    EXPECT_FALSE(ocs->IsScheduleRunning());
    EXPECT_EQ(ocs->GetMatching(), (OpticalCircuitSwitch::Matching{{0, 2}, {1, 3}}));
    EXPECT_EQ(ocs->GetDarkTime(3), MicroSeconds(6));
}

} // namespace
