// SPDX-License-Identifier: GPL-2.0-only
#include "route-planner.h"

#include "ns3/fast-forwarding.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/route-preference.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <deque>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRoutePlanner");

namespace
{
constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();
const std::vector<uint32_t> kNoLinks;

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

/// How many switches' distance vectors the route computation keeps at once.
constexpr size_t kSharedSearches = 32;

/**
 * The hop distances from the switches most recently asked for, least recently used
 * evicted first: the ranks under one leaf (or HB switch) reuse one search.
 */
class SwitchDistances
{
public:
    explicit SwitchDistances(size_t capacity)
        : m_capacity(capacity)
    {
    }

    /// The distances from `node`, searched with `search(node, out)` unless kept.
    template <typename Search>
    const std::vector<uint32_t>& Get(uint32_t node, Search&& search)
    {
        auto it = std::find_if(m_kept.begin(), m_kept.end(), [node](const auto& e) {
            return e.first == node;
        });
        if (it == m_kept.end())
        {
            if (m_kept.size() < m_capacity)
            {
                m_kept.emplace_back();
            }
            it = std::prev(m_kept.end()); // the least recently used, reused
            it->first = node;
            search(node, it->second);
            ++m_searches;
        }
        m_kept.splice(m_kept.begin(), m_kept, it);
        return m_kept.front().second;
    }

    /// \return how many searches Get has run
    uint64_t GetSearches() const
    {
        return m_searches;
    }

private:
    size_t m_capacity;
    uint64_t m_searches{0};
    std::list<std::pair<uint32_t, std::vector<uint32_t>>> m_kept; //!< most recent first
};

/// Coordinates of a rank on a torus/mesh, dimension 0 fastest.
std::vector<uint32_t>
Coords(uint32_t rank, const std::vector<uint32_t>& dims)
{
    std::vector<uint32_t> c(dims.size());
    for (size_t d = 0; d < dims.size(); ++d)
    {
        c[d] = rank % dims[d];
        rank /= dims[d];
    }
    return c;
}

uint32_t
RankOf(const std::vector<uint32_t>& c, const std::vector<uint32_t>& dims)
{
    uint32_t r = 0;
    for (size_t d = dims.size(); d-- > 0;)
    {
        r = r * dims[d] + c[d];
    }
    return r;
}

/**
 * The function that makes one node's forwarding table from the planner's tables: its
 * sets in first-use order by rank, each link as the node's next hop (interface or
 * device). It holds the tables and the node's own links only, not the cluster.
 */
template <typename T>
std::function<RankTable<T>()>
NodeTableMaker(std::shared_ptr<const RouteTables> tables,
               uint32_t nodeId,
               std::vector<std::pair<uint32_t, T>> hopOfLink)
{
    return [tables = std::move(tables), nodeId, hopOfLink = std::move(hopOfLink)]() {
        std::unordered_map<uint32_t, uint32_t> localOf; // planner set -> the node's own
        std::vector<std::vector<T>> sets;
        std::vector<uint32_t> setOfRank(tables->nRanks);
        for (uint32_t r = 0; r < tables->nRanks; ++r)
        {
            const uint32_t set = tables->SetIndex(nodeId, r);
            auto [it, inserted] = localOf.emplace(set, static_cast<uint32_t>(sets.size()));
            if (inserted)
            {
                sets.emplace_back();
                for (uint32_t link : tables->sets[set])
                {
                    auto hop = std::find_if(hopOfLink.begin(),
                                            hopOfLink.end(),
                                            [link](const auto& h) { return h.first == link; });
                    NS_ASSERT_MSG(hop != hopOfLink.end(),
                                  "link " << link << " does not leave node " << nodeId);
                    sets.back().push_back(hop->second);
                }
            }
            setOfRank[r] = it->second;
        }
        return RankTable<T>(std::move(sets), setOfRank);
    };
}
} // namespace

std::shared_ptr<const RoutePlanner>
RoutePlanner::Shared(Ptr<Cluster> cluster)
{
    auto planner = std::make_shared<RoutePlanner>(cluster);
    planner->Refresh();
    return planner;
}

