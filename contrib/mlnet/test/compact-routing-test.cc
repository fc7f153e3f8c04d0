// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compact forwarding tables (RankTable in FastForwarding and FlowHashRouting,
 * interned next-hop sets in RoutePlanner) against the tables they replace:
 * RankTable returns what the dense table it was made from holds, in runs or dense
 * form; RoutePlanner's next hops equal an independent breadth-first search's on a
 * fat-tree (also with a failed link); every node's devices and interfaces, and the
 * device a flow hash picks, equal a reference table built the old way (one vector per
 * rank) on a fat-tree and a torus; a ToR's table does not grow with the rank count;
 * a disconnected fabric is refused naming the first unreachable pair.
 */
#include "route-oracle.h"

#include "ns3/core-module.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/ipv4.h"
#include "ns3/network-module.h"
#include "ns3/rank-table.h"
#include "ns3/route-planner.h"

#include <cstdio>
#include <deque>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <unistd.h>

using namespace ns3;
using mlnettest::ExpectNextHopsAsBreadthFirstSearch;
using mlnettest::NodeIdLimit;
using mlnettest::ReferenceNextLinks;

namespace
{

class CompactRoutingTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

FabricOptions
FatTree(uint32_t ranks, uint32_t radix, const std::string& dataPath)
{
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = ranks;
    f.tiers = 2;
    f.radix = radix;
    f.dataPath = dataPath;
    return f;
}

FabricOptions
Torus(const std::string& dims, const std::string& dataPath)
{
    FabricOptions f;
    f.fabric = "torus";
    f.torusDims = dims;
    f.dataPath = dataPath;
    return f;
}

/// Every node's FastForwarding against a table built the old way (one device vector per
/// rank, from the planner's next links): same devices, same order, same hashed choice.
/// \return how many (node, rank) entries hold a choice of several devices
uint64_t
ExpectFastTablesAsReference(Ptr<Cluster> c)
{
    RoutePlanner planner(c);
    planner.Compute();
    const auto& links = c->GetLinks();
    NodeContainer all = c->GetAllNodes();
    std::mt19937 gen(7);
    uint64_t multi = 0;
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        Ptr<Node> node = all.Get(n);
        Ptr<FastForwarding> ff = node->GetObject<FastForwarding>();
        EXPECT_TRUE(ff);
        if (!ff)
        {
            return multi;
        }
        for (uint32_t r = 0; r < c->GetNRanks(); ++r)
        {
            std::vector<Ptr<NetDevice>> reference;
            for (uint32_t id : planner.NextLinks(node->GetId(), r))
            {
                reference.push_back(links[id].nodeA == node->GetId()
                                        ? Ptr<NetDevice>(links[id].devA)
                                        : Ptr<NetDevice>(links[id].devB));
            }
            EXPECT_EQ(ff->GetDevices(r), reference) << "node " << node->GetId() << " rank " << r;
            multi += reference.size() > 1 ? 1 : 0;
            for (int k = 0; k < 4 && !reference.empty(); ++k)
            {
                FastFrameHeader h;
                h.dstRank = r;
                h.srcAddr = gen();
                h.dstAddr = gen();
                h.srcPort = static_cast<uint16_t>(gen());
                h.dstPort = static_cast<uint16_t>(gen());
                for (bool local : {false, true})
                {
                    // FlowHashRouting reads the ports as raw network-order words.
                    auto raw = [](uint16_t p) {
                        return static_cast<uint16_t>((p >> 8) | (p << 8));
                    };
                    UintegerValue seed;
                    ff->GetAttribute("Seed", seed);
                    uint32_t hash = FlowHashRouting::HashFlow(h.srcAddr,
                                                              h.dstAddr,
                                                              h.protocol,
                                                              local ? 0 : raw(h.srcPort),
                                                              local ? 0 : raw(h.dstPort),
                                                              static_cast<uint32_t>(seed.Get()));
                    EXPECT_EQ(ff->SelectDevice(h, local), reference[hash % reference.size()]);
                }
            }
        }
        EXPECT_TRUE(ff->GetDevices(c->GetNRanks()).empty()); // beyond the table: no route
    }
    return multi;
}

} // namespace

