// SPDX-License-Identifier: GPL-2.0-only
/*
 * The routing oracle of the route tests: every node's next-hop links towards a rank by
 * a plain breadth-first search over the working links, written independently of
 * RoutePlanner (no shared searches, no reuse from one destination to the next, no
 * route preference), and the check that a planner's tables equal it everywhere.
 */
#ifndef MLNET_TEST_ROUTE_ORACLE_H
#define MLNET_TEST_ROUTE_ORACLE_H

#include "ns3/cluster.h"
#include "ns3/node-container.h"
#include "ns3/route-planner.h"

#include <deque>
#include <gtest/gtest.h>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace mlnettest
{

/// Next-hop link ids of every node towards `dstRank` by a plain BFS over working links:
/// the links (in id order) whose far end is one hop closer to the destination.
inline std::vector<std::vector<uint32_t>>
ReferenceNextLinks(ns3::Ptr<ns3::Cluster> c, uint32_t dstRank, uint32_t nv)
{
    const uint32_t far = std::numeric_limits<uint32_t>::max();
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> adj(nv); // (neighbour, link)
    for (const ns3::ClusterLink& l : c->GetLinks())
    {
        if (!l.failed)
        {
            adj[l.nodeA].emplace_back(l.nodeB, l.id);
            adj[l.nodeB].emplace_back(l.nodeA, l.id);
        }
    }
    std::vector<uint32_t> d(nv, far);
    std::deque<uint32_t> queue{c->GetRankNode(dstRank)->GetId()};
    d[queue.front()] = 0;
    while (!queue.empty())
    {
        uint32_t u = queue.front();
        queue.pop_front();
        for (auto [v, link] : adj[u])
        {
            if (d[v] == far)
            {
                d[v] = d[u] + 1;
                queue.push_back(v);
            }
        }
    }
    std::vector<std::vector<uint32_t>> next(nv);
    for (const ns3::ClusterLink& l : c->GetLinks())
    {
        if (l.failed || d[l.nodeA] == far || d[l.nodeB] == far)
        {
            continue;
        }
        if (d[l.nodeB] + 1 == d[l.nodeA])
        {
            next[l.nodeA].push_back(l.id);
        }
        else if (d[l.nodeA] + 1 == d[l.nodeB])
        {
            next[l.nodeB].push_back(l.id);
        }
    }
    return next;
}

inline uint32_t
NodeIdLimit(ns3::Ptr<ns3::Cluster> c)
{
    ns3::NodeContainer all = c->GetAllNodes();
    uint32_t limit = 0;
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        limit = std::max(limit, all.Get(i)->GetId() + 1);
    }
    return limit;
}

/// The planner's next links of every node towards every rank equal a plain BFS's.
inline void
ExpectNextHopsAsBreadthFirstSearch(ns3::Ptr<ns3::Cluster> c, const std::string& what)
{
    const uint32_t nv = NodeIdLimit(c);
    ns3::RoutePlanner planner(c);
    planner.Compute();
    for (uint32_t r = 0; r < c->GetNRanks(); ++r)
    {
        std::vector<std::vector<uint32_t>> reference = ReferenceNextLinks(c, r, nv);
        for (uint32_t v = 0; v < nv; ++v)
        {
            ASSERT_EQ(planner.NextLinks(v, r), reference[v])
                << what << ": node " << v << " rank " << r;
        }
    }
}

} // namespace mlnettest

#endif // MLNET_TEST_ROUTE_ORACLE_H
