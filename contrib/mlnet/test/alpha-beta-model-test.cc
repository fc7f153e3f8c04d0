// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of AlphaBetaModel: packetization, the uncontended message time (by hand and
 * against ns-3 point-to-point), and the step model on small hand-built fabrics (star,
 * oversubscribed two-rack Clos, 4x4 torus, a ring with a failed link), checked against
 * the closed forms (collective-closed-forms-test.cc tests those on their own).
 */
#include "collective-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/cluster.h"
#include "ns3/collective-closed-forms.h"
#include "ns3/collective.h"
#include "ns3/core-module.h"
#include "ns3/double.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/message-transport.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/torus-helper.h"

#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;
using mlnettest::HandTransport;

namespace
{

/// 8 Gb/s: one byte serializes in exactly 1 ns, so hand-worked times are integers.
const DataRate kRate("8Gbps");
const Time kDelay = MicroSeconds(1);

/// Packetization used by the hand-worked numbers: P = 1000 payload, O = 50 overhead.
Ptr<AlphaBetaModel>
HandModel()
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetPacketization(1000, 50);
    return m;
}

Ptr<PointToPointNetDevice>
Dev(const NetDeviceContainer& c, uint32_t i)
{
    return DynamicCast<PointToPointNetDevice>(c.Get(i));
}

/// Collective whose schedule is given by the test; it never runs.
class ScheduleOnlyCollective : public Collective
{
public:
    std::vector<CollectiveStep> schedule;

    std::string GetCollectiveName() const override
    {
        return "allreduce";
    }

    std::string GetAlgorithmName() const override
    {
        return "ring";
    }

    std::vector<CollectiveStep> GetSchedule() const override
    {
        return schedule;
    }

protected:
    void DoStart() override
    {
    }

    void HandleMessage(const Message&) override
    {
    }
};

} // namespace

// ---- Pure analytical tests --------------------------------------------------------

TEST(AlphaBetaModelTest, PacketizationAroundMultiplesOfPayload)
{
    Ptr<AlphaBetaModel> m = HandModel(); // P = 1000, O = 50

    struct Case
    {
        uint64_t m, n, w, f1;
    };

    // n = ceil(m/P); W = m + n*O; F1 = min(m, P) + O
    for (const Case& c : {Case{0, 0, 0, 0},
                          Case{1, 1, 51, 51},
                          Case{999, 1, 1049, 1049},
                          Case{1000, 1, 1050, 1050},
                          Case{1001, 2, 1101, 1050},
                          Case{2000, 2, 2100, 1050},
                          Case{2001, 3, 2151, 1050},
                          Case{1000000, 1000, 1050000, 1050}})
    {
        EXPECT_EQ(m->GetPacketCount(c.m), c.n) << "m = " << c.m;
        EXPECT_EQ(m->GetWireBytes(c.m), c.w) << "m = " << c.m;
        EXPECT_EQ(m->GetFirstFrameBytes(c.m), c.f1) << "m = " << c.m;
    }
    EXPECT_THROW(m->SetPacketization(0, 50), std::invalid_argument);
}

TEST(AlphaBetaModelTest, PacketizationFromTransportAndAttributes)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetPacketization(CreateObject<HandTransport>());
    EXPECT_EQ(m->GetMaxPayload(), 1000u);
    EXPECT_EQ(m->GetPerPacketOverhead(), 50u);
    m->SetAttribute("MaxPayload", UintegerValue(8948));
    m->SetAttribute("PerPacketOverhead", UintegerValue(54));
    EXPECT_EQ(m->GetWireBytes(8949), 8949u + 2 * 54);
}

TEST(AlphaBetaModelTest, MessageTimeWorkedByHand)
{
    Ptr<AlphaBetaModel> m = HandModel();
    // R = 8 Gb/s: 1 B = 1 ns; d = 1000 ns.
    // m = 2500: n = 3, W = 2500 + 150 = 2650, F1 = 1050.
    //   h = 1: W + d                  = 2650 + 1000          = 3650 ns
    //   h = 3: W + 2*F1 + 3d          = 2650 + 2100 + 3000   = 7750 ns
    // m = 10: n = 1, W = F1 = 60.
    //   h = 2: W + F1 + 2d            = 60 + 60 + 2000       = 2120 ns
    EXPECT_EQ(m->PredictMessage(2500, 1, kRate, kDelay), NanoSeconds(3650));
    EXPECT_EQ(m->PredictMessage(2500, 3, kRate, kDelay), NanoSeconds(7750));
    EXPECT_EQ(m->PredictMessage(10, 2, kRate, kDelay), NanoSeconds(2120));
    EXPECT_EQ(m->PredictMessage(0, 2, kRate, kDelay), Time(0));
}

