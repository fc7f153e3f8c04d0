// SPDX-License-Identifier: GPL-2.0-only
/*
 * TrainingRunner: a data-parallel training workload (TrainingWorkload, a JSON
 * file) run for N iterations on a cluster at packet level by the TrainingDriver,
 * with the analytical iteration time beside it: the same iteration graph timed by
 * IterationGraph::Estimate with each bucket's all-reduce predicted by the
 * AlphaBetaModel on the same cluster and transport packetization.
 *
 * Optionally (ConvergedReuse, off by default) the driver stops simulating once
 * iterations have converged and reports the rest as copies (TrainingDriver's
 * ReuseConverged); the runner blocks it when a link has a receive error model
 * (random loss), several jobs share the fabric or the scenario schedules events
 * of its own (atStart), and holds it off until the fabric's last timed fault and
 * its route convergence (FaultPlan) are past.
 *
 * Several copies of the workload (JobSet) run side by side on disjoint ranks, each job
 * on ranks / count of them; with JobSet::replicate, job 0 runs alone and stands for
 * every job where JobReplication::Check proves the jobs cannot interact.
 */
#ifndef MLNET_TRAINING_RUNNER_H
#define MLNET_TRAINING_RUNNER_H

#include "ns3/cluster.h"
#include "ns3/iteration-graph.h"
#include "ns3/message-transport.h"
#include "ns3/run-health.h"
#include "ns3/run-level.h"
#include "ns3/training-driver.h"
#include "ns3/training-workload.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Converged-iteration reuse: the TrainingDriver attributes ReuseConverged,
 * ConvergedIterations and ConvergedTolerance, as one option.
 */
struct ConvergedReuse
{
    bool enabled{false};    //!< reuse converged iterations (off: every iteration simulated)
    uint32_t iterations{3}; //!< iterations in a row that must agree (>= 2)
    Time tolerance{0};      //!< largest difference from the last one's duration

    /// \brief Set the driver's attributes from this option.
    void Configure(Ptr<TrainingDriver> driver) const;
    /// \return "" when reuse may apply to this cluster, else why not (random loss)
    static std::string Blocker(Ptr<Cluster> cluster);
    /// \return the time after which the cluster's FaultPlan changes nothing more: its
    /// last fault during the run plus the route convergence (0: none)
    static Time Horizon(Ptr<Cluster> cluster);
};

/**
 * \brief Copies of one workload on one cluster: how many, on which ranks, and whether
 * one is simulated for all of them.
 */
struct JobSet
{
    uint32_t count{1};              //!< jobs, each on (cluster ranks) / count ranks
    std::string placement{"block"}; //!< block | strided (see Placements)
    /// simulate job 0 alone for every job (refused unless JobReplication::Check passes)
    bool replicate{false};

    /**
     * \brief Each job's ranks, in job-local rank order: "block" gives job k the ranks
     * k·m .. k·m + m − 1 (m = n / count), "strided" the ranks k, k + count, k + 2·count, ...
     * Throws std::invalid_argument for a count of 0, a count that does not divide n, or
     * an unknown placement.
     * \param n the cluster's ranks
     */
    std::vector<std::vector<uint32_t>> Placements(uint32_t n) const;
};

/**
 * \brief What a training run measured.
 */
struct TrainingRunResult
{
    /// every job's iterations, job 0 first (one entry for a single job; with
    /// replication, job 0's records for every job)
    std::vector<std::vector<IterationRecord>> jobIterations;
    double analyticalIterationS{0};                   //!< analytical iteration time (s)
    std::map<std::string, uint64_t> bytesByLinkClass; //!< wire bytes per link class
    bool reuse{false};                                //!< converged-iteration reuse was enabled
    uint32_t extrapolatedIterations{0}; //!< iterations reported as copies, not simulated
    std::string reuseNote;              //!< what reuse did, or why it did not apply
    RunHealth health;                   //!< the packet run's health (RunHealth::Measure)
    JobSet jobs;                        //!< the jobs run
    uint32_t ranksPerJob{0};            //!< ranks of each job
    /// "off", or why job 0 stands for every job (JobSet::replicate)
    std::string replication{"off"};