TEST_F(CompactRoutingTest, RankTableReturnsTheDenseTableInBothForms)
{
    std::vector<std::vector<uint32_t>> sets{{}, {3}, {1, 2, 4}, {2, 1}};
    // Blocky (a fat-tree's shape): stored as runs.
    std::vector<std::vector<uint32_t>> blocky;
    for (uint32_t r = 0; r < 400; ++r)
    {
        blocky.push_back(sets[r < 100 ? 2 : r < 101 ? 0 : r < 300 ? 1 : 3]);
    }
    RankTable<uint32_t> runs(blocky);
    EXPECT_EQ(runs.GetNRuns(), 4u);
    EXPECT_EQ(runs.GetNSets(), 4u);
    // Scattered (ranks placed at random): one 16-bit index per rank.
    std::mt19937 gen(3);
    std::vector<std::vector<uint32_t>> scattered;
    for (uint32_t r = 0; r < 400; ++r)
    {
        scattered.push_back(sets[gen() % sets.size()]);
    }
    RankTable<uint32_t> dense(scattered);
    EXPECT_EQ(dense.GetNRuns(), 0u);
    EXPECT_EQ(dense.GetMapBytes(), 400u * sizeof(uint16_t));
    for (uint32_t r = 0; r < 400; ++r)
    {
        EXPECT_EQ(runs.Get(r), blocky[r]) << r;
        EXPECT_EQ(dense.Get(r), scattered[r]) << r;
    }
    EXPECT_TRUE(runs.Get(400).empty());
    EXPECT_TRUE(dense.Get(UINT32_MAX).empty());
    EXPECT_TRUE(RankTable<uint32_t>().Get(0).empty());
    EXPECT_THROW(RankTable<uint32_t>(sets, {0, 4}), std::invalid_argument);
}

TEST_F(CompactRoutingTest, PlannerNextHopsEqualBreadthFirstSearch)
{
    Ptr<Cluster> c = FatTree(32, 8, "fast").Build();
    const uint32_t nv = NodeIdLimit(c);
    auto check = [&](const std::string& what) {
        ExpectNextHopsAsBreadthFirstSearch(c, what);
        RoutePlanner planner(c);
        planner.Compute();
        EXPECT_TRUE(planner.NextLinks(nv, 0).empty());
        EXPECT_TRUE(planner.NextLinks(0, c->GetNRanks()).empty());
        // Sets are shared: far fewer than (rank, node) pairs.
        EXPECT_LT(planner.GetNSets(), c->GetLinks().size() + 64) << what;
    };
    check("intact");
    c->FailLink(c->GetLinks().size() - 1); // a ToR-spine link
    check("one link failed");
}

