// SPDX-License-Identifier: GPL-2.0-only
// One price table for every module: a replacement PriceTable file (here named by
// MLNET_PRICE_TABLE, as a user would) moves topoopt's CostModel and railonly's
// RailCostModel -- and so every cost TrainingClusterRunner prints -- together.
#include "ns3/core-module.h"
#include "ns3/cost-model.h"
#include "ns3/price-table.h"
#include "ns3/rail-cost-model.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace ns3;

TEST(SharedPriceTableTest, ReplacementTableMovesBothModulesConsistently)
{
    Ptr<CostModel> topo = CreateObject<CostModel>();
    Ptr<RailCostModel> rail = CreateObject<RailCostModel>();
    const double topoopt = topo->TopoOptCostPerServer(4, 100);
    const double fatTree = topo->FatTreeCostPerServer(100);
    const SimilarCostFatTree similar = topo->SimilarCost(topoopt);
    const CostComparison railBefore = rail->Compare(4096, 8);

    // The shipped table with every price doubled, power unchanged.
    nlohmann::json doc = nlohmann::json::parse(CreateObject<PriceTable>()->ToJson());
    for (auto& part : doc["parts"])
    {
        part["price_usd"] = 2 * part["price_usd"].get<double>();
    }
    std::string file = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-prices.json";
    std::ofstream(file) << doc.dump(2);
    ASSERT_EQ(setenv(PriceTable::kEnvironment, file.c_str(), 1), 0);
    Ptr<CostModel> topo2 = CreateObject<CostModel>();
    Ptr<RailCostModel> rail2 = CreateObject<RailCostModel>();
    unsetenv(PriceTable::kEnvironment);
    std::remove(file.c_str());

    // Every cost is linear in the prices: all double, power and ratios stay.
    EXPECT_DOUBLE_EQ(topo2->TopoOptCostPerServer(4, 100), 2 * topoopt);
    EXPECT_DOUBLE_EQ(topo2->FatTreeCostPerServer(100), 2 * fatTree);
    SimilarCostFatTree similar2 = topo2->SimilarCost(2 * topoopt);
    EXPECT_EQ(similar2.gbps, similar.gbps);
    EXPECT_DOUBLE_EQ(similar2.costPerServer, 2 * similar.costPerServer);
    CostComparison railAfter = rail2->Compare(4096, 8);
    EXPECT_DOUBLE_EQ(railAfter.railOnly.cost, 2 * railBefore.railOnly.cost);
    EXPECT_DOUBLE_EQ(railAfter.railOptimized.cost, 2 * railBefore.railOptimized.cost);
    EXPECT_DOUBLE_EQ(railAfter.railOnly.powerW, railBefore.railOnly.powerW);
    EXPECT_NEAR(railAfter.costReduction, railBefore.costReduction, 1e-12);
    // TrainingClusterRunner's TopoOpt row: n*d (NIC transceiver + fibre + panel port),
    // the first two through RailCostModel, the panel through CostModel.
    auto topooptRow = [](Ptr<RailCostModel> r, Ptr<CostModel> c) {
        const auto& t = r->GetTable();
        return t.at("nic_transceiver").priceUsd + t.at("fiber").priceUsd +
               c->GetPrices(100).panelPort;
    };
    EXPECT_DOUBLE_EQ(topooptRow(rail2, topo2), 2 * topooptRow(rail, topo));
}
