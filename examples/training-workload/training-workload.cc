// SPDX-License-Identifier: GPL-2.0-only
// A data-parallel training job from a JSON workload file, run for a few
// iterations at packet level on any fabric, with the analytical iteration time
// beside every iteration.
//
//   training-workload --workload=workloads/training/mlp-small.json \
//       --fabric=fattree --ranks=16 --iterations=3 --json=train.json
//
// --reuseConverged (off by default) stops simulating once --convergedIterations
// iterations in a row took the same time and nothing else is pending; the rest are
// reported as copies, flagged "extrapolated" (contrib/mlnet/doc/performance.md).
//
// --jobs=N runs N copies of the workload side by side, each on ranks/N ranks
// (--jobPlacement=block: consecutive ranks; strided: every N-th), with a row per job
// and iteration; --replicateJobs simulates job 0 alone for all of them, refused with
// the reason unless the jobs share no link and their routes are laid out alike
// (JobReplication, contrib/mlnet/doc/flow-level.md "Replicated jobs").
#include "ns3/core-module.h"
#include "ns3/data-file.h"
#include "ns3/fabric-options.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"
#include "ns3/training-runner.h"
#include "ns3/transport-choice.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    FabricOptions fabric;
    std::string workload; // default: the shipped workloads/training/mlp-small.json
    std::string transport = "roce";
    uint32_t iterations = 3;
    std::string json;
    ConvergedReuse reuse;
    std::string tolerance = "0s";
    JobSet jobs;
    RunLevelOption level("training-workload", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    fabric.AddToCommandLine(cmd);
    cmd.AddValue("workload",
                 "JSON workload file (schema: contrib/mlnet/doc/workload.md; default: the "
                 "shipped workloads/training/mlp-small.json)",
                 workload);
    TransportChoice::AddToCommandLine(cmd, transport);
    cmd.AddValue("iterations", "training iterations to simulate (1..10000)", iterations, 1, 10000);
    cmd.AddValue("json", "write the results document to this file", json);
    cmd.AddValue("reuseConverged",
                 "report the remaining iterations as copies once they converged (an "
                 "approximation; off: every iteration simulated)",
                 reuse.enabled);
    cmd.AddValue("convergedIterations",
                 "iterations in a row of equal duration before --reuseConverged applies (2..1000)",
                 reuse.iterations,
                 2,
                 1000);
    cmd.AddValue("jobs",
                 "copies of the workload side by side, each on ranks/jobs ranks (1..4096)",
                 jobs.count,
                 1,
                 4096);
    cmd.AddValue("jobPlacement",
                 "ranks of each job: block (consecutive) or strided (every jobs-th)",
                 jobs.placement);
    cmd.AddValue("replicateJobs",
                 "simulate job 0 alone for every job (refused unless the jobs share no link "
                 "and their routes are laid out alike)",
                 jobs.replicate);
    cmd.AddTime("convergedTolerance",
                "largest difference between those iterations' durations, e.g. 1ns (0: exact)",
                tolerance);

    RunReport report("training-workload");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"iteration", "iteration_s", "analytical_iteration_s", "error"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        if (jobs.count > 1)
        {
            report.SetColumns(
                {"job", "iteration", "iteration_s", "analytical_iteration_s", "error"});
        }
        fabric.transport = transport; // with the level, decides --dataPath=auto
        fabric.level = level.Get();
        fabric.traces.DeclareOutputs({{"json", json}});
        report.SetMeta("level", ToString(level.Get()));
        TrainingWorkload job = TrainingWorkload::FromFile(
            workload.empty() ? DataFile::Find("workloads/training/mlp-small.json") : workload);
        Ptr<Cluster> cluster = fabric.Build();
        report.SetFabricSpec(cluster->GetFabricSpec());
        TrainingRunResult result =
            TrainingRunner::Run(cluster, job, transport, iterations, reuse, level.Get(), jobs);
        for (const auto& row : result.IterationRows())
        {
            nlohmann::json r = row;
            r["workload"] = job.GetName();
            r["fabric"] = fabric.Label();
            report.Add(r);
        }
        report.Set("bytes_by_link_class", RunReport::ToJson(result.bytesByLinkClass));
        report.Set("health", result.HealthJson(fabric.Label() + "/" + job.GetName()));
        if (jobs.count > 1)
        {
            report.Set("jobs", result.JobsJson());
        }
        if (reuse.enabled)
        {
            report.Set("converged_reuse", result.ReuseJson());
            std::cout << "converged reuse: " << result.reuseNote << "\n";
        }
        report.Stop();
        Simulator::Destroy(); // writes --flowmon's XML
        report.Finish(std::cout, json);
    });
}
