// SPDX-License-Identifier: GPL-2.0-only
// RailCostModel: Clos switch counts (1, 2, 3 tiers), the DGX SuperPOD B300 table,
// cost and power of rail-only vs rail-optimized against hand calculations, the
// reduction range over cluster and HB-domain sizes, the JSON table, and bad input.
#include "mlnet-test-support.h"

#include "ns3/core-module.h"
#include "ns3/rail-cost-model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ns3;
using namespace mlnettest;

namespace
{

TEST(RailCostModelTest, ClosCountsMatchTheFormulas)
{
    // k = 64: N <= k -> 1 switch; N <= k^2/2 -> 3N/k; N <= k^3/4 -> 5N/k.
    ClosCount one = RailCostModel::Clos(64, 64);
    EXPECT_EQ(one.tiers, 1u);
    EXPECT_EQ(one.switches, 1u);
    EXPECT_EQ(one.links, 64u);
    ClosCount two = RailCostModel::Clos(2048, 64);
    EXPECT_EQ(two.tiers, 2u);
    EXPECT_EQ(two.switches, 3u * 2048 / 64);
    EXPECT_EQ(two.switchesByTier, (std::vector<uint64_t>{2 * 2048 / 64, 2048 / 64}));
    EXPECT_EQ(two.links, 2u * 2048);
    ClosCount three = RailCostModel::Clos(65536, 64);
    EXPECT_EQ(three.tiers, 3u);
    EXPECT_EQ(three.switches, 5u * 65536 / 64);
    EXPECT_EQ(three.links, 3u * 65536);
    // k = 8 at the tier boundaries.
    EXPECT_EQ(RailCostModel::Clos(8, 8).switches, 1u);
    EXPECT_EQ(RailCostModel::Clos(9, 8).tiers, 2u);
    EXPECT_EQ(RailCostModel::Clos(32, 8).switches, 3u * 32 / 8);
    EXPECT_EQ(RailCostModel::Clos(33, 8).tiers, 3u);
    EXPECT_EQ(RailCostModel::Clos(128, 8).switches, 5u * 128 / 8);
    // Partial sizes round up: 100 GPUs at k = 64 -> ceil(200/64) = 4 leaves, 2 spines.
    EXPECT_EQ(RailCostModel::Clos(100, 64).switchesByTier, (std::vector<uint64_t>{4, 2}));
}

TEST(RailCostModelTest, ReproducesTheB300ScalableUnitTable)
{
    // NVIDIA DGX SuperPOD B300: 1 SU = 512 GPUs -> 16 leaves, 8 spines, 512 + 512 cables;
    // 4 SUs = 2048 GPUs -> 64 leaves, 32 spines, 2048 + 2048 cables (radix-64 leaves).
    for (auto [gpus, leaves, spines] :
         {std::tuple<uint64_t, uint64_t, uint64_t>{512, 16, 8}, {2048, 64, 32}})
    {
        ClosCount c = RailCostModel::Clos(gpus, 64);
        EXPECT_EQ(c.switchesByTier, (std::vector<uint64_t>{leaves, spines})) << gpus;
        EXPECT_EQ(c.links, 2 * gpus); // node-leaf + leaf-spine
    }
}

TEST(RailCostModelTest, CostAndPowerMatchHandCalculations)
{
    auto m = CreateObject<RailCostModel>();
    m->LoadJson(R"({"switch": {"price_usd": 1000, "power_w": 100},
                    "switch_transceiver": {"price_usd": 10, "power_w": 1},
                    "nic_transceiver": {"price_usd": 20, "power_w": 2},
                    "fiber": {"price_usd": 1, "power_w": 0}})");
    // 512 GPUs in domains of 8, radix 64.
    // Rail-optimized: 2-tier Clos of 512: 16 + 8 = 24 switches, 1024 links,
    //   512 NIC-side and 2*1024 - 512 = 1536 switch-side transceivers.
    // Rail-only: 8 rails of 64 GPUs, one switch each: 8 switches, 512 links,
    //   512 NIC-side and 512 switch-side transceivers.
    CostComparison c = m->Compare(512, 8);
    EXPECT_EQ(c.railOptimized.switches, 24u);
    EXPECT_EQ(c.railOptimized.links, 1024u);
    EXPECT_EQ(c.railOptimized.transceivers, 2048u);
    EXPECT_EQ(c.railOnly.switches, 8u);
    EXPECT_EQ(c.railOnly.tiers, 1u);
    EXPECT_EQ(c.railOnly.transceivers, 1024u);
    double roCost = 24 * 1000.0 + 1536 * 10.0 + 512 * 20.0 + 1024 * 1.0; // 50624
    double roPower = 24 * 100.0 + 1536 * 1.0 + 512 * 2.0;                // 4960
    double rCost = 8 * 1000.0 + 512 * 10.0 + 512 * 20.0 + 512 * 1.0;     // 23872
    double rPower = 8 * 100.0 + 512 * 1.0 + 512 * 2.0;                   // 2336
    EXPECT_DOUBLE_EQ(c.railOptimized.cost, roCost);
    EXPECT_DOUBLE_EQ(c.railOptimized.powerW, roPower);
    EXPECT_DOUBLE_EQ(c.railOnly.cost, rCost);
    EXPECT_DOUBLE_EQ(c.railOnly.powerW, rPower);
    EXPECT_DOUBLE_EQ(c.costReduction, 1 - rCost / roCost);
    EXPECT_DOUBLE_EQ(c.powerReduction, 1 - rPower / roPower);

