// SPDX-License-Identifier: GPL-2.0-only
// The topoopt-cluster example as a user runs it, at test size (8 servers, one
// iteration, a scaled-down model): one row per fabric with packet-level and
// analytical times, determinism, the OCS mode's counters, the same rows on both data
// paths, and one error line for bad input (degree larger than ports, unknown model,
// malformed plan JSON, the fast data path with TCP).
#include "example-process.h"
#include "mlnet-test-support.h"

#include <map>

using namespace mlnettest;

namespace
{
const std::string kSmall = "--servers=8 --degree=4 --model=vgg16 --scale=0.01 --budget=30 ";
}

TEST(TopoOptClusterExample, OneRowPerFabricWithBothTimes)
{
    std::string json = ::testing::TempDir() + "/topoopt-cluster.json";
    ExampleRun run = RunExample("topoopt-cluster", kSmall + "--json=" + json);
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = ReadJson(json);
    ExpectTrafficConserved(doc, 4); // one per fabric
    ExpectRowsHaveHealth(doc, "iteration_s", "analytical_iteration_s");
    ASSERT_EQ(doc["rows"].size(), 4u);
    std::map<std::string, double> it;
    for (const auto& row : doc["rows"])
    {
        EXPECT_EQ(row["model"], "vgg16");
        EXPECT_GT(row["iteration_s"].get<double>(), 0);
        EXPECT_GT(row["analytical_iteration_s"].get<double>(), 0);
        it[row["fabric"]] = row["iteration_s"].get<double>();
    }
    ASSERT_EQ(it.size(), 4u);
    // At the same d x B per server, no fabric beats the non-blocking switch by more
    // than rounding, and the 40G similar-cost fat-tree is slower than it.
    EXPECT_GE(it["topoopt"], 0.99 * it["ideal"]);
    EXPECT_GT(it["fattree"], it["ideal"]);
}

TEST(TopoOptClusterExample, SameFlagsSameJson)
{
    std::string a = ::testing::TempDir() + "/topoopt-cluster-a.json";
    std::string b = ::testing::TempDir() + "/topoopt-cluster-b.json";
    const std::string flags = kSmall + "--fabrics=topoopt,expander --RngRun=2 --json=";
    ASSERT_EQ(RunExample("topoopt-cluster", flags + a).status, 0);
    ASSERT_EQ(RunExample("topoopt-cluster", flags + b).status, 0);
    nlohmann::json ja = ReadJson(a);
    nlohmann::json jb = ReadJson(b);
    StripWall(ja);
    StripWall(jb);
    ja["meta"].erase("command_line");
    jb["meta"].erase("command_line");
    EXPECT_EQ(ja, jb);
}

TEST(TopoOptClusterExample, OcsModeReportsWhatThePolicyDid)
{
    std::map<std::string, nlohmann::json> ocs;
    nlohmann::json fixed;
    for (const std::string policy : {"drop", "drain-then-switch"})
    {
        std::string json = ::testing::TempDir() + "/topoopt-cluster-ocs-" + policy + ".json";
        ExampleRun run = RunExample("topoopt-cluster",
                                    kSmall + "--fabrics=topoopt --ocs --ocs-policy=" + policy +
                                        " --json=" + json);
        ASSERT_EQ(run.status, 0) << run.err;
        nlohmann::json doc = ReadJson(json);
        ASSERT_EQ(doc["rows"].size(), 2u);
        EXPECT_EQ(doc["rows"][1]["fabric"], "topoopt-ocs");
        // Frames refused by dark ports and frames on circuits torn down under them are
        // drops on the ocs links, as many as the switch counted itself.
        ExpectTrafficConserved(doc, 2);
        EXPECT_EQ(doc["accounting"][1]["frames"]["dropped"]["frames"],
                  doc["rows"][1]["frames_dropped_while_dark"])
            << policy;
        ocs[policy] = doc["rows"][1];
        fixed = doc["rows"][0];
    }
    // Drop loses the frames sent into the dark ports; drain-then-switch holds them.
    EXPECT_GT(ocs["drop"]["frames_dropped_while_dark"].get<int>(), 0);
    EXPECT_EQ(ocs["drop"]["frames_held_while_dark"], 0);
    EXPECT_EQ(ocs["drain-then-switch"]["frames_dropped_while_dark"], 0);
    EXPECT_GT(ocs["drain-then-switch"]["frames_held_while_dark"].get<int>(), 0);
    for (auto& [policy, row] : ocs)
    {
        // 8 ports of the last plane dark for 100 us each.
        EXPECT_NEAR(row["port_dark_s"].get<double>(), 8 * 100e-6, 1e-12) << policy;
        EXPECT_EQ(row["completed_iterations"], 1) << policy;
        // The reconfiguration costs time: the OCS run is slower than the static one.
        EXPECT_GT(row["iteration_s"].get<double>(), fixed["iteration_s"].get<double>()) << policy;
    }
}

