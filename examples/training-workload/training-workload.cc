// SPDX-License-Identifier: GPL-2.0-only
// A data-parallel training job from a JSON workload file, run for a few
// iterations at packet level on any fabric, with the analytical iteration time
// beside every iteration.
//
//   training-workload --workload=workloads/training/mlp-small.json \
//       --fabric=fattree --ranks=16 --iterations=3 --json=train.json
#include "ns3/core-module.h"
#include "ns3/data-file.h"
#include "ns3/fabric-options.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"
#include "ns3/training-runner.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    FabricOptions fabric;
    std::string workload; // default: the shipped workloads/training/mlp-small.json
    std::string transport = "udp";
    uint32_t iterations = 3;
    std::string json;
    RunLevelOption level("training-workload", {RunLevel::PACKET});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    fabric.AddToCommandLine(cmd);
    cmd.AddValue("workload",
                 "JSON workload file (schema: contrib/mlnet/doc/workload.md; default: the "
                 "shipped workloads/training/mlp-small.json)",
                 workload);
    cmd.AddChoice("transport", "udp | tcp | dctcp", transport, {"udp", "tcp", "dctcp"});
    cmd.AddValue("iterations", "training iterations to simulate (1..10000)", iterations, 1, 10000);
    cmd.AddValue("json", "write the results document to this file", json);

    RunReport report("training-workload");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"iteration", "iteration_s", "analytical_iteration_s", "error"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        fabric.transport = transport; // decides --dataPath=auto
        fabric.traces.DeclareOutputs({{"json", json}});
        report.SetMeta("level", ToString(level.Get()));
        TrainingWorkload job = TrainingWorkload::FromFile(
            workload.empty() ? DataFile::Find("workloads/training/mlp-small.json") : workload);
        Ptr<Cluster> cluster = fabric.Build();
        report.SetFabricSpec(cluster->GetFabricSpec());
        TrainingRunResult result = TrainingRunner::Run(cluster, job, transport, iterations);
        for (const auto& row : result.IterationRows())
        {
            nlohmann::json r = row;
            r["workload"] = job.GetName();
            r["fabric"] = fabric.Label();
            report.Add(r);
        }
        report.Set("bytes_by_link_class", RunReport::ToJson(result.bytesByLinkClass));
        report.Stop();
        Simulator::Destroy(); // writes --flowmon's XML
        report.Finish(std::cout, json);
    });
}
