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
 * one down-link per neighbour), so each set is stored once, and a route is a 4-byte
 * index into them. The tables towards two destinations differ at few nodes (two ranks
 * under different ToRs of a leaf-spine differ at their hosts, their ToRs and the
 * spines; two GPUs of one rail differ inside their two HB domains and at the rail
 * switch), so the indices towards a destination are stored as a representative row
 * (one index per node, shared by many destinations) and the destination's exceptions
 * to it (node, set), sorted by node. A destination takes the representative whose
 * row, on 64 sampled nodes, differs least from its own (among the 32 used last), and
 * becomes a representative itself when the whole rows differ at more than a quarter
 * of the nodes. So a fat-tree or rail-only fabric holds a handful of rows and some
 * exceptions per rank, not ranks x nodes indices (4.6 GB at 32k ranks); a torus,
 * whose destinations differ everywhere, still holds a row per rank. A lookup is a
 * binary search among the destination's exceptions, then the representative row.
 * The distances of one breadth-first search live only while that destination is
 * computed.
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
 * \brief The next-hop tables RoutePlanner computes for a cluster's links: immutable once
 * computed, shared by every planner that reads them and kept by the Cluster
 * (Cluster::SetRouteTables) until its links, nodes, spec or preference change.
 */
struct RouteTables
{
    /// One node's exception to its destination's representative row.
    struct Exception
    {
        uint32_t node; //!< node id
        uint32_t set;  //!< index into sets
    };

    uint32_t maxNodeId{0}; //!< largest node id
    uint32_t nRanks{0};    //!< destinations 0..nRanks-1
    uint32_t nv{0};        //!< node ids 0..nv-1
    /// the distinct next-hop sets of link ids; sets[0] is the empty set
    std::vector<std::vector<uint32_t>> sets{std::vector<uint32_t>()};
    /// representative rows: rows[i][nodeId] = index into sets
    std::vector<std::vector<uint32_t>> rows;
    std::vector<uint32_t> rowOf;        //!< rank -> its representative row
    std::vector<size_t> firstException; //!< rank -> its first exception (ranks + 1 entries)
    std::vector<Exception> exceptions;  //!< every rank's exceptions, by rank then node
    std::vector<uint32_t> seeds;        //!< node id -> its flow-hash seed
    std::vector<uint32_t> rankNodes;    //!< rank -> the id of its node

    /// \return the index of the set towards `dstRank` at `nodeId` (0: none)
    uint32_t SetIndex(uint32_t nodeId, uint32_t dstRank) const;
};

/**
 * \brief Next-hop tables of a Cluster, for routing and for the analytical twin.
 */
class RoutePlanner
{
public:
    /// \param cluster the cluster whose links define the graph
    explicit RoutePlanner(Ptr<Cluster> cluster);

    /**
     * \brief (Re)compute the tables from the current links (failed links excluded), and
     * leave them with the cluster (Cluster::SetRouteTables) for later readers.
     */
    void Compute();
    /**
     * \brief Read the cluster's tables when they are current (Cluster::GetRouteTables),
     * else Compute: one computation per link state, shared by the fabric's Install, the
     * twin, the flow level and runners.
     */
    void Refresh();
    /**
     * \brief A planner over the cluster's current tables (Refresh), for readers that
     * keep it (the twin, the flow transport's model).
     * \param cluster a built fabric (its links and route preferences complete)
     */
    static std::shared_ptr<const RoutePlanner> Shared(Ptr<Cluster> cluster);
    /**
     * \brief Refresh, and give every node's FlowHashRouting (or, on a fast-data-path
     * fabric, its FastForwarding) its table, made from these tables on the node's first
     * lookup (DeferredRankTable: a flow-level run, which forwards no frame, makes none).
     * On a fabric without devices (data path "none") it only refreshes.
     */
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
    /// \brief FlowPath into `path` (cleared first; its capacity is kept: no allocation
    /// per call for a caller that reuses it).
    void FlowPath(uint32_t srcRank,
                  uint32_t dstRank,
                  const FlowKey& key,
                  std::vector<uint32_t>& path) const;
    /**
     * \brief FlowPath of a frame a node sends itself (a switch's own frames, e.g. a
     * mirror's clones): it hashes `key` at `fromNode` as a source node does (without
     * ports), at the nodes after it as they forward. Throws std::invalid_argument when
     * dstRank is unreachable from it.
     */
    void FlowPathFromNode(uint32_t fromNode,
                          uint32_t dstRank,
                          const FlowKey& key,
                          std::vector<uint32_t>& path) const;
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