TEST(TopoOptClusterExample, BothDataPathsGiveTheSameRows)
{
    // Default (auto): udp and no FlowMonitor, so the fast data path; --dataPath=ipv4
    // builds the same fabrics on ns-3's Internet stack. Same iteration times (to the
    // picosecond, as doubles), the same OCS counters and the same frame accounting.
    std::map<std::string, nlohmann::json> doc;
    for (const std::string path : {"ipv4", "auto"})
    {
        std::string json = ::testing::TempDir() + "/topoopt-cluster-path-" + path + ".json";
        ExampleRun run =
            RunExample("topoopt-cluster",
                       kSmall + "--fabrics=topoopt --ocs --transport=udp --dataPath=" + path +
                           " --json=" + json);
        ASSERT_EQ(run.status, 0) << run.err;
        doc[path] = ReadJson(json);
        ExpectTrafficConserved(doc[path], 2);
    }
    EXPECT_EQ(doc["ipv4"]["meta"]["data_path"], "ipv4");
    EXPECT_EQ(doc["auto"]["meta"]["data_path"], "fast");
    ASSERT_EQ(doc["auto"]["rows"].size(), 2u);
    EXPECT_EQ(doc["auto"]["rows"], doc["ipv4"]["rows"]);
    for (size_t k = 0; k < 2; ++k)
    {
        const nlohmann::json& fast = doc["auto"]["accounting"][k];
        const nlohmann::json& ipv4 = doc["ipv4"]["accounting"][k];
        EXPECT_EQ(fast["data_path"], "fast");
        EXPECT_EQ(ipv4["data_path"], "ipv4");
        EXPECT_EQ(fast["frames"], ipv4["frames"]) << k;
        EXPECT_EQ(fast["messages"], ipv4["messages"]) << k;
    }
}

TEST(TopoOptClusterExample, BadInputGivesOneErrorLine)
{
    ExpectOneErrorLine(RunExample("topoopt-cluster", "--servers=8 --degree=4 --ports=2"),
                       "degree larger than ports");
    ExpectOneErrorLine(RunExample("topoopt-cluster", "--model=alexnet"), "unknown model");
    std::string bad = ::testing::TempDir() + "/topoopt-bad-plan.json";
    std::ofstream(bad) << "{\"format\": \"topoopt-plan\", \"servers\": 8, ";
    ExpectOneErrorLine(RunExample("topoopt-cluster", kSmall + "--plan=" + bad),
                       "malformed plan JSON");
    std::ofstream(bad) << R"({"format": "topoopt-plan", "version": 1, "servers": 8,
        "degree": 4, "planes": [[[0, 0]]]})";
    ExpectOneErrorLine(RunExample("topoopt-cluster", kSmall + "--plan=" + bad), "self-loop plan");
    ExpectOneErrorLine(RunExample("topoopt-cluster", kSmall + "--ocs --ocs-policy=teleport"),
                       "bad policy");
    ExampleRun tcp = RunExample("topoopt-cluster", kSmall + "--dataPath=fast --transport=tcp");
    ExpectOneErrorLine(tcp, "fast data path with tcp");
    EXPECT_NE(tcp.err.find("--dataPath"), std::string::npos) << tcp.err;
    ExpectOneErrorLine(RunExample("topoopt-cluster", kSmall + "--dataPath=dpdk"),
                       "unknown data path");
}

TEST(TopoOptClusterExample, RunsAPlanWrittenByTopoOptPlan)
{
    std::string plan = ::testing::TempDir() + "/topoopt-plan-for-cluster.json";
    std::string json = ::testing::TempDir() + "/topoopt-cluster-from-plan.json";
    ASSERT_EQ(
        RunExample("topoopt-plan", "--servers=8 --degree=4 --model=vgg16 --json=" + plan).status,
        0);
    ExampleRun run = RunExample("topoopt-cluster",
                                kSmall + "--fabrics=topoopt --plan=" + plan + " --json=" + json);
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = ReadJson(json);
    ASSERT_EQ(doc["rows"].size(), 1u);
    EXPECT_EQ(doc["rows"][0]["diameter"], ReadJson(plan)["rows"][0]["diameter"]);
    // A plan of another size is refused with one line.
    ExpectOneErrorLine(
        RunExample("topoopt-cluster", "--servers=16 --degree=4 --model=vgg16 --plan=" + plan),
        "plan of another size");
}
