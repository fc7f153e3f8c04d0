// SPDX-License-Identifier: GPL-2.0-only
// Route computation alone: wall and CPU time of RoutePlanner::Compute on one fabric
// built without devices (as the flow level builds it), and the tables it leaves.
//
//   bench/route-bench [--fabric=rail-optimized] [--ranks=1024] [--domainSize=8]
//       [--radix=0] [--repeat=1]
//
// Builds the fabric by name (FabricRegistry, data path "none"; the build computes the
// tables once), then computes them again `repeat` times on a fresh planner and prints
// the fastest, with the representative rows, exceptions, sets and table bytes.
#include "ns3/core-module.h"
#include "ns3/fabric-registry.h"
#include "ns3/route-planner.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

using namespace ns3;

namespace
{

/// CPU seconds of the process so far (user + system).
double
CpuNow()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

} // namespace

int
main(int argc, char* argv[])
{
    FabricRequest request;
    request.fabric = "rail-optimized";
    request.ranks = 1024;
    request.domainSize = 8;
    request.dataPath = "none";
    uint32_t repeat = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("fabric", "registered fabric name", request.fabric);
    cmd.AddValue("ranks", "ranks (GPUs) of the fabric", request.ranks);
    cmd.AddValue("domainSize", "GPUs per HB domain (rail fabrics)", request.domainSize);
    cmd.AddValue("radix", "switch radix (0: the fabric's default)", request.radix);
    cmd.AddValue("repeat", "computations timed after the build's own", repeat);
    cmd.Parse(argc, argv);
    try
    {
        auto t0 = std::chrono::steady_clock::now();
        Ptr<Cluster> cluster = FabricRegistry::Build(request);
        const double build =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        double best = 1e300;
        double bestCpu = 1e300;
        RoutePlanner planner(cluster);
        for (uint32_t i = 0; i < repeat; ++i)
        {
            auto w0 = std::chrono::steady_clock::now();
            const double c0 = CpuNow();
            planner.Compute();
            best = std::min(
                best,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
            bestCpu = std::min(bestCpu, CpuNow() - c0);
        }
        std::printf("%s ranks %u nodes %u links %zu: build (with routes) %.3f s, compute "
                    "%.3f s wall %.3f s CPU (best of %u); rows %u, sets %u, table %.1f MB\n",
                    request.fabric.c_str(),
                    cluster->GetNRanks(),
                    cluster->GetAllNodes().GetN(),
                    cluster->GetLinks().size(),
                    build,
                    best,
                    bestCpu,
                    repeat,
                    planner.GetNRepresentatives(),
                    planner.GetNSets(),
                    static_cast<double>(planner.GetTableBytes()) / 1e6);
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    Simulator::Destroy();
    return 0;
}