void
RoutePlanner::Refresh()
{
    std::shared_ptr<const RouteTables> kept = m_cluster->GetRouteTables();
    if (kept)
    {
        m_tables = std::move(kept);
        return;
    }
    Compute();
}

RoutePlanner::RoutePlanner(Ptr<Cluster> cluster)
    : m_cluster(cluster),
      m_tables(std::make_shared<const RouteTables>())
{
    NS_ASSERT(cluster);
}

void
RoutePlanner::Compute()
{
    m_work = std::make_shared<RouteTables>();
    RouteTables& w = *m_work;
    const auto& links = m_cluster->GetLinks();
    w.maxNodeId = 0;
    NodeContainer all = m_cluster->GetAllNodes();
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        w.maxNodeId = std::max(w.maxNodeId, all.Get(i)->GetId());
    }
    uint32_t nv = w.maxNodeId + 1;
    Graph g(nv);
    for (const auto& l : links)
    {
        if (!l.failed)
        {
            boost::add_edge(l.nodeA, l.nodeB, g);
        }
    }

    uint32_t nRanks = m_cluster->GetNRanks();
    w.nRanks = nRanks;
    w.nv = nv;
    w.sets.assign(1, std::vector<uint32_t>()); // index 0: the empty set
    m_index.clear();
    m_singleton.assign(links.size(), 0);
    w.rows.clear();
    m_recent.clear();
    w.exceptions.clear();
    w.rowOf.assign(nRanks, 0);
    w.rankNodes.resize(nRanks);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        w.rankNodes[r] = m_cluster->GetRankNode(r)->GetId();
    }
    w.firstException.assign(static_cast<size_t>(nRanks) + 1, 0);
    const FabricSpec& spec = m_cluster->GetFabricSpec();
    const bool dimensionOrder = spec.routing == "dor";
    m_linkBetween.clear();
    for (const auto& l : links)
    {
        if (dimensionOrder)
        {
            m_linkBetween[(uint64_t{l.nodeA} << 32) | l.nodeB] = l.id;
            m_linkBetween[(uint64_t{l.nodeB} << 32) | l.nodeA] = l.id;
        }
    }
    // Each node's working links in registry order, as (link, other end): a node's
    // next hops towards a destination are those whose other end is one hop nearer.
    std::vector<uint32_t> adjStart(static_cast<size_t>(nv) + 1, 0);
    for (const auto& l : links)
    {
        if (!l.failed)
        {
            ++adjStart[l.nodeA + 1];
            ++adjStart[l.nodeB + 1];
        }
    }
    for (uint32_t v = 0; v < nv; ++v)
    {
        adjStart[v + 1] += adjStart[v];
    }
    std::vector<std::pair<uint32_t, uint32_t>> adj(adjStart[nv]);
    {
        std::vector<uint32_t> fill(adjStart.begin(), adjStart.end() - 1);
        for (const auto& l : links)
        {
            if (!l.failed)
            {
                adj[fill[l.nodeA]++] = {l.id, l.nodeB};
                adj[fill[l.nodeB]++] = {l.id, l.nodeA};
            }
        }
    }
    // One destination at a time: its distances, next hops and row are scratch, reused.
    // `raw` is the row before route preferences and dimension order, kept from one
    // destination to the next: a node's set changes only where its own distance or a
    // neighbour's did, and consecutive destinations (ranks under one switch or HB
    // domain) move the distances of few nodes.
    std::vector<uint32_t> row(nv);
    std::vector<uint32_t> raw(nv, 0);
    std::vector<uint32_t> before(nv, kUnreachable);
    std::vector<uint8_t> dirty(nv, 1);
    std::vector<uint32_t> hops;
    // Per node, the last two sets it had (a GPU of a rail-only fabric alternates between
    // two: towards its own rail and towards the others).
    std::vector<uint32_t> lastSet(nv, 0);
    std::vector<uint32_t> lastSet2(nv, 0);
    std::vector<uint32_t> d(nv);
    std::vector<uint32_t> dist(nv);
    std::vector<boost::default_color_type> color(nv);
    PreferMemo memo{std::vector<uint32_t>(nv, 0),
                    std::vector<uint64_t>(nv, 0),
                    std::vector<uint32_t>(nv, 0),
                    std::vector<uint8_t>(nv, 0),
                    std::vector<uint32_t>(nv, UINT32_MAX),
                    std::vector<uint8_t>(nv, 0),
                    {},
                    UINT32_MAX};
    // Hop distances from one node into `out` (kUnreachable where no path).
    auto distancesFrom = [&](uint32_t source, std::vector<uint32_t>& out) {
        std::fill(dist.begin(), dist.end(), 0);
        boost::breadth_first_search(
            g,
            boost::vertex(source, g),
            boost::visitor(boost::make_bfs_visitor(
                               boost::record_distances(dist.data(), boost::on_tree_edge())))
                .color_map(color.data()));
        out.resize(nv);
        for (uint32_t v = 0; v < nv; ++v)
        {
            // BFS leaves unreached vertices white.
            out[v] = (v == source || color[v] != boost::white_color) ? dist[v] : kUnreachable;
        }
    };
    // A rank whose neighbours are all switches shares their searches with the other ranks
    // below them: dist(v, dst) = 1 + min over neighbours u of dist(v, u), for v != dst,
    // because a shortest path to dst enters it from a neighbour. The switches' distances
    // are kept for the ranks that follow (ranks under one leaf or HB domain are mostly
    // consecutive); a rank with a rank neighbour (direct-connect fabrics) runs its own.
    // Sharing is used while it has cost no more searches than ranks so far, so a fabric
    // whose consecutive ranks share no switch costs about one search per rank, as a
    // search from every rank would.
    SwitchDistances shared(kSharedSearches);
    std::vector<uint32_t> neighbours;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        uint32_t dstNode = m_cluster->GetRankNode(r)->GetId();
        neighbours.clear();
        bool viaSwitches = true;
        for (auto [a, end] = boost::adjacent_vertices(dstNode, g); a != end; ++a)
        {
            const auto u = static_cast<uint32_t>(*a);
            viaSwitches = viaSwitches && m_cluster->GetRankOfNode(u) == UINT32_MAX; // a switch
            neighbours.push_back(u);
        }
        if (viaSwitches && !neighbours.empty() && shared.GetSearches() <= r)
        {
            std::fill(d.begin(), d.end(), kUnreachable);
            for (uint32_t u : neighbours)
            {
                const std::vector<uint32_t>& du = shared.Get(u, distancesFrom);
                // Branch-free, so that it vectorizes: kUnreachable + 1 wraps to 0.
                for (uint32_t v = 0; v < nv; ++v)
                {
                    const uint32_t via = du[v] + 1;
                    d[v] = via != 0 && via < d[v] ? via : d[v];
                }
            }
            d[dstNode] = 0;
        }
        else
        {
            distancesFrom(dstNode, d);
        }
        // The nodes whose set may have changed: those whose distance moved, and their
        // neighbours (every node for the first destination).
        if (r > 0)
        {
            for (uint32_t v = 0; v < nv; ++v)
            {
                if (d[v] != before[v])
                {
                    dirty[v] = 1;
                    for (uint32_t k = adjStart[v]; k < adjStart[v + 1]; ++k)
                    {
                        dirty[adj[k].second] = 1;
                    }
                }
            }
        }
        // Most sets are one link: compared inline, not through memcmp (callgrind, the
        // 1024-GPU rail-optimized GPT run: Compute 352 -> 333 million instructions).
        auto same = [](const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
            return a.size() == b.size() && (a.size() == 1 ? a[0] == b[0] : a == b);
        };
        for (uint32_t v = 0; v < nv; ++v)
        {
            if (!dirty[v])
            {
                continue;
            }
            dirty[v] = 0;
            hops.clear();
            if (d[v] != kUnreachable)
            {
                for (uint32_t k = adjStart[v]; k < adjStart[v + 1]; ++k)
                {
                    const uint32_t o = adj[k].second;
                    if (d[o] != kUnreachable && d[o] + 1 == d[v])
                    {
                        hops.push_back(adj[k].first);
                    }
                }
            }
            // A node mostly repeats one of the two sets it had last.
            if (hops.empty())
            {
                raw[v] = 0;
            }
            else if (same(hops, w.sets[lastSet[v]]))
            {
                raw[v] = lastSet[v];
            }
            else if (same(hops, w.sets[lastSet2[v]]))
            {
                std::swap(lastSet[v], lastSet2[v]);
                raw[v] = lastSet[v];
            }
            else
            {
                lastSet2[v] = lastSet[v];
                raw[v] = lastSet[v] = Intern(hops);
            }
        }
        before.swap(d);
        row = raw;
        if (dimensionOrder)
        {
            DimensionOrderRow(r, row);
        }
        PreferRow(r, row, memo);
        StoreRow(r, row);
    }
    w.exceptions.shrink_to_fit();
    m_index.clear();
    m_singleton.clear();
    m_singleton.shrink_to_fit();
    m_picked.clear();
    m_picked.shrink_to_fit();
    m_recent.clear();
    m_linkBetween.clear();
    ReadSeeds();
    m_tables = std::move(m_work);
    m_cluster->SetRouteTables(m_tables);
}

