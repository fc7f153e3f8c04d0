// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load balancing on the fast data path (LoadBalancer: hash, spray, flowlet, adaptive)
 * on one workload: a permutation across a 2-tier fat-tree of 16 ranks (radix 8: 4 ToRs
 * of 4 hosts, 4 spines), every rank sending one message to the host in the same
 * position under the next ToR, so every byte crosses a ToR uplink and the uplinks
 * could carry it all at line rate. Per-flow hashing puts several flows on one uplink;
 * spraying splits each ToR's bytes evenly over its uplinks and finishes at the
 * first-principles bound; adaptive and flowlet unload the busiest uplink; the UDP
 * transport's receiver absorbs the reordering without a retransmission. Bad names throw.
 */
#include "mlnet-test-support.h"

#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/load-balancer.h"
#include "ns3/mlnet-transport-header.h"
#include "ns3/network-module.h"
#include "ns3/scenario-command-line.h"
#include "ns3/udp-message-transport.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <numeric>

using namespace ns3;

namespace
{

class LoadBalancerTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

constexpr uint32_t kRanks = 16;
constexpr uint32_t kPerTor = 4;
constexpr uint64_t kBytes = 1000000; //!< one message per rank

/// What one permutation run gave.
struct PermutationRun
{
    Time last;                    //!< when the last message was delivered
    std::vector<Time> done;       //!< delivery time by source rank
    std::vector<uint64_t> uplink; //!< wire bytes ToR -> spine, per tor-agg link
    uint64_t flowlets{0};         //!< flowlets started, summed over nodes
    uint64_t delivered{0};        //!< messages delivered
    uint64_t retransmissions{0};  //!< data packets sent again
    uint64_t duplicates{0};       //!< packets received twice
    uint64_t nacks{0};            //!< NACKs sent
    uint64_t reordered{0};        //!< data frames arriving behind a later one of theirs
    uint64_t frameTime{0};        //!< ps of one full frame at the link rate
    uint64_t wireBytes{0};        //!< wire bytes of one message (PPP frames)
    uint64_t ackBytes{0};         //!< wire bytes of an ACK
    std::string loadBalancing;    //!< as the fabric spec records it

    uint64_t busiest() const //!< bytes of the busiest uplink
    {
        return *std::max_element(uplink.begin(), uplink.end());
    }

