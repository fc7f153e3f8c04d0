// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: TopoOpt's price overrides (CostModel::LoadJson: {"prices": {"<Gbps>":
 * {"transceiver": ..., ...}}}, or the same object bare). Seeds:
 * fuzz/seeds/topoopt-cost-table/. Invariant of an accepted table: it round-trips
 * (loading ToJson() into a fresh model writes it again).
 */
#include "fuzz-input.h"

#include "ns3/cost-model.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    return ns3::fuzz::AcceptOrReject(data, size, [](const std::string& text) {
        ns3::Ptr<ns3::CostModel> model = ns3::CreateObject<ns3::CostModel>();
        model->LoadJson(text);
        const std::string once = model->ToJson();
        ns3::Ptr<ns3::CostModel> copy = ns3::CreateObject<ns3::CostModel>();
        copy->LoadJson(once);
        ns3::fuzz::Require(copy->ToJson() == once,
                           "accepted TopoOpt prices do not round-trip through ToJson");
    });
}