TEST(AlphaBetaModelTest, PredictWithoutClusterThrows)
{
    Ptr<AlphaBetaModel> m = HandModel();
    CollectiveStep step;
    step.messages.push_back({0, 1, 100});
    EXPECT_THROW(m->PredictStep(step), std::invalid_argument);
}

// ---- Against ns-3 and on hand-built fabrics ----------------------------------------

class AlphaBetaFabricTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    PointToPointHelper Links(DataRate rate = kRate, Time delay = kDelay)
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
        p2p.SetChannelAttribute("Delay", TimeValue(delay));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("100000p"));
        return p2p;
    }

    /// n hosts on one switch.
    Ptr<Cluster> Star(uint32_t n)
    {
        Ptr<Cluster> c = CreateObject<Cluster>();
        NodeContainer hosts(n);
        Ptr<Node> sw = CreateObject<Node>();
        PointToPointHelper p2p = Links();
        for (uint32_t i = 0; i < n; ++i)
        {
            c->AddRankNode(hosts.Get(i));
        }
        c->AddSwitchNode(sw);
        for (uint32_t i = 0; i < n; ++i)
        {
            NetDeviceContainer d = p2p.Install(hosts.Get(i), sw);
            c->AddLink(Dev(d, 0), Dev(d, 1), "host-tor");
        }
        FabricSpec spec;
        spec.kind = "ideal";
        spec.ranks = n;
        spec.linkRate = kRate;
        spec.linkDelay = kDelay;
        spec.tiers = 1;
        c->SetFabricSpec(spec);
        return c;
    }

    /// Two racks of four hosts; each ToR has one uplink to a spine (r = 4).
    Ptr<Cluster> TwoRacks()
    {
        Ptr<Cluster> c = CreateObject<Cluster>();
        NodeContainer hosts(8);
        NodeContainer tors(2);
        Ptr<Node> spine = CreateObject<Node>();
        PointToPointHelper p2p = Links();
        for (uint32_t i = 0; i < 8; ++i)
        {
            c->AddRankNode(hosts.Get(i));
        }
        c->AddSwitchNode(tors.Get(0));
        c->AddSwitchNode(tors.Get(1));
        c->AddSwitchNode(spine);
        for (uint32_t i = 0; i < 8; ++i)
        {
            NetDeviceContainer d = p2p.Install(hosts.Get(i), tors.Get(i / 4));
            c->AddLink(Dev(d, 0), Dev(d, 1), "host-tor");
        }
        for (uint32_t t = 0; t < 2; ++t)
        {
            NetDeviceContainer d = p2p.Install(tors.Get(t), spine);
            c->AddLink(Dev(d, 0), Dev(d, 1), "tor-agg");
        }
        FabricSpec spec;
        spec.kind = "fattree";
        spec.ranks = 8;
        spec.tiers = 2;
        spec.ranksPerTor = 4;
        spec.oversubscription = 4;
        c->SetFabricSpec(spec);
        return c;
    }

    /// k-ary torus (or ring for one dimension): rank = x0 + k*x1 + ...; link A -> B is +.
    Ptr<Cluster> Torus(const std::vector<uint32_t>& dims, const std::string& routing)
    {
        Ptr<Cluster> c = CreateObject<Cluster>();
        uint32_t n = 1;
        for (uint32_t k : dims)
        {
            n *= k;
        }
        NodeContainer nodes(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            c->AddRankNode(nodes.Get(i));
        }
        PointToPointHelper p2p = Links();
        for (uint32_t r = 0; r < n; ++r)
        {
            uint32_t stride = 1;
            for (uint32_t k : dims)
            {
                uint32_t x = (r / stride) % k;
                uint32_t next = r - x * stride + ((x + 1) % k) * stride;
                NetDeviceContainer d = p2p.Install(nodes.Get(r), nodes.Get(next));
                c->AddLink(Dev(d, 0), Dev(d, 1), "torus");
                stride *= k;
            }
        }
        FabricSpec spec;
        spec.kind = "torus";
        spec.ranks = n;
        spec.dims = dims;
        spec.wrap = true;
        spec.routing = routing;
        c->SetFabricSpec(spec);
        return c;
    }

    static CollectiveStep AllToAll(uint32_t n, uint64_t bytes)
    {
        CollectiveStep s;
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                if (i != j)
                {
                    s.messages.push_back({i, j, bytes});
                }
            }
        }
        return s;
    }

    // Packet-level reference: a chain of h links, raw PPP devices, the intermediate
    // nodes store and forward whole packets at once (no IP stack, no queueing delay
    // beyond the device's own).
    Time SimulateTrain(uint32_t hops,
                       uint64_t bytes,
                       uint32_t payload,
                       uint32_t overhead,
                       DataRate rate,
                       Time delay)
    {
        NodeContainer nodes(hops + 1);
        PointToPointHelper p2p = Links(rate, delay);
        std::vector<NetDeviceContainer> devs;
        for (uint32_t i = 0; i < hops; ++i)
        {
            devs.push_back(p2p.Install(nodes.Get(i), nodes.Get(i + 1)));
        }
        Time last;
        for (uint32_t i = 0; i < hops; ++i)
        {
            Ptr<NetDevice> in = devs[i].Get(1);
            Ptr<NetDevice> out = i + 1 < hops ? devs[i + 1].Get(0) : Ptr<NetDevice>();
            in->SetReceiveCallback(MakeCallback(+[](Ptr<NetDevice> out,
                                                    Time* last,
                                                    Ptr<NetDevice>,
                                                    Ptr<const Packet> p,
                                                    uint16_t proto,
                                                    const Address&) {
                                       if (out)
                                       {
                                           out->Send(p->Copy(), out->GetBroadcast(), proto);
                                       }
                                       else
                                       {
                                           *last = Simulator::Now();
                                       }
                                       return true;
                                   }).Bind(out, &last));
        }
        // The PPP header (2 B) is added by the device; the rest of O is in the packet.
        Ptr<NetDevice> first = devs[0].Get(0);
        for (uint64_t left = bytes; left > 0;)
        {
            uint64_t chunk = std::min<uint64_t>(left, payload);
            first->Send(Create<Packet>(chunk + overhead - 2), first->GetBroadcast(), 0x0800);
            left -= chunk;
        }
        Simulator::Run();
        return last;
    }
};

