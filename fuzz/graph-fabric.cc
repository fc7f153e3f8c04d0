// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the graph fabric reader (GraphFabricHelper, what --fabric=graph
 * --graph=FILE reads). Its parser builds the fabric as it reads, so every accepted
 * input installs a Cluster (nodes, links, routes) and Simulator::Destroy() frees it
 * before the next one. Seeds: the .json files of doc/labs/lab1/ and fuzz/seeds/graph-fabric/.
 * Invariant of an accepted graph: the cluster has the ranks the document names.
 */
#include "fuzz-input.h"

#include "ns3/graph-fabric-helper.h"
#include "ns3/simulator.h"

#include <nlohmann/json.hpp>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ns3::fuzz::AcceptOrReject(data, size, [](const std::string& text) {
        ns3::GraphFabricHelper helper;
        helper.SetJson(text);
        ns3::Ptr<ns3::Cluster> cluster = helper.Install();
        const auto ranks = nlohmann::json::parse(text)["ranks"].get<uint64_t>();
        ns3::fuzz::Require(cluster->GetNRanks() == ranks,
                           "an accepted graph has a rank count other than its \"ranks\"");
    });
    ns3::Simulator::Destroy();
    return 0;
}
