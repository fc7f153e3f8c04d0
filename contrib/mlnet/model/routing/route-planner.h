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
 * The analytical twin uses the same tables, so it loads links exactly as packets do:
 * LinkShares splits a flow evenly over the next hops (what flow hashing gives in
 * expectation, and what spraying gives), FlowPath follows the one path a flow's hash
 * picks at every node (what per-flow hashing gives for a known flow key, collisions
 * included), with each node's own seed, on both data paths.
 * Last, where a set holds several links and the Cluster carries a RoutePreference,
 * the set is narrowed to the links the preference keeps (see route-preference.h).
 *
 * Memory. A fabric has few distinct next-hop sets (a host's one NIC, a ToR's up-links,
 * one down-link per neighbour), so each set is stored once and the table holds, per
 * destination rank and node, a 4-byte index into them: ranks x nodes x 4 bytes and no
 * allocation per entry (it used to be a vector per entry, about 50 bytes each, and a
 * second ranks x nodes table of distances). The distances of one breadth-first search
 * live only while that destination is computed.
 */
#ifndef MLNET_ROUTE_PLANNER_H
#define MLNET_ROUTE_PLANNER_H

#include "ns3/cluster.h"
#include "ns3/flow-key.h"

#include <memory>
#include <string>
#include <unordered_map>
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
    /**
     * \brief The computed tables of a cluster's current links, shared by every reader
     * (the twin, the flow level, runners) instead of one O(ranks x nodes) computation
     * each: computed on the first call and again after a link failed or was added
     * (Cluster::GetLinkStateVersion, the link count); freed when no reader holds them.
     * The tables hold the cluster, so a live entry is never another cluster's.
     * \param cluster a built fabric (its links and route preferences complete)
     */
    static std::shared_ptr<const RoutePlanner> Shared(Ptr<Cluster> cluster);
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
    /**
     * \brief The links one flow crosses, hop by hop: at a node with several next hops,
     * the one FlowHashRouting::ChoiceIndex picks for `key` with the node's seed (the
     * source node hashes without ports, as both data paths do for a frame its rank
     * sends), from the same sets in the same order as Install gives the nodes.
     * Throws std::invalid_argument when dstRank is unreachable.
     * \return directed link keys (2*linkId + (0 if A->B else 1)) from src to dst, in
     * path order (empty when srcRank == dstRank)
     */
    std::vector<uint32_t> FlowPath(uint32_t srcRank, uint32_t dstRank, const FlowKey& key) const;
    /// \return FlowPath as shares (1 on every link it crosses), in LinkShares' format
    std::vector<std::pair<uint32_t, double>> FlowShares(uint32_t srcRank,
                                                        uint32_t dstRank,
                                                        const FlowKey& key) const;
    /**
     * \return the seed node `nodeId` hashes flows with, read by Compute: its
     * FlowHashRouting's or FastForwarding's Seed attribute, or
     * FlowHashRouting::DefaultSeed when it has neither yet
     */
    uint32_t NodeSeed(uint32_t nodeId) const;

    /// \return the number of distinct next-hop sets the tables hold (the empty set included)
    uint32_t GetNSets() const;
    /// \return the index of the set NextLinks(nodeId, dstRank) returns (0: the empty set)
    uint32_t SetIndex(uint32_t nodeId, uint32_t dstRank) const;

private:
    /// \return the index of the set of these links, stored once (0: the empty set)
    uint32_t Intern(const std::vector<uint32_t>& links);
    /// Replace routes of a torus/mesh by dimension order where they are clean.
    void ComputeDimensionOrder();
    /// Narrow multi-link sets with the cluster's RoutePreference, if any.
    void ApplyPreference();
    /// Read every node's flow-hash seed (NodeSeed).
    void ReadSeeds();

    Ptr<Cluster> m_cluster;
    uint32_t m_maxNodeId{0};
    uint32_t m_nRanks{0};
    uint32_t m_nv{0}; //!< node ids 0..m_nv-1
    /// the distinct next-hop sets of link ids; m_sets[0] is the empty set
    std::vector<std::vector<uint32_t>> m_sets;
    /// m_setOf[dstRank * m_nv + nodeId] = index into m_sets
    std::vector<uint32_t> m_setOf;
    /// set contents (raw bytes of the link ids) -> index, while Compute runs
    std::unordered_map<std::string, uint32_t> m_index;
    std::vector<uint32_t> m_singleton; //!< link id -> index of the set {link}, while Compute runs
    std::vector<uint32_t> m_seeds;     //!< node id -> its flow-hash seed
};

} // namespace ns3

#endif // MLNET_ROUTE_PLANNER_H