TEST_F(AlphaBetaFabricTest, MessageTimeMatchesPointToPointExactly)
{
    Ptr<AlphaBetaModel> m = HandModel();
    for (uint32_t hops : {1u, 2u, 3u, 5u})
    {
        for (uint64_t bytes : {10ull, 1000ull, 2500ull, 20001ull})
        {
            Time sim = SimulateTrain(hops, bytes, 1000, 50, kRate, kDelay);
            EXPECT_EQ(sim, m->PredictMessage(bytes, hops, kRate, kDelay))
                << "hops " << hops << " bytes " << bytes;
            Simulator::Destroy();
        }
    }
}

TEST_F(AlphaBetaFabricTest, MessageTimeMatchesPointToPointAt100G)
{
    // 100 Gb/s, UDP at MTU 9000: P = 8972, O = 30 (UDP 8 + IPv4 20 + PPP 2). Frames take
    // 720.16 ns; ns-3 rounds each to 720 ns, so allow 1 ns per packet-hop.
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetPacketization(8972, 30);
    DataRate rate("100Gbps");
    uint64_t bytes = 100000;
    uint32_t hops = 4;
    Time sim = SimulateTrain(hops, bytes, 8972, 30, rate, MicroSeconds(1));
    Time model = m->PredictMessage(bytes, hops, rate, MicroSeconds(1));
    double tol = (m->GetPacketCount(bytes) + hops) * 1e-9;
    EXPECT_NEAR(sim.GetSeconds(), model.GetSeconds(), tol);
}

