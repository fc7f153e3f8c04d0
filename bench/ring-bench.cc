// SPDX-License-Identifier: GPL-2.0-only
// Packet-hops per wall second: the same ring all-reduce traffic (a) through the
// mlnet stack on its IPv4 data path (ideal switch, UdpMessageTransport, RingAllReduce),
// (b) the same on mlnet's fast data path (FabricHelper::SetDataPath("fast")) and
// (c) as plain ns-3 (PointToPointHelper star, global routing, OnOffApplication/
// PacketSink, each rank streaming 2(N-1)/N*S bytes to its ring successor at line
// rate), in one run.
//
//   bench/ring-bench [--ranks=8] [--bytes=64MiB] [--rate=100Gbps] [--repeat=3] [--tsv]
//
// --tsv prints one tab-separated line per variant instead of the table (utils/bench.sh
// collects them from the builds against Debian's ns-3 and the optimized one):
//   result <ns-3 kind> <variant> <packet-hops> <wall_s> <events> <sim_s>
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/traffic-control-module.h"
#include "ns3/udp-message-transport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

using namespace ns3;

namespace
{

struct Figure
{
    double wallS{0};
    uint64_t packetHops{0};
    uint64_t events{0};
    double simS{0};
};

double
WallSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Figure
RunMlnet(uint32_t ranks, uint64_t bytes, const std::string& rate, const std::string& dataPath)
{
    auto t0 = std::chrono::steady_clock::now();
    IdealSwitchHelper star(ranks);
    star.SetLinkRate(ParseDataRate(rate));
    star.SetDataPath(dataPath);
    Ptr<Cluster> cluster = star.Install();
    Ptr<UdpMessageTransport> transport = CreateObject<UdpMessageTransport>();
    transport->Install(cluster);
    Ptr<RingAllReduce> ar = CreateObject<RingAllReduce>();
    std::vector<uint32_t> members(ranks);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        members[i] = i;
    }
    ar->Setup(transport, members, bytes);
    ar->Start();
    Simulator::Run();
    Figure f;
    for (const auto& l : cluster->GetLinks())
    {
        f.packetHops += l.packetsAtoB + l.packetsBtoA;
    }
    f.events = Simulator::GetEventCount();
    f.simS = ar->GetDuration().GetSeconds();
    Simulator::Destroy();
    f.wallS = WallSince(t0);
    return f;
}