    double mean() const //!< mean uplink bytes
    {
        return double(std::accumulate(uplink.begin(), uplink.end(), uint64_t(0))) / uplink.size();
    }
};

/// Rank r sends kBytes to r + kPerTor (mod kRanks); rank r starts at r * stagger,
/// and again at `again` + r * stagger when `again` is positive.
PermutationRun
RunPermutation(const std::string& policy, Time stagger = Seconds(0), Time again = Seconds(0))
{
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = kRanks;
    f.tiers = 2;
    f.radix = 8;
    f.dataPath = "fast";
    f.loadBalancing = policy;
    Ptr<Cluster> cluster = f.Build();
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    PermutationRun run;
    run.loadBalancing = cluster->GetFabricSpec().loadBalancing;
    run.done.resize(kRanks);
    uint32_t ch = udp->RegisterChannel(MessageTransport::ReceiveCallback([&run](const Message& m) {
        run.done[m.src] = m.delivered;
        run.last = std::max(run.last, m.delivered);
        ++run.delivered;
    }));
    // Reordering as the receivers see it: a data frame whose sequence number is below
    // one already delivered of the same message.
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> highest; // (src, msg id) -> seq + 1
    for (uint32_t r = 0; r < kRanks; ++r)
    {
        Ptr<FastForwarding> ff = cluster->GetRankNode(r)->GetObject<FastForwarding>();
        ff->TraceConnectWithoutContext(
            "Deliver",
            Callback<void, Ptr<const Packet>, uint32_t>(
                [&run, &highest](Ptr<const Packet> p, uint32_t) {
                    Ptr<Packet> c = p->Copy();
                    FastFrameHeader fh;
                    c->RemoveHeader(fh);
                    MlnetTransportHeader th;
                    c->PeekHeader(th);
                    if (th.GetType() != MlnetTransportHeader::DATA)
                    {
                        return;
                    }
                    uint32_t& top = highest[{fh.srcRank, th.GetMessageId()}];
                    if (th.GetSequence() + 1 < top)
                    {
                        ++run.reordered;
                    }
                    top = std::max(top, th.GetSequence() + 1);
                }));
    }
    std::vector<Time> starts{Seconds(0)};
    if (again.IsStrictlyPositive())
    {
        starts.push_back(again);
    }
    for (Time start : starts)
    {
        for (uint32_t r = 0; r < kRanks; ++r)
        {
            Simulator::Schedule(start + stagger * r,
                                [=]() { udp->Send(r, (r + kPerTor) % kRanks, ch, 0, kBytes); });
        }
    }
    Simulator::Run();
    NodeContainer nodes = cluster->GetAllNodes();
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        PointerValue lb;
        nodes.Get(n)->GetObject<FastForwarding>()->GetAttribute("LoadBalancer", lb);
        if (lb.Get<LoadBalancer>())
        {
            run.flowlets += lb.Get<LoadBalancer>()->GetFlowlets();
        }
    }
    for (const ClusterLink& l : cluster->GetLinks())
    {
        if (l.linkClass == "tor-agg")
        {
            run.uplink.push_back(l.bytesAtoB); // end A is the ToR (FatTreeHelper)
        }
    }
    run.retransmissions = udp->GetRetransmissions();
    run.duplicates = udp->GetDuplicates();
    run.nacks = udp->GetNacksSent();
    uint32_t mp = udp->GetMaxPayload();
    uint32_t oh = udp->GetPerPacketOverhead();
    uint64_t packets = (kBytes + mp - 1) / mp;
    run.wireBytes = kBytes + packets * oh;
    run.ackBytes = oh;
    run.frameTime = DataRate("100Gbps").CalculateBytesTxTime(mp + oh).GetPicoSeconds();
    Simulator::Destroy();
    return run;
}

} // namespace

// Hashing pins each flow to one uplink: with 4 flows per ToR on 4 uplinks some uplink
// carries two flows and another none. Spraying splits every ToR's bytes over its 4
// uplinks to within one frame each (±5% of the mean is the stated bound; measured:
// exact to a frame), and the busiest uplink carries one flow's worth.
TEST_F(LoadBalancerTest, SprayEvensTheUplinksWhereHashingDoesNot)
{
    PermutationRun hash = RunPermutation("hash");
    PermutationRun spray = RunPermutation("spray");
    ASSERT_EQ(hash.uplink.size(), 16u); // 4 ToRs x 4 spines
    ASSERT_EQ(spray.uplink.size(), 16u);
    EXPECT_EQ(hash.loadBalancing, "hash");
    EXPECT_EQ(spray.loadBalancing, "spray");
    // Same bytes cross the uplinks either way: every message's frames once.
    EXPECT_DOUBLE_EQ(hash.mean(), spray.mean());
    // Up-links carry every message's frames and the ACK of another (a header-only
    // packet of GetPerPacketOverhead bytes; receivers sit under the next ToR too).
    EXPECT_DOUBLE_EQ(spray.mean(), double(kRanks * (spray.wireBytes + spray.ackBytes)) / 16);
    for (uint64_t b : spray.uplink)
    {
        EXPECT_NEAR(double(b), spray.mean(), 0.05 * spray.mean());
    }
    // Hashing: the busiest uplink carries at least two flows (else hashing would be
    // a perfect matching on every ToR); spraying: one flow's worth, to a frame.
    EXPECT_GE(double(hash.busiest()), 2 * spray.mean() * 0.99);
    EXPECT_LE(double(spray.busiest()), spray.mean() + 9100);
    EXPECT_LT(spray.last, hash.last);
}

