// SPDX-License-Identifier: GPL-2.0-only
/*
 * JobReplication: whether the jobs of a multi-job run are copies of one another that
 * cannot interact, so that one of them, simulated alone, stands for every one.
 *
 * Jobs placed on disjoint ranks (IterationGraph::Placed) run the same iteration graph.
 * Job k is an exact copy of job 0 when a one-to-one map of directed links takes the
 * route of every ordered pair of job 0's ranks (i, j) onto the route of job k's
 * (i, j), hop by hop, each link onto one of the same class, rate, propagation delay
 * and port buffer, and no directed link carries two jobs' routes. Then every frame,
 * acknowledgement and fluid transfer of job k meets what job 0's meets, on links no
 * other job touches: its iterations are job 0's to the picosecond, at either level.
 *
 * Routes are the transport's: the flow-hash path of the pair's flow key
 * (RoutePlanner::FlowPath). Where that path is not known ahead (a transport that picks
 * its ports at connect time, TCP; per-packet load balancing) the pair must have one
 * path only. Refused with the first reason found: placements that overlap or differ in
 * size, a shared link, a link whose class, rate, delay or buffer differs from its
 * image's, a pair with several possible paths, a link fault during the run (routes
 * change under the jobs), random loss or link jitter on a packet-level fabric (each
 * link draws its own numbers).
 *
 * Cost: every ordered pair of every job, O(jobs × ranks per job² × hops) path walks
 * (job 0's once per pair); two entries per directed link of the cluster and one per
 * link the jobs' routes cross.
 */
#ifndef MLNET_JOB_REPLICATION_H
#define MLNET_JOB_REPLICATION_H

#include "ns3/message-transport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Checks that jobs on a cluster are non-interacting copies of job 0.
 */
class JobReplication
{
public:
    /**
     * \brief Check the jobs' placements on the transport's cluster.
     * \param transport the installed transport the jobs run over (its flow keys choose
     *        the hashed paths; a FluidMessageTransport stands for its packet transport)
     * \param placements the global ranks of each job, job-local rank order (two or more
     *        jobs)
     * \return "" when job 0 simulated alone is every job's run, else why not (one line,
     *         naming the jobs, ranks or link concerned)
     */
    static std::string Check(Ptr<MessageTransport> transport,
                             const std::vector<std::vector<uint32_t>>& placements);
};

} // namespace ns3

#endif // MLNET_JOB_REPLICATION_H