void
RoutePlanner::StoreRow(uint32_t dstRank, const std::vector<uint32_t>& row)
{
    RouteTables& w = *m_work;
    constexpr uint32_t kSamples = 64;
    constexpr size_t kCandidates = 32;
    const uint32_t stride = std::max<uint32_t>(1, w.nv / kSamples);
    // The representative that differs least on the sampled nodes (the most recently
    // used one on ties).
    size_t best = m_recent.size();
    uint32_t bestMisses = kUnreachable;
    for (size_t i = 0; i < m_recent.size() && bestMisses > 0; ++i)
    {
        const std::vector<uint32_t>& rep = w.rows[m_recent[i]];
        uint32_t misses = 0;
        for (uint32_t v = 0; v < w.nv && misses < bestMisses; v += stride)
        {
            misses += rep[v] != row[v] ? 1 : 0;
        }
        if (misses < bestMisses)
        {
            best = i;
            bestMisses = misses;
        }
    }
    // Its exceptions, unless they exceed a quarter of the row.
    const size_t first = w.exceptions.size();
    const size_t limit = w.nv / 4;
    bool fits = best < m_recent.size();
    for (uint32_t v = 0; fits && v < w.nv; ++v)
    {
        if (w.rows[m_recent[best]][v] != row[v])
        {
            fits = w.exceptions.size() - first < limit;
            w.exceptions.push_back({v, row[v]});
        }
    }
    uint32_t chosen;
    if (fits)
    {
        chosen = m_recent[best];
        m_recent.erase(m_recent.begin() + static_cast<std::ptrdiff_t>(best));
    }
    else
    {
        w.exceptions.resize(first);
        chosen = static_cast<uint32_t>(w.rows.size());
        w.rows.push_back(row);
        if (m_recent.size() == kCandidates)
        {
            m_recent.pop_back();
        }
    }
    m_recent.insert(m_recent.begin(), chosen);
    w.rowOf[dstRank] = chosen;
    w.firstException[static_cast<size_t>(dstRank) + 1] = w.exceptions.size();
}

