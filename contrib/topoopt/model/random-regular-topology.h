// SPDX-License-Identifier: GPL-2.0-only
/*
 * RandomRegularTopology: the random d-regular ("expander") baseline of TopoOpt.
 *
 * What it models. A degree-d direct-connect graph drawn at random, on the same
 * hardware as TopoOpt (d optical planes, each a perfect matching): plane i is a
 * uniformly random perfect matching of the servers, redrawn (up to
 * MatchingAttempts times) while it would duplicate an existing circuit, and the
 * whole draw is repeated (up to GraphAttempts times) until the graph is
 * connected. The union of d random perfect matchings is a standard model of a
 * random d-regular graph; with d >= 3 it is an expander with high probability.
 * Routes are random shortest paths (ties broken by the same stream). The result
 * is a TopologyPlan, so the fabric helper builds it like any other plan.
 *
 * What it leaves out: exact uniformity over all d-regular graphs, and rings
 * (an expander has no all-reduce structure; collectives route over paths).
 */
#ifndef TOPOOPT_RANDOM_REGULAR_TOPOLOGY_H
#define TOPOOPT_RANDOM_REGULAR_TOPOLOGY_H

#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/topology-plan.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Builds a random d-regular plan from an ns-3 random stream.
 */
class RandomRegularTopology : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RandomRegularTopology();

    /**
     * \brief Draw a plan of n servers (even, >= 2) with degree Degree.
     * Throws std::invalid_argument if n is odd, Degree > n-1, or no connected
     * graph was found within GraphAttempts draws.
     */
    TopologyPlan Build(uint32_t servers);
    /// \brief Parallel circuits the last Build() could not avoid.
    uint32_t GetParallelCircuits() const;

    /**
     * \brief Assign a fixed random variable stream number.
     * \param stream first stream index to use
     * \return the number of streams assigned (1)
     */
    int64_t AssignStreams(int64_t stream);

protected:
    void DoDispose() override;

private:
    uint32_t m_degree;
    uint32_t m_matchingAttempts;
    uint32_t m_graphAttempts;
    bool m_routeAllPairs;
    uint32_t m_parallel{0};
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif // TOPOOPT_RANDOM_REGULAR_TOPOLOGY_H