// The planner takes a rank's distances from its switches' searches, kept for the ranks
// that follow (dist(v, r) = 1 + min over r's neighbours u of dist(v, u)). A graph whose
// ranks hang off two switches each, out of order and over more switches than are kept
// at once, with one rank wired to another rank (its own search), gives the tables of a
// search from every rank, intact and with failed links (a rank cut off entirely, a
// rank down to one switch, a switch-switch link).
TEST_F(CompactRoutingTest, SharedSwitchSearchesGiveTheNextHopsOfBreadthFirstSearch)
{
    const uint32_t ranks = 96;
    const uint32_t switches = 48;
    const std::string file =
        ::testing::TempDir() + "/compact-routing-shared-" + std::to_string(getpid()) + ".json";
    {
        std::ofstream out(file);
        out << R"({"ranks": )" << ranks << R"(, "switches": )" << switches << R"(, "links": [)";
        for (uint32_t sw = 0; sw < switches; ++sw) // a ring of switches with chords
        {
            out << (sw ? "," : "") << R"(["s)" << sw << R"(", "s)" << (sw + 1) % switches
                << R"("],["s)" << sw << R"(", "s)" << (sw + 7) % switches << R"("])";
        }
        for (uint32_t r = 0; r + 1 < ranks; ++r) // the last rank hangs off rank 0 only
        {
            out << R"(,["r)" << r << R"(", "s)" << (r * 5) % switches << R"("],["r)" << r
                << R"(", "s)" << (r * 11 + 3) % switches << R"("])";
        }
        out << R"(,["r0", "r)" << ranks - 1 << R"("]]})";
    }
    FabricOptions f;
    f.fabric = "graph";
    f.graphFile = file;
    Ptr<Cluster> c = f.Build();
    std::remove(file.c_str());
    ExpectNextHopsAsBreadthFirstSearch(c, "intact");
    auto node = [&](uint32_t rank) { return c->GetRankNode(rank)->GetId(); };
    // Rank 10 down to one switch; rank 20 cut off (nothing reaches it); a link between
    // two switches.
    for (uint32_t id : c->GetLinksOfNode(node(10)))
    {
        c->FailLink(id);
        break;
    }
    for (uint32_t id : c->GetLinksOfNode(node(20)))
    {
        c->FailLink(id);
    }
    const ClusterLink& ring = c->GetLinks().front(); // the document's first link, s0-s1
    ASSERT_EQ(c->GetRankOfNode(ring.nodeA), UINT32_MAX);
    ASSERT_EQ(c->GetRankOfNode(ring.nodeB), UINT32_MAX);
    c->FailLink(ring.id);
    ExpectNextHopsAsBreadthFirstSearch(c, "failed links");
}

TEST_F(CompactRoutingTest, PlannerStoresOneRowPlusExceptionsOnALeafSpine)
{
    // Radix 16, 128 ranks: 16 ToRs of 8 hosts, 8 spines, 152 nodes. The row towards
    // rank 0 represents every rank. Towards a rank under ToR 0 it differs at 3 nodes
    // (the two hosts, ToR 0's down-link); under another ToR at 12 (the two hosts, the
    // two ToRs, the 8 spines' down-links): 7 x 3 + 120 x 12 = 1461 exceptions of 8
    // bytes, where one row per rank would take 128 x 152 x 4 bytes.
    Ptr<Cluster> c = FatTree(128, 16, "fast").Build();
    const uint32_t nv = NodeIdLimit(c);
    ASSERT_EQ(nv, 152u);
    RoutePlanner planner(c);
    planner.Compute();
    for (uint32_t r = 0; r < c->GetNRanks(); ++r)
    {
        std::vector<std::vector<uint32_t>> reference = ReferenceNextLinks(c, r, nv);
        for (uint32_t v = 0; v < nv; ++v)
        {
            ASSERT_EQ(planner.NextLinks(v, r), reference[v]) << "node " << v << " rank " << r;
        }
    }
    EXPECT_EQ(planner.GetNRepresentatives(), 1u);
    const size_t rows = nv * 4;
    const size_t exceptions = (7 * 3 + 120 * 12) * 8;
    const size_t index = 128 * 4 + 129 * sizeof(size_t);
    EXPECT_EQ(planner.GetTableBytes(), rows + exceptions + index);
    EXPECT_LT(planner.GetTableBytes() * 4, size_t{128} * nv * 4);
}

