// SPDX-License-Identifier: GPL-2.0-only
// Packet-hops per wall second of the same traffic on three stacks, in one run:
// (a) mlnet on its IPv4 data path (UdpMessageTransport), (b) the same on mlnet's fast
// data path (FabricHelper::SetDataPath("fast")), (c) plain ns-3 (PointToPointHelper
// links, InternetStackHelper with global routing, OnOffApplication/PacketSink at line
// rate). Two scenarios:
//   ring         one ideal switch (a star); mlnet runs RingAllReduce of S bytes per rank,
//                stock ns-3 streams what it sends, 2(N-1)/N*S bytes, to the ring successor;
//   permutation  a 2-tier fat-tree (FatTreeHelper, smallest radix); every rank i sends S
//                bytes to rank (i + N/2) mod N at once (stock ns-3: the same links, built
//                from the fat-tree's link list, one OnOff flow per rank).
//
//   bench/ring-bench [--scenario=ring|permutation] [--ranks=8] [--bytes=64MiB]
//                    [--rate=100Gbps] [--repeat=3] [--variants=stock,ipv4-path,fast-path]
//                    [--tsv] [--SchedulerType=ns3::MapScheduler]
//
// --tsv prints one tab-separated line per variant instead of the table (utils/bench.sh
// collects them from the builds against Debian's ns-3 and the optimized one):
//   result <ns-3 kind> <variant> <packet-hops> <wall_s> <events> <sim_s> <cpu_s>
// cpu_s is the process CPU time of the same run: on a loaded machine the wall time
// stretches, the CPU time much less.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/traffic-control-module.h"
#include "ns3/udp-message-transport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <queue>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

struct Figure
{
    double wallS{0};
    uint64_t packetHops{0};
    uint64_t events{0};
    double simS{0};
    double cpuS{0}; //!< CPU seconds of this process (what machine load does not stretch)
};

/// The links of a fabric as pairs of node indexes, and which nodes are the ranks.
struct Topology
{
    uint32_t nodes{0};
    std::vector<std::pair<uint32_t, uint32_t>> links;
    std::vector<uint32_t> rankNode; //!< node index of each rank
};

double
WallSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double
CpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

Ptr<Cluster>
BuildFabric(const std::string& scenario,
            uint32_t ranks,
            const std::string& rate,
            const std::string& dataPath)
{
    if (scenario == "ring")
    {
        IdealSwitchHelper star(ranks);
        star.SetLinkRate(ParseDataRate(rate));
        star.SetDataPath(dataPath);
        return star.Install();
    }
    FatTreeHelper tree(ranks);
    tree.SetTiers(2);
    tree.SetLinkRate(ParseDataRate(rate));
    tree.SetDataPath(dataPath);
    return tree.Install();
}

/// Rank i's peer in the permutation scenario.
uint32_t
Peer(uint32_t i, uint32_t ranks)
{
    return (i + ranks / 2) % ranks;
}

Figure
RunMlnet(const std::string& scenario,
         uint32_t ranks,
         uint64_t bytes,
         const std::string& rate,
         const std::string& dataPath)
{
    auto t0 = std::chrono::steady_clock::now();
    double c0 = CpuSeconds();
    Ptr<Cluster> cluster = BuildFabric(scenario, ranks, rate, dataPath);
    Ptr<UdpMessageTransport> transport = CreateObject<UdpMessageTransport>();
    transport->Install(cluster);
    Ptr<RingAllReduce> ar;
    Time last;
    if (scenario == "ring")
    {
        ar = CreateObject<RingAllReduce>();
        std::vector<uint32_t> members(ranks);
        for (uint32_t i = 0; i < ranks; ++i)
        {
            members[i] = i;
        }
        ar->Setup(transport, members, bytes);
        ar->Start();
    }
    else
    {
        uint32_t channel = transport->RegisterChannel(
            MakeCallback(+[](Time* t, const Message&) { *t = Simulator::Now(); }).Bind(&last),
            "permutation");
        for (uint32_t i = 0; i < ranks; ++i)
        {
            transport->Send(i, Peer(i, ranks), channel, 0, bytes);
        }
    }
    Simulator::Run();
    Figure f;
    for (const auto& l : cluster->GetLinks())
    {
        f.packetHops += l.packetsAtoB + l.packetsBtoA;
    }
    f.events = Simulator::GetEventCount();
    f.simS = ar ? ar->GetDuration().GetSeconds() : last.GetSeconds();
    Simulator::Destroy();
    f.wallS = WallSince(t0);
    f.cpuS = CpuSeconds() - c0;
    return f;
}

