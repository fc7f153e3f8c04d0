// SPDX-License-Identifier: GPL-2.0-only
// End-to-end utility of gradient compression: real data-parallel training over a
// packet-level ideal switch with one scheme (or a bandwidth x scheme sweep), against
// the 16-bit baseline (BF16) and, labelled, FP32. See contrib/compression/doc/compression.md.
//
//   compression-utility --scheme=topk --density=0.05 --bandwidth=10Gbps --json=r.json
//   compression-utility --sweep --json=sweep.json
#include "ns3/compression-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-options.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"

#include <iostream>

using namespace ns3;

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
    RunLevelOption level("compression-utility", {RunLevel::PACKET});
    CommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("workers", "data-parallel workers", c.workers);
    cmd.AddValue("bandwidth", "link rate of the ideal switch", bandwidth);
    cmd.AddValue("inputs", "model inputs (model size)", c.inputs);
    cmd.AddValue("hidden", "model hidden units (model size)", c.hidden);
    cmd.AddValue("scheme", "bf16 | fp16 | fp32 | topk | quant | powersgd", c.scheme);
    cmd.AddValue("density", "TopK density, in (0, 1]", c.density);
    cmd.AddValue("bits", "quantization bits: 2, 4 or 8", c.bits);
    cmd.AddValue("rank", "PowerSGD rank", c.rank);
    cmd.AddValue("targetAccuracy", "held-out accuracy that ends time-to-target", c.targetAccuracy);
    cmd.AddValue("iterations", "training iterations", c.iterations);
    cmd.AddValue("computeTime", "forward + backward time per iteration", computeTime);
    cmd.AddValue("memoryBandwidth", "codec device memory bandwidth (bytes/s)", c.memoryBandwidth);
    cmd.AddValue("sweep", "run --bandwidths x --schemes instead of one run", sweep);
    cmd.AddValue("bandwidths", "sweep: comma-separated link rates", bandwidths);
    cmd.AddValue("schemes", "sweep: comma-separated schemes", schemes);
    cmd.AddValue("json", "write the results document to this file", json);
    cmd.Parse(argc, argv);

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
        OutputFiles::Declare({json});
        report.SetMeta("level", ToString(level.Get()));
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