size_t
RoutePlanner::GetTableBytes() const
{
    const RouteTables& t = *m_tables;
    return t.rows.size() * t.nv * sizeof(uint32_t) +
           t.exceptions.size() * sizeof(RouteTables::Exception) +
           t.rowOf.size() * sizeof(uint32_t) + t.firstException.size() * sizeof(size_t);
}

uint32_t
RoutePlanner::GetNRepresentatives() const
{
    const RouteTables& t = *m_tables;
    return static_cast<uint32_t>(t.rows.size());
}

void
RoutePlanner::ReadSeeds()
{
    RouteTables& w = *m_work;
    w.seeds.assign(w.nv, 0);
    for (uint32_t v = 0; v < w.nv; ++v)
    {
        w.seeds[v] = FlowHashRouting::DefaultSeed(v);
    }
    NodeContainer all = m_cluster->GetAllNodes();
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        Ptr<Node> node = all.Get(i);
        UintegerValue seed;
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        Ptr<FlowHashRouting> routing =
            ipv4 ? DynamicCast<FlowHashRouting>(ipv4->GetRoutingProtocol()) : nullptr;
        Ptr<FastForwarding> fast = node->GetObject<FastForwarding>();
        if (routing)
        {
            routing->GetAttribute("Seed", seed);
            w.seeds[node->GetId()] = static_cast<uint32_t>(seed.Get());
        }
        else if (fast)
        {
            fast->GetAttribute("Seed", seed);
            w.seeds[node->GetId()] = static_cast<uint32_t>(seed.Get());
        }
    }
}

