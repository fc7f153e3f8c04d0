// SPDX-License-Identifier: GPL-2.0-only
// A GPT-style model (dense, or MoE with --moe) trained with Megatron TP/PP/DP on
// rail-only vs rail-optimized (and an NVLink fat-tree) at packet level, with the
// closed-form Megatron model and the alpha-beta twin beside every iteration time,
// bytes per link class, and optionally a failed rail switch or NIC.
//
//   railonly-llm --fabric=all --json=llm.json
//   railonly-llm --fabric=all --moe --json=llm-moe.json
//   railonly-llm --fabric=rail-only --failRailSwitch=3
//   railonly-llm --transport=tcp        (TCP runs on the IPv4 path; UDP on the fast path)
//   railonly-llm --fabric=all --moe --loadBalancing=spray   (per-packet spraying)
#include "ns3/core-module.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-options.h"
#include "ns3/llm-training-runner.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"
#include "ns3/transport-choice.h"

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
    RunLevelOption level("railonly-llm", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("domains",
                 "HB domains D (D x K at most " + std::to_string(FabricOptions::MAX_RANKS) + ")",
                 o.domains,
                 1,
                 FabricOptions::MAX_RANKS);
    cmd.AddValue("domainSize",
                 "GPUs per HB domain K (= rails)",
                 o.domainSize,
                 1,
                 FabricOptions::MAX_RANKS);
    cmd.AddValue("radix", "switch radix (ports, 2..4096)", o.radix, 2, 4096);
    cmd.AddValue("fabric", "rail-only | rail-optimized | fat-tree | all", fabric);
    cmd.AddValue("policy",
                 "cross-rail policy: source | destination | network",
                 o.policy,
                 [](const std::string& flag, const std::string& text) {
                     ValueParser::Choice(flag, text, {"source", "destination", "network"});
                 });
    cmd.AddValue("layers", "transformer layers (1..1024)", o.model.layers, 1, 1024);
    cmd.AddValue("hidden", "hidden size (1..65536)", o.model.hidden, 1, 65536);
    cmd.AddValue("seq", "sequence length (tokens, 1..1048576)", o.model.seqLength, 1, 1 << 20);
    cmd.AddValue("microBatchSize",
                 "sequences per micro-batch (1..4096)",
                 o.model.microBatchSize,
                 1,
                 4096);
    cmd.AddValue("microBatches",
                 "micro-batches per iteration (1..4096)",
                 o.model.microBatches,
                 1,
                 4096);
    cmd.AddValue("vocab", "vocabulary size (1..16777216)", o.model.vocab, 1, 1 << 24);
    cmd.AddValue("tp", "tensor-parallel degree (1..1024)", o.model.tp, 1, 1024);
    cmd.AddValue("pp", "pipeline-parallel degree (1..1024)", o.model.pp, 1, 1024);
    cmd.AddValue("dp", "data-parallel degree (1..1024)", o.model.dp, 1, 1024);
    cmd.AddValue("moe", "make every moeEvery-th layer a mixture of experts", moe);
    cmd.AddValue("experts",
                 "experts per MoE layer (with --moe; 0 = one per GPU; at most 65536)",
                 o.model.experts,
                 0,
                 65536);
    cmd.AddValue("moeEvery", "every k-th layer is MoE (1..1024)", o.model.moeEvery, 1, 1024);
    cmd.AddValue("topK", "experts per token (1..65536)", o.model.topK, 1, 65536);
    cmd.AddChoice("moeAllToAll",
                  "auto | hierarchical | flat",
                  o.moeAllToAll,
                  {"auto", "hierarchical", "flat"});
    cmd.AddValue("replicateRails",
                 "simulate the traffic of one rail and stand it for all (rail-only or "
                 "rail-optimized, --tp = --domainSize, no failure)",
                 o.replicateRails);
    cmd.AddValue("replicateReplicas",
                 "simulate the pipeline of DP replica 0 and stand it for every replica's "
                 "(the DP all-reduces keep every member; rail-only, --tp = --domainSize, "
                 "dense model, no failure)",
                 o.replicateReplicas);
    cmd.AddValue("failRailSwitch",
                 "fail the switches of this rail (-1: none)",
                 o.failRailSwitch,
                 -1,
                 1023);
    cmd.AddValue("failNic", "fail the NIC of this GPU (-1: none)", o.failNic, -1, 1 << 20);
    cmd.AddValue("iterations",
                 "training iterations to simulate (1..10000)",
                 o.iterations,
                 1,
                 10000);
    TransportChoice::AddToCommandLine(cmd, o.transport);
    DataPathChoice::AddToCommandLine(cmd, o.dataPath);
    FabricOptions::AddLoadBalancingFlag(cmd, o.loadBalancing);
    cmd.AddValue("json", "write the results document to this file", json);
    o.traces.AddToCommandLine(cmd);

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
        cmd.Parse(argc, argv);
        FabricOptions::CheckRankCount("--domains x --domainSize",
                                      uint64_t(o.domains) * o.domainSize);
        o.model.name = moe ? "gpt-moe" : "gpt";
        if (moe && o.model.experts == 0)
        {
            o.model.experts = o.domains * o.domainSize;
        }
        o.traces.DeclareOutputs({{"json", json}});
        o.level = level.Get();
        report.SetMeta("level", ToString(o.level));
        report.SetMeta("data_path", o.ResolveDataPath());
        report.SetMeta("load_balancing", o.loadBalancing);
        LlmTrainingRunner::RunAll(o, LlmTrainingRunner::ParseFabrics(fabric), report);
        report.Finish(std::cout, json);
    });
}
