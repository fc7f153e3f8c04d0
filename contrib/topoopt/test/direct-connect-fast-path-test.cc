// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopoOpt direct-connect fabrics on the fast data path (DirectConnectHelper with
 * SetDataPath("fast"): FastForwarding on every server, its relay stage for host
 * forwarding) against the IPv4 path (HostForwardingRouting): on 8-server plans over
 * OCS planes, ring all-reduce and all-to-all finish at the same picosecond on every
 * member, with the same bytes on every link and direction, the same frames relayed
 * with the same waits, and the same dark-port counters: plain, with relay latency and
 * a relay rate cap, with a mid-run reconfiguration under each dark-port policy (with
 * and without rerouting around the dark ports), and on the expander. First principles:
 * one frame relayed by one server takes 2 x (serialization + fibre delay) + relay
 * latency + its time through the relay engine, and a second one behind it waits for
 * the engine.
 */
#include "collective-test-support.h"

#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/direct-connect-fabric.h"
#include "ns3/direct-connect-helper.h"
#include "ns3/fabric-registry.h"
#include "ns3/fast-forwarding.h"
#include "ns3/host-forwarding-routing.h"
#include "ns3/internet-module.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/queue.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::Coll;

namespace
{

class DirectConnectFastPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// 8 servers: planes 0 and 1 make the ring 0-1-...-7-0, plane 2 (degree 3) the chords
/// i - i+4. Without plane 2 the ring still connects every server; without plane 0 the
/// rest splits into {0,3,4,7} and {1,2,5,6}.
TopologyPlan
Ring8(uint32_t degree)
{
    TopologyPlan plan(8, degree);
    for (uint32_t i = 0; i < 8; i += 2)
    {
        plan.AddCircuit(0, i, i + 1);
        plan.AddCircuit(1, i + 1, (i + 2) % 8);
    }
    for (uint32_t i = 0; degree > 2 && i < 4; ++i)
    {
        plan.AddCircuit(2, i, i + 4);
    }
    return plan;
}

/// How one fabric is built and what happens to it during the run.
struct Scenario
{
    uint32_t degree{3};
    Time relayLatency{0};
    DataRate relayRate{0};
    std::string policy{"drop"}; //!< DarkPortPolicy
    bool reroute{true};
    int reconfigurePlane{-1}; //!< -1: none
    OpticalCircuitSwitch::Matching matching;
    Time reconfigureAt{MicroSeconds(40)};
    bool expander{false};
};

/// What one packet-level run gave, for comparing the two data paths.
struct Outcome
{
    std::vector<Time> memberEnds;
    std::vector<uint64_t> perLink; //!< wire bytes per link, A->B and B->A interleaved
    uint64_t relayed{0};           //!< transit frames relayed by servers
    uint64_t relayTraces{0};       //!< Relay trace calls
    int64_t relayWaitPs{0};        //!< their waits, summed
    uint64_t droppedWhileDark{0};
    uint64_t held{0};
    uint32_t routeInstalls{0};
    uint64_t events{0};
};

Ptr<Cluster>
Build(const Scenario& s, const std::string& dataPath)
{
    if (s.expander)
    {
        FabricRequest r;
        r.fabric = "expander";
        r.ranks = 8;
        r.degree = s.degree;
        r.linkRate = DataRate("25Gbps");
        r.forwardingLatency = s.relayLatency;
        r.opticalAttributes = {{"Technology", "patch-panel"}};
        r.dataPath = dataPath;
        return FabricRegistry::Build(r);
    }
    DirectConnectHelper h(Ring8(s.degree));
    h.SetLinkRate(DataRate("25Gbps"));
    h.SetLinkDelay(MicroSeconds(1));
    h.SetForwardingLatency(s.relayLatency);
    h.SetForwardingRate(s.relayRate);
    h.SetRerouteAroundDarkPorts(s.reroute);
    h.SetOcsAttribute("Technology", StringValue("ocs"));
    h.SetOcsAttribute("ReconfigurationDelay", TimeValue(MicroSeconds(20)));
    h.SetOcsAttribute("DarkPortPolicy", StringValue(s.policy));
    h.SetDataPath(dataPath);
    return h.Install();
}

Outcome
RunPath(const Scenario& s, const std::string& dataPath, const CollectiveRunOptions& run)
{
    Ptr<Cluster> cluster = Build(s, dataPath);
    EXPECT_EQ(cluster->GetFabricSpec().dataPath, dataPath);
    Ptr<DirectConnectFabric> fabric = cluster->GetObject<DirectConnectFabric>();
    fabric->AccountLostFrames();
    if (s.reconfigurePlane >= 0)
    {
        Simulator::Schedule(s.reconfigureAt,
                            &DirectConnectFabric::Reconfigure,
                            fabric,
                            static_cast<uint32_t>(s.reconfigurePlane),
                            s.matching);
    }
    Outcome o;
    auto onRelay = [&o](Ptr<const Packet>, Time wait) {
        ++o.relayTraces;
        o.relayWaitPs += wait.GetPicoSeconds();
    };
    std::vector<Ptr<HostForwardingRouting>> routings;
    std::vector<Ptr<FastForwarding>> fasts;
    for (uint32_t r = 0; r < cluster->GetNRanks(); ++r)
    {
        Ptr<Node> node = cluster->GetRankNode(r);
        Ptr<Object> relay;
        if (dataPath == "fast")
        {
            EXPECT_FALSE(node->GetObject<Ipv4>());
            fasts.push_back(node->GetObject<FastForwarding>());
            relay = fasts.back();
        }
        else
        {
            routings.push_back(
                DynamicCast<HostForwardingRouting>(node->GetObject<Ipv4>()->GetRoutingProtocol()));
            relay = routings.back();
        }
        relay->TraceConnectWithoutContext("Relay",
                                          Callback<void, Ptr<const Packet>, Time>(onRelay));
    }
    CollectiveRunResult r = CollectiveRunner::Run(cluster, run);
    o.memberEnds = r.memberEnds;
    o.events = r.events;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        o.perLink.push_back(l.bytesAtoB);
        o.perLink.push_back(l.bytesBtoA);
    }
    for (const auto& routing : routings)
    {
        o.relayed += routing->GetRelayedPackets();
    }
    for (const auto& fast : fasts)
    {
        o.relayed += fast->GetFramesForwarded();
        EXPECT_EQ(fast->GetPendingFrames(), 0u); // the relay stage drained
    }
    for (uint32_t p = 0; p < fabric->GetNPlanes(); ++p)
    {
        o.droppedWhileDark += fabric->GetPlane(p)->GetFramesDroppedWhileDark();
        o.held += fabric->GetPlane(p)->GetFramesHeld();
    }
    o.routeInstalls = fabric->GetRouteInstalls();
    Simulator::Destroy();
    return o;
}

