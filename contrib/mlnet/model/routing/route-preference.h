// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoutePreference: a policy hook that narrows RoutePlanner's next-hop sets.
 *
 * RoutePlanner computes, for every node and destination rank, the set of links
 * on a shortest path (or the dimension-order link). Where that set holds more
 * than one link, and the Cluster carries a RoutePreference, the planner asks the
 * preference which of the candidates to keep and keeps the intersection of its
 * answer with the candidates. An empty intersection keeps every candidate (the
 * preference does not apply there). Because a preference can only remove links
 * from shortest-path sets, every route stays shortest and loop-free, and every
 * node that had a route keeps one. Routing (FlowHashRouting) and the analytical
 * twin (AlphaBetaModel) both read the planner's tables, so a preference acts on
 * both alike.
 *
 * What it leaves out: a preference cannot lengthen routes (no detours beyond the
 * shortest paths) and cannot depend on the source of a packet, only on the node
 * and the destination rank (tables are destination-based).
 */
#ifndef MLNET_ROUTE_PREFERENCE_H
#define MLNET_ROUTE_PREFERENCE_H

#include "ns3/object.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class Cluster;

/**
 * \brief Chooses among equal-length next hops; held by a Cluster, applied by RoutePlanner.
 */
class RoutePreference : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoutePreference();
    ~RoutePreference() override;

    /**
     * \brief Pick the next hops to keep at one node towards one rank.
     * \param cluster the cluster being routed
     * \param nodeId ns-3 id of the node whose table entry is being decided
     * \param dstRank destination rank
     * \param candidates ids of the links on a shortest path (two or more)
     * \return the links to keep; links not among the candidates are ignored, and an
     *         answer that keeps none of them keeps all of them
     */
    virtual std::vector<uint32_t> Select(const Cluster& cluster,
                                         uint32_t nodeId,
                                         uint32_t dstRank,
                                         const std::vector<uint32_t>& candidates) const = 0;
    /**
     * \brief What Select's answer at a node depends on besides the candidates. For one
     * node, two destinations of the same context and the same candidates must get the
     * same answer; RoutePlanner then reuses the node's last answer instead of asking
     * again (Select runs once per node and destination otherwise: 10^9 calls at 32k
     * ranks). The default, the destination rank plus 2^32, shares nothing.
     * \param cluster the cluster being routed
     * \param nodeId ns-3 id of the node
     * \param dstRank destination rank
     * \return the context value
     */
    virtual uint64_t Context(const Cluster& cluster, uint32_t nodeId, uint32_t dstRank) const;
    /**
     * \brief Whether Select's answer at a node for these candidates is the same for
     * every destination (e.g. a switch whose candidates all lead to switches). Where it
     * is, RoutePlanner reuses the node's answer for this set without asking Context
     * again. The default, false, shares nothing beyond Context.
     * \param cluster the cluster being routed
     * \param nodeId ns-3 id of the node
     * \param candidates ids of the links on a shortest path (two or more)
     * \return true when no destination changes the answer
     */
    virtual bool IgnoresDestination(const Cluster& cluster,
                                    uint32_t nodeId,
                                    const std::vector<uint32_t>& candidates) const;
    /**
     * \brief Whether every node's Context towards `dstRank` equals its Context towards
     * `previousRank`, except at the nodes listed in `except`. Where it does, RoutePlanner
     * reuses the answers of the other nodes whose candidates repeat without asking
     * Context (a rail fabric's GPUs asked it 10^9 times at 32k ranks, once per GPU and
     * destination). The default, false, asks Context at every node.
     * \param cluster the cluster being routed
     * \param previousRank the destination routed before
     * \param dstRank the destination routed now
     * \param except set to the nodes whose Context may differ between the two (cleared
     *        first; read only when the answer is true)
     * \return true when the Contexts repeat everywhere but at `except`
     */
    virtual bool ContextsRepeat(const Cluster& cluster,
                                uint32_t previousRank,
                                uint32_t dstRank,
                                std::vector<uint32_t>& except) const;
};

} // namespace ns3

#endif // MLNET_ROUTE_PREFERENCE_H