uint32_t
RoutePlanner::NodeSeed(uint32_t nodeId) const
{
    const RouteTables& t = *m_tables;
    return nodeId < t.seeds.size() ? t.seeds[nodeId] : FlowHashRouting::DefaultSeed(nodeId);
}

uint32_t
RoutePlanner::Intern(const std::vector<uint32_t>& links)
{
    RouteTables& w = *m_work;
    if (links.empty())
    {
        return 0;
    }
    // Most sets are one link (a host's NIC, a down-link): no hashing for them.
    if (links.size() == 1 && links[0] < m_singleton.size() && m_singleton[links[0]] != 0)
    {
        return m_singleton[links[0]];
    }
    std::string key(reinterpret_cast<const char*>(links.data()), links.size() * sizeof(uint32_t));
    auto [it, inserted] = m_index.emplace(std::move(key), static_cast<uint32_t>(w.sets.size()));
    if (inserted)
    {
        w.sets.push_back(links);
        if (links.size() == 1 && links[0] < m_singleton.size())
        {
            m_singleton[links[0]] = it->second;
        }
    }
    return it->second;
}

uint32_t
RoutePlanner::GetNSets() const
{
    const RouteTables& t = *m_tables;
    return static_cast<uint32_t>(t.sets.size());
}

uint32_t
RouteTables::SetIndex(uint32_t nodeId, uint32_t dstRank) const
{
    if (dstRank >= nRanks || nodeId >= nv)
    {
        return 0;
    }
    const auto first = exceptions.begin() + static_cast<std::ptrdiff_t>(firstException[dstRank]);
    const auto last = exceptions.begin() + static_cast<std::ptrdiff_t>(firstException[dstRank + 1]);
    const auto it = std::lower_bound(first, last, nodeId, [](const Exception& e, uint32_t node) {
        return e.node < node;
    });
    return (it != last && it->node == nodeId) ? it->set : rows[rowOf[dstRank]][nodeId];
}

uint32_t
RoutePlanner::SetIndex(uint32_t nodeId, uint32_t dstRank) const
{
    return m_tables->SetIndex(nodeId, dstRank);
}