// The sprayed permutation finishes at the first-principles bound: the source NIC's
// serialization of the message (W * 8 / R) plus the path: 4 hops of propagation
// (1 us each) and 3 store-and-forward serializations of the last frame. Tolerance:
// 5 frame times for the uplinks' transient sharing (measured: every rank exactly at
// the bound, 86.689 us, where hashing's busiest uplink takes 167.1 us).
TEST_F(LoadBalancerTest, SprayedPermutationMeetsTheLineRateBound)
{
    PermutationRun spray = RunPermutation("spray");
    ASSERT_EQ(spray.delivered, kRanks);
    int64_t bound = static_cast<int64_t>(spray.wireBytes) * 80 + 3 * int64_t(spray.frameTime) +
                    4 * MicroSeconds(1).GetPicoSeconds();
    for (uint32_t r = 0; r < kRanks; ++r)
    {
        EXPECT_GE(spray.done[r].GetPicoSeconds(), bound) << "rank " << r;
        EXPECT_LE(spray.done[r].GetPicoSeconds(), bound + 5 * int64_t(spray.frameTime))
            << "rank " << r;
    }
}

// Per-packet policies reorder a flow's frames when the paths' queues differ (here:
// ranks start 5 us apart, so flows join the uplinks one by one; measured: spray 3,
// adaptive 5 frames overtaken); the receiver reassembles by sequence number and NACKs
// only after a silence, so every message completes with no retransmission, NACK or
// duplicate.
TEST_F(LoadBalancerTest, ReorderingFromSprayCostsNoRetransmission)
{
    for (const std::string policy : {"spray", "adaptive"})
    {
        PermutationRun run = RunPermutation(policy, MicroSeconds(5));
        EXPECT_EQ(run.delivered, kRanks) << policy;
        EXPECT_GT(run.reordered, 0u) << policy << ": the case must reorder to prove anything";
        EXPECT_EQ(run.retransmissions, 0u) << policy;
        EXPECT_EQ(run.duplicates, 0u) << policy;
        EXPECT_EQ(run.nacks, 0u) << policy;
    }
}

// Adaptive (per packet, by queued bytes) and flowlet (a flowlet per flow here: no gap
// reaches FlowletTimeout; placed by queue, then recent traffic) steer by the ToR's
// egress: where hashing's busiest uplink carries two flows (2.0x the mean), theirs
// carries within 5 % of one (measured: adaptive +0.7 %, flowlet exact), and they
// finish no later (measured: 87.4 and 86.7 us against 167.1 us).
TEST_F(LoadBalancerTest, AdaptiveAndFlowletUnloadTheBusiestUplink)
{
    PermutationRun hash = RunPermutation("hash");
    EXPECT_GE(double(hash.busiest()), 1.99 * hash.mean());
    for (const std::string policy : {"adaptive", "flowlet"})
    {
        PermutationRun lb = RunPermutation(policy);
        EXPECT_EQ(lb.delivered, kRanks) << policy;
        EXPECT_LE(double(lb.busiest()), 1.05 * lb.mean()) << policy;
        EXPECT_LT(lb.busiest(), hash.busiest()) << policy;
        EXPECT_LE(lb.last, hash.last) << policy;
        EXPECT_EQ(lb.retransmissions, 0u) << policy;
    }
}

// Same policy, same run: the same completion times, frame for frame.
TEST_F(LoadBalancerTest, EveryPolicyIsDeterministic)
{
    for (const std::string policy : LoadBalancer::Names())
    {
        PermutationRun a = RunPermutation(policy, MicroSeconds(5));
        PermutationRun b = RunPermutation(policy, MicroSeconds(5));
        EXPECT_EQ(a.done, b.done) << policy;
        EXPECT_EQ(a.uplink, b.uplink) << policy;
    }
}

