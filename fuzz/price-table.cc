// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the shared price table reader (PriceTable::LoadJson, what the Path
 * attribute and MLNET_PRICE_TABLE files go through). Seed: contrib/mlnet/data/prices.json.
 * Invariant of an accepted table: it round-trips (loading ToJson() writes it again).
 */
#include "ns3/price-table.h"

#include "fuzz-input.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // Loaded once with the shipped table; every input replaces the whole table.
    static ns3::Ptr<ns3::PriceTable> table = ns3::CreateObject<ns3::PriceTable>();
    return ns3::fuzz::AcceptOrReject(data, size, [](const std::string& text) {
        table->LoadJson(text, "fuzz input");
        const std::string once = table->ToJson();
        ns3::Ptr<ns3::PriceTable> copy = ns3::CreateObject<ns3::PriceTable>();
        copy->LoadJson(once, "round trip");
        ns3::fuzz::Require(copy->ToJson() == once,
                           "an accepted price table does not round-trip through ToJson");
    });
}