TEST_F(AlphaBetaFabricTest, RingStepThroughStarEqualsTwoHopMessage)
{
    Ptr<Cluster> c = Star(8);
    Ptr<AlphaBetaModel> m = HandModel();
    m->SetCluster(c);
    for (uint64_t bytes : {10ull, 1000ull, 2500ull, 125000ull})
    {
        CollectiveStep step;
        for (uint32_t i = 0; i < 8; ++i)
        {
            step.messages.push_back({i, (i + 1) % 8, bytes});
        }
        StepPrediction p = m->PredictStep(step);
        // Each host uplink and switch downlink carries one message: W(c) bytes.
        EXPECT_EQ(p.total, m->PredictMessage(bytes, 2, kRate, kDelay)) << bytes;
        EXPECT_DOUBLE_EQ(p.bottleneckBytes, static_cast<double>(m->GetWireBytes(bytes)));
        EXPECT_EQ(p.maxHops, 2u);
        EXPECT_EQ(p.messages, 8u);
    }
}

TEST_F(AlphaBetaFabricTest, RingAllReduceScheduleMatchesThakurRing)
{
    // Ring all-reduce on a star, S/N a multiple of P: every message is n full packets,
    // so beta_eff = (1 + O/P)*8/R and alpha = F1*8/R + 2d (one switch).
    const uint32_t n = 4;
    const uint64_t s = 4 * 5000; // 5000 B per chunk = 5 packets
    Ptr<Cluster> c = Star(n);
    Ptr<HandTransport> t = CreateObject<HandTransport>();
    t->Install(c);
    Ptr<ScheduleOnlyCollective> coll = CreateObject<ScheduleOnlyCollective>();
    coll->SetAttribute("ReductionTimePerByte", DoubleValue(1e-9));
    coll->Setup(t, {0, 1, 2, 3}, s);
    for (uint32_t k = 0; k < 2 * (n - 1); ++k)
    {
        CollectiveStep step;
        for (uint32_t i = 0; i < n; ++i)
        {
            step.messages.push_back({i, (i + 1) % n, s / n});
        }
        step.reduceBytes = k < n - 1 ? s / n : 0;
        coll->schedule.push_back(step);
    }
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetPacketization(t);
    m->SetCluster(c);
    double alpha = 1050 * 1e-9 + 2 * kDelay.GetSeconds();
    double beta = 1.05e-9;
    double gamma = 1e-9;
    auto steps = m->PredictSteps(coll);
    ASSERT_EQ(steps.size(), 6u);
    EXPECT_EQ(steps[0].reduction, NanoSeconds(5000)); // gamma * 5000 B
    EXPECT_EQ(steps[5].reduction, Time(0));
    EXPECT_NEAR(m->Predict(coll).GetSeconds(),
                CollectiveClosedForms::RingAllReduceTime(n, s, alpha, beta, gamma),
                1e-12);
    // PerMessageOverhead adds once per step.
    m->SetAttribute("PerMessageOverhead", TimeValue(MicroSeconds(3)));
    EXPECT_NEAR(m->Predict(coll).GetSeconds(),
                CollectiveClosedForms::RingAllReduceTime(n, s, alpha + 3e-6, beta, gamma),
                1e-12);
}

TEST_F(AlphaBetaFabricTest, OversubscribedUplinkIsTheBottleneck)
{
    Ptr<Cluster> c = TwoRacks();
    Ptr<AlphaBetaModel> m = HandModel();
    m->SetCluster(c);
    const uint64_t bytes = 3000;
    const double w = static_cast<double>(m->GetWireBytes(bytes)); // 3150
    StepPrediction p = m->PredictStep(AllToAll(8, bytes));
    ASSERT_NE(p.bottleneckLink, UINT32_MAX);
    EXPECT_EQ(c->GetLink(p.bottleneckLink).linkClass, "tor-agg");
    // 4 senders x 4 remote receivers cross each uplink: 16 W; a host link carries 7 W.
    EXPECT_DOUBLE_EQ(p.bottleneckBytes, 16 * w);
    EXPECT_NEAR(p.bandwidthTime.GetSeconds(), 16 * w * 1e-9, 1e-12);
    // Closed form with per-pair wire bytes: M/B * max(1, r (N - n_r)/(N - 1)).
    EXPECT_NEAR(p.bandwidthTime.GetSeconds(),
                CollectiveClosedForms::OversubscribedClosAllToAllTime(8, 4, 4, w, kRate),
                1e-12);
    // Cross-rack messages take 4 hops: latency 3*F1 + 4d.
    EXPECT_EQ(p.maxHops, 4u);
    EXPECT_EQ(p.latency, NanoSeconds(3 * 1050 + 4000));
}

