// SPDX-License-Identifier: GPL-2.0-only
// End-to-end utility of gradient compression: real data-parallel training over a
// packet-level ideal switch with one scheme (or a bandwidth x scheme sweep), against
// the 16-bit baseline (BF16) and, labelled, FP32. See contrib/compression/doc/compression.md.
//
//   compression-utility --scheme=topk --density=0.05 --bandwidth=10Gbps --json=r.json
//   compression-utility --sweep --json=sweep.json
#include "ns3/compression-runner.h"
#include "ns3/core-module.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-options.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"

#include <iostream>

using namespace ns3;

namespace
{

/// The schemes CompressionRunner::MakeCodec knows.
std::vector<std::string>
Schemes()
{
    return {"bf16", "fp16", "fp32", "topk", "quant", "powersgd"};
}

} // namespace

int
main(int argc, char* argv[])
{
    CompressionConfig c;
    std::string bandwidth = "10Gbps";
    std::string computeTime = "200us";
    bool sweep = false;
    std::string bandwidths = "1Gbps,10Gbps,40Gbps,100Gbps,400Gbps";
    std::string schemes = "fp32,bf16,topk,quant,powersgd";
    std::string json;
    RunLevelOption level("compression-utility", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("workers", "data-parallel workers (2..256)", c.workers, 2, 256);
    cmd.AddRate("bandwidth", "link rate of the ideal switch", bandwidth);
    cmd.AddValue("inputs", "model inputs (model size, 1..65536)", c.inputs, 1, 65536);
    cmd.AddValue("hidden", "model hidden units (model size, 1..65536)", c.hidden, 1, 65536);
    cmd.AddChoice("scheme", "bf16 | fp16 | fp32 | topk | quant | powersgd", c.scheme, Schemes());
    cmd.AddValue("density", "TopK density, in (0, 1]", c.density, 0, 1, true);
    cmd.AddValue("bits", "quantization bits: 2, 4 or 8", c.bits, 2, 8);
    cmd.AddValue("rank", "PowerSGD rank (1..1024)", c.rank, 1, 1024);
    cmd.AddValue("targetAccuracy",
                 "held-out accuracy that ends time-to-target, in (0, 1]",
                 c.targetAccuracy,
                 0,
                 1,
                 true);
    cmd.AddValue("iterations", "training iterations (1..100000)", c.iterations, 1, 100000);
    cmd.AddTime("computeTime", "forward + backward time per iteration", computeTime);
    cmd.AddValue("memoryBandwidth",
                 "codec device memory bandwidth (bytes/s), in (0, 1e15]",
                 c.memoryBandwidth,
                 0,
                 1e15,
                 true);
    cmd.AddValue("sweep", "run --bandwidths x --schemes instead of one run", sweep);
    cmd.AddList(
        "bandwidths",
        "sweep: comma-separated link rates",
        bandwidths,
        [](const std::string& flag, const std::string& item) { ValueParser::Rate(flag, item); });
    cmd.AddList("schemes",
                "sweep: comma-separated schemes",
                schemes,
                [](const std::string& flag, const std::string& item) {
                    ValueParser::Choice(flag, item, Schemes());
                });
    DataPathChoice::AddToCommandLine(cmd, c.dataPath);
    cmd.AddValue("json", "write the results document to this file", json);

    RunReport report("compression-utility");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"scheme",
                       "bandwidth_gbps",
                       "bytes_on_wire",
                       "iteration_s",
                       "comm_s",
                       "analytical_comm_s",
                       "time_to_target_s",
                       "final_accuracy"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        OutputFiles::Declare({{"json", json}});
        c.level = level.Get();
        report.SetMeta("level", ToString(c.level));
        report.SetMeta("data_path", c.DataPath());
        c.bandwidth = ParseDataRate(bandwidth);
        c.computeTime = ParseTime(computeTime);
        if (sweep)
        {
            std::vector<DataRate> rates;
            for (const auto& b : CompressionRunner::SplitList(bandwidths))
            {
                rates.push_back(ParseDataRate(b));
            }
            for (const auto& row :
                 CompressionRunner::Sweep(c,
                                          rates,
                                          CompressionRunner::SplitList(schemes),
                                          [&report]() { report.CloseSimulation(); }))
            {
                report.Add(row);
            }
        }
        else
        {
            report.Add(CompressionRunner::Run(c));
            report.CloseSimulation();
            Simulator::Destroy();
        }
        report.Finish(std::cout, json);
    });
}
