// SPDX-License-Identifier: GPL-2.0-only
// TopoOpt's co-optimization for one job: the strategy search (MCMC over embedding
// placements) alternating with the topology finder; writes the plan and prints its
// degree, diameter, rings and the predicted iteration time. The plan written holds
// the circuits and rings (what a fabric is built from); with --routes it also holds a
// route for every server pair (the finder's ring and model-parallel routes, BFS
// shortest paths for the rest), which costs O(n^2) time, memory and file size.
//
//   topoopt-plan --servers=128 --degree=8 --model=dlrm --bandwidth=100Gbps \
//       --RngRun=1 --json=plan.json
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/model-profile.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"
#include "ns3/topoopt-job-options.h"
#include "ns3/topoopt-search.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t servers = 16;
    uint32_t degree = 4;
    uint32_t ports = 0;
    std::string model = "dlrm";
    std::string profileFile;
    std::string bandwidth = "25Gbps";
    uint32_t budget = 100;
    std::string json;
    bool routes = false;
    RunLevelOption level("topoopt-plan", {RunLevel::ANALYTIC});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("servers", "servers n (even, 2..4096)", servers, 2, TopologyPlan::MAX_SERVERS);
    cmd.AddValue("degree", "optical ports used per server d (1..64)", degree, 1, 64);
    cmd.AddValue("ports", "NIC ports per server (0: = degree; at most 64)", ports, 0, 64);
    TopoOptJobOptions::AddModel(cmd, model);
    cmd.AddValue("profile", "model profile file (overrides --model)", profileFile);
    cmd.AddRate("bandwidth", "bandwidth per port", bandwidth);
    cmd.AddValue("budget",
                 "MCMC steps of the strategy search (at most 1000000)",
                 budget,
                 0,
                 1000000);
    cmd.AddValue("json", "write the report (plan under \"plan\") to this file", json);
    cmd.AddValue("routes",
                 "write a route for every server pair in the plan (O(n^2); without it the plan "
                 "holds circuits and rings, and the fabric routes along shortest paths)",
                 routes);

    RunReport report("topoopt-plan");
    report.SetCommandLine(argc, argv);
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        OutputFiles::Declare({{"json", json}});
        report.SetMeta("level", ToString(level.Get()));
        TopoOptJobOptions::CheckSize("--servers", servers, degree, ports);
        ModelProfile profile = profileFile.empty() ? ModelProfile::FromName(model)
                                                   : ModelProfile::FromFile(profileFile);
        Ptr<TopoOptSearch> search = CreateObject<TopoOptSearch>();
        search->SetAttribute("Degree", UintegerValue(degree));
        search->SetAttribute("LinkRate", DataRateValue(ParseDataRate(bandwidth)));
        search->SetAttribute("Budget", UintegerValue(budget));
        search->AssignStreams(0);
        SearchResult r = search->Run(profile, servers);
        if (routes)
        {
            // The search's own routes (rings, model-parallel pairs) stay; every other pair
            // gets a BFS shortest path drawn from a stream of its own.
            Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
            rng->SetStream(2);
            r.plan.AddShortestPathRoutes(rng);
        }
        else
        {
            r.plan.ClearRoutes();
        }

        std::cout << "model " << profile.GetName() << ", " << servers << " servers, degree "
                  << r.plan.GetDegree() << ", diameter " << r.plan.Diameter() << "\n";
        nlohmann::json rings = nlohmann::json::array();
        for (const auto& ring : r.plan.GetRings())
        {
            std::cout << "ring: size " << ring.size << " jumps";
            for (uint32_t j : ring.jumps)
            {
                std::cout << " " << j;
            }
            std::cout << (ring.direct ? " (direct)" : " (routed)") << "\n";
            rings.push_back({{"size", ring.size}, {"jumps", ring.jumps}, {"direct", ring.direct}});
        }
        uint32_t placed = 0;
        for (uint32_t i = 0; i < r.strategy.GetNLayers(); ++i)
        {
            placed += r.strategy.GetPlacement(i) != ParallelStrategy::DATA_PARALLEL ? 1 : 0;
        }
        std::cout << "strategy: " << placed << " of " << profile.GetEmbeddingLayers().size()
                  << " embedding layers placed, " << r.steps << " steps, " << r.accepted
                  << " accepted, " << r.rebuilds << " topology rebuilds\n"
                  << "predicted iteration: " << r.cost.total << " s (compute " << r.cost.compute
                  << ", all-reduce " << r.cost.allReduce << ", model parallel "
                  << r.cost.modelParallel << "); start " << r.startCost.total << " s\n"
                  << "degree split: " << (r.finder.releasedSplitChosen ? "released" : "fixed")
                  << " (d_A " << r.finder.degreeAllReduce << " of " << degree << ")\n";
        report.SetColumns({"model", "servers", "degree", "diameter", "predicted_iteration_s"});
        report.Add({{"model", profile.GetName()},
                    {"servers", servers},
                    {"degree", r.plan.GetDegree()},
                    {"diameter", r.plan.Diameter()},
                    {"rings", rings},
                    {"predicted_iteration_s", r.cost.total},
                    {"compute_s", r.cost.compute},
                    {"allreduce_s", r.cost.allReduce},
                    {"model_parallel_s", r.cost.modelParallel},
                    {"start_iteration_s", r.startCost.total},
                    {"steps", r.steps},
                    {"accepted", r.accepted},
                    {"rebuilds", r.rebuilds},
                    {"degree_split", r.finder.releasedSplitChosen ? "released" : "fixed"},
                    {"degree_allreduce", r.finder.degreeAllReduce},
                    {"routes", r.plan.GetRouteCount()},
                    {"boost_matchings", r.finder.boostMatchings}});
        report.Set("plan", r.plan.ToJsonValue());
        report.Set("strategy", r.strategy.ToJson(profile));
        report.Finish(std::cout, json);
    });
}
