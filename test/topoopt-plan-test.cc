// SPDX-License-Identifier: GPL-2.0-only
// The topoopt-plan example as a user runs it: a plan for a shipped model, the
// report's fields, routes only with --routes (then every pair), determinism under a
// fixed seed, 128 servers in seconds, and one error line for bad input.
#include "example-process.h"
#include "mlnet-test-support.h"

#include <chrono>
#include <set>

using namespace mlnettest;

TEST(TopoOptPlanExample, WritesAPlanWithItsSummary)
{
    std::string json = ::testing::TempDir() + "/topoopt-plan.json";
    ExampleRun run = RunExample("topoopt-plan",
                                "--servers=16 --degree=4 --model=dlrm --budget=50 --json=" + json);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("diameter"), std::string::npos);
    EXPECT_NE(run.out.find("predicted iteration"), std::string::npos);
    nlohmann::json doc = ReadJson(json);
    ExpectTrafficConserved(doc, 0); // analytic: nothing simulated, nothing to account
    ASSERT_EQ(doc["rows"].size(), 1u);
    const auto& row = doc["rows"][0];
    EXPECT_EQ(row["degree"], 4);
    EXPECT_GE(row["diameter"].get<int>(), 1);
    EXPECT_GT(row["predicted_iteration_s"].get<double>(), 0);
    EXPECT_LE(row["predicted_iteration_s"].get<double>(), row["start_iteration_s"].get<double>());
    EXPECT_EQ(doc["plan"]["servers"], 16);
    EXPECT_EQ(doc["plan"]["planes"].size(), 4u);
    EXPECT_EQ(doc["strategy"]["placements"].size(), 64u); // DLRM's tables stay placed
    // Without --routes the plan holds circuits and rings only.
    EXPECT_TRUE(doc["plan"]["routes"].empty());
    EXPECT_EQ(row["routes"], 0);
}

TEST(TopoOptPlanExample, RoutesFlagWritesEveryPair)
{
    std::string json = ::testing::TempDir() + "/topoopt-plan-routes.json";
    const std::string flags = "--servers=16 --degree=4 --model=dlrm --budget=20 --json=" + json;
    ASSERT_EQ(RunExample("topoopt-plan", flags).status, 0);
    nlohmann::json bare = ReadJson(json);
    ExampleRun run = RunExample("topoopt-plan", flags + " --routes");
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = ReadJson(json);
    const auto& routes = doc["plan"]["routes"];
    ASSERT_EQ(routes.size(), 16u * 15);
    EXPECT_EQ(doc["rows"][0]["routes"], 16 * 15);
    std::set<std::pair<int, int>> pairs;
    for (const auto& r : routes)
    {
        pairs.emplace(r["src"].get<int>(), r["dst"].get<int>());
        EXPECT_EQ(r["paths"][0]["hops"].front(), r["src"]);
        EXPECT_EQ(r["paths"][0]["hops"].back(), r["dst"]);
    }
    EXPECT_EQ(pairs.size(), 16u * 15); // each ordered pair once
    // The routes change nothing else: same circuits, rings and prediction.
    EXPECT_EQ(doc["plan"]["planes"], bare["plan"]["planes"]);
    EXPECT_EQ(doc["plan"]["rings"], bare["plan"]["rings"]);
    EXPECT_EQ(doc["rows"][0]["predicted_iteration_s"], bare["rows"][0]["predicted_iteration_s"]);
}

TEST(TopoOptPlanExample, SameSeedSamePlan)
{
    std::string a = ::testing::TempDir() + "/topoopt-plan-a.json";
    std::string b = ::testing::TempDir() + "/topoopt-plan-b.json";
    std::string c = ::testing::TempDir() + "/topoopt-plan-c.json";
    const std::string flags = "--servers=16 --degree=4 --model=ncf --budget=100 ";
    ASSERT_EQ(RunExample("topoopt-plan", flags + "--RngRun=3 --json=" + a).status, 0);
    ASSERT_EQ(RunExample("topoopt-plan", flags + "--RngRun=3 --json=" + b).status, 0);
    ASSERT_EQ(RunExample("topoopt-plan", flags + "--RngRun=4 --json=" + c).status, 0);
    nlohmann::json ja = ReadJson(a);
    nlohmann::json jb = ReadJson(b);
    nlohmann::json jc = ReadJson(c);
    StripWall(ja);
    StripWall(jb);
    StripWall(jc);
    ja["meta"].erase("command_line");
    jb["meta"].erase("command_line");
    EXPECT_EQ(ja, jb);
    EXPECT_NE(ja["plan"], jc["plan"]);
}

TEST(TopoOptPlanExample, HundredTwentyEightServersInSeconds)
{
    auto t0 = std::chrono::steady_clock::now();
    ExampleRun run =
        RunExample("topoopt-plan",
                   "--servers=128 --degree=8 --model=dlrm --bandwidth=100Gbps --budget=20");
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_LT(wall, 30.0);
    std::cout << "topoopt-plan --servers=128 --degree=8: " << wall << " s wall" << std::endl;
}

TEST(TopoOptPlanExample, BadInputGivesOneErrorLine)
{
    ExpectOneErrorLine(RunExample("topoopt-plan", "--servers=16 --degree=6 --ports=4"),
                       "degree larger than ports");
    ExpectOneErrorLine(RunExample("topoopt-plan", "--servers=4 --degree=4"),
                       "degree larger than servers - 1");
    ExpectOneErrorLine(RunExample("topoopt-plan", "--model=alexnet"), "unknown model");
    std::string bad = ::testing::TempDir() + "/topoopt-bad-profile.json";
    std::ofstream(bad) << "{\"format\": \"topoopt-profile\", \"layers\": [";
    ExpectOneErrorLine(RunExample("topoopt-plan", "--profile=" + bad), "malformed profile");
}
