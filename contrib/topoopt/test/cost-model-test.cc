// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of CostModel (per-server formulas, similar-cost solver, JSON price
 * overrides) and of RandomRegularTopology (d-regular, connected, simple,
 * seeded).
 */
#include "ns3/core-module.h"
#include "ns3/cost-model.h"
#include "ns3/random-regular-topology.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(CostModelTest, PerServerFormulas)
{
    Ptr<CostModel> m = CreateObject<CostModel>();
    const PriceEntry& p = m->GetPrices(100);
    // TopoOpt: d * (NIC + transceiver + panel port).
    EXPECT_DOUBLE_EQ(m->TopoOptCostPerServer(4, 100),
                     4 * (p.nicPort + p.transceiver + p.panelPort));
    EXPECT_DOUBLE_EQ(m->TopoOptCostPerServer(4, 100, OpticalDevice::OCS),
                     4 * (p.nicPort + p.transceiver + p.ocsPort));
    // Fat-tree, r = 1: NIC + 5 switch ports + 3 links of 2 transceivers.
    EXPECT_DOUBLE_EQ(m->FatTreeCostPerServer(100),
                     p.nicPort + 5 * p.switchPort + 6 * p.transceiver);
    // r = 4: 1 + 4/4 = 2 switch ports, 1 + 2/4 = 1.5 links.
    EXPECT_DOUBLE_EQ(m->FatTreeCostPerServer(100, 4),
                     p.nicPort + 2 * p.switchPort + 1.5 * 2 * p.transceiver);
    EXPECT_DOUBLE_EQ(m->IdealSwitchCostPerServer(8, 100), 8 * m->FatTreeCostPerServer(100));
    EXPECT_THROW(m->GetPrices(50), std::invalid_argument);
    EXPECT_THROW(m->FatTreeCostPerServer(100, 0.5), std::invalid_argument);
    std::cout << "[ info     ] per server at 100G, d=4: TopoOpt " << m->TopoOptCostPerServer(4, 100)
              << " USD, ideal switch " << m->IdealSwitchCostPerServer(4, 100) << " USD (x"
              << m->IdealSwitchCostPerServer(4, 100) / m->TopoOptCostPerServer(4, 100) << ")\n";
}

TEST(CostModelTest, SimilarCostSolver)
{
    Ptr<CostModel> m = CreateObject<CostModel>();
    for (uint32_t d : {4u, 8u})
    {
        for (uint32_t b : {25u, 100u})
        {
            double budget = m->TopoOptCostPerServer(d, b);
            SimilarCostFatTree s = m->SimilarCost(budget);
            // Full bisection: the largest speed whose r = 1 cost fits, by enumeration.
            uint32_t expect = 0;
            for (uint32_t speed : m->Speeds())
            {
                if (m->FatTreeCostPerServer(speed) <= budget)
                {
                    expect = speed;
                }
            }
            EXPECT_EQ(s.fullBisectionGbps, expect);
            EXPECT_LE(s.costPerServer, budget * (1 + 1e-12));
            EXPECT_GE(s.oversubscription, 1.0);
            EXPECT_GE(s.bandwidthPerServerGbps, s.fullBisectionGbps);
            EXPECT_DOUBLE_EQ(s.bandwidthPerServerGbps, s.gbps / s.oversubscription);
            std::cout << "[ info     ] TopoOpt d=" << d << " x " << b << "G costs " << budget
                      << " USD/server: fat-tree full bisection " << s.fullBisectionGbps
                      << "G, best " << s.gbps << "G at r=" << s.oversubscription << " ("
                      << s.bandwidthPerServerGbps << " Gbps/server)\n";
        }
    }
    // A budget below every option affords nothing.
    SimilarCostFatTree none = m->SimilarCost(10);
    EXPECT_EQ(none.gbps, 0u);
    EXPECT_EQ(none.fullBisectionGbps, 0u);
}

TEST(CostModelTest, JsonOverrides)
{
    Ptr<CostModel> m = CreateObject<CostModel>();
    m->LoadJson(R"({"prices": {"100": {"transceiver": 1000},
                                "800": {"transceiver": 1, "nic_port": 2, "switch_port": 3,
                                        "panel_port": 4, "ocs_port": 5}}})");
    EXPECT_DOUBLE_EQ(m->GetPrices(100).transceiver, 1000);
    EXPECT_DOUBLE_EQ(m->GetPrices(100).nicPort, CostModel::DefaultPrices()[100].nicPort);
    EXPECT_DOUBLE_EQ(m->TopoOptCostPerServer(2, 800, OpticalDevice::OCS), 2 * (2 + 1 + 5));
    Ptr<CostModel> copy = CreateObject<CostModel>();
    copy->LoadJson(m->ToJson());
    EXPECT_EQ(copy->ToJson(), m->ToJson());
    EXPECT_THROW(m->LoadJson("{"), std::invalid_argument);
    EXPECT_THROW(m->LoadJson(R"({"fast": {}})"), std::invalid_argument);
    EXPECT_THROW(m->LoadJson(R"({"100": {"laser": 3}})"), std::invalid_argument);
    EXPECT_THROW(m->LoadJson(R"({"100": {"transceiver": -3}})"), std::invalid_argument);
    EXPECT_THROW(m->LoadJson(R"({"1600": {"transceiver": 1}})"), std::invalid_argument);
}