/// Run on both data paths, expect the same outcome; \return the IPv4 path's.
Outcome
ExpectSame(const Scenario& s, const CollectiveRunOptions& run, const std::string& what)
{
    Outcome ipv4 = RunPath(s, "ipv4", run);
    Outcome fast = RunPath(s, "fast", run);
    EXPECT_EQ(ipv4.memberEnds.size(), 8u) << what;
    EXPECT_EQ(fast.memberEnds, ipv4.memberEnds) << what << ": completion times differ";
    EXPECT_EQ(fast.perLink, ipv4.perLink) << what << ": link bytes differ";
    EXPECT_EQ(fast.relayed, ipv4.relayed) << what;
    EXPECT_EQ(fast.relayTraces, ipv4.relayed) << what;
    EXPECT_EQ(fast.relayTraces, ipv4.relayTraces) << what;
    EXPECT_EQ(fast.relayWaitPs, ipv4.relayWaitPs) << what;
    EXPECT_EQ(fast.droppedWhileDark, ipv4.droppedWhileDark) << what;
    EXPECT_EQ(fast.held, ipv4.held) << what;
    EXPECT_EQ(fast.routeInstalls, ipv4.routeInstalls) << what;
    EXPECT_LE(fast.events, ipv4.events) << what;
    return ipv4;
}

TEST_F(DirectConnectFastPathTest, RingAllReduceAndAllToAllMatchTheIpv4Path)
{
    for (uint32_t degree : {2u, 3u})
    {
        Scenario s;
        s.degree = degree;
        std::string what = "degree " + std::to_string(degree);
        // Ring neighbours are circuits: nothing relayed.
        EXPECT_EQ(ExpectSame(s, Coll("allreduce", "ring", "256KiB"), what + " ring").relayed, 0u);
        // Most pairs are two or more hops apart: servers relay.
        EXPECT_GT(ExpectSame(s, Coll("alltoall", "pairwise", "16KiB"), what + " a2a").relayed, 0u);
    }
}

TEST_F(DirectConnectFastPathTest, RelayLatencyAndRateMatchTheIpv4Path)
{
    Scenario s;
    s.relayLatency = MicroSeconds(2);
    s.relayRate = DataRate("10Gbps"); // below the 25G ports: the engine backs up
    Outcome o = ExpectSame(s, Coll("alltoall", "pairwise", "16KiB"), "latency + rate");
    EXPECT_GT(o.relayed, 0u);
    // Every relayed frame waited at least the latency; the engine added more.
    EXPECT_GT(o.relayWaitPs, int64_t(o.relayed) * MicroSeconds(2).GetPicoSeconds());
    s.relayRate = DataRate(0);
    o = ExpectSame(s, Coll("alltoall", "pairwise", "16KiB"), "latency only");
    EXPECT_EQ(o.relayWaitPs, int64_t(o.relayed) * MicroSeconds(2).GetPicoSeconds());
}