/// The fat-tree's links, read from an mlnet build of it (outside the timed run).
Topology
FatTreeTopology(uint32_t ranks, const std::string& rate)
{
    Ptr<Cluster> cluster = BuildFabric("permutation", ranks, rate, "fast");
    Topology t;
    std::map<uint32_t, uint32_t> index; // ns-3 node id -> dense index
    auto indexOf = [&](uint32_t id) {
        auto it = index.emplace(id, static_cast<uint32_t>(index.size())).first;
        return it->second;
    };
    for (uint32_t r = 0; r < ranks; ++r)
    {
        t.rankNode.push_back(indexOf(cluster->GetRankNode(r)->GetId()));
    }
    for (const auto& l : cluster->GetLinks())
    {
        t.links.emplace_back(indexOf(l.nodeA), indexOf(l.nodeB));
    }
    t.nodes = static_cast<uint32_t>(index.size());
    Simulator::Destroy();
    return t;
}

/// Links on a shortest path between two nodes (what global routing takes).
uint32_t
Hops(const Topology& t, uint32_t from, uint32_t to)
{
    std::vector<std::vector<uint32_t>> adjacent(t.nodes);
    for (const auto& [a, b] : t.links)
    {
        adjacent[a].push_back(b);
        adjacent[b].push_back(a);
    }
    std::vector<uint32_t> dist(t.nodes, UINT32_MAX);
    std::queue<uint32_t> open;
    dist[from] = 0;
    open.push(from);
    while (!open.empty())
    {
        uint32_t n = open.front();
        open.pop();
        for (uint32_t m : adjacent[n])
        {
            if (dist[m] == UINT32_MAX)
            {
                dist[m] = dist[n] + 1;
                open.push(m);
            }
        }
    }
    return dist[to];
}

/**
 * Plain ns-3 on `t`: each rank streams `perRank` bytes to `dst[rank]` at line rate in
 * 8972-byte UDP datagrams. Packet-hops: datagrams received times their path's links.
 */
