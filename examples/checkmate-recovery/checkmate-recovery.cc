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
#include "ns3/run-level.h"
#include "ns3/run-report.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    CheckmateRunConfig c;
    std::string json;
    RunLevelOption level("checkmate-recovery", {RunLevel::PACKET});
    CommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("workers", "data-parallel workers (N)", c.workers);
    cmd.AddValue("shadows", "shadow CPU nodes (must divide --workers)", c.shadows);
    cmd.AddValue("fabric", "ideal | fattree", c.fabric);
    cmd.AddValue("rate", "link rate", c.rate);
    cmd.AddValue("delay", "link propagation delay", c.delay);
    cmd.AddValue("inputs", "model inputs per sample", c.inputs);
    cmd.AddValue("hidden", "hidden width (model size; 0 = logistic regression)", c.hidden);
    cmd.AddValue("classes", "classes", c.classes);
    cmd.AddValue("batch", "samples per worker per iteration", c.batch);
    cmd.AddValue("iterations", "iterations to train", c.iterations);
    cmd.AddValue("mode", "checkmate | checkfreq | gemini | none | all", c.mode);
    cmd.AddValue("failAt",
                 "a worker fails when this iteration's compute ends (-1: never)",
                 c.failAt);
    cmd.AddValue("failRandom",
                 "a worker fails at a random iteration (ns-3 RNG, see --RngRun)",
                 c.failRandom);
    cmd.AddValue("replicate", "once | all (Checkmate mirroring)", c.replicate);
    cmd.AddValue("optimizer", "adamw | sgd", c.optimizer);
    cmd.AddValue("lr", "peak learning rate", c.learningRate);
    cmd.AddValue("compute", "GPU compute time per iteration", c.compute);
    cmd.AddValue("shadowMemoryBandwidth",
                 "shadow CPU memory bandwidth (bytes/s)",
                 c.shadowMemoryBandwidth);
    cmd.AddValue("restart", "fixed restart time of a recovery", c.restart);
    cmd.AddValue("mirrorLoss",
                 "probability that a mirrored gradient packet is lost on its way to the shadow "
                 "(0..1, seeded by --RngRun; the shadows repair it)",
                 c.mirrorLoss);
    cmd.AddValue("json", "write the results document to this file", json);
    c.traces.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    RunReport report("checkmate-recovery");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"iteration", "iteration_s", "allreduce_s", "loss", "accuracy"});
    return RunReport::Main([&] {
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
