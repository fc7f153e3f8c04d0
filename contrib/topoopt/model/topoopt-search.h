// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopoOptSearch: TopoOpt's alternating optimization of the parallelization
 * strategy and the topology (FlexNet's FFModel::optimize, NSDI'23 Sec. 4).
 *
 * What it models. Start from the reference's strategy (data parallel, embedding
 * layers placed round-robin) and the topology TopologyFinder builds for its
 * traffic. Each MCMC step moves one embedding-like layer to another placement
 * (data parallel, or one of the n servers), chosen uniformly at random, and
 * predicts the iteration time on the current topology. Metropolis acceptance:
 * a better candidate is always taken, a worse one with probability
 * exp(-Alpha * (next - current)), times in milliseconds as in FlexFlow's
 * simulator. On acceptance the topology is rebuilt for the new strategy's traffic
 * (all-reduce group of all n servers with the data-parallel bytes, MP demand
 * matrix; the finder keeps whichever degree split, fixed or released, this
 * search's Estimate predicts faster) and the strategy is re-timed on it; every ResetInterval steps
 * the walk returns to the best strategy and its topology. The result is never worse than the start.
 * Every random draw comes from ns-3 streams (AssignStreams): one for the walk, one for the finder,
 * which is created afresh (same stream) for each rebuild, so a strategy always maps to the same
 * topology and one seed
 * (--RngRun) gives one plan.
 *
 * The cost (Estimate) is a plan-level alpha-beta model, fast enough for
 * thousands of candidates at n = 128:
 *   compute = max over servers of its compute (placed tables: n x the layer's time);
 *   all-reduce = mlnet's ring formula (CollectiveClosedForms::RingAllReduceTime) over the
 *     plan's rings of size n, the data-parallel bytes S split over npath directed
 *     rings, with the per-step bandwidth of the most loaded directed server pair
 *     (ring hops that are not circuits follow the plan's routes) and per step
 *     alpha = HopLatency x hops of the longest ring hop;
 *   model parallel = forward and backward phases, each the most loaded directed
 *     pair's bytes / its capacity (parallel circuits add up) plus the longest
 *     route's hops x HopLatency;
 *   total = compute + all-reduce + model parallel (no overlap: a conservative
 *     ranking figure; the packet-level and twin timings are in TopoOptClusterRunner).
 * A pair the plan holds no route for (a candidate's new placement, or a plan read
 * without routes) follows one shortest path over the circuits, found on demand
 * (a BFS from the placed server, or from the ring hop's source; ties broken by
 * the lowest server index), so the finder builds no all-pairs routes during the
 * search (RouteAllPairs, off): each rebuild costs O(placed servers x n) routes,
 * not O(n^2). While candidates are timed on one plan, each placed server's load
 * per byte on every circuit is kept, so a step costs O(placed servers x n d)
 * additions instead of walking O(placed servers x n) routes.
 *
 * What it leaves out: strategies other than per-table placement (the reference's
 * FlexFlow also splits dense operators), the topology finder's own annealing
 * (the finder is deterministic given its stream), memory limits.
 */
#ifndef TOPOOPT_TOPOOPT_SEARCH_H
#define TOPOOPT_TOPOOPT_SEARCH_H

#include "ns3/data-rate.h"
#include "ns3/model-profile.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/parallel-strategy.h"
#include "ns3/random-variable-stream.h"
#include "ns3/topology-finder.h"
#include "ns3/topology-plan.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief Predicted iteration time of a strategy on a plan, by part (seconds).
 */
struct StrategyCost
{
    double compute{0};       //!< slowest server's compute
    double allReduce{0};     //!< ring all-reduce of the data-parallel bytes
    double modelParallel{0}; //!< forward + backward embedding traffic
    double total{0};         //!< sum of the three
};

/**
 * \brief What a search found.
 */
struct SearchResult
{
    ParallelStrategy start;        //!< the starting strategy
    StrategyCost startCost;        //!< its cost on its topology
    ParallelStrategy strategy;     //!< best strategy found
    TopologyPlan plan;             //!< its topology
    StrategyCost cost;             //!< its cost on that topology
    uint32_t steps{0};             //!< MCMC steps taken
    uint32_t accepted{0};          //!< accepted moves
    uint32_t rebuilds{0};          //!< topology rebuilds
    uint32_t resets{0};            //!< returns to the best
    bool wallClockLimitHit{false}; //!< the search stopped at WallClockLimit
    FinderReport finder;           //!< the finder's decisions for plan (degree split chosen)
};

/**
 * \brief MCMC over per-layer placements, alternating with TopologyFinder.
 */
class TopoOptSearch : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TopoOptSearch();
    ~TopoOptSearch() override;

    /// Signature of the Step trace: step, candidate cost (s), current cost (s), accepted.
    typedef void (*StepTracedCallback)(uint32_t step,
                                       double candidate,
                                       double current,
                                       bool accepted);

    /**
     * \brief Search from ParallelStrategy::Initial. Throws std::invalid_argument for
     * an impossible configuration (see TopologyFinder::Find).
     */
    SearchResult Run(const ModelProfile& profile, uint32_t servers);
    /// \brief Search from a given strategy.
    SearchResult Run(const ModelProfile& profile, const ParallelStrategy& start);

    /**
     * \brief The topology TopologyFinder builds for a strategy's traffic (pure function).
     * The finder picks the degree split whose plan Estimate predicts faster.
     * \param report if not null, receives the finder's report
     */
    TopologyPlan BuildTopology(const ModelProfile& profile,
                               const ParallelStrategy& s,
                               FinderReport* report = nullptr) const;
    /// \brief Plan-level predicted iteration time (see the file comment).
    StrategyCost Estimate(const ModelProfile& profile,
                          const ParallelStrategy& s,
                          const TopologyPlan& plan) const;
    /**
     * \brief The all-reduce ring orders of a plan: one per directed jump of its rings
     * over all n servers (0, j, 2j, ...), or jumps 1 and n-1 when it has none.
     */
    static std::vector<std::vector<uint32_t>> RingOrders(const TopologyPlan& plan);

    /**
     * \brief Assign fixed random variable stream numbers.
     * \param stream first stream index to use
     * \return the number of streams assigned (2: the walk, the finder)
     */
    int64_t AssignStreams(int64_t stream);

protected:
    void DoDispose() override;

private:
    struct PlanLoads; //!< what Estimate keeps of one plan (topoopt-search.cc)
    /// Estimate over a plan's kept loads (the public Estimate builds them afresh).
    StrategyCost Estimate(const ModelProfile& profile,
                          const ParallelStrategy& s,
                          PlanLoads& loads) const;

    uint32_t m_degree;
    DataRate m_rate;
    Time m_hopLatency;
    uint32_t m_budget;
    double m_alpha;
    uint32_t m_resetInterval;
    double m_wallClockLimit;
    bool m_releasedDegreeSplit;
    bool m_releasedGroupShare;
    bool m_routeAllPairs;
    Ptr<UniformRandomVariable> m_rng;
    int64_t m_finderStream{-1};

    TracedCallback<uint32_t, double, double, bool> m_stepTrace;
    TracedCallback<uint32_t, double> m_newBestTrace;
    TracedCallback<uint32_t> m_rebuildTrace;
};

} // namespace ns3

#endif // TOPOOPT_TOPOOPT_SEARCH_H