Figure
RunStock(const Topology& t,
         const std::vector<uint32_t>& dst,
         uint64_t perRank,
         const std::string& rate)
{
    auto t0 = std::chrono::steady_clock::now();
    double c0 = CpuSeconds();
    NodeContainer nodes;
    nodes.Create(t.nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    Ipv4AddressHelper address("10.0.0.0", "255.255.255.252");
    std::map<uint32_t, Ipv4Address> firstAddress;
    for (const auto& [a, b] : t.links)
    {
        Ipv4InterfaceContainer ifs = address.Assign(p2p.Install(nodes.Get(a), nodes.Get(b)));
        firstAddress.emplace(a, ifs.GetAddress(0));
        firstAddress.emplace(b, ifs.GetAddress(1));
        address.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    uint32_t ranks = static_cast<uint32_t>(t.rankNode.size());
    ApplicationContainer sinks;
    for (uint32_t i = 0; i < ranks; ++i)
    {
        Ptr<Node> host = nodes.Get(t.rankNode[i]);
        PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        sinks.Add(sink.Install(host));
        OnOffHelper onoff("ns3::UdpSocketFactory",
                          InetSocketAddress(firstAddress.at(t.rankNode[dst[i]]), 9));
        onoff.SetConstantRate(DataRate(rate), 8972);
        onoff.SetAttribute("MaxBytes", UintegerValue(perRank));
        onoff.Install(host);
    }
    Time lastRx;
    for (uint32_t i = 0; i < ranks; ++i)
    {
        sinks.Get(i)->TraceConnectWithoutContext(
            "Rx",
            MakeCallback(+[](Time* last, Ptr<const Packet>, const Address&) {
                *last = Simulator::Now();
            }).Bind(&lastRx));
    }
    Simulator::Run();
    Figure f;
    for (uint32_t i = 0; i < ranks; ++i)
    {
        // Sink j receives from the rank that sends to j.
        uint32_t from = static_cast<uint32_t>(std::find(dst.begin(), dst.end(), i) - dst.begin());
        uint64_t datagrams = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx() / 8972;
        f.packetHops += datagrams * Hops(t, t.rankNode[from], t.rankNode[i]);
    }
    f.events = Simulator::GetEventCount();
    f.simS = lastRx.GetSeconds();
    Simulator::Destroy();
    f.wallS = WallSince(t0);
    f.cpuS = CpuSeconds() - c0;
    return f;
}

Figure
RunStock(const std::string& scenario, uint32_t ranks, uint64_t bytes, const std::string& rate)
{
    Topology t;
    std::vector<uint32_t> dst(ranks);
    uint64_t perRank = bytes;
    if (scenario == "ring")
    {
        // A star: node `ranks` is the switch.
        t.nodes = ranks + 1;
        for (uint32_t i = 0; i < ranks; ++i)
        {
            t.links.emplace_back(i, ranks);
            t.rankNode.push_back(i);
            dst[i] = (i + 1) % ranks;
        }
        // What ring all-reduce sends per rank: 2(N-1)/N * S.
        perRank = 2 * (ranks - 1) * (bytes / ranks);
    }
    else
    {
        t = FatTreeTopology(ranks, rate);
        for (uint32_t i = 0; i < ranks; ++i)
        {
            dst[i] = Peer(i, ranks);
        }
    }
    return RunStock(t, dst, perRank, rate);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string scenario = "ring";
    uint32_t ranks = 8;
    std::string bytes = "64MiB";
    std::string rate = "100Gbps";
    std::string variants = "stock,ipv4-path,fast-path";
    uint32_t repeat = 3;
    bool tsv = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("scenario", "ring (ideal switch) or permutation (2-tier fat-tree)", scenario);
    cmd.AddValue("ranks", "ranks", ranks);
    cmd.AddValue("bytes",
                 "all-reduce size per rank (ring) or message per rank (permutation)",
                 bytes);
    cmd.AddValue("rate", "link rate", rate);
    cmd.AddValue("variants", "comma-separated: stock, ipv4-path, fast-path", variants);
    cmd.AddValue("repeat", "runs of each variant; the best wall time counts", repeat);
    cmd.AddValue("tsv", "print tab-separated result lines instead of the table", tsv);
    cmd.Parse(argc, argv);
    const std::vector<std::string> keys = {"stock", "ipv4-path", "fast-path"};
    const std::vector<std::string> names = {"stock ns-3 OnOff/UDP",
                                            "mlnet ipv4 path",
                                            "mlnet fast path"};
    std::vector<bool> on(keys.size(), false);
    uint64_t size = 0;
    try
    {
        size = ParseByteSize(bytes);
        ParseDataRate(rate);
        if (ranks < 2 || repeat < 1)
        {
            throw std::invalid_argument("--ranks must be >= 2 and --repeat >= 1");
        }
        if (scenario != "ring" && scenario != "permutation")
        {
            throw std::invalid_argument("--scenario=" + scenario + ": use ring or permutation");
        }
        std::stringstream list(variants);
        for (std::string v; std::getline(list, v, ',');)
        {
            auto it = std::find(keys.begin(), keys.end(), v);
            if (it == keys.end())
            {
                throw std::invalid_argument("--variants: unknown variant '" + v +
                                            "'; use stock, ipv4-path, fast-path");
            }
            on[it - keys.begin()] = true;
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    const size_t kVariants = keys.size();
    std::vector<Figure> best(kVariants);
    for (uint32_t r = 0; r < repeat; ++r)
    {
        // Interleave the variants so machine noise hits all of them alike.
        for (size_t i = 0; i < kVariants; ++i)
        {
            if (!on[i])
            {
                continue;
            }
            Figure f = i == 0 ? RunStock(scenario, ranks, size, rate)
                              : RunMlnet(scenario, ranks, size, rate, i == 1 ? "ipv4" : "fast");
            if (r == 0 || f.wallS < best[i].wallS)
            {
                best[i] = f;
            }
        }
    }
    if (tsv)
    {
        for (size_t i = 0; i < kVariants; ++i)
        {
            if (!on[i])
            {
                continue;
            }
            std::printf("result\t%s\t%s\t%llu\t%.6f\t%llu\t%.9f\t%.6f\n",
                        MLNET_NS3_KIND,
                        keys[i].c_str(),
                        static_cast<unsigned long long>(best[i].packetHops),
                        best[i].wallS,
                        static_cast<unsigned long long>(best[i].events),
                        best[i].simS,
                        best[i].cpuS);
        }
        return 0;
    }
    std::printf("ns-3 3.37: %s (%s)\n", MLNET_NS3_KIND, MLNET_NS3_LOCATION);
    std::printf("%s traffic, %u ranks, %s per rank, %s, %s, best of %u\n",
                scenario.c_str(),
                ranks,
                bytes.c_str(),
                rate.c_str(),
                scenario == "ring" ? "ideal switch" : "2-tier fat-tree",
                repeat);
    std::printf("%-28s %12s %10s %8s %14s %14s %10s\n",
                "variant",
                "packet-hops",
                "wall_s",
                "cpu_s",
                "hops/wall_s",
                "events/wall_s",
                "sim_s");
    for (size_t i = 0; i < kVariants; ++i)
    {
        if (!on[i])
        {
            continue;
        }
        std::printf("%-28s %12llu %10.3f %8.3f %14.4g %14.4g %10.6f\n",
                    names[i].c_str(),
                    static_cast<unsigned long long>(best[i].packetHops),
                    best[i].wallS,
                    best[i].cpuS,
                    best[i].packetHops / best[i].wallS,
                    best[i].events / best[i].wallS,
                    best[i].simS);
    }
    auto rateOf = [&](size_t i) { return best[i].packetHops / best[i].wallS; };
    for (size_t i = 1; on[0] && i < kVariants; ++i)
    {
        if (on[i])
        {
            std::printf("ratio %s/stock (packet-hops per wall second): %.2f\n",
                        keys[i].c_str(),
                        rateOf(i) / rateOf(0));
        }
    }
    return 0;
}