    /// \return bytes the rank -> set indices take (representative rows and exceptions)
    size_t GetTableBytes() const;
    /// \return the number of representative rows (see the file comment)
    uint32_t GetNRepresentatives() const;

private:
    /// The links a flow takes from fromNode to dstRank's node into `path` (see
    /// FlowPathFromNode); false when it is unreachable.
    bool WalkFlow(uint32_t fromNode,
                  uint32_t dstRank,
                  const FlowKey& key,
                  std::vector<uint32_t>& path) const;
    /// \return the index of the set of these links, stored once (0: the empty set)
    uint32_t Intern(const std::vector<uint32_t>& links);
    /// Route towards `dstRank` by dimension order where it is clean (torus, mesh).
    void DimensionOrderRow(uint32_t dstRank, std::vector<uint32_t>& row);

    /// Per node, the last set PreferRow narrowed, in which context, and the result.
    struct PreferMemo
    {
        std::vector<uint32_t> in;      //!< set index before (0: none yet)
        std::vector<uint64_t> context; //!< RoutePreference::Context of that call
        std::vector<uint32_t> out;     //!< set index after
        /// that set's answer holds for every destination (RoutePreference::IgnoresDestination)
        std::vector<uint8_t> fixed;
        /// the last destination whose Context at the node is known to be `context`
        std::vector<uint32_t> at;
        /// the node is among RoutePreference::ContextsRepeat's exceptions (scratch; cheaper
        /// than finding the node in exceptNodes: flow-level.md, Scaling)
        std::vector<uint8_t> except;
        std::vector<uint32_t> exceptNodes; //!< ContextsRepeat's list (scratch)
        uint32_t previous{UINT32_MAX};     //!< the destination routed before
    };

    /// Narrow the multi-link sets of the row towards `dstRank` with the RoutePreference,
    /// reusing a node's last answer where its set and context repeat.
    void PreferRow(uint32_t dstRank, std::vector<uint32_t>& row, PreferMemo& memo);
    /// Store the row of set indices towards `dstRank` (the next rank in order).
    void StoreRow(uint32_t dstRank, const std::vector<uint32_t>& row);
    /// Read every node's flow-hash seed (NodeSeed).
    void ReadSeeds();

    Ptr<Cluster> m_cluster;
    std::shared_ptr<const RouteTables> m_tables; //!< the tables read (empty before Compute)
    std::shared_ptr<RouteTables> m_work;         //!< the tables Compute writes
    /// set contents (raw bytes of the link ids) -> index, while Compute runs
    std::unordered_map<std::string, uint32_t> m_index;
    std::vector<uint32_t> m_singleton; //!< link id -> index of the set {link}, while Compute runs
    std::vector<uint32_t> m_recent;    //!< representative rows, most recently used first
    std::vector<uint32_t> m_kept;      //!< PreferRow's narrowed set, reused
    std::vector<uint8_t> m_picked;     //!< link id -> in the preference's answer (PreferRow)
    /// (node, node) -> the link between them, while Compute runs (dimension order)
    std::unordered_map<uint64_t, uint32_t> m_linkBetween;
};

} // namespace ns3

#endif // MLNET_ROUTE_PLANNER_H