// Bad names throw naming --loadBalancing and listing the choices; a policy other than
// hash on the IPv4 path throws naming both flags.
TEST_F(LoadBalancerTest, BadPolicyOrPathIsAClearError)
{
    try
    {
        LoadBalancer::Parse("ecmp");
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        std::string m = e.what();
        EXPECT_NE(m.find("--loadBalancing=ecmp"), std::string::npos) << m;
        for (const std::string& name : LoadBalancer::Names())
        {
            EXPECT_NE(m.find(name), std::string::npos) << m;
        }
    }
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = 8;
    f.dataPath = "ipv4";
    f.loadBalancing = "spray";
    try
    {
        f.Build();
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        std::string m = e.what();
        EXPECT_NE(m.find("--loadBalancing=spray"), std::string::npos) << m;
        EXPECT_NE(m.find("--dataPath"), std::string::npos) << m;
    }
    f.loadBalancing = "bogus";
    f.dataPath = "fast";
    EXPECT_THROW(f.Build(), std::invalid_argument);
    EXPECT_EQ(LoadBalancer::ToString(LoadBalancer::Parse("flowlet")), "flowlet");
}

// The flag: --loadBalancing defaults to hash, takes the four names into the request,
// and a bad value is one error naming the flag and listing the choices.
TEST_F(LoadBalancerTest, FlagReachesTheRequestAndRefusesBadNames)
{
    auto parse = [](const std::vector<std::string>& args, FabricOptions* out) {
        FabricOptions f;
        ScenarioCommandLine cmd(__FILE__);
        f.AddToCommandLine(cmd);
        std::vector<std::string> all{"prog"};
        all.insert(all.end(), args.begin(), args.end());
        std::string e = mlnettest::InvalidArgumentMessage([&] { cmd.Parse(all); });
        *out = f;
        return e;
    };
    FabricOptions f;
    EXPECT_EQ(parse({}, &f), "no exception");
    EXPECT_EQ(f.Request().loadBalancing, "hash");
    for (const std::string& name : LoadBalancer::Names())
    {
        EXPECT_EQ(parse({"--loadBalancing=" + name}, &f), "no exception");
        EXPECT_EQ(f.Request().loadBalancing, name);
    }
    std::string e = parse({"--loadBalancing=ecmp"}, &f);
    EXPECT_NE(e.find("loadBalancing"), std::string::npos) << e;
    EXPECT_NE(e.find("ecmp"), std::string::npos) << e;
    for (const std::string& name : LoadBalancer::Names())
    {
        EXPECT_NE(e.find(name), std::string::npos) << e;
    }
}

// A flowlet ends at a gap longer than FlowletTimeout. Each rank sends twice, 200 us
// apart (the first round is over at 86.7 us). Flowlets start only at the ToRs (a host
// and a spine have one candidate per destination), one per flow of each ToR's
// up-link traffic: 16 data flows and the 16 ACK flows back. With the 10 us default
// every flow pauses ~113 us between its two messages (and its two ACKs): 2 x 32
// flowlets; with FlowletTimeout = 1 ms none of the gaps counts: 32.
TEST_F(LoadBalancerTest, FlowletEndsAtAGapLongerThanTheTimeout)
{
    PermutationRun shortGap = RunPermutation("flowlet", Seconds(0), MicroSeconds(200));
    EXPECT_EQ(shortGap.delivered, 2 * kRanks);
    EXPECT_EQ(shortGap.flowlets, 2u * 2 * kRanks);
    Config::SetDefault("ns3::LoadBalancer::FlowletTimeout", TimeValue(MilliSeconds(1)));
    PermutationRun longTimeout = RunPermutation("flowlet", Seconds(0), MicroSeconds(200));
    Config::SetDefault("ns3::LoadBalancer::FlowletTimeout", TimeValue(MicroSeconds(10)));
    EXPECT_EQ(longTimeout.delivered, 2 * kRanks);
    EXPECT_EQ(longTimeout.flowlets, 2u * kRanks);
    // Either way every up-link carries two flows' worth, one per round.
    EXPECT_LE(double(shortGap.busiest()), 1.05 * shortGap.mean());
    EXPECT_LE(double(longTimeout.busiest()), 1.05 * longTimeout.mean());
}