TEST_F(CompactRoutingTest, PlannerRoutesByDimensionOrderWhereRowsShareLittle)
{
    // Dimension-order routes on a 4x4 torus: rows towards two ranks agree at few nodes,
    // so there are several representatives, and every route must still be exact: each
    // hop moves one coordinate by one (mod 4), dimension 0 before dimension 1, and a
    // route takes the torus distance (per dimension the shorter way, 2 when half-way).
    Ptr<Cluster> c = Torus("4x4", "fast").Build();
    RoutePlanner planner(c);
    planner.Compute();
    EXPECT_GT(planner.GetNRepresentatives(), 1u);
    EXPECT_LE(planner.GetNRepresentatives(), 16u);
    const auto& links = c->GetLinks();
    auto coords = [](uint32_t rank) { return std::make_pair(rank % 4, rank / 4); };
    auto ring = [](uint32_t a, uint32_t b) { return std::min((a + 4 - b) % 4, (b + 4 - a) % 4); };
    for (uint32_t src = 0; src < 16; ++src)
    {
        for (uint32_t dst = 0; dst < 16; ++dst)
        {
            auto [sx, sy] = coords(src);
            auto [tx, ty] = coords(dst);
            uint32_t rank = src;
            uint32_t hops = 0;
            bool inSecond = false;
            while (rank != dst)
            {
                const uint32_t node = c->GetRankNode(rank)->GetId();
                const auto& next = planner.NextLinks(node, dst);
                ASSERT_EQ(next.size(), 1u) << src << "->" << dst;
                const ClusterLink& l = links[next[0]];
                const uint32_t to = c->GetRankOfNode(l.Peer(node));
                auto [x, y] = coords(rank);
                auto [nx, ny] = coords(to);
                const bool moveX = ny == y && ring(nx, x) == 1;
                const bool moveY = nx == x && ring(ny, y) == 1;
                ASSERT_TRUE(moveX || moveY) << src << "->" << dst << " at " << rank;
                ASSERT_FALSE(moveX && inSecond) << src << "->" << dst << ": x after y";
                inSecond = inSecond || moveY;
                rank = to;
                ASSERT_LE(++hops, 4u) << src << "->" << dst;
            }
            EXPECT_EQ(hops, ring(sx, tx) + ring(sy, ty)) << src << "->" << dst;
            EXPECT_EQ(planner.Hops(src, dst), hops);
        }
    }
}

TEST_F(CompactRoutingTest, FastTablesEqualTheOldTablesOnFatTreeAndTorus)
{
    // The fat-tree has ECMP choices (ToR up-links) for the hash to pick among; the torus
    // routes by dimension order, one link per entry.
    EXPECT_GT(ExpectFastTablesAsReference(FatTree(32, 8, "fast").Build()), 0u);
    Simulator::Destroy();
    EXPECT_EQ(ExpectFastTablesAsReference(Torus("4x4", "fast").Build()), 0u);
}

TEST_F(CompactRoutingTest, Ipv4TablesEqualTheOldTables)
{
    Ptr<Cluster> c = FatTree(16, 8, "ipv4").Build();
    RoutePlanner planner(c);
    planner.Compute();
    NodeContainer all = c->GetAllNodes();
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        uint32_t id = all.Get(n)->GetId();
        auto routing =
            DynamicCast<FlowHashRouting>(all.Get(n)->GetObject<Ipv4>()->GetRoutingProtocol());
        ASSERT_TRUE(routing);
        for (uint32_t r = 0; r < c->GetNRanks(); ++r)
        {
            std::vector<uint32_t> reference;
            for (uint32_t link : planner.NextLinks(id, r))
            {
                const ClusterLink& l = c->GetLinks()[link];
                reference.push_back(l.nodeA == id ? l.ifA : l.ifB);
            }
            EXPECT_EQ(routing->GetInterfaces(r), reference) << "node " << id << " rank " << r;
        }
    }
}

