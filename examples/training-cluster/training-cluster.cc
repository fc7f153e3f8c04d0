// SPDX-License-Identifier: GPL-2.0-only
// The default scenario: one training job (BERT, data-parallel, scaled down) on a
// fat-tree, TopoOpt over optical circuits and rail-only with HB domains, packet level
// with the analytical time beside it, network cost and power, bytes by link class and
// Checkmate's checkpoint interval. The logic is TrainingClusterRunner (contrib/scenarios).
//
//   training-cluster --model=bert --scale=0.1 --gpus=16 --bandwidth=100Gbps \
//       --fabrics=fattree,topoopt,railonly --out=results/training-cluster
#include "ns3/core-module.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-options.h"
#include "ns3/plot-script.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"
#include "ns3/topoopt-job-options.h"
#include "ns3/training-cluster-runner.h"
#include "ns3/transport-choice.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    TrainingClusterConfig config;
    std::string bandwidth = "100Gbps";
    std::string hbRate = "800Gbps";
    std::string fabrics = "fattree,topoopt,railonly";
    std::string out = "results/training-cluster";
    std::string json;
    std::string csv;
    bool plot = true;
    RunLevelOption level("training-cluster", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    TopoOptJobOptions::AddModel(cmd, config.model);
    cmd.AddValue("profile", "model profile file (overrides --model)", config.profileFile);
    cmd.AddValue("scale",
                 "factor on the model's bytes and compute times, in (0, 100]",
                 config.scale,
                 0,
                 100,
                 true);
    cmd.AddValue("gpus",
                 "GPUs (= servers), even, 2..32768",
                 config.gpus,
                 2,
                 FabricOptions::MAX_RANKS);
    cmd.AddRate("bandwidth", "network bandwidth per GPU (TopoOpt: split over --degree)", bandwidth);
    cmd.AddValue("degree", "TopoOpt optical ports per server (1..64)", config.degree, 1, 64);
    cmd.AddValue("hbDomain",
                 "rail-only GPUs per HB (NVLink) domain (1..32768)",
                 config.hbDomain,
                 1,
                 FabricOptions::MAX_RANKS);
    cmd.AddRate("hbRate", "rail-only NVLink rate per GPU", hbRate);
    cmd.AddValue("iterations",
                 "training iterations per fabric (1..10000)",
                 config.iterations,
                 1,
                 10000);
    cmd.AddValue("budget",
                 "TopoOpt strategy-search MCMC steps (at most 1000000)",
                 config.searchBudget,
                 0,
                 1000000);
    TransportChoice::AddToCommandLine(cmd, config.transport);
    DataPathChoice::AddToCommandLine(cmd, config.dataPath);
    FabricOptions::AddLoadBalancingFlag(cmd, config.loadBalancing);
    cmd.AddList("fabrics",
                "comma-separated: fattree,topoopt,railonly (or all)",
                fabrics,
                [](const std::string& flag, const std::string& item) {
                    ValueParser::Choice(flag, item, {"fattree", "topoopt", "railonly", "all"});
                });
    cmd.AddValue("checkmate", "run Checkmate shadowing on the fat-tree", config.checkmate);
    cmd.AddValue("checkmateIterations",
                 "iterations of the Checkmate run (1..10000)",
                 config.checkmateIterations,
                 1,
                 10000);
    cmd.AddValue("out", "results folder", out);
    cmd.AddValue("json", "JSON file (default OUT/training-cluster.json)", json);
    cmd.AddValue("csv", "CSV file (default OUT/training-cluster.csv)", csv);
    cmd.AddValue("plot",
                 "write OUT/training-cluster.png (needs /usr/bin/python3 + matplotlib)",
                 plot);
    config.traces.AddToCommandLine(cmd);

    RunReport report("training-cluster");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"fabric",
                       "iteration_s",
                       "analytical_iteration_s",
                       "error",
                       "cost_usd",
                       "power_w",
                       "checkpoint_interval_iterations",
                       "wire_bytes"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        config.level = level.Get();
        report.SetMeta("level", ToString(config.level));
        report.SetMeta("data_path", config.DataPath());
        report.SetMeta("load_balancing", config.loadBalancing);
        config.bandwidth = ParseDataRate(bandwidth);
        config.hbRate = ParseDataRate(hbRate);
        config.fabrics = TrainingClusterRunner::ParseFabrics(fabrics);
        TrainingClusterRunner runner(config);
        // A file left to its default is named by --out, the flag the user gave.
        const OutputPath jsonOut = json.empty()
                                       ? OutputPath{"out", out + "/training-cluster.json", out}
                                       : OutputPath{"json", json};
        const OutputPath csvOut = csv.empty()
                                      ? OutputPath{"out", out + "/training-cluster.csv", out}
                                      : OutputPath{"csv", csv};
        json = jsonOut.path;
        csv = csvOut.path;
        config.traces.DeclareOutputs(
            {jsonOut, csvOut, {"out", plot ? out + "/training-cluster.png" : "", out}});
        runner.Run(report, &std::cout);
        report.Finish(std::cout, json, csv);
        std::string png = out + "/training-cluster.png";
        std::string why;
        if (plot && !PlotScript::Draw("training-cluster", json, png, &why))
        {
            png = "(no PNG: " + why + ")";
        }
        else if (!plot)
        {
            png = "(no PNG: --plot=false)";
        }
        std::cout << "plot: " << png << std::endl;
        std::cout << "results folder: " << out << "/" << std::endl;
    });
}
