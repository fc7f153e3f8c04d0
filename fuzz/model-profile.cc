// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the model profile reader (ModelProfile::FromString, what --model and
 * --profile files go through). Seeds: the .json files of workloads/models/.
 * Invariant of an accepted profile: it round-trips (FromJson(ToJson()) writes the
 * same JSON again), as its header promises.
 */
#include "ns3/model-profile.h"

#include "fuzz-input.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    return ns3::fuzz::AcceptOrReject(data, size, [](const std::string& text) {
        const ns3::ModelProfile p = ns3::ModelProfile::FromString(text);
        const nlohmann::json once = p.ToJson();
        ns3::fuzz::Require(ns3::ModelProfile::FromJson(once).ToJson() == once,
                           "an accepted profile does not round-trip through ToJson/FromJson");
    });
}
