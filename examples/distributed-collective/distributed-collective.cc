// SPDX-License-Identifier: GPL-2.0-only
// Distributed collective: one collective (or one per rail, concurrently) on a fat-tree,
// an ideal switch or a rail-only fabric, run as one process or split over MPI processes
// with ns-3's distributed simulator. The results are the same either way; only the wall
// time changes. MPI needs the optimized ns-3 (./utils/setup.sh --optimized) and a build
// against it (./utils/build.sh --optimized → build-optimized/).
//
//   distributed-collective --fabric=fattree --ranks=16 --bytes=8MiB
//   mpirun -np 2 distributed-collective --fabric=fattree --ranks=16 --bytes=8MiB
//   mpirun -np 4 distributed-collective --fabric=railonly --domains=4 --domainSize=8 \
//       --communicators=rails --json=rails.json
//
// Partitions: a 2-tier fat-tree by leaf, a 3-tier one by pod, a rail fabric by HB
// domain (spines, cores and rail switches round-robin). --fabric takes fattree, ideal or
// railonly here, and the data path is fast by default. Only MPI rank 0 prints and
// writes files.
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/distributed-session.h"
#include "ns3/fabric-options.h"
#include "ns3/rail-fabric-helper.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    FabricOptions fabric;
    fabric.fabric = "fattree";
    fabric.ranks = 16;
    fabric.fabricHelp = "fabric: " + FabricRegistry::NameList() +
                        "; rail-only (or railonly) is --domains x --domainSize GPUs";
    fabric.extraFabrics = {"railonly"};
    CollectiveRunOptions run;
    uint32_t domains = 4;
    uint32_t domainSize = 8;
    std::string communicators = "all";
    std::string json;
    std::string csv;
    RunLevelOption level("distributed-collective", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    fabric.AddToCommandLine(cmd);
    run.AddToCommandLine(cmd);
    cmd.AddValue("domains",
                 "railonly: HB domains, at least 1 (domains x domainSize at most " +
                     std::to_string(FabricOptions::MAX_RANKS) + ")",
                 domains,
                 1,
                 FabricOptions::MAX_RANKS);
    cmd.AddValue("domainSize",
                 "railonly: GPUs per HB domain (= rails), at least 1",
                 domainSize,
                 1,
                 FabricOptions::MAX_RANKS);
    cmd.AddChoice("communicators",
                  "all (one collective over every rank) | rails (railonly: one per rail, "
                  "concurrently)",
                  communicators,
                  {"all", "rails"});
    cmd.AddValue("json", "write the results document to this file", json);
    cmd.AddValue("csv", "write the rows as CSV to this file", csv);
    // Frames reaching a node at the same instant are handled in device order rather
    // than in event order, which depends on the split: one process and N give the same
    // times (fast data path; --dataPath=ipv4 keeps ns-3's event order).
    Config::SetDefault("ns3::FastForwarding::OrderSimultaneousArrivals", BooleanValue(true));

    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        fabric.traces.DeclareOutputs({{"json", json}, {"csv", csv}});
        DistributedSession session(&argc, &argv);
        RunReport report("distributed-collective");
        report.SetCommandLine(argc, argv);
        run.level = level.Get();
        fabric.level = run.level; // auto: the fast path, or no devices at the flow level
        if (run.level == RunLevel::FLOW && DistributedSession::GetProcessCount() > 1)
        {
            throw std::invalid_argument("--level=flow runs in one process (the fluid needs "
                                        "every flow at once); run it without mpirun");
        }
        report.SetMeta("level", ToString(run.level));
        report.SetColumns({"communicator",
                           "collective",
                           "algorithm",
                           "ranks",
                           "bytes",
                           "simulated_s",
                           "analytical_s",
                           "error"});

        Ptr<Cluster> cluster;
        std::vector<std::vector<uint32_t>> groups;
        if (fabric.fabric == "railonly" || fabric.fabric == "rail-only")
        {
            FabricRequest request = fabric.Request();
            request.fabric = "rail-only";
            FabricOptions::CheckRankCount("--domains x --domainSize",
                                          uint64_t(domains) * domainSize);
            request.ranks = domains * domainSize;
            request.domainSize = domainSize;
            std::shared_ptr<FabricHelper> helper;
            cluster = fabric.Build(request, &helper);
            auto rails = std::dynamic_pointer_cast<RailFabricHelper>(helper);
            for (uint32_t r = 0; communicators == "rails" && r < domainSize; ++r)
            {
                groups.emplace_back();
                for (uint32_t d = 0; d < domains; ++d)
                {
                    groups.back().push_back(rails->GetRank(d, r));
                }
            }
        }
        else
        {
            cluster = fabric.Build();
        }
        if (communicators == "all")
        {
            groups.assign(1, std::vector<uint32_t>(cluster->GetNRanks()));
            for (uint32_t r = 0; r < cluster->GetNRanks(); ++r)
            {
                groups[0][r] = r;
            }
        }
        else if (groups.empty())
        {
            throw std::invalid_argument("unknown --communicators='" + communicators +
                                        "'; valid: all, rails (rails needs --fabric=railonly)");
        }

        auto results = CollectiveRunner::RunGroups(cluster, run, groups);
        report.SetFabricSpec(cluster->GetFabricSpec());
        report.SetMeta("processes", DistributedSession::GetProcessCount());
        for (size_t g = 0; g < results.size(); ++g)
        {
            nlohmann::json row = results[g].ToJson();
            row["communicator"] = groups.size() == 1 ? "all" : "rail " + std::to_string(g);
            row["transport"] = run.transport;
            report.Add(row);
        }
        report.CloseSimulation();
        Simulator::Destroy();
        report.Finish(std::cout, json, csv);
    });
}
