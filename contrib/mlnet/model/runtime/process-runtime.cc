// SPDX-License-Identifier: GPL-2.0-only
#include "process-runtime.h"

#include <type_traits>

#ifdef MLNET_HAVE_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace ns3
{

bool
ProcessRuntime::HasMpi()
{
#ifdef MLNET_HAVE_MPI
    return true;
#else
    return false;
#endif
}

bool
ProcessRuntime::IsEnabled()
{
#ifdef MLNET_HAVE_MPI
    return MpiInterface::IsEnabled() && MpiInterface::GetSize() > 1;
#else
    return false;
#endif
}

uint32_t
ProcessRuntime::GetProcess()
{
#ifdef MLNET_HAVE_MPI
    return IsEnabled() ? MpiInterface::GetSystemId() : 0;
#else
    return 0;
#endif
}

uint32_t
ProcessRuntime::GetProcessCount()
{
#ifdef MLNET_HAVE_MPI
    return IsEnabled() ? MpiInterface::GetSize() : 1;
#else
    return 1;
#endif
}

bool
ProcessRuntime::IsRoot()
{
    return GetProcess() == 0;
}

namespace
{

/// Element-wise MPI_Allreduce of `values` over all processes (a copy when not distributed).
template <typename T>
std::vector<T>
AllReduce(const std::vector<T>& values, [[maybe_unused]] bool max)
{
    std::vector<T> out(values);
#ifdef MLNET_HAVE_MPI
    if (ProcessRuntime::IsEnabled() && !values.empty())
    {
        MPI_Allreduce(values.data(),
                      out.data(),
                      static_cast<int>(values.size()),
                      std::is_signed_v<T> ? MPI_INT64_T : MPI_UINT64_T,
                      max ? MPI_MAX : MPI_SUM,
                      MpiInterface::GetCommunicator());
    }
#endif
    return out;
}

} // namespace

std::vector<uint64_t>
ProcessRuntime::SumAll(const std::vector<uint64_t>& values)
{
    return AllReduce(values, false);
}

std::vector<int64_t>
ProcessRuntime::MaxAll(const std::vector<int64_t>& values)
{
    return AllReduce(values, true);
}

} // namespace ns3
