// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoutePlanner: computes, from a Cluster's link registry, the set of next-hop
 * links from every node towards every rank, and installs them into the
 * FlowHashRouting protocol of every node.
 *
 * Modes (FabricSpec::routing): "ecmp" keeps every neighbour on some shortest path
 * (breadth-first search with Boost.Graph over non-failed links); "dor" routes a
 * torus or mesh dimension by dimension (lowest dimension first, shorter way round,
 * half-way ties split by the parity of the source coordinate, so both
 * directions carry half of them), falling back to shortest paths around failed links.
 * The analytical twin uses the same tables, so it loads links exactly as packets do
 * (ECMP: an even split over next hops, which is what flow hashing gives in expectation).
 * Last, where a set holds several links and the Cluster carries a RoutePreference,
 * the set is narrowed to the links the preference keeps (see route-preference.h).
 */
#ifndef MLNET_ROUTE_PLANNER_H
#define MLNET_ROUTE_PLANNER_H

#include "ns3/cluster.h"

#include <vector>

namespace ns3
{

/**
 * \brief Next-hop tables of a Cluster, for routing and for the analytical twin.
 */
class RoutePlanner
{
public:
    /// \param cluster the cluster whose links define the graph
    explicit RoutePlanner(Ptr<Cluster> cluster);

    /// \brief (Re)compute the tables from the current links (failed links excluded).
    void Compute();
    /// \brief Compute and install the tables into every node's FlowHashRouting (or, on a
    /// fast-data-path fabric, its FastForwarding).
    void Install();

    /**
     * \return ids of the links leaving node `nodeId` on a route to rank `dstRank`
     * (empty at the destination itself, or when it is unreachable)
     */
    const std::vector<uint32_t>& NextLinks(uint32_t nodeId, uint32_t dstRank) const;
    /// \return hops on a route from one rank to another (UINT32_MAX if unreachable)
    uint32_t Hops(uint32_t srcRank, uint32_t dstRank) const;
    /**
     * \brief Expected share of a src->dst flow carried by each directed link.
     * \return pairs (directed link key = 2*linkId + (0 if A->B else 1), fraction)
     */
    std::vector<std::pair<uint32_t, double>> LinkShares(uint32_t srcRank, uint32_t dstRank) const;

private:
    /// Replace routes of a torus/mesh by dimension order where they are clean.
    void ComputeDimensionOrder();
    /// Narrow multi-link sets with the cluster's RoutePreference, if any.
    void ApplyPreference();

    Ptr<Cluster> m_cluster;
    uint32_t m_maxNodeId{0};
    // m_next[dstRank][nodeId] = next-hop link ids; m_dist[dstRank][nodeId] = hops
    std::vector<std::vector<std::vector<uint32_t>>> m_next;
    std::vector<std::vector<uint32_t>> m_dist;
};

} // namespace ns3

#endif // MLNET_ROUTE_PLANNER_H
