// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of TopologyPlan: circuit bookkeeping (parallel circuits counted), BFS
 * helpers on hand-built plans, the JSON round trip and the rejection of
 * malformed or inconsistent plan documents.
 */
#include "ns3/core-module.h"
#include "ns3/topology-finder.h"
#include "ns3/topology-plan.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(TopologyPlanTest, CircuitsDegreesAndDistances)
{
    // 6 servers, 2 planes: plane 0 = {0-1, 2-3, 4-5}, plane 1 = {1-2, 3-4, 5-0}: a
    // 6-cycle (diameter 3). Then a parallel circuit 0-1 on a third plane.
    TopologyPlan plan(6, 3);
    plan.AddCircuit(0, 0, 1);
    plan.AddCircuit(0, 2, 3);
    plan.AddCircuit(0, 4, 5);
    plan.AddCircuit(1, 1, 2);
    plan.AddCircuit(1, 3, 4);
    plan.AddCircuit(1, 5, 0);
    EXPECT_TRUE(plan.IsConnected());
    EXPECT_EQ(plan.Diameter(), 3u);
    EXPECT_EQ(plan.Distances(0), (std::vector<uint32_t>{0, 1, 2, 3, 2, 1}));
    plan.AddCircuit(2, 1, 0);
    EXPECT_EQ(plan.CircuitCounts()(0, 1), 2);
    EXPECT_EQ(plan.CircuitCounts()(1, 0), 2);
    EXPECT_EQ(plan.Neighbours()[0], (std::vector<uint32_t>{1, 1, 5}));
    EXPECT_EQ(plan.Degrees(), (std::vector<uint32_t>{3, 3, 2, 2, 2, 2}));
    EXPECT_EQ(plan.GetPeer(2, 0), 1);
    EXPECT_EQ(plan.GetPeer(2, 3), -1);
    EXPECT_EQ(plan.GetCircuitCount(), 7u);
    // A server twice in one plane, a self-loop, out-of-range indices: rejected.
    EXPECT_THROW(plan.AddCircuit(2, 0, 3), std::invalid_argument);
    EXPECT_THROW(plan.AddCircuit(2, 3, 3), std::invalid_argument);
    EXPECT_THROW(plan.AddCircuit(2, 3, 6), std::invalid_argument);
    EXPECT_THROW(plan.AddCircuit(3, 3, 4), std::invalid_argument);
    // Two disjoint triangles' worth of circuits: disconnected.
    TopologyPlan split(4, 1);
    split.AddCircuit(0, 0, 1);
    split.AddCircuit(0, 2, 3);
    EXPECT_FALSE(split.IsConnected());
    EXPECT_EQ(split.Diameter(), UINT32_MAX);
}

TEST(TopologyPlanTest, JsonRoundTripIsIdentical)
{
    Ptr<TopologyFinder> f = CreateObject<TopologyFinder>();
    f->SetAttribute("Degree", UintegerValue(5));
    f->AssignStreams(3);
    Eigen::MatrixXd demand = Eigen::MatrixXd::Zero(24, 24);
    demand(0, 7) = 5e6;
    demand(3, 20) = 1e6;
    TopologyPlan plan = f->Find(24, {{24, 1e8}, {6, 1e7}, {3, 1e3}}, demand);
    std::string text = plan.ToJson();
    TopologyPlan back = TopologyPlan::FromJson(text);
    EXPECT_TRUE(back == plan);
    EXPECT_EQ(back.ToJson(), text);
    EXPECT_EQ(TopologyPlan::FromJson(back.ToJson(0)).ToJson(), text);
    // Through a file as well.
    std::string path = testing::TempDir() + "topoopt-plan-roundtrip.json";
    plan.WriteFile(path);
    EXPECT_TRUE(TopologyPlan::ReadFile(path) == plan);
    std::remove(path.c_str());
}

TEST(TopologyPlanTest, MalformedJsonThrows)
{
    const std::string ok = R"({"servers": 4, "degree": 2,
        "planes": [[[0,1],[2,3]], [[1,2],[3,0]]],
        "rings": [{"size": 4, "jumps": [1, 3]}],
        "routes": [{"src": 0, "dst": 2, "paths": [{"hops": [0,1,2], "chance": 0.5},
                                                   {"hops": [0,3,2], "chance": 0.5}]}]})";
    TopologyPlan good = TopologyPlan::FromJson(ok);
    EXPECT_EQ(good.GetRoutes(0, 2).size(), 2u);
    EXPECT_EQ(good.Diameter(), 2u);
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"{", "malformed JSON"},
        {"[1, 2]", "plan text: top level: expected a JSON object"},
        {R"({"degree": 2, "planes": []})", "servers"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,1],[1,2]]]})",
         "plan text: planes[0][1]: server 1 used twice in plane 0"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,1]], [[2,3]]]})",
         "plan text: planes: has 2 planes but the degree is 1 (degree exceeded)"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,4]]]})", "out of range"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,-1]]]})",
         "plan text: planes[0][0][1]: expected a whole number of servers in [0, 4096], got number "
         "-1"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,1,2]]]})",
         "plan text: planes[0][0]: expected an array of exactly 2 server indices (a circuit is a "
         "pair"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,0]]]})", "itself"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,1]]],
             "conn": [{"from": 0, "to": 1, "nconn": 2}]})",
         "conn"},
        {R"({"servers": 4, "degree": 2, "planes": [[[0,1],[2,3]]],
             "rings": [{"size": 4, "jumps": [1]}]})",
         "no circuit"},
        {R"({"servers": 4, "degree": 2, "planes": [[[0,1],[2,3]]],
             "rings": [{"size": 4, "jumps": [2]}]})",
         "jump 2"},
        {R"({"servers": 4, "degree": 2, "planes": [[[0,1],[2,3]]],
             "rings": [{"size": 3, "jumps": [1]}]})",
         "divide"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,1],[2,3]]],
             "routes": [{"src": 0, "dst": 2, "paths": [{"hops": [0,2]}]}]})",
         "not a circuit"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,1],[2,3]]],
             "routes": [{"src": 0, "dst": 1, "paths": [{"hops": [0,1], "chance": 0.4}]}]})",
         "sum"},
        {R"({"servers": 4, "degree": 1, "planes": [[[0,1],[2,3]]],
             "routes": [{"src": 0, "dst": 1, "paths": [{"hops": [1,0]}]}]})",
         "start at the source"},
        {R"({"format": "other", "servers": 4, "degree": 1, "planes": []})", "format"},
    };
    for (const auto& [text, needle] : bad)
    {
        try
        {
            TopologyPlan::FromJson(text);
            ADD_FAILURE() << "accepted: " << text;
        }
        catch (const std::invalid_argument& e)
        {
            std::string msg = e.what();
            EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
        }
    }
    EXPECT_THROW(TopologyPlan::ReadFile("/nonexistent/plan.json"), std::invalid_argument);
}
