// SPDX-License-Identifier: GPL-2.0-only
/*
 * TrainingClusterRunner: the default scenario (examples/training-cluster). One
 * training job -- a topoopt ModelProfile (default: BERT, scaled down) trained
 * data-parallel by the strategy TopoOptSearch picks -- is run at packet level on
 * up to three fabrics of the same size (n GPUs/servers) and the same per-GPU
 * network bandwidth B, one simulation each, with the alpha-beta twin's iteration
 * time beside every result:
 *   fattree   2-tier leaf-spine, full bisection, hosts at B (mlnet FatTreeHelper);
 *   topoopt   TopoOpt: the searched topology on d patch-panel planes of B/d per
 *             port (DirectConnectHelper, host forwarding);
 *   railonly  rail-only with HB domains (n/K domains of K GPUs, NVLink at the HB
 *             rate, one rail switch group per rail, NICs at B; railonly helpers).
 * Every fabric runs the same strategy's iteration graph
 * (ParallelStrategy::BuildGraph) with the same ring orders (jumps 1 and n-1 on the
 * switched fabrics, the plan's rings on TopoOpt), through
 * TopoOptClusterRunner::RunIterations, so the timing and the twin are the
 * topoopt-cluster example's. Per fabric it reports wire bytes by link class
 * (Cluster::GetBytesByLinkClass), network cost and power, and Checkmate's
 * checkpoint interval where it applies.
 *
 * Cost and power. Every price is read from one PriceTable (mlnet; the shipped
 * contrib/mlnet/data/prices.json unless MLNET_PRICE_TABLE or
 * ns3::PriceTable::Path names another file), which both cost models below are given.
 * One basis for all three: railonly's RailCostModel (switches, transceivers,
 * fibres; NICs excluded by default): the fat-tree is priced as
 * RailCostModel::RailOptimized (a full-bisection Clos of n GPUs at the table's
 * radix), rail-only as RailCostModel::RailOnly, TopoOpt as n*d NIC transceivers
 * and fibres plus n*d patch-panel ports at B/d (via topoopt's CostModel; a panel is
 * passive, 0 W). Beside it, topoopt's CostModel (per-speed parts) prices the
 * fat-tree (FatTreeCostPerServer(B)) and TopoOpt (TopoOptCostPerServer(d, B/d)); it
 * has no rail-only design and no power, so those cells are null.
 *
 * Checkmate. The in-network checkpoint needs a switch on the all-reduce path that
 * mirrors gradient packets to shadow nodes, and real gradient payloads. It is run
 * by CheckmateRunner on a fat-tree of the same n and B (its own small real-valued
 * model, since a ModelProfile job carries no real gradients) and the measured
 * checkpoint interval is reported on the fat-tree row. TopoOpt has no switch on
 * the path (circuits and host forwarding) and CheckmateRunner builds no rail
 * fabric, so those rows say n/a with the reason.
 *
 * What it leaves out: a strategy search per fabric (all run TopoOpt's), NVLink
 * cost, compute/communication interference, failures.
 */
#ifndef SCENARIOS_TRAINING_CLUSTER_RUNNER_H
#define SCENARIOS_TRAINING_CLUSTER_RUNNER_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/run-health.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/trace-options.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief What the default scenario runs (the example's flags).
 */
struct TrainingClusterConfig
{
    std::string model{"bert"};        //!< shipped topoopt model profile name
    std::string profileFile;          //!< model profile file (overrides model)
    double scale{0.1};                //!< factor on the model's bytes and compute times
    uint32_t gpus{16};                //!< n, GPUs (= servers)
    uint32_t degree{4};               //!< TopoOpt ports per server d
    uint32_t hbDomain{8};             //!< rail-only GPUs per HB domain K (must divide n)
    DataRate bandwidth{"100Gbps"};    //!< network bandwidth per GPU B
    DataRate hbRate{"800Gbps"};       //!< rail-only NVLink rate per GPU
    Time linkDelay{MicroSeconds(1)};  //!< propagation delay per network link
    uint32_t iterations{1};           //!< training iterations per fabric
    uint32_t searchBudget{50};        //!< TopoOptSearch MCMC steps
    std::string transport{"roce"};    //!< roce | udp | tcp | dctcp (TransportChoice)
    RunLevel level{RunLevel::PACKET}; //!< packet, or flow (FluidMessageTransport)
    std::string dataPath{"auto"};     //!< auto | ipv4 | fast (DataPathChoice), every fabric
    /// hash | spray | flowlet | adaptive (LoadBalancer; fast path only; not the
    /// checkmate run, which builds its own fabric)
    std::string loadBalancing{"hash"};
    std::vector<std::string> fabrics{"fattree", "topoopt", "railonly"}; //!< order
    bool checkmate{true};            //!< run the Checkmate shadowing case on the fat-tree
    uint32_t checkmateIterations{8}; //!< iterations of the Checkmate run
    TraceOptions traces;             //!< --pcap, --pcapClass, --flowmon

    /// \brief Throw std::invalid_argument naming the bad flag and how to fix it.
    void Validate() const;
    /**
     * \return the data path every fabric and the Checkmate run (packet level only)
     * take: "ipv4", "fast", or at the flow level "none" (no devices; DataPathChoice)
     */
    std::string DataPath() const;
};

/**
 * \brief One fabric's result.
 */
struct TrainingClusterResult
{
    std::string fabric;                               //!< fattree | topoopt | railonly
    std::string detail;                               //!< what was built
    std::vector<double> iterationS;                   //!< packet-level iteration times (s)
    double analyticalIterationS{0};                   //!< alpha-beta twin (s)
    double costUsd{0};                                //!< network cost, rail-table basis (USD)
    double powerW{0};                                 //!< network power, rail-table basis (W)
    nlohmann::json costModelUsd;                      //!< topoopt CostModel cost (USD) or null
    nlohmann::json checkpointInterval;                //!< Checkmate interval (iterations) or null
    std::string checkpointNote;                       //!< why n/a, or what was measured
    std::map<std::string, uint64_t> bytesByLinkClass; //!< wire bytes of the iterations
    double wallS{0};                                  //!< wall seconds of this fabric's run
    RunHealth health;                                 //!< the packet run's health

    /// \return mean packet-level iteration time (s)
    double IterationS() const;
    /// \return the JSON row of the report (flat scalars plus bytes_by_link_class)
    nlohmann::json Row() const;
};

/**
 * \brief Runs the default scenario (see the file comment).
 */
class TrainingClusterRunner
{
public:
    /// \brief Validates the configuration (throws std::invalid_argument).
    explicit TrainingClusterRunner(const TrainingClusterConfig& config);

    /// \return the fabrics of a comma-separated list (throws for unknown names)
    static std::vector<std::string> ParseFabrics(const std::string& list);

    /**
     * \brief Search the strategy and TopoOpt topology, then run every fabric, one
     * simulation each (report.CloseSimulation() and Simulator::Destroy() after each),
     * adding one row per fabric and a "search" and "checkmate" section to the report.
     * \param progress receives one line per fabric (may be null)
     */
    std::vector<TrainingClusterResult> Run(RunReport& report, std::ostream* progress = nullptr);

private:
    TrainingClusterConfig m_config;
};

} // namespace ns3

#endif // SCENARIOS_TRAINING_CLUSTER_RUNNER_H