TEST(CostModelTest, PricesComeFromTheSharedTable)
{
    // The shipped PriceTable (contrib/mlnet/data/prices.json) keeps the prices this
    // model had: speed -> transceiver, NIC port, switch port, panel port, OCS port.
    const std::map<uint32_t, std::vector<double>> before = {{10, {20, 90, 50, 100, 520}},
                                                            {25, {39, 120, 80, 100, 520}},
                                                            {40, {49, 200, 100, 100, 520}},
                                                            {100, {99, 350, 200, 100, 520}},
                                                            {200, {299, 600, 400, 100, 520}},
                                                            {400, {599, 1000, 700, 100, 520}}};
    Ptr<CostModel> m = CreateObject<CostModel>();
    ASSERT_EQ(m->Speeds().size(), before.size());
    for (const auto& [speed, p] : before)
    {
        const PriceEntry& e = m->GetPrices(speed);
        EXPECT_EQ(
            (std::vector<double>{e.transceiver, e.nicPort, e.switchPort, e.panelPort, e.ocsPort}),
            p)
            << speed;
    }
    // doc/topology-finder.md: d = 4 x 100G = 4 (350 + 99 + 100); ideal 4 (350 + 5*200 + 6*99).
    EXPECT_DOUBLE_EQ(m->TopoOptCostPerServer(4, 100), 2196);
    EXPECT_DOUBLE_EQ(m->IdealSwitchCostPerServer(4, 100), 7776);

    // Another table replaces every price; a speed missing a part is named.
    Ptr<PriceTable> t = CreateObject<PriceTable>();
    t->LoadJson(R"({"parts": [
        {"part": "transceiver", "gbps": 40, "price_usd": 1, "source": "test"},
        {"part": "nic_port", "gbps": 40, "price_usd": 2, "source": "test"},
        {"part": "switch_port", "gbps": 40, "price_usd": 3, "source": "test"},
        {"part": "panel_port", "price_usd": 4, "source": "test"},
        {"part": "ocs_port", "price_usd": 5, "source": "test"}]})",
                "mine.json");
    m->SetPriceTable(t);
    EXPECT_EQ(m->Speeds(), (std::vector<uint32_t>{40}));
    EXPECT_DOUBLE_EQ(m->TopoOptCostPerServer(2, 40), 2 * (2 + 1 + 4));
    Ptr<CostModel> whole = CreateObject<CostModel>(); // LoadJson takes a whole table too
    whole->LoadJson(t->ToJson());
    EXPECT_EQ(whole->ToJson(), m->ToJson());
    t->LoadJson(R"({"parts": [
        {"part": "transceiver", "gbps": 40, "price_usd": 1, "source": "test"},
        {"part": "switch_port", "gbps": 40, "price_usd": 3, "source": "test"},
        {"part": "panel_port", "price_usd": 4, "source": "test"},
        {"part": "ocs_port", "price_usd": 5, "source": "test"}]})",
                "mine.json");
    try
    {
        m->SetPriceTable(t);
        ADD_FAILURE() << "a table without nic_port was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("'mine.json' has no \"nic_port\" at 40 Gbps"),
                  std::string::npos)
            << e.what();
    }
}

TEST(RandomRegularTopologyTest, RegularConnectedSimpleAndSeeded)
{
    auto build = [](uint32_t n, uint32_t d, int64_t stream) {
        Ptr<RandomRegularTopology> r = CreateObject<RandomRegularTopology>();
        r->SetAttribute("Degree", UintegerValue(d));
        r->AssignStreams(stream);
        TopologyPlan plan = r->Build(n);
        EXPECT_EQ(r->GetParallelCircuits(), 0u);
        return plan;
    };
    for (auto [n, d] : std::vector<std::pair<uint32_t, uint32_t>>{{16, 4}, {128, 8}, {12, 3}})
    {
        TopologyPlan plan = build(n, d, 7);
        for (uint32_t deg : plan.Degrees())
        {
            EXPECT_EQ(deg, d);
        }
        EXPECT_TRUE(plan.IsConnected());
        Eigen::MatrixXi c = plan.CircuitCounts();
        EXPECT_LE(c.maxCoeff(), 1);
        EXPECT_EQ(plan.GetAllRoutes().size(), n * (n - 1));
        EXPECT_NO_THROW(plan.Validate());
        EXPECT_TRUE(build(n, d, 7) == plan);
        std::cout << "[ info     ] random " << d << "-regular on " << n << " servers: diameter "
                  << plan.Diameter() << "\n";
    }
    EXPECT_TRUE(build(16, 4, 8) != build(16, 4, 7));
    Ptr<RandomRegularTopology> r = CreateObject<RandomRegularTopology>();
    EXPECT_THROW(r->Build(9), std::invalid_argument);
    r->SetAttribute("Degree", UintegerValue(9));
    EXPECT_THROW(r->Build(8), std::invalid_argument);
}
