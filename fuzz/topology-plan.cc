// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the TopoOpt plan reader (TopologyPlan::FromJson, which parses and
 * validates what topoopt-cluster --plan=FILE reads). Seeds: fuzz/seeds/topology-plan/
 * (no plan file is shipped: the unit tests' 4-server plan and the plan topoopt-plan
 * --servers=8 --degree=4 writes).
 * Invariant of an accepted plan: it round-trips (FromJson(ToJson()) is the same plan).
 */
#include "ns3/topology-plan.h"

#include "fuzz-input.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    return ns3::fuzz::AcceptOrReject(data, size, [](const std::string& text) {
        const ns3::TopologyPlan plan = ns3::TopologyPlan::FromJson(text);
        ns3::fuzz::Require(ns3::TopologyPlan::FromJson(plan.ToJson()) == plan,
                           "an accepted plan does not round-trip through ToJson/FromJson");
    });
}
