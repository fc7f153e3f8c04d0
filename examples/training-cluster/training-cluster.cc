// SPDX-License-Identifier: GPL-2.0-only
// The default scenario: one training job (BERT, data-parallel, scaled down) on a
// fat-tree, TopoOpt over optical circuits and rail-only with HB domains, packet level
// with the analytical time beside it, network cost and power, bytes by link class and
// Checkmate's checkpoint interval. The logic is TrainingClusterRunner (contrib/scenarios).
//
//   training-cluster --model=bert --scale=0.1 --gpus=16 --bandwidth=100Gbps \
//       --fabrics=fattree,topoopt,railonly --out=results/training-cluster
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/plot-script.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/training-cluster-runner.h"

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
    RunLevelOption level("training-cluster", {RunLevel::PACKET});
    CommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("model", "model profile: bert dlrm candle-uno vgg16 resnet50 ncf", config.model);
    cmd.AddValue("profile", "model profile file (overrides --model)", config.profileFile);
    cmd.AddValue("scale", "factor on the model's bytes and compute times", config.scale);
    cmd.AddValue("gpus", "GPUs (= servers), even", config.gpus);
    cmd.AddValue("bandwidth",
                 "network bandwidth per GPU (TopoOpt: split over --degree)",
                 bandwidth);
    cmd.AddValue("degree", "TopoOpt optical ports per server", config.degree);
    cmd.AddValue("hbDomain", "rail-only GPUs per HB (NVLink) domain", config.hbDomain);
    cmd.AddValue("hbRate", "rail-only NVLink rate per GPU", hbRate);
    cmd.AddValue("iterations", "training iterations per fabric", config.iterations);
    cmd.AddValue("budget", "TopoOpt strategy-search MCMC steps", config.searchBudget);
    cmd.AddValue("transport", "udp | tcp | dctcp", config.transport);
    cmd.AddValue("fabrics", "comma-separated: fattree,topoopt,railonly (or all)", fabrics);
    cmd.AddValue("checkmate", "run Checkmate shadowing on the fat-tree", config.checkmate);
    cmd.AddValue("checkmateIterations",
                 "iterations of the Checkmate run",
                 config.checkmateIterations);
    cmd.AddValue("out", "results folder", out);
    cmd.AddValue("json", "JSON file (default OUT/training-cluster.json)", json);
    cmd.AddValue("csv", "CSV file (default OUT/training-cluster.csv)", csv);
    cmd.AddValue("plot",
                 "write OUT/training-cluster.png (needs /usr/bin/python3 + matplotlib)",
                 plot);
    config.traces.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

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
        report.SetMeta("level", ToString(level.Get()));
        config.bandwidth = ParseDataRate(bandwidth);
        config.hbRate = ParseDataRate(hbRate);
        config.fabrics = TrainingClusterRunner::ParseFabrics(fabrics);
        TrainingClusterRunner runner(config);
        json = json.empty() ? out + "/training-cluster.json" : json;
        csv = csv.empty() ? out + "/training-cluster.csv" : csv;
        config.traces.DeclareOutputs({json, csv, plot ? out + "/training-cluster.png" : ""});
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
