// SPDX-License-Identifier: GPL-2.0-only
/*
 * CollectiveRunner: one collective on one cluster, at packet level and with its
 * analytical twin, or at flow level, as a single call — what a validation scenario
 * repeats for every point of its grid. It creates the transport (at flow level a
 * FluidMessageTransport standing in for it), the collective (CollectiveFactory) and
 * the AlphaBetaModel, runs the simulator until the collective finishes, and returns
 * the simulated time, the twin's time and their signed error (packet level), and
 * the traffic. With real payloads it also checks the result against an exact
 * reference.
 */
#ifndef MLNET_COLLECTIVE_RUNNER_H
#define MLNET_COLLECTIVE_RUNNER_H

#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/message-transport.h"
#include "ns3/run-health.h"
#include "ns3/run-level.h"
#include "ns3/scenario-command-line.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \brief Which collective to run and how, with its command-line flags.
 */
struct CollectiveRunOptions
{
    /// Largest --bytes a flag may ask for (16 GiB per rank).
    static constexpr uint64_t MAX_BYTES = 16ull << 30;

    std::string collective{
        "allreduce"}; //!< allreduce | allgather | reducescatter | alltoall | broadcast | sendrecv
    std::string algorithm{"ring"}; //!< ring | hd | torus | hierarchical | pairwise | direct
    uint32_t groupSize{0};         //!< hierarchical: ranks per group (0: the fabric's HB domain)
    std::string bytes{
        "8MiB"}; //!< size (see Collective: per-rank vector, or per pair for all-to-all)
    std::string transport{"udp"};     //!< udp | tcp | dctcp | roce
    bool real{false};                 //!< carry real float values and check the result
    RunLevel level{RunLevel::PACKET}; //!< packet (twin beside) or flow (FluidMessageTransport)

    /// \brief Register --collective, --algorithm, --groupSize, --bytes, --transport, --real.
    void AddToCommandLine(ScenarioCommandLine& cmd);
};

/**
 * \brief What one run measured.
 */
struct CollectiveRunResult
{
    CollectiveRecord record;    //!< start, end, bytes, names
    double simulatedS{0};       //!< completion time at the run's level (s)
    double analyticalS{0};      //!< alpha-beta twin, following dependencies (s)
    double lockStepS{0};        //!< alpha-beta twin, steps in lock-step (s)
    double error{0};            //!< (simulated - analytical) / simulated
    double busBandwidthGbps{0}; //!< nccl-tests bus bandwidth of the run
    uint64_t linkBytes{0};      //!< wire bytes over all links
    std::map<std::string, uint64_t> bytesByLinkClass; //!< wire bytes per link class
    uint64_t events{0};                               //!< simulator events of this run
    double wallS{0};                                  //!< wall seconds of this run (build excluded)
    int realCorrect{-1};                              //!< 1 exact, 0 wrong, -1 not checked
    std::vector<Time> memberEnds;     //!< when each member finished (all processes merged)
    RunLevel level{RunLevel::PACKET}; //!< flow: fluid run, no twin beside it (nulls)
    RunHealth health;                 //!< the packet run's health (RunHealth::Measure)
    std::string run;                  //!< label of warnings: fabric/collective/algorithm

    /// \return the result as a JSON row (wall-clock fields under "wall_s" only)
    nlohmann::json ToJson() const;
};

/**
 * \brief Runs one collective, packet-level and analytical.
 */
class CollectiveRunner
{
public:
    /**
     * \brief Run a collective over all ranks of the cluster, until it finishes.
     * The caller destroys the simulator afterwards (Simulator::Destroy).
     * Throws std::invalid_argument for impossible combinations.
     */
    static CollectiveRunResult Run(Ptr<Cluster> cluster, const CollectiveRunOptions& options);
    /**
     * \brief Run one collective per communicator, all started together, until all finish
     * (e.g. one ring per rail). Each result has its own times and twin (the twin sees
     * its collective alone); traffic, events and wall time are the run's, the same in
     * every result. In a distributed run (DistributedSession) every process returns the
     * merged results. Throws std::invalid_argument for impossible combinations.
     */
    static std::vector<CollectiveRunResult> RunGroups(
        Ptr<Cluster> cluster,
        const CollectiveRunOptions& options,
        const std::vector<std::vector<uint32_t>>& communicators);
};

} // namespace ns3

#endif // MLNET_COLLECTIVE_RUNNER_H
