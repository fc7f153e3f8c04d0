/*
 * TrainingRunner: a data-parallel training workload (TrainingWorkload, a JSON
 * file) run for N iterations on a cluster at packet level by the TrainingDriver,
 * with the analytical iteration time beside it: the same iteration graph timed by
 * IterationGraph::Estimate with each bucket's all-reduce predicted by the
 * AlphaBetaModel on the same cluster and transport packetization.
 */
#ifndef MLNET_TRAINING_RUNNER_H
#define MLNET_TRAINING_RUNNER_H

#include "ns3/cluster.h"
#include "ns3/training-driver.h"
#include "ns3/training-workload.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief What a training run measured.
 */
struct TrainingRunResult
{
    std::vector<IterationRecord> iterations;          //!< packet-level iterations
    double analyticalIterationS{0};                   //!< analytical iteration time (s)
    std::map<std::string, uint64_t> bytesByLinkClass; //!< wire bytes per link class

    /// \return one JSON row per iteration (iteration, iteration_s, analytical_iteration_s, error)
    nlohmann::json IterationRows() const;
};

/**
 * \brief Runs a TrainingWorkload on a cluster, packet-level and analytical.
 */
class TrainingRunner
{
public:
    /**
     * \brief Run `iterations` iterations until done (the caller destroys the simulator).
     * \param transport udp | tcp | dctcp (see CollectiveRunner::CreateTransport)
     * Throws std::invalid_argument for workloads that do not fit the cluster.
     */
    static TrainingRunResult Run(Ptr<Cluster> cluster,
                                 const TrainingWorkload& workload,
                                 const std::string& transport,
                                 uint32_t iterations);
};

} // namespace ns3

#endif // MLNET_TRAINING_RUNNER_H