void
RoutePlanner::PreferRow(uint32_t dstRank, std::vector<uint32_t>& row, PreferMemo& memo)
{
    RouteTables& w = *m_work;
    Ptr<RoutePreference> preference = m_cluster->GetRoutePreference();
    if (!preference)
    {
        return;
    }
    const Cluster& cluster = *m_cluster;
    // Where every node's Context repeats the previous destination's but at a few, a
    // node whose candidates and context are those of its last answer takes it without
    // asking Context (its context known at the previous destination: memo.at).
    const uint32_t previous = memo.previous;
    memo.previous = dstRank;
    const bool repeat = previous != UINT32_MAX &&
                        preference->ContextsRepeat(cluster, previous, dstRank, memo.exceptNodes);
    if (repeat)
    {
        for (uint32_t v : memo.exceptNodes)
        {
            if (v < w.nv)
            {
                memo.except[v] = 1;
            }
        }
    }
    for (uint32_t v = 0; v < w.nv; ++v)
    {
        uint32_t& index = row[v];
        if (w.sets[index].size() < 2)
        {
            continue;
        }
        if (memo.in[v] == index && memo.fixed[v])
        {
            index = memo.out[v];
            continue;
        }
        if (repeat && memo.in[v] == index && memo.at[v] == previous && !memo.except[v])
        {
            memo.at[v] = dstRank;
            index = memo.out[v];
            continue;
        }
        const uint64_t context = preference->Context(cluster, v, dstRank);
        memo.at[v] = dstRank;
        if (memo.in[v] == index && memo.context[v] == context)
        {
            index = memo.out[v];
            continue;
        }
        memo.in[v] = index;
        memo.context[v] = context;
        const std::vector<uint32_t>& next = w.sets[index];
        memo.fixed[v] = preference->IgnoresDestination(cluster, v, next) ? 1 : 0;
        const std::vector<uint32_t> pick = preference->Select(cluster, v, dstRank, next);
        // The candidates in the answer, in the candidates' order (flags by link id: a
        // leaf's 128 uplinks at radix 256 were 128 x 128 comparisons).
        m_picked.resize(m_cluster->GetLinks().size(), 0);
        for (uint32_t id : pick)
        {
            if (id < m_picked.size())
            {
                m_picked[id] = 1;
            }
        }
        m_kept.clear();
        for (uint32_t id : next)
        {
            if (m_picked[id])
            {
                m_kept.push_back(id);
            }
        }
        for (uint32_t id : pick)
        {
            if (id < m_picked.size())
            {
                m_picked[id] = 0;
            }
        }
        // (Interning may grow w.sets: `next` is not read after it.)
        if (!m_kept.empty() && m_kept.size() < next.size())
        {
            index = Intern(m_kept);
        }
        memo.out[v] = index;
    }
    if (repeat)
    {
        for (uint32_t v : memo.exceptNodes)
        {
            if (v < w.nv)
            {
                memo.except[v] = 0;
            }
        }
    }
}

void
RoutePlanner::DimensionOrderRow(uint32_t dst, std::vector<uint32_t>& row)
{
    RouteTables& w = *m_work;
    const auto& links = m_cluster->GetLinks();
    const FabricSpec& spec = m_cluster->GetFabricSpec();
    const uint32_t nRanks = m_cluster->GetNRanks();
    // Dimension-order routing on a torus or mesh whose ranks are its nodes.
    const auto& dims = spec.dims;
    const std::vector<uint32_t> t = Coords(dst, dims);
    for (uint32_t src = 0; src < nRanks; ++src)
    {
        if (src == dst)
        {
            continue;
        }
        const uint32_t srcNode = m_cluster->GetRankNode(src)->GetId();
        std::vector<uint32_t> c = Coords(src, dims);
        const std::vector<uint32_t> srcCoords = c;
        bool clean = true;
        uint32_t firstLink = kUnreachable;
        uint32_t node = srcNode;
        for (size_t dim = 0; dim < dims.size() && clean; ++dim)
        {
            const uint32_t k = dims[dim];
            while (c[dim] != t[dim])
            {
                const uint32_t fwd = (t[dim] + k - c[dim]) % k; // hops going +
                // Half-way round (k even): the source's parity in this dimension picks
                // the direction, so both directions carry half of the ties and
                // all-to-all loads every channel alike (k/8 per unit injection).
                const bool tie = spec.wrap && 2 * fwd == k;
                const bool plus = !spec.wrap ? t[dim] > c[dim]
                                  : tie      ? (srcCoords[dim] % 2 == 0)
                                             : fwd < k - fwd;
                c[dim] = plus ? (c[dim] + 1) % k : (c[dim] + k - 1) % k;
                const uint32_t nextNode = m_cluster->GetRankNode(RankOf(c, dims))->GetId();
                auto it = m_linkBetween.find((uint64_t{node} << 32) | nextNode);
                if (it == m_linkBetween.end() || links[it->second].failed)
                {
                    clean = false;
                    break;
                }
                if (firstLink == kUnreachable)
                {
                    firstLink = it->second;
                }
                node = nextNode;
            }
        }
        if (clean)
        {
            // Otherwise keep the shortest-path next hops computed above.
            row[srcNode] = Intern({firstLink});
        }
    }
}

