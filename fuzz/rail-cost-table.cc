// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: railonly's price overrides (RailCostModel::LoadJson, what
 * railonly-cost --table=FILE reads: single items, or a whole price table). Seeds: the
 * shipped price table and fuzz/seeds/rail-cost-table/ (the override form).
 * An accepted table must also price a fabric without an exception other than the
 * user-error one (a cost computed from what was loaded).
 */
#include "fuzz-input.h"

#include "ns3/rail-cost-model.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    return ns3::fuzz::AcceptOrReject(data, size, [](const std::string& text) {
        ns3::Ptr<ns3::RailCostModel> model = ns3::CreateObject<ns3::RailCostModel>();
        model->LoadJson(text);
        (void)model->GetTableJson();
        (void)model->Compare(1024, 8);
    });
}
