// SPDX-License-Identifier: GPL-2.0-only
// Collective validation: one collective on one fabric, packet-level and analytical,
// side by side — or, with --sweep, a documented grid of sizes and fabrics.
//
//   collective-validation --fabric=torus --torusDims=4x4 --collective=alltoall \
//       --algorithm=direct --bytes=256KiB --json=a2a.json
//   collective-validation --sweep --json=sweep.json      (writes sweep.png too)
//
// Sweep grid: sizes 4 KiB, 16 KiB, ..., 256 MiB (x4 steps) of ring all-reduce on an
// ideal switch (16 ranks), a 2-tier fat-tree (16 ranks) and a 4x4 torus, plus the
// torus algorithm on the torus.
#include "ns3/collective-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/plot-script.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"

#include <algorithm>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    FabricOptions fabric;
    CollectiveRunOptions run;
    bool sweep = false;
    std::string json;
    std::string csv;
    RunLevelOption level("collective-validation", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    fabric.AddToCommandLine(cmd);
    run.AddToCommandLine(cmd);
    cmd.AddValue("sweep", "run the documented grid of sizes x fabrics", sweep);
    cmd.AddValue("json", "write the results document to this file", json);
    cmd.AddValue("csv", "write the rows as CSV to this file", csv);

    RunReport report("collective-validation");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"fabric",
                       "collective",
                       "algorithm",
                       "ranks",
                       "bytes",
                       "simulated_s",
                       "analytical_s",
                       "error",
                       "busbw_gbps"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        fabric.transport = run.transport; // with the level, decides --dataPath=auto
        // The grid: (fabric options, run options) per point.
        std::vector<std::pair<FabricOptions, CollectiveRunOptions>> points;
        if (sweep)
        {
            const char* sizes[] =
                {"4KiB", "16KiB", "64KiB", "256KiB", "1MiB", "4MiB", "16MiB", "64MiB", "256MiB"};
            FabricOptions ideal = fabric;
            ideal.fabric = "ideal";
            ideal.ranks = 16;
            FabricOptions fatTree = ideal;
            fatTree.fabric = "fattree";
            FabricOptions torus = fabric;
            torus.fabric = "torus";
            torus.torusDims = "4x4";
            for (const char* size : sizes)
            {
                for (auto [f, algorithm] : {std::pair{ideal, "ring"},
                                            std::pair{fatTree, "ring"},
                                            std::pair{torus, "ring"},
                                            std::pair{torus, "torus"}})
                {
                    CollectiveRunOptions r = run;
                    r.collective = "allreduce";
                    r.algorithm = algorithm;
                    r.bytes = size;
                    points.emplace_back(f, r);
                }
            }
        }
        else
        {
            points.emplace_back(fabric, run);
        }
        const RunLevel runLevel = level.Get();
        report.SetMeta("level", ToString(runLevel));
        fabric.traces.DeclareOutputs({{"json", json}, {"csv", csv}}); // before the run
        for (auto& point : points)
        {
            point.first.level = runLevel; // at flow level: a fabric without devices
            point.second.level = runLevel;
        }
        for (size_t i = 0; i < points.size(); ++i)
        {
            const auto& [f, r] = points[i];
            if (points.size() > 1)
            {
                std::cerr << "[" << i + 1 << "/" << points.size() << "] " << f.Label() << " "
                          << r.collective << "/" << r.algorithm << " " << r.bytes << std::endl;
            }
            Ptr<Cluster> cluster = f.Build();
            nlohmann::json row = CollectiveRunner::Run(cluster, r).ToJson();
            row["fabric"] = f.Label();
            row["transport"] = r.transport;
            row["failed_links"] = static_cast<uint32_t>(std::count_if(
                cluster->GetLinks().begin(),
                cluster->GetLinks().end(),
                [](const ClusterLink& l) { return l.failed; })); // --fail and --failLinks
            report.Add(row);
            report.CloseSimulation();
            Simulator::Destroy();
        }
        report.Finish(std::cout, json, csv);
        if (sweep && !json.empty())
        {
            std::string png = json.substr(0, json.rfind('.')) + ".png";
            if (PlotScript::Draw("collective-validation", json, png))
            {
                std::cout << "plot: " << png << std::endl;
            }
        }
    });
}
