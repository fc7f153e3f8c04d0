// SPDX-License-Identifier: GPL-2.0-only
// A GPT-style model (dense, or MoE with --moe) trained with Megatron TP/PP/DP on
// rail-only vs rail-optimized (and an NVLink fat-tree) at packet level, with the
// closed-form Megatron model and the alpha-beta twin beside every iteration time,
// bytes per link class, and optionally a failed rail switch or NIC.
//
//   railonly-llm --fabric=all --json=llm.json
//   railonly-llm --fabric=all --moe --json=llm-moe.json
//   railonly-llm --fabric=rail-only --failRailSwitch=3
#include "ns3/core-module.h"
#include "ns3/llm-training-runner.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    LlmRunOptions o;
    o.model.layers = 4;
    o.model.hidden = 1024;
    o.model.seqLength = 512;
    o.model.microBatches = 4;
    o.model.tp = 8;
    o.model.pp = 2;
    o.model.dp = 4;
    std::string fabric = "all";
    bool moe = false;
    std::string json;
    RunLevelOption level("railonly-llm", {RunLevel::PACKET});
    CommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("domains", "HB domains D", o.domains);
    cmd.AddValue("domainSize", "GPUs per HB domain K (= rails)", o.domainSize);
    cmd.AddValue("radix", "switch radix (ports)", o.radix);
    cmd.AddValue("fabric", "rail-only | rail-optimized | fat-tree | all", fabric);
    cmd.AddValue("policy", "cross-rail policy: source | destination | network", o.policy);
    cmd.AddValue("layers", "transformer layers", o.model.layers);
    cmd.AddValue("hidden", "hidden size", o.model.hidden);
    cmd.AddValue("seq", "sequence length (tokens)", o.model.seqLength);
    cmd.AddValue("microBatchSize", "sequences per micro-batch", o.model.microBatchSize);
    cmd.AddValue("microBatches", "micro-batches per iteration", o.model.microBatches);
    cmd.AddValue("vocab", "vocabulary size", o.model.vocab);
    cmd.AddValue("tp", "tensor-parallel degree", o.model.tp);
    cmd.AddValue("pp", "pipeline-parallel degree", o.model.pp);
    cmd.AddValue("dp", "data-parallel degree", o.model.dp);
    cmd.AddValue("moe", "make every moeEvery-th layer a mixture of experts", moe);
    cmd.AddValue("experts", "experts per MoE layer (with --moe)", o.model.experts);
    cmd.AddValue("moeEvery", "every k-th layer is MoE", o.model.moeEvery);
    cmd.AddValue("topK", "experts per token", o.model.topK);
    cmd.AddValue("moeAllToAll", "auto | hierarchical | flat", o.moeAllToAll);
    cmd.AddValue("failRailSwitch", "fail the switches of this rail (-1: none)", o.failRailSwitch);
    cmd.AddValue("failNic", "fail the NIC of this GPU (-1: none)", o.failNic);
    cmd.AddValue("iterations", "training iterations to simulate", o.iterations);
    cmd.AddValue("transport", "udp | tcp | dctcp", o.transport);
    cmd.AddValue("json", "write the results document to this file", json);
    o.traces.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);
    o.model.name = moe ? "gpt-moe" : "gpt";
    if (moe && o.model.experts == 0)
    {
        o.model.experts = o.domains * o.domainSize;
    }

    RunReport report("railonly-llm");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"fabric",
                       "failure",
                       "iteration_s",
                       "analytical_iteration_s",
                       "twin_iteration_s",
                       "spine_bytes",
                       "slowdown",
                       "moe_alltoall_overhead"});
    return RunReport::Main([&] {
        o.traces.DeclareOutputs({json});
        report.SetMeta("level", ToString(level.Get()));
        LlmTrainingRunner::RunAll(o, LlmTrainingRunner::ParseFabrics(fabric), report);
        report.Finish(std::cout, json);
    });
}