TEST_F(DirectConnectFastPathTest, MidRunReconfigurationMatchesUnderEveryPolicy)
{
    // The chord plane moves to (0,2),(1,3),(4,6),(5,7) during an all-to-all: the ring
    // planes still connect every server, so routes go around the dark ports at once;
    // frames already queued for them meet the policy.
    for (const std::string policy : {"drop", "buffer", "drain-then-switch"})
    {
        Scenario s;
        s.policy = policy;
        s.reconfigurePlane = 2;
        s.matching = {{0, 2}, {1, 3}, {4, 6}, {5, 7}};
        s.reconfigureAt = MicroSeconds(40); // chords busy: frames queued and on the fibre
        Outcome o = ExpectSame(s, Coll("alltoall", "pairwise", "32KiB"), policy);
        EXPECT_EQ(o.routeInstalls, 2u) << policy; // around the dark ports, then onto the new
        if (policy == "drop")
        {
            EXPECT_GT(o.droppedWhileDark, 0u);
        }
        else
        {
            EXPECT_GT(o.held, 0u) << policy;
        }
        if (policy == "drain-then-switch")
        {
            EXPECT_EQ(o.droppedWhileDark, 0u); // lossless
        }
    }
}

TEST_F(DirectConnectFastPathTest, DarkPortsWithoutRerouteMatch)
{
    // Plane 0 goes dark under a ring all-reduce. Without plane 0 the fabric splits, so
    // even with rerouting the routes are kept (installed once, when the new circuits
    // are up); with rerouting off, the same. Frames meet the dark ports: dropped (and
    // repaired by the transport) or held.
    for (bool reroute : {true, false})
    {
        for (const std::string policy : {"drop", "buffer"})
        {
            Scenario s;
            s.policy = policy;
            s.reroute = reroute;
            s.reconfigurePlane = 0;
            s.matching = {{0, 5}, {1, 4}, {2, 7}, {3, 6}};
            std::string what = policy + (reroute ? " reroute" : " no reroute");
            Outcome o = ExpectSame(s, Coll("allreduce", "ring", "256KiB"), what);
            EXPECT_EQ(o.routeInstalls, 1u) << what;
            EXPECT_GT(policy == "drop" ? o.droppedWhileDark : o.held, 0u) << what;
        }
    }
}

TEST_F(DirectConnectFastPathTest, ExpanderMatchesTheIpv4Path)
{
    Scenario s;
    s.expander = true;
    s.relayLatency = MicroSeconds(1);
    EXPECT_GT(ExpectSame(s, Coll("alltoall", "pairwise", "16KiB"), "expander a2a").relayed, 0u);
    ExpectSame(s, Coll("allreduce", "ring", "256KiB"), "expander ring");
}