TEST_F(AlphaBetaFabricTest, TorusAllToAllChannelLoadEcmpMeetsDallyBound)
{
    // 4x4 torus, uniform all-to-all of m per pair. Dally & Towles: gamma_max = k/8 per
    // unit injection (N m per node, self included), i.e. N k m / 8 = 8 m per channel.
    // Shortest-path ECMP splits the k/2-offset traffic evenly, so it meets this.
    Ptr<Cluster> c = Torus({4, 4}, "ecmp");
    Ptr<AlphaBetaModel> m = HandModel();
    m->SetCluster(c);
    const uint64_t bytes = 2000;
    const double w = static_cast<double>(m->GetWireBytes(bytes));
    StepPrediction p = m->PredictStep(AllToAll(16, bytes));
    EXPECT_NEAR(p.bottleneckBytes, 16.0 * 4 * w / 8, 1e-6);
    EXPECT_NEAR(p.bandwidthTime.GetSeconds(),
                CollectiveClosedForms::TorusAllToAllBound(4, 2, w, kRate),
                1e-12);
}

TEST_F(AlphaBetaFabricTest, TorusAllToAllChannelLoadDorMeetsDallyBound)
{
    // Dimension-order routing with half-way ties (offset k/2) split by the source's
    // parity: a + channel of a k-ring carries offsets 1..k/2-1 from every source behind
    // it plus the k/2 offset from half of them: k^(n-1) m ((k/2-1)(k/2)/2 + k/4) =
    // 4 m (1 + 1) = 8 m on 4x4 -- Dally's k/8 bound, on every channel.
    Ptr<Cluster> c = Torus({4, 4}, "dor");
    Ptr<AlphaBetaModel> m = HandModel();
    m->SetCluster(c);
    const uint64_t bytes = 2000;
    const double w = static_cast<double>(m->GetWireBytes(bytes));
    StepPrediction p = m->PredictStep(AllToAll(16, bytes));
    EXPECT_NEAR(p.bottleneckBytes, 8 * w, 1e-6);
    EXPECT_NEAR(p.bandwidthTime.GetSeconds(),
                CollectiveClosedForms::TorusAllToAllBound(4, 2, w, kRate),
                1e-12);
    EXPECT_EQ(p.maxHops, 4u); // (2, 2) offsets
}

TEST_F(AlphaBetaFabricTest, FailedRingLinkReroutesTheLongWay)
{
    // 8-ring, every rank sends to its + neighbour. Fail link 0-1: the message 0 -> 1
    // goes 7 hops the other way, alone on the - channels, so the bandwidth term stays
    // W and the latency grows to 6 F1 + 7 d. The model notices the failure by itself.
    Ptr<Cluster> c = Torus({8}, "ecmp");
    Ptr<AlphaBetaModel> m = HandModel();
    m->SetCluster(c);
    CollectiveStep step;
    for (uint32_t i = 0; i < 8; ++i)
    {
        step.messages.push_back({i, (i + 1) % 8, 2500});
    }
    StepPrediction healthy = m->PredictStep(step);
    EXPECT_EQ(healthy.total, m->PredictMessage(2500, 1, kRate, kDelay));
    c->FailLink(0); // rank 0 -> rank 1
    StepPrediction failed = m->PredictStep(step);
    EXPECT_EQ(failed.maxHops, 7u);
    EXPECT_EQ(failed.bandwidthTime, NanoSeconds(2650));
    EXPECT_EQ(failed.latency, NanoSeconds(6 * 1050 + 7000));
    EXPECT_EQ(failed.total, m->PredictMessage(2500, 7, kRate, kDelay));
}

