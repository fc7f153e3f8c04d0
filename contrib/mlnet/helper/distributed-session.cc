// SPDX-License-Identifier: GPL-2.0-only
#include "distributed-session.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#ifdef MLNET_HAVE_MPI
#include "ns3/mpi-interface.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetDistributedSession");

namespace
{

/// Number of processes mpirun (Open MPI, MPICH/Slurm PMI, PMIx) says it started, or 1.
uint32_t
LauncherProcessCount()
{
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    {
        if (const char* v = std::getenv(var))
        {
            return std::max<uint32_t>(1, static_cast<uint32_t>(std::strtoul(v, nullptr, 10)));
        }
    }
    return 1;
}
} // namespace

DistributedSession::DistributedSession(int* argc, char*** argv)
{
    uint32_t launched = LauncherProcessCount();
    if (launched <= 1)
    {
        return; // one process: ns-3's default simulator, nothing to set up
    }
#ifdef MLNET_HAVE_MPI
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
    m_enabled = true;
    NS_LOG_INFO("process " << MpiInterface::GetSystemId() << " of " << MpiInterface::GetSize());
#else
    (void)argc;
    (void)argv;
    throw std::invalid_argument(
        "started as " + std::to_string(launched) +
        " MPI processes, but this build uses an ns-3 without MPI (Debian's package); run "
        "./utils/setup.sh --optimized and ./utils/build.sh --optimized, then start the "
        "program from build-optimized/");
#endif
}

DistributedSession::~DistributedSession()
{
#ifdef MLNET_HAVE_MPI
    if (m_enabled)
    {
        MpiInterface::Disable();
    }
#endif
}

GatheredCollective
DistributedSession::Gather(Ptr<const Collective> collective)
{
    const uint32_t n = static_cast<uint32_t>(collective->GetRanks().size());
    // Each member is local to exactly one process, which alone knows its finish time;
    // the others hold -1. The last slot carries "some local member is unfinished".
    std::vector<int64_t> local(n + 1, -1);
    bool localPending = false;
    for (uint32_t m = 0; m < n; ++m)
    {
        if (collective->IsMemberDone(m))
        {
            local[m] = collective->GetMemberEnd(m).GetTimeStep();
        }
        else if (collective->IsLocalMember(m))
        {
            localPending = true;
        }
    }
    local[n] = localPending ? 1 : 0;
    std::vector<int64_t> all = MaxAll(local);
    GatheredCollective g;
    g.start = collective->GetRecord().start;
    g.done = all[n] == 0;
    g.memberEnds.resize(n);
    int64_t last = 0;
    for (uint32_t m = 0; m < n; ++m)
    {
        g.memberEnds[m] = all[m] < 0 ? Time(0) : TimeStep(all[m]);
        last = std::max(last, all[m]);
    }
    g.end = TimeStep(last);
    return g;
}

void
DistributedSession::MergeLinkCounters(Ptr<Cluster> cluster)
{
    if (!IsEnabled())
    {
        return;
    }
    const auto& links = cluster->GetLinks();
    std::vector<uint64_t> counters;
    counters.reserve(links.size() * 4);
    for (const ClusterLink& l : links)
    {
        counters.insert(counters.end(), {l.bytesAtoB, l.bytesBtoA, l.packetsAtoB, l.packetsBtoA});
    }
    std::vector<uint64_t> sum = SumAll(counters);
    for (uint32_t i = 0; i < links.size(); ++i)
    {
        cluster->SetLinkCounters(i, sum[4 * i], sum[4 * i + 1], sum[4 * i + 2], sum[4 * i + 3]);
    }
}

} // namespace ns3