    // NICs are equal in both designs; counting them adds N * price to each.
    m->LoadJson(R"({"nic": {"price_usd": 100, "power_w": 10}, "include_nics": true})");
    CostComparison n = m->Compare(512, 8);
    EXPECT_DOUBLE_EQ(n.railOnly.cost, rCost + 512 * 100.0);
    EXPECT_DOUBLE_EQ(n.railOptimized.powerW, roPower + 512 * 10.0);
}

TEST(RailCostModelTest, ReductionRangeOverClusterAndHbDomainSizes)
{
    auto m = CreateObject<RailCostModel>();
    std::vector<uint64_t> gpus{4096, 8192, 16384, 32768};
    std::vector<uint32_t> hb{8, 16, 32, 64, 128, 256};
    auto rows = m->Sweep(gpus, hb);
    ASSERT_EQ(rows.size(), gpus.size() * hb.size());
    double minCost = 1, maxCost = 0, minPower = 1, maxPower = 0;
    std::map<std::pair<uint32_t, uint32_t>, double> byTiers; // (rail-only, baseline) tiers
    for (const auto& r : rows)
    {
        std::cout << "N=" << r.railOnly.gpus << " K=" << r.railOnly.hbDomain << " tiers "
                  << r.railOnly.tiers << "/" << r.railOptimized.tiers << " switches "
                  << r.railOnly.switches << "/" << r.railOptimized.switches << " cost -"
                  << r.costReduction * 100 << "% power -" << r.powerReduction * 100 << "%\n";
        EXPECT_LE(r.railOnly.tiers, r.railOptimized.tiers);
        if (r.railOnly.tiers == r.railOptimized.tiers)
        {
            EXPECT_NEAR(r.costReduction, 0.0, 1e-12);
            continue;
        }
        minCost = std::min(minCost, r.costReduction);
        maxCost = std::max(maxCost, r.costReduction);
        minPower = std::min(minPower, r.powerReduction);
        maxPower = std::max(maxPower, r.powerReduction);
        byTiers[{r.railOnly.tiers, r.railOptimized.tiers}] = r.costReduction;
    }
    std::cout << "default table: cost -" << minCost * 100 << "% to -" << maxCost * 100
              << "%, power -" << minPower * 100 << "% to -" << maxPower * 100
              << "% (paper: cost -38% to -77%, power -37% to -75%)" << std::endl;
    // Fewer tiers in the rails, larger saving: 2 vs 3 < 1 vs 3.
    ASSERT_TRUE(byTiers.count({2, 3}) && byTiers.count({1, 3}));
    EXPECT_LT((byTiers[{2, 3}]), (byTiers[{1, 3}]));
    // The published ranges' ends, within a few points with the default (unverified) table.
    EXPECT_NEAR(minPower, 0.37, 0.03);
    EXPECT_NEAR(maxPower, 0.75, 0.03);
    EXPECT_NEAR(minCost, 0.38, 0.05);
    EXPECT_NEAR(maxCost, 0.77, 0.08);
    auto json = nlohmann::json::parse(RailCostModel::RowsToJson(rows));
    EXPECT_EQ(json["rows"].size(), 2 * rows.size());
    EXPECT_EQ(json["rows"][1]["design"], "rail-only");
}

TEST(RailCostModelTest, TableIsJsonAndMarksUnverifiedEntries)
{
    auto m = CreateObject<RailCostModel>();
    auto table = nlohmann::json::parse(m->GetTableJson());
    EXPECT_EQ(table["switch"]["ports"], 64);
    for (const auto& [name, item] : m->GetTable())
    {
        EXPECT_FALSE(item.source.empty()) << name;
    }
    EXPECT_FALSE(table["switch"]["verified"].get<bool>());
    m->LoadJson(R"({"switch": {"price_usd": 5, "ports": 32, "verified": true}})");
    EXPECT_EQ(m->GetRadix(), 32u);
    EXPECT_DOUBLE_EQ(m->GetTable().at("switch").priceUsd, 5.0);
    EXPECT_DOUBLE_EQ(m->GetTable().at("switch").powerW, 750.0); // untouched
}