void
RoutePlanner::Install()
{
    Refresh();
    if (m_cluster->GetFabricSpec().dataPath == "none")
    {
        return; // a fabric without devices: no node forwards, the tables are all there is
    }
    auto ranks = std::make_shared<FlowHashRouting::AddressMap>();
    NodeContainer all = m_cluster->GetAllNodes();
    // Every address of a rank node routes to that rank.
    for (uint32_t r = 0; r < m_cluster->GetNRanks(); ++r)
    {
        Ptr<Ipv4> ipv4 = m_cluster->GetRankNode(r)->GetObject<Ipv4>();
        for (uint32_t i = 1; ipv4 && i < ipv4->GetNInterfaces(); ++i)
        {
            for (uint32_t a = 0; a < ipv4->GetNAddresses(i); ++a)
            {
                (*ranks)[ipv4->GetAddress(i, a).GetLocal().Get()] = r;
            }
        }
    }
    const auto& links = m_cluster->GetLinks();
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        Ptr<Node> node = all.Get(n);
        const uint32_t id = node->GetId();
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        if (!ipv4)
        {
            // Fast data path: the same next-hop sets, in the same order, as devices.
            Ptr<FastForwarding> fast = node->GetObject<FastForwarding>();
            NS_ASSERT_MSG(fast, "node " << id << " has neither IPv4 nor FastForwarding");
            std::vector<std::pair<uint32_t, Ptr<NetDevice>>> hops;
            for (uint32_t link : m_cluster->GetLinksOfNode(id))
            {
                const ClusterLink& l = links[link];
                hops.emplace_back(link,
                                  l.nodeA == id ? Ptr<NetDevice>(l.devA) : Ptr<NetDevice>(l.devB));
            }
            fast->DeferTable(NodeTableMaker(m_tables, id, std::move(hops)));
        }
        else
        {
            Ptr<FlowHashRouting> routing = DynamicCast<FlowHashRouting>(ipv4->GetRoutingProtocol());
            NS_ASSERT_MSG(routing, "node " << id << " does not run FlowHashRouting");
            std::vector<std::pair<uint32_t, uint32_t>> hops;
            for (uint32_t link : m_cluster->GetLinksOfNode(id))
            {
                const ClusterLink& l = links[link];
                hops.emplace_back(link, l.nodeA == id ? l.ifA : l.ifB);
            }
            routing->DeferTable(ranks, NodeTableMaker(m_tables, id, std::move(hops)));
        }
    }
}

const std::vector<uint32_t>&
RoutePlanner::NextLinks(uint32_t nodeId, uint32_t dstRank) const
{
    const RouteTables& t = *m_tables;
    return t.sets[t.SetIndex(nodeId, dstRank)];
}

uint32_t
RoutePlanner::Hops(uint32_t srcRank, uint32_t dstRank) const
{
    const RouteTables& t = *m_tables;
    const auto& links = m_cluster->GetLinks();
    uint32_t node = m_cluster->GetRankNode(srcRank)->GetId();
    uint32_t dstNode = m_cluster->GetRankNode(dstRank)->GetId();
    uint32_t hops = 0;
    while (node != dstNode)
    {
        const auto& next = NextLinks(node, dstRank);
        if (next.empty() || hops > t.maxNodeId)
        {
            return kUnreachable;
        }
        node = links[next.front()].Peer(node);
        ++hops;
    }
    return hops;
}