Figure
RunStock(uint32_t ranks, uint64_t bytes, const std::string& rate)
{
    auto t0 = std::chrono::steady_clock::now();
    NodeContainer hosts;
    hosts.Create(ranks);
    NodeContainer sw;
    sw.Create(1);
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(sw);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    Ipv4AddressHelper address("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> hostAddress(ranks);
    NetDeviceContainer all;
    for (uint32_t i = 0; i < ranks; ++i)
    {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw.Get(0));
        all.Add(d);
        hostAddress[i] = address.Assign(d).GetAddress(0);
        address.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // Each rank streams what ring all-reduce sends: 2(N-1)/N * S, in 8972 B datagrams.
    uint64_t perRank = 2 * (ranks - 1) * (bytes / ranks);
    ApplicationContainer apps;
    for (uint32_t i = 0; i < ranks; ++i)
    {
        PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        apps.Add(sink.Install(hosts.Get(i)));
        OnOffHelper onoff("ns3::UdpSocketFactory",
                          InetSocketAddress(hostAddress[(i + 1) % ranks], 9));
        onoff.SetConstantRate(DataRate(rate), 8972);
        onoff.SetAttribute("MaxBytes", UintegerValue(perRank));
        apps.Add(onoff.Install(hosts.Get(i)));
    }
    Time lastRx;
    for (uint32_t i = 0; i < ranks; ++i)
    {
        apps.Get(2 * i)->TraceConnectWithoutContext(
            "Rx",
            MakeCallback(+[](Time* last, Ptr<const Packet>, const Address&) {
                *last = Simulator::Now();
            }).Bind(&lastRx));
    }
    Simulator::Run();
    Figure f;
    uint64_t received = 0;
    for (uint32_t i = 0; i < ranks; ++i)
    {
        received += DynamicCast<PacketSink>(apps.Get(2 * i))->GetTotalRx();
    }
    // Every datagram crosses two links (host -> switch -> host).
    f.packetHops = 2 * (received / 8972);
    f.events = Simulator::GetEventCount();
    f.simS = lastRx.GetSeconds();
    Simulator::Destroy();
    f.wallS = WallSince(t0);
    return f;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t ranks = 8;
    std::string bytes = "64MiB";
    std::string rate = "100Gbps";
    uint32_t repeat = 3;
    bool tsv = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("ranks", "ranks on the ideal switch", ranks);
    cmd.AddValue("bytes", "all-reduce size per rank", bytes);
    cmd.AddValue("rate", "link rate", rate);
    cmd.AddValue("repeat", "runs of each variant; the best wall time counts", repeat);
    cmd.AddValue("tsv", "print tab-separated result lines instead of the table", tsv);
    cmd.Parse(argc, argv);
    uint64_t size = 0;
    try
    {
        size = ParseByteSize(bytes);
        ParseDataRate(rate);
        if (ranks < 2 || repeat < 1)
        {
            throw std::invalid_argument("--ranks must be >= 2 and --repeat >= 1");
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    constexpr int kVariants = 3;
    Figure best[kVariants];
    for (uint32_t r = 0; r < repeat; ++r)
    {
        // Interleave the variants so machine noise hits all of them alike.
        Figure f[kVariants] = {RunStock(ranks, size, rate),
                               RunMlnet(ranks, size, rate, "ipv4"),
                               RunMlnet(ranks, size, rate, "fast")};
        for (int i = 0; i < kVariants; ++i)
        {
            if (r == 0 || f[i].wallS < best[i].wallS)
            {
                best[i] = f[i];
            }
        }
    }
    const char* names[kVariants] = {"stock ns-3 OnOff/UDP",
                                    "mlnet ipv4 path + ring",
                                    "mlnet fast path + ring"};
    if (tsv)
    {
        const char* keys[kVariants] = {"stock", "ipv4-path", "fast-path"};
        for (int i = 0; i < kVariants; ++i)
        {
            std::printf("result\t%s\t%s\t%llu\t%.6f\t%llu\t%.9f\n",
                        MLNET_NS3_KIND,
                        keys[i],
                        static_cast<unsigned long long>(best[i].packetHops),
                        best[i].wallS,
                        static_cast<unsigned long long>(best[i].events),
                        best[i].simS);
        }
        return 0;
    }
    std::printf("ns-3 3.37: %s (%s)\n", MLNET_NS3_KIND, MLNET_NS3_LOCATION);
    std::printf("ring traffic, %u ranks, %s per rank, %s, ideal switch, best of %u\n",
                ranks,
                bytes.c_str(),
                rate.c_str(),
                repeat);
    std::printf("%-28s %12s %10s %14s %14s %10s\n",
                "variant",
                "packet-hops",
                "wall_s",
                "hops/wall_s",
                "events/wall_s",
                "sim_s");
    for (int i = 0; i < kVariants; ++i)
    {
        std::printf("%-28s %12llu %10.3f %14.4g %14.4g %10.6f\n",
                    names[i],
                    static_cast<unsigned long long>(best[i].packetHops),
                    best[i].wallS,
                    best[i].packetHops / best[i].wallS,
                    best[i].events / best[i].wallS,
                    best[i].simS);
    }
    auto rateOf = [&](int i) { return best[i].packetHops / best[i].wallS; };
    std::printf("ratio ipv4-path/stock (packet-hops per wall second): %.2f\n",
                rateOf(1) / rateOf(0));
    std::printf("ratio fast-path/stock (packet-hops per wall second): %.2f\n",
                rateOf(2) / rateOf(0));
    return 0;
}
