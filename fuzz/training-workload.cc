// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the training workload reader (TrainingWorkload::FromString, what
 * --workload=FILE reads; comments allowed). Seeds: the .json files of
 * workloads/training/.
 * Invariant of an accepted workload: its total parameter bytes are the sum over its
 * layers (no silent wrap-around).
 */
#include "ns3/training-workload.h"

#include "fuzz-input.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    return ns3::fuzz::AcceptOrReject(data, size, [](const std::string& text) {
        ns3::TrainingWorkload w = ns3::TrainingWorkload::FromString(text);
        const uint64_t total = w.GetTotalParamBytes();
        for (const auto& layer : w.GetLayers())
        {
            ns3::fuzz::Require(layer.paramBytes <= total,
                               "a layer's param_bytes exceeds the workload's total (overflow)");
        }
    });
}
