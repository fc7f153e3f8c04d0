// SPDX-License-Identifier: GPL-2.0-only
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
#include "ns3/iteration-graph.h"
#include "ns3/message-transport.h"
#include "ns3/training-driver.h"
#include "ns3/training-workload.h"

#include <functional>
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

    /**
     * \brief Run any iteration graph at packet level: a TrainingDriver over the
     * installed transport (collectives made by CollectiveFactory), `iterations` times
     * back to back, until it is done or the simulation runs out of events. This is the
     * one place where a TrainingDriver is wired; every scenario that trains calls it.
     * \param transport a transport installed on the cluster
     * \param graph the iteration to run
     * \param iterations how many (0 keeps the driver's default attribute)
     * \param atStart called after the driver started, before Simulator::Run (to
     *        schedule mid-run events); may be empty
     * \return the driver, for its records (the caller destroys the simulator)
     */
    static Ptr<TrainingDriver> RunGraph(Ptr<MessageTransport> transport,
                                        const IterationGraph& graph,
                                        uint32_t iterations,
                                        const std::function<void()>& atStart = {});

    /**
     * \brief Run a set of jobs at once on one cluster: one TrainingDriver per graph
     * (place each job on its ranks with IterationGraph::Placed), all started at the same
     * time over the same transport, until every job is done. Jobs that share links or
     * NICs slow each other down exactly as their packets contend.
     * \return the drivers, in the order of `jobs`
     */
    static std::vector<Ptr<TrainingDriver>> RunJobs(
        Ptr<MessageTransport> transport,
        const std::vector<std::reference_wrapper<const IterationGraph>>& jobs,
        uint32_t iterations,
        const std::function<void()>& atStart = {});
};

} // namespace ns3

#endif // MLNET_TRAINING_RUNNER_H