    /// \return job 0's iterations (the only job's, for a single job; empty before a run)
    const std::vector<IterationRecord>& Iterations() const;
    /// \return one JSON row per iteration (iteration, iteration_s, analytical_iteration_s,
    /// error; with reuse enabled also extrapolated; with several jobs one row per job and
    /// iteration, with its job)
    nlohmann::json IterationRows() const;
    /// \return the "jobs" document field: count, placement, ranks per job, replication,
    /// and what the byte totals and health cover
    nlohmann::json JobsJson() const;
    /// \return the "converged_reuse" document field (enabled, extrapolated and simulated
    /// iterations, note, what the byte totals cover)
    nlohmann::json ReuseJson() const;
    /**
     * \return the run's health object (RunHealth::Annotate over the mean iteration,
     * twin_gap inside), labelled `run` in its warning: a report's "health" section
     */
    nlohmann::json HealthJson(const std::string& run) const;
};

/**
 * \brief Runs a TrainingWorkload on a cluster, packet-level and analytical.
 */
class TrainingRunner
{
public:
    /**
     * \brief Run `iterations` iterations until done (the caller destroys the simulator).
     * \param transport roce | udp | tcp | dctcp (see TransportChoice)
     * \param level packet, or flow: the same driver and collectives over a
     *        FluidMessageTransport standing in for the transport
     * \param jobs copies of the workload side by side (default: one on every rank)
     * Throws std::invalid_argument for workloads that do not fit the cluster, and for
     * replicated jobs that could interact (JobReplication::Check's reason).
     */
    static TrainingRunResult Run(Ptr<Cluster> cluster,
                                 const TrainingWorkload& workload,
                                 const std::string& transport,
                                 uint32_t iterations,
                                 const ConvergedReuse& reuse = {},
                                 RunLevel level = RunLevel::PACKET,
                                 const JobSet& jobs = {});

    /**
     * \brief Run any iteration graph: a TrainingDriver over the installed transport
     * (packets, or fluid flows at the flow level: FluidMessageTransport) (collectives made by
     * CollectiveFactory), `iterations` times back to back, until it is done or the simulation runs
     * out of events. This is the one place where a TrainingDriver is wired; every scenario that
     * trains calls it. \param transport a transport installed on the cluster \param graph the
     * iteration to run \param iterations how many (0 keeps the driver's default attribute) \param
     * atStart called after the driver started, before Simulator::Run (to schedule mid-run events);
     * may be empty \param reuse converged-iteration reuse (off by default) \return the driver, for
     * its records (the caller destroys the simulator)
     */
    static Ptr<TrainingDriver> RunGraph(Ptr<MessageTransport> transport,
                                        const IterationGraph& graph,
                                        uint32_t iterations,
                                        const std::function<void()>& atStart = {},
                                        const ConvergedReuse& reuse = {});

    /**
     * \brief Run a set of jobs at once on one cluster: one TrainingDriver per graph
     * (place each job on its ranks with IterationGraph::Placed), all started at the same
     * time over the same transport, until every job is done. Jobs that share links or
     * NICs slow each other down exactly as their packets contend. Converged-iteration
     * reuse applies to a single job only (jobs' iterations interleave).
     * \return the drivers, in the order of `jobs`
     */
    static std::vector<Ptr<TrainingDriver>> RunJobs(
        Ptr<MessageTransport> transport,
        const std::vector<std::reference_wrapper<const IterationGraph>>& jobs,
        uint32_t iterations,
        const std::function<void()>& atStart = {},
        const ConvergedReuse& reuse = {});
};

} // namespace ns3

#endif // MLNET_TRAINING_RUNNER_H
