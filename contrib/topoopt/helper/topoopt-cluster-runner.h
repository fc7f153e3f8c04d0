// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopoOptClusterRunner: packet-level training iterations of a model on TopoOpt and
 * on its baselines, with the analytical iteration time beside each.
 *
 * What it runs. TopoOptSearch picks the strategy (embedding placements) and the
 * TopoOpt topology for n servers of degree d at B per port (or a plan read from a
 * file is used with the reference's starting strategy). The same strategy's
 * iteration (ParallelStrategy::BuildGraph) is then run by mlnet's TrainingDriver on
 * each fabric in turn, one simulation each:
 *   topoopt   the plan on d optical planes (DirectConnectHelper, host forwarding),
 *             all-reduce split over the plan's rings;
 *   fattree   the similar-cost fat-tree: CostModel prices TopoOpt (d x (NIC +
 *             transceiver + patch-panel port) at B) and SimilarCost gives the host
 *             speed and ToR oversubscription that budget affords (2-tier
 *             leaf-spine built by FatTreeHelper; oversubscription rounded up to an
 *             integer ratio);
 *   ideal     one non-blocking switch at d x B per server (IdealSwitchHelper);
 *   expander  a random d-regular graph of the same optics (RandomRegularTopology),
 *             all-reduce over a Hamiltonian cycle of its circuits in both
 *             directions (CircuitRings), so ring hops are single circuits.
 * The switch fabrics all-reduce over two ring orders (jumps 1 and n-1).
 * The analytical figure is IterationGraph::Estimate of the same graph with every
 * communication task timed by mlnet's AlphaBetaModel on the same cluster: a
 * bucket's ring all-reduces are timed together (their schedules merged), and the
 * sends of one table and phase are timed together as one step.
 *
 * OCS mode adds a row "topoopt-ocs": the TopoOpt plan on OCS planes whose last
 * plane is reconfigured mid-iteration (at half the analytical iteration time) to
 * another perfect matching, with a dark-port policy (drop, buffer,
 * drain-then-switch) and reconfiguration delay; it reports frames dropped and
 * held while dark, total port dark time and the iteration time that resulted.
 *
 * Data path: every fabric is built on one (--dataPath): the fast data path (no
 * Internet stack, same completion times and link bytes) when the transport is udp and
 * no FlowMonitor is asked for, the IPv4 path otherwise; the results document records
 * it (meta.data_path, and each run's accounting entry).
 *
 * What it leaves out: a separate strategy search per baseline (every fabric runs
 * TopoOpt's strategy), intra-server (NVLink) communication, compute/communication
 * interference.
 */
#ifndef TOPOOPT_TOPOOPT_CLUSTER_RUNNER_H
#define TOPOOPT_TOPOOPT_CLUSTER_RUNNER_H

#include "ns3/cluster.h"
#include "ns3/data-rate.h"
#include "ns3/model-profile.h"
#include "ns3/nstime.h"
#include "ns3/run-health.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/topoopt-search.h"
#include "ns3/trace-options.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

class DirectConnectFabric;

/**
 * \brief What to run.
 */
struct TopoOptClusterConfig
{
    uint32_t servers{16};             //!< n
    uint32_t degree{4};               //!< d, NIC ports used per server
    uint32_t ports{0};                //!< NIC ports per server (0: = degree)
    DataRate rate{"25Gbps"};          //!< per-port bandwidth B
    Time linkDelay{MicroSeconds(1)};  //!< per-link propagation delay
    Time forwardingLatency{0};        //!< host relay latency per hop
    std::string transport{"roce"};    //!< roce | udp | tcp | dctcp (TransportChoice)
    RunLevel level{RunLevel::PACKET}; //!< packet, or flow (FluidMessageTransport)
    /// auto | ipv4 | fast (FabricHelper::SetDataPath) for every fabric; auto: fast with
    /// the udp transport and no FlowMonitor, ipv4 otherwise
    std::string dataPath{"auto"};
    uint32_t iterations{1};     //!< training iterations per fabric
    uint32_t searchBudget{100}; //!< MCMC steps
    std::vector<std::string> fabrics{"topoopt", "fattree", "ideal", "expander"}; //!< order
    std::string planFile;             //!< use this plan (file) instead of searching
    bool ocs{false};                  //!< add the mid-run reconfiguration row
    std::string ocsPolicy{"buffer"};  //!< drop | buffer | drain-then-switch
    Time ocsDelay{MicroSeconds(100)}; //!< reconfiguration (dark) time in OCS mode
    TraceOptions traces;              //!< --pcap, --pcapClass, --flowmon
};

/**
 * \brief One fabric's result.
 */
struct TopoOptFabricResult
{
    std::string fabric;             //!< topoopt | fattree | ideal | expander | topoopt-ocs
    std::string detail;             //!< what was built (speeds, oversubscription)
    double perServerGbps{0};        //!< injection bandwidth per server
    double costPerServer{0};        //!< USD per server (CostModel; 0 if not priced)
    std::vector<double> iterationS; //!< packet-level iteration times (s)
    double analyticalIterationS{0}; //!< twin (s)
    nlohmann::json extra;           //!< OCS counters, diameter, ...
    RunHealth health;               //!< the packet run's health (RunHealth::Measure)
    /// \return the mean packet-level iteration time (s)
    double MeanIterationS() const;
};

/**
 * \brief Runs a model's training iterations on TopoOpt and its baselines.
 */
class TopoOptClusterRunner
{
public:
    /**
     * \brief Check the configuration. Throws std::invalid_argument saying what to fix.
     */
    explicit TopoOptClusterRunner(const TopoOptClusterConfig& config);

    /**
     * \brief Search (or load the plan), then run every fabric, one simulation each
     * (report.CloseSimulation() and Simulator::Destroy() after each).
     */
    std::vector<TopoOptFabricResult> Run(const ModelProfile& profile, RunReport& report);

    /// \return the search behind the TopoOpt plan (valid after Run)
    const SearchResult& GetSearch() const;
    /// \return the data path every fabric is built with: ipv4 or fast (auto resolved)
    const std::string& GetDataPath() const;

    /**
     * \brief Iteration times of a strategy's graph on a built cluster at a run level,
     * and the twin's (used by Run for every fabric; the caller destroys the simulator).
     * \param rings all-reduce ring orders
     * \param transport roce | udp | tcp | dctcp (TransportChoice)
     * \param level packet, or flow: the same graph over a FluidMessageTransport
     * \param[out] analytical the twin's iteration time (s)
     * \return the iteration times at that level (s)
     */
    static std::vector<double> RunIterations(Ptr<Cluster> cluster,
                                             const ModelProfile& profile,
                                             const ParallelStrategy& strategy,
                                             const std::vector<std::vector<uint32_t>>& rings,
                                             const std::string& transport,
                                             RunLevel level,
                                             uint32_t iterations,
                                             double* analytical,
                                             const std::function<void(double)>& atStart = nullptr);

    /**
     * \brief Ring orders for a graph without rings (the expander): a Hamiltonian
     * cycle over its circuits found by depth-first search (bounded), both
     * directions; jumps 1 and n-1 (routed) if none is found.
     */
    static std::vector<std::vector<uint32_t>> CircuitRings(const TopologyPlan& plan);

private:
    /// Phase 1 of Run(): search the strategy and plan, or read the plan from --plan.
    void FindPlan(const ModelProfile& profile);
    /// Trains on one built fabric, fills r's iteration times (and OCS counters);
    /// throws std::runtime_error if a fabric without an OCS lost iterations.
    void Train(Ptr<Cluster> cluster,
               const ModelProfile& profile,
               const std::vector<std::vector<uint32_t>>& rings,
               const std::function<void(double)>& atStart,
               Ptr<DirectConnectFabric> dcf,
               TopoOptFabricResult& r) const;
    /// The OCS fabric's dark-port counters after the run, into r.extra.
    static void RecordOcsCounters(Ptr<DirectConnectFabric> dcf,
                                  double analytical,
                                  TopoOptFabricResult& r);

    TopoOptClusterConfig m_config;
    std::string m_dataPath; //!< ipv4 | fast
    SearchResult m_search;
};

} // namespace ns3

#endif // TOPOOPT_TOPOOPT_CLUSTER_RUNNER_H