TEST(RailCostModelTest, PricesComeFromTheSharedTable)
{
    // The shipped PriceTable (contrib/mlnet/data/prices.json) keeps the items this
    // model had: price (USD) and power (W).
    const std::map<std::string, std::pair<double, double>> before = {
        {"switch", {30000, 750}},
        {"switch_transceiver", {700, 8.5}},
        {"nic_transceiver", {700, 9}},
        {"fiber", {50, 0}},
        {"nic", {1500, 25}}};
    auto m = CreateObject<RailCostModel>();
    ASSERT_EQ(m->GetTable().size(), before.size());
    for (const auto& [name, item] : m->GetTable())
    {
        EXPECT_EQ(std::make_pair(item.priceUsd, item.powerW), before.at(name)) << name;
    }
    // Another table replaces every item; a missing part is named with the file.
    Ptr<PriceTable> t = CreateObject<PriceTable>();
    t->LoadJson(R"({"parts": [
        {"part": "switch", "gbps": 400, "ports": 64, "price_usd": 1000, "power_w": 100,
         "source": "test"},
        {"part": "switch_transceiver", "gbps": 400, "price_usd": 10, "power_w": 1,
         "source": "test"},
        {"part": "nic_transceiver", "gbps": 400, "price_usd": 20, "power_w": 2, "source": "test"},
        {"part": "nic", "gbps": 400, "price_usd": 100, "power_w": 10, "source": "test"},
        {"part": "fiber", "price_usd": 1, "source": "test"}]})",
                "mine.json");
    m->SetPriceTable(t);
    // As CostAndPowerMatchHandCalculations: 512 GPUs in domains of 8.
    EXPECT_DOUBLE_EQ(m->RailOnly(512, 8).cost, 8 * 1000.0 + 512 * 10.0 + 512 * 20.0 + 512 * 1.0);
    EXPECT_EQ(m->GetTable().at("fiber").source, "test");
    // LoadJson (railonly-cost --table) takes a whole table too.
    auto whole = CreateObject<RailCostModel>();
    whole->LoadJson(t->ToJson());
    EXPECT_DOUBLE_EQ(whole->RailOnly(512, 8).cost, m->RailOnly(512, 8).cost);
    t->LoadJson(R"({"parts": [
        {"part": "switch", "gbps": 400, "price_usd": 1000, "source": "test"},
        {"part": "switch_transceiver", "gbps": 400, "price_usd": 10, "source": "test"},
        {"part": "nic_transceiver", "gbps": 400, "price_usd": 20, "source": "test"},
        {"part": "nic", "gbps": 400, "price_usd": 100, "source": "test"}]})",
                "mine.json");
    EXPECT_NE(
        InvalidArgumentMessage([&] { m->SetPriceTable(t); }).find("'mine.json' has no \"fiber\""),
        std::string::npos);
}

TEST(RailCostModelTest, BadInputThrowsWithAClearMessage)
{
    auto m = CreateObject<RailCostModel>();
    EXPECT_NE(InvalidArgumentMessage([&] {
                  m->RailOnly(100, 8);
              }).find("do not split into HB domains of 8"),
              std::string::npos);
    EXPECT_NE(InvalidArgumentMessage([&] { m->RailOnly(512, 0); }).find("HB domain size is 0"),
              std::string::npos);
    EXPECT_NE(
        InvalidArgumentMessage([] { RailCostModel::Clos(0, 64); }).find("at least 1 endpoint"),
        std::string::npos);
    EXPECT_NE(
        InvalidArgumentMessage([] { RailCostModel::Clos(65537, 64); }).find("more than 3 tiers"),
        std::string::npos);
    EXPECT_NE(InvalidArgumentMessage([] { RailCostModel::Clos(16, 1); }).find("too small"),
              std::string::npos);
    EXPECT_NE(InvalidArgumentMessage([] { RailCostModel::Clos(16, 7); }).find("odd"),
              std::string::npos);
    EXPECT_NE(InvalidArgumentMessage([&] {
                  m->LoadJson(R"({"router": {}})");
              }).find("price table text: router: unknown price-table item"),
              std::string::npos);
    EXPECT_NE(InvalidArgumentMessage([&] { m->LoadJson(R"({"switch": {"price_usd": "cheap"}})"); })
                  .find("price table text: switch.price_usd: expected a number of USD per unit in "
                        "[0, 1e+09], got string \"cheap\""),
              std::string::npos);
    EXPECT_NE(
        InvalidArgumentMessage([&] { m->LoadJson("{"); }).find("price table text: malformed JSON"),
        std::string::npos);
    EXPECT_NE(InvalidArgumentMessage([&] {
                  m->LoadJsonFile("/nonexistent/table.json");
              }).find("/nonexistent/table.json: no such file"),
              std::string::npos);
}

} // namespace
