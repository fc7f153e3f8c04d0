// SPDX-License-Identifier: GPL-2.0-only
/*
 * ProcessRuntime: what the models need to know of the processes a run is split
 * over -- is the run distributed, which process is this, which one writes results --
 * and the element-wise reductions that merge per-process counts.
 *
 * A run is distributed when the ns-3 in use has its MPI module and the program was
 * started as more than one MPI process (DistributedSession, in helper/, sets that up
 * before any node exists). Against an ns-3 without MPI (Debian's package) every
 * query answers for one process and the reductions return their input.
 *
 * It sits in the model layer so that Collective (which starts only its local
 * members) and RunReport (which sums events and writes only from the root) depend on
 * nothing above them; the MPI set-up and the gathers of whole results stay in
 * DistributedSession.
 */
#ifndef MLNET_PROCESS_RUNTIME_H
#define MLNET_PROCESS_RUNTIME_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief The processes of a (possibly MPI-distributed) run, as the models see them.
 */
class ProcessRuntime
{
public:
    /**
     * Largest MTU at which real payloads (Collective::SetInput) may run distributed:
     * ns-3.37's MPI interfaces receive a packet into a 2000-byte buffer
     * (MAX_MPI_MSG_SIZE), header, tags and metadata included. Virtual payloads are not
     * serialized (a zero-filled area), so any MTU works for them.
     */
    static constexpr uint32_t kMaxRealPayloadMtu = 1500;

    /// \return true when the ns-3 in use was built with its MPI module
    static bool HasMpi();
    /// \return true when running as more than one MPI process
    static bool IsEnabled();
    /// \return this process's MPI rank (0 when not distributed)
    static uint32_t GetProcess();
    /// \return the number of MPI processes (1 when not distributed)
    static uint32_t GetProcessCount();
    /// \return true in the process that writes results (MPI rank 0)
    static bool IsRoot();

    /// \return element-wise sum over all processes
    static std::vector<uint64_t> SumAll(const std::vector<uint64_t>& values);
    /// \return element-wise maximum over all processes
    static std::vector<int64_t> MaxAll(const std::vector<int64_t>& values);
};

} // namespace ns3

#endif // MLNET_PROCESS_RUNTIME_H