std::vector<std::pair<uint32_t, double>>
RoutePlanner::LinkShares(uint32_t srcRank, uint32_t dstRank) const
{
    const auto& links = m_cluster->GetLinks();
    uint32_t srcNode = m_cluster->GetRankNode(srcRank)->GetId();
    uint32_t dstNode = m_cluster->GetRankNode(dstRank)->GetId();
    // Kahn's order over the next-hop DAG reachable from the source.
    std::map<uint32_t, uint32_t> indegree;
    std::deque<uint32_t> stack{srcNode};
    std::map<uint32_t, bool> seen{{srcNode, true}};
    while (!stack.empty())
    {
        uint32_t u = stack.front();
        stack.pop_front();
        if (u == dstNode)
        {
            continue;
        }
        for (uint32_t id : NextLinks(u, dstRank))
        {
            uint32_t v = links[id].Peer(u);
            ++indegree[v];
            if (!seen[v])
            {
                seen[v] = true;
                stack.push_back(v);
            }
        }
    }
    std::map<uint32_t, double> share{{srcNode, 1.0}};
    std::map<uint32_t, double> perLink;
    std::deque<uint32_t> ready{srcNode};
    while (!ready.empty())
    {
        uint32_t u = ready.front();
        ready.pop_front();
        if (u == dstNode)
        {
            continue;
        }
        const auto& next = NextLinks(u, dstRank);
        if (next.empty())
        {
            throw std::invalid_argument("rank " + std::to_string(dstRank) +
                                        " is unreachable from rank " + std::to_string(srcRank) +
                                        "; the failed links disconnect the fabric");
        }
        double each = share[u] / next.size();
        for (uint32_t id : next)
        {
            const ClusterLink& l = links[id];
            bool aToB = l.nodeA == u;
            uint32_t v = aToB ? l.nodeB : l.nodeA;
            perLink[2 * id + (aToB ? 0 : 1)] += each;
            share[v] += each;
            if (--indegree[v] == 0)
            {
                ready.push_back(v);
            }
        }
    }
    return {perLink.begin(), perLink.end()};
}

std::vector<uint32_t>
RoutePlanner::FlowPath(uint32_t srcRank, uint32_t dstRank, const FlowKey& key) const
{
    std::vector<uint32_t> path;
    FlowPath(srcRank, dstRank, key, path);
    return path;
}

void
RoutePlanner::FlowPath(uint32_t srcRank,
                       uint32_t dstRank,
                       const FlowKey& key,
                       std::vector<uint32_t>& path) const
{
    if (!WalkFlow(m_tables->rankNodes.at(srcRank), dstRank, key, path))
    {
        throw std::invalid_argument("rank " + std::to_string(dstRank) +
                                    " is unreachable from rank " + std::to_string(srcRank) +
                                    "; the failed links disconnect the fabric");
    }
}

void
RoutePlanner::FlowPathFromNode(uint32_t fromNode,
                               uint32_t dstRank,
                               const FlowKey& key,
                               std::vector<uint32_t>& path) const
{
    if (!WalkFlow(fromNode, dstRank, key, path))
    {
        throw std::invalid_argument("rank " + std::to_string(dstRank) +
                                    " is unreachable from node " + std::to_string(fromNode) +
                                    "; the failed links disconnect the fabric");
    }
}

bool
RoutePlanner::WalkFlow(uint32_t fromNode,
                       uint32_t dstRank,
                       const FlowKey& key,
                       std::vector<uint32_t>& path) const
{
    const RouteTables& t = *m_tables;
    const auto& links = m_cluster->GetLinks();
    const uint32_t dstNode = t.rankNodes.at(dstRank);
    path.clear();
    for (uint32_t node = fromNode; node != dstNode;)
    {
        const auto& next = NextLinks(node, dstRank);
        if (next.empty() || path.size() > t.maxNodeId)
        {
            return false;
        }
        const uint32_t pick =
            next.size() == 1 ? 0
                             : FlowHashRouting::ChoiceIndex(key,
                                                            node == fromNode,
                                                            NodeSeed(node),
                                                            static_cast<uint32_t>(next.size()));
        const ClusterLink& l = links[next[pick]];
        const bool aToB = l.nodeA == node;
        path.push_back(2 * l.id + (aToB ? 0 : 1));
        node = aToB ? l.nodeB : l.nodeA;
    }
    return true;
}

std::vector<std::pair<uint32_t, double>>
RoutePlanner::FlowShares(uint32_t srcRank, uint32_t dstRank, const FlowKey& key) const
{
    std::vector<uint32_t> path = FlowPath(srcRank, dstRank, key);
    std::sort(path.begin(), path.end()); // LinkShares' order: by directed link key
    std::vector<std::pair<uint32_t, double>> shares;
    shares.reserve(path.size());
    for (uint32_t k : path)
    {
        shares.emplace_back(k, 1.0);
    }
    return shares;
}

} // namespace ns3
