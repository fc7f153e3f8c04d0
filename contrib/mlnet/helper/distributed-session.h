// SPDX-License-Identifier: GPL-2.0-only
/*
 * DistributedSession: one scenario run as several MPI processes with ns-3's own
 * distributed simulator.
 *
 * Every process builds the whole fabric (same nodes, same ids); a fabric helper told
 * the number of processes (FabricHelper::SetPartitions) gives each node a system id
 * (its partition: a fat-tree pod or leaf, an HB domain, ...), and ns-3's
 * PointToPointHelper turns every link whose ends lie in different partitions into a
 * PointToPointRemoteChannel. A process executes only the events of its own nodes;
 * packets crossing a cut link travel as MPI messages. The synchronisation window
 * (lookahead) is the smallest propagation delay of a cut link.
 *
 * Collectives start and progress only their members whose node is local
 * (Collective), so each process ends with part of the picture: its members' finish
 * times and the traffic of its own devices. The gather functions here merge those
 * parts over MPI so that every process ends with the whole result.
 *
 * Built against an ns-3 without MPI (Debian's package), the session is a
 * one-process run: IsEnabled() is false and the gathers return their input; started
 * under mpirun with more than one process, the constructor throws with the fix.
 */
#ifndef MLNET_DISTRIBUTED_SESSION_H
#define MLNET_DISTRIBUTED_SESSION_H

#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/nstime.h"
#include "ns3/process-runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief What a distributed run of one collective measured, merged over processes.
 */
struct GatheredCollective
{
    bool done{false};             //!< every member finished (in whichever process)
    Time start;                   //!< Start() time (the same in every process)
    Time end;                     //!< time the last member finished
    std::vector<Time> memberEnds; //!< finish time of each member (zero if it did not)
};

/**
 * \brief MPI set-up, partition count and result gathering of a distributed run.
 *
 * The process queries and reductions (IsEnabled, GetProcessCount, IsRoot, SumAll,
 * MaxAll, kMaxRealPayloadMtu) are ProcessRuntime's, which the models use directly.
 */
class DistributedSession : public ProcessRuntime
{
public:
    /**
     * \brief Start MPI when this ns-3 has it and the program runs as more than one
     * MPI process; otherwise a one-process session.
     *
     * The simulator is ns3::DistributedSimulatorImpl: conservative, synchronous time
     * windows of one lookahead, ended when every process has run out of events. (ns-3's
     * null-message simulator cannot detect that end by itself, and a fabric whose
     * spines are dealt to every process connects all processes, the case where ns-3's
     * documentation finds the synchronous windows no worse.) Must be created before any
     * node or Simulator call.
     * \param argc main's argc (MPI may consume its own arguments)
     * \param argv main's argv
     * Throws std::invalid_argument when started by mpirun with several processes
     * against an ns-3 built without MPI.
     */
    DistributedSession(int* argc, char*** argv);
    /// Finalizes MPI if this session enabled it.
    ~DistributedSession();
    DistributedSession(const DistributedSession&) = delete;
    DistributedSession& operator=(const DistributedSession&) = delete;

    /**
     * \brief Merge one collective's finish times over all processes (every process
     * must call it for the same collectives in the same order).
     */
    static GatheredCollective Gather(Ptr<const Collective> collective);
    /**
     * \brief Replace every link's byte and packet counters by their sums over all
     * processes (each process counted only what its own devices sent).
     */
    static void MergeLinkCounters(Ptr<Cluster> cluster);

private:
    bool m_enabled{false};
};

} // namespace ns3

#endif // MLNET_DISTRIBUTED_SESSION_H