TEST_F(CompactRoutingTest, TorTableDoesNotGrowWithTheRankCount)
{
    // Radix 16: a ToR has 8 hosts and 8 spine links. Its table: one set per host plus the
    // up-links, in 10 runs (ranks before its hosts, one per host, ranks after), stored as
    // runs once they are smaller than a 16-bit index per rank (8 bytes a run: 64+ ranks).
    // A host: its NIC, and nothing towards itself, in at most 3 runs.
    struct Shape
    {
        uint32_t sets, runs, hostSets, hostRuns;
        size_t bytes;
    };

    auto shape = [](uint32_t ranks) {
        Ptr<Cluster> c = FatTree(ranks, 16, "fast").Build();
        Shape s{0, 0, 0, 0, 0};
        NodeContainer all = c->GetAllNodes();
        for (uint32_t n = 0; n < all.GetN(); ++n)
        {
            const auto& table = all.Get(n)->GetObject<FastForwarding>()->GetTable();
            bool host = c->GetRankOfNode(all.Get(n)->GetId()) != UINT32_MAX;
            // The ToR of ranks 8..15: hosts below it are neither first nor last.
            if (!host && table.Get(8).size() == 1 && table.Get(15).size() == 1 &&
                table.Get(0).size() > 1)
            {
                s.sets = table.GetNSets();
                s.runs = table.GetNRuns();
                s.bytes = table.GetMapBytes();
            }
            if (host)
            {
                s.hostSets = std::max(s.hostSets, table.GetNSets());
                s.hostRuns = std::max(s.hostRuns, table.GetNRuns());
            }
        }
        Simulator::Destroy();
        return s;
    };
    Shape small = shape(64);
    Shape large = shape(128);
    EXPECT_EQ(small.sets, 8u + 1u); // 8 down-links, the up-link set
    EXPECT_EQ(small.runs, 1u + 8u + 1u);
    EXPECT_EQ(small.bytes, small.runs * 8u);
    EXPECT_EQ(large.sets, small.sets);
    EXPECT_EQ(large.runs, small.runs);
    EXPECT_EQ(large.bytes, small.bytes);
    EXPECT_EQ(small.hostSets, 2u);
    EXPECT_EQ(large.hostSets, 2u);
    EXPECT_LE(large.hostRuns, 3u);
}

namespace
{
/// Two switches that are not joined, `left` ranks on the first and the rest on the second.
class TwoIslandsHelper : public FabricHelper
{
public:
    TwoIslandsHelper(uint32_t ranks, uint32_t left, const std::string& dataPath)
        : m_ranks(ranks),
          m_left(left)
    {
        SetDataPath(dataPath);
    }

    Ptr<Cluster> Install() override
    {
        Ptr<Cluster> cluster = CreateObject<Cluster>();
        NodeContainer hosts = CreateNodes(m_ranks);
        NodeContainer sw = CreateNodes(2);
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            cluster->AddRankNode(hosts.Get(r));
            Spread(hosts.Get(r));
        }
        for (uint32_t s = 0; s < 2; ++s)
        {
            cluster->AddSwitchNode(sw.Get(s));
            Spread(sw.Get(s));
        }
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            Connect(cluster, hosts.Get(r), sw.Get(r < m_left ? 0 : 1), "host-tor");
        }
        FabricSpec spec;
        spec.kind = "islands";
        Finish(cluster, spec);
        return cluster;
    }

private:
    uint32_t m_ranks;
    uint32_t m_left;
};
} // namespace

TEST_F(CompactRoutingTest, DisconnectedFabricNamesTheFirstUnreachableRank)
{
    // The all-pairs walk this check replaced stopped at the first pair (a, b) in order:
    // a = 0 and b the lowest rank on the other island.
    for (const std::string path : {"fast", "ipv4"})
    {
        for (uint32_t left : {1u, 3u})
        {
            try
            {
                TwoIslandsHelper(5, left, path).Install();
                ADD_FAILURE() << "a disconnected fabric was accepted";
            }
            catch (const std::invalid_argument& e)
            {
                EXPECT_EQ(std::string(e.what()),
                          "rank " + std::to_string(left) +
                              " cannot be reached from rank 0; connect the fabric");
            }
            Simulator::Destroy();
        }
    }
    // Joined, the same nodes are accepted.
    EXPECT_NO_THROW(TwoIslandsHelper(5, 5, "fast").Install());
}
