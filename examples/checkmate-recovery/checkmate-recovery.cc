// SPDX-License-Identifier: GPL-2.0-only
// Checkmate against CheckFreq, Gemini and no checkpointing, on one real
// data-parallel job with real gradients in its packets: checkpoint interval,
// throughput overhead against the no-checkpoint run of the same invocation,
// repeated work and recovery time after a worker failure, mirrored bytes, and
// whether the shadow copy is bit-identical to the workers.
//
//   checkmate-recovery --workers=4 --hidden=64 --iterations=20 --mode=all \
//       --failAt=12 --json=checkmate.json
#include "ns3/checkmate-runner.h"
#include "ns3/core-module.h"
#include "ns3/data-path-choice.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    CheckmateRunConfig c;
    std::string json;
    RunLevelOption level("checkmate-recovery", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("workers", "data-parallel workers (N, 2..256)", c.workers, 2, 256);
    cmd.AddValue("shadows", "shadow CPU nodes (must divide --workers; 1..256)", c.shadows, 1, 256);
    cmd.AddChoice("fabric", "ideal | fattree", c.fabric, {"ideal", "fattree"});
    cmd.AddRate("rate", "link rate", c.rate);
    cmd.AddTime("delay", "link propagation delay (at most 1s)", c.delay, Time(0), Seconds(1));
    cmd.AddValue("inputs", "model inputs per sample (1..65536)", c.inputs, 1, 65536);
    cmd.AddValue("hidden",
                 "hidden width (model size; 0 = logistic regression; at most 65536)",
                 c.hidden,
                 0,
                 65536);
    cmd.AddValue("classes", "classes (2..65536)", c.classes, 2, 65536);
    cmd.AddValue("batch", "samples per worker per iteration (1..65536)", c.batch, 1, 65536);
    cmd.AddValue("iterations", "iterations to train (1..100000)", c.iterations, 1, 100000);
    cmd.AddChoice("mode",
                  "checkmate | checkfreq | gemini | none | all",
                  c.mode,
                  {"checkmate", "checkfreq", "gemini", "none", "all"});
    cmd.AddValue("failAt",
                 "a worker fails when this iteration's compute ends (-1: never)",
                 c.failAt,
                 -1,
                 100000);
    cmd.AddValue("failRandom",
                 "a worker fails at a random iteration (ns-3 RNG, see --RngRun)",
                 c.failRandom);
    cmd.AddChoice("replicate", "once | all (Checkmate mirroring)", c.replicate, {"once", "all"});
    cmd.AddChoice("optimizer", "adamw | sgd", c.optimizer, {"adamw", "sgd"});
    cmd.AddValue("lr", "peak learning rate, in (0, 10]", c.learningRate, 0, 10, true);
    cmd.AddTime("compute", "GPU compute time per iteration", c.compute);
    cmd.AddValue("shadowMemoryBandwidth",
                 "shadow CPU memory bandwidth (bytes/s), in (0, 1e15]",
                 c.shadowMemoryBandwidth,
                 0,
                 1e15,
                 true);
    cmd.AddTime("restart", "fixed restart time of a recovery", c.restart);
    cmd.AddValue("mirrorLoss",
                 "probability that a mirrored gradient packet is lost on its way to the shadow "
                 "(0..1, seeded by --RngRun; the shadows repair it)",
                 c.mirrorLoss,
                 0,
                 1);
    DataPathChoice::AddToCommandLine(cmd, c.dataPath);
    cmd.AddValue("json", "write the results document to this file", json);
    c.traces.AddToCommandLine(cmd);

    RunReport report("checkmate-recovery");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"iteration", "iteration_s", "allreduce_s", "loss", "accuracy"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        c.level = level.Get();
        c.traces.DeclareOutputs({{"json", json}});
        report.SetMeta("level", ToString(level.Get()));
        nlohmann::json r = CheckmateRunner::Run(c, report);
        report.Finish(std::cout, json);
        RunReport::PrintKeyValues(std::cout, "summary", r["summary"]);
        const auto& s = r["summary"];
        if (s.contains("mean_commit_lag_s") && s["mean_commit_lag_s"].is_number() &&
            s["mean_commit_lag_s"].get<double>() < 0)
        {
            // Commit lag = shadow commit time - the workers' all-reduce end. The mirrors
            // clone the all-gather's fully reduced chunks as they pass the switch, so a
            // shadow can hold and commit its shard before the last worker has the result.
            std::cout << "  (mean_commit_lag_s < 0: the shadows committed before the "
                         "workers' all-reduce ended; they get the reduced chunks from the "
                         "mirrors while the all-gather is still running)\n";
        }
        if (r.contains("comparison"))
        {
            RunReport::PrintKeyValues(std::cout, "comparison", r["comparison"]);
        }
        std::cout << std::flush;
    });
}