TEST_F(AlphaBetaFabricTest, UnreachableRankThrows)
{
    Ptr<Cluster> c = Star(3);
    Ptr<AlphaBetaModel> m = HandModel();
    m->SetCluster(c);
    c->FailLink(2);
    CollectiveStep step;
    step.messages.push_back({0, 2, 100});
    EXPECT_THROW(m->PredictStep(step), std::invalid_argument);
    step.messages[0].dst = 7;
    EXPECT_THROW(m->PredictStep(step), std::invalid_argument);
}

// ---- On fabrics built by the fabric helpers ----------------------------------------

TEST_F(AlphaBetaFabricTest, FatTreeAllToAllMatchesClosForms)
{
    // Radix 8, non-blocking: 4 hosts + 4 uplinks per ToR, 16 ranks on 4 ToRs. ECMP spreads
    // a ToR's 4 x 12 remote messages over 4 uplinks (12 W each), below a host link's
    // 15 W, so the host link bounds it: (N-1) W / B.
    const uint64_t bytes = 4000;
    {
        FatTreeHelper ft(16);
        ft.SetRadix(8);
        ft.SetLinkRate(kRate);
        Ptr<Cluster> c = ft.Install();
        Ptr<AlphaBetaModel> m = HandModel();
        m->SetCluster(c);
        double w = static_cast<double>(m->GetWireBytes(bytes));
        StepPrediction p = m->PredictStep(AllToAll(16, bytes));
        EXPECT_EQ(c->GetLink(p.bottleneckLink).linkClass, "host-tor");
        EXPECT_NEAR(p.bandwidthTime.GetSeconds(),
                    CollectiveClosedForms::ClosAllToAllBound(16, w, kRate),
                    1e-12);
        EXPECT_EQ(p.maxHops, 4u);
    }
    Simulator::Destroy();
    {
        // Radix 8, r = 3: 6 hosts + 2 uplinks per ToR; 12 ranks on 2 ToRs. 36 W cross
        // each ToR's 2 uplinks: 18 W = M/B * r (N - n_r)/(N - 1) = 11 W * 18/11.
        FatTreeHelper ft(12);
        ft.SetRadix(8);
        ft.SetOversubscription(3);
        ft.SetLinkRate(kRate);
        Ptr<Cluster> c = ft.Install();
        Ptr<AlphaBetaModel> m = HandModel();
        m->SetCluster(c);
        double w = static_cast<double>(m->GetWireBytes(bytes));
        StepPrediction p = m->PredictStep(AllToAll(12, bytes));
        EXPECT_EQ(c->GetLink(p.bottleneckLink).linkClass, "tor-agg");
        EXPECT_NEAR(p.bottleneckBytes, 18 * w, 1e-6);
        EXPECT_NEAR(p.bandwidthTime.GetSeconds(),
                    CollectiveClosedForms::OversubscribedClosAllToAllTime(12, 6, 3, w, kRate),
                    1e-12);
    }
}

TEST_F(AlphaBetaFabricTest, HelperTorusAndIdealSwitchAgreeWithHandBuilt)
{
    const uint64_t bytes = 2000;
    {
        TorusHelper th({4, 4});
        th.SetLinkRate(kRate);
        Ptr<Cluster> c = th.Install(); // dimension-order routing
        Ptr<AlphaBetaModel> m = HandModel();
        m->SetCluster(c);
        double w = static_cast<double>(m->GetWireBytes(bytes));
        EXPECT_NEAR(m->PredictStep(AllToAll(16, bytes)).bottleneckBytes, 8 * w, 1e-6);
    }
    Simulator::Destroy();
    {
        IdealSwitchHelper ideal(6);
        ideal.SetLinkRate(kRate);
        Ptr<Cluster> c = ideal.Install();
        Ptr<AlphaBetaModel> m = HandModel();
        m->SetCluster(c);
        CollectiveStep ring;
        for (uint32_t i = 0; i < 6; ++i)
        {
            ring.messages.push_back({i, (i + 1) % 6, bytes});
        }
        EXPECT_EQ(m->PredictStep(ring).total, m->PredictMessage(bytes, 2, kRate, kDelay));
    }
}