TEST_F(DirectConnectFastPathTest, OneRelayedFrameFromFirstPrinciples)
{
    // Rank 0 -> rank 2 on the degree-2 ring: two circuits, server 1 or 7 relays. A hop
    // takes (frame + 2 PPP bytes) * 8 / R + d; the relay adds its latency L and the
    // frame's time through its engine, E = frame * 8 / cap (the frame is FastFrameHeader
    // + payload = the IPv4 packet). A second frame sent with the first arrives one
    // serialization later and waits for the engine: it leaves E after the first.
    const uint32_t payload = 1000;
    const uint32_t frame = payload + FastFrameHeader::SIZE;
    const DataRate rate("25Gbps");
    const Time delay = MicroSeconds(1);
    const Time latency = MicroSeconds(3);
    const DataRate cap("1Gbps");
    const Time hop = rate.CalculateBytesTxTime(frame + 2) + delay;
    const Time engine = cap.CalculateBytesTxTime(frame);
    const Time at = MicroSeconds(5);
    ASSERT_EQ(frame, 20u + 8u + payload); // what HostForwardingRouting charges: IPv4 packet

    DirectConnectHelper h(Ring8(2));
    h.SetLinkRate(rate);
    h.SetLinkDelay(delay);
    h.SetForwardingLatency(latency);
    h.SetForwardingRate(cap);
    h.SetDataPath("fast");
    Ptr<Cluster> cluster = h.Install();
    std::vector<Time> arrivals;
    Ptr<FastForwarding> dst = cluster->GetRankNode(2)->GetObject<FastForwarding>();
    dst->SetDeliverCallback(FastForwarding::DeliverCallback(
        [&arrivals, payload](Ptr<Packet> p, const FastFrameHeader&) {
            EXPECT_EQ(p->GetSize(), payload);
            arrivals.push_back(Simulator::Now());
        }));
    std::vector<Time> waits;
    uint64_t relayed = 0;
    uint32_t pendingMidway = 0;
    for (uint32_t r : {1u, 7u})
    {
        cluster->GetRankNode(r)->GetObject<FastForwarding>()->TraceConnectWithoutContext(
            "Relay",
            Callback<void, Ptr<const Packet>, Time>(
                [&waits, frame](Ptr<const Packet> p, Time wait) {
                    EXPECT_EQ(p->GetSize(), frame);
                    waits.push_back(wait);
                }));
    }
    FastFrameHeader header;
    header.srcRank = 0;
    header.dstRank = 2;
    header.srcAddr = cluster->GetRankAddress(0).Get();
    header.dstAddr = cluster->GetRankAddress(2).Get();
    Ptr<FastForwarding> src = cluster->GetRankNode(0)->GetObject<FastForwarding>();
    Simulator::Schedule(at, [src, header, payload]() {
        ASSERT_TRUE(src->Send(Create<Packet>(payload), header));
        ASSERT_TRUE(src->Send(Create<Packet>(payload), header));
    });
    // Both frames are in the relay stage just before the first leaves it.
    Simulator::Schedule(at + hop + engine + latency - PicoSeconds(1), [&]() {
        for (uint32_t r : {1u, 7u})
        {
            pendingMidway +=
                cluster->GetRankNode(r)->GetObject<FastForwarding>()->GetPendingFrames();
        }
    });
    Simulator::Run();
    for (uint32_t r : {1u, 7u})
    {
        relayed += cluster->GetRankNode(r)->GetObject<FastForwarding>()->GetFramesForwarded();
    }
    ASSERT_EQ(arrivals.size(), 2u);
    EXPECT_EQ(arrivals[0], at + 2 * hop + latency + engine);
    EXPECT_EQ(arrivals[1], at + 2 * hop + latency + 2 * engine);
    ASSERT_EQ(waits.size(), 2u);
    EXPECT_EQ(waits[0], latency + engine);
    // The second arrives one serialization after the first and waits out the rest of
    // the first frame's engine time, then its own.
    EXPECT_EQ(waits[1], latency + 2 * engine - rate.CalculateBytesTxTime(frame + 2));
    EXPECT_EQ(relayed, 2u);
    EXPECT_EQ(pendingMidway, 2u);
}

TEST_F(DirectConnectFastPathTest, FastFabricHasNoInternetStackAndSameAddresses)
{
    // The same port addresses on both paths (the flow keys ECMP hashes), port 0's the
    // rank's, and every port's device queue as deep as the IPv4 path's FIFO queue disc
    // and device queue together, circuit or not (a reconfiguration may give it one):
    // plane 2 joins only 0-4 here.
    const TopologyPlan ring = Ring8(2);
    TopologyPlan plan(8, 3);
    for (uint32_t p = 0; p < 2; ++p)
    {
        for (const auto& [x, y] : ring.GetCircuits(p))
        {
            plan.AddCircuit(p, x, y);
        }
    }
    plan.AddCircuit(2, 0, 4);
    DirectConnectHelper ipv4(plan);
    Ptr<Cluster> a = ipv4.Install();
    std::vector<Ipv4Address> addresses;
    for (uint32_t r = 0; r < 8; ++r)
    {
        addresses.push_back(a->GetRankAddress(r));
    }
    Simulator::Destroy();
    DirectConnectHelper fast(plan);
    fast.SetDataPath("fast");
    fast.SetQueueSize(QueueSize("100p"));
    fast.SetHostQueueSize(QueueSize("400p"));
    Ptr<Cluster> b = fast.Install();
    EXPECT_EQ(b->GetFabricSpec().dataPath, "fast");
    Ptr<DirectConnectFabric> fabric = b->GetObject<DirectConnectFabric>();
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(b->GetRankAddress(r), addresses[r]) << r;
        EXPECT_FALSE(b->GetRankNode(r)->GetObject<Ipv4>());
        for (uint32_t p = 0; p < 3; ++p)
        {
            EXPECT_EQ(fabric->GetPlane(p)->GetPortDevice(r)->GetQueue()->GetMaxSize(),
                      QueueSize("500p"))
                << "plane " << p << " server " << r;
        }
    }
    EXPECT_EQ(fabric->GetLinkOfPort(2, 1), -1); // the unused port was configured too
}

} // namespace
