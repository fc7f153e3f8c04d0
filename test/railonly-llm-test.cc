// SPDX-License-Identifier: GPL-2.0-only
// The railonly-llm example as a user runs it: every fabric at a tiny size, MoE,
// a failed rail switch, both data paths, determinism, and one error line for bad input.
#include "example-process.h"
#include "mlnet-test-support.h"

using namespace mlnettest;

namespace
{

// Radix 8: one leaf per rail (rail-optimized), one HB domain per leaf (fat-tree).
const std::string kTiny = "--domains=4 --domainSize=4 --radix=8 --tp=4 --pp=2 --dp=2 "
                          "--layers=2 --hidden=256 --seq=128 --microBatches=2 --vocab=1024";

nlohmann::json
RunLlm(const std::string& flags, const std::string& file)
{
    std::string json = ::testing::TempDir() + "/" + file;
    ExampleRun run = RunExample("railonly-llm", kTiny + " " + flags + " --json=" + json);
    EXPECT_EQ(run.status, 0) << run.err;
    if (run.status != 0)
    {
        return nlohmann::json::object();
    }
    nlohmann::json doc = ReadJson(json);
    ExpectTrafficConserved(doc, doc["accounting"].size());
    ExpectRowsHaveHealth(doc, "iteration_s", "twin_iteration_s");
    EXPECT_GE(doc["accounting"].size(), doc["rows"].size() > 0 ? 1u : 0u);
    return doc;
}

const nlohmann::json*
Row(const nlohmann::json& doc, const std::string& fabric, const std::string& failure = "none")
{
    for (const auto& r : doc["rows"])
    {
        if (r["fabric"] == fabric && r["failure"] == failure)
        {
            return &r;
        }
    }
    return nullptr;
}

} // namespace

TEST(RailonlyLlmExample, DenseGptOnEveryFabric)
{
    nlohmann::json doc = RunLlm("--fabric=all", "llm-all.json");
    ASSERT_EQ(doc["rows"].size(), 3u);
    const auto* only = Row(doc, "rail-only");
    const auto* opt = Row(doc, "rail-optimized");
    const auto* fat = Row(doc, "fat-tree");
    ASSERT_TRUE(only && opt && fat);
    for (const auto* r : {only, opt, fat})
    {
        EXPECT_GT((*r)["iteration_s"].get<double>(), 0);
        EXPECT_GT((*r)["analytical_iteration_s"].get<double>(), 0);
        EXPECT_TRUE((*r)["bytes_by_link_class"].is_object());
        EXPECT_GT((*r)["bytes_by_link_class"]["nvlink"].get<double>(), 0);
    }
    // Rail-aligned parallelism: no spine byte on rail-optimized, the same time on rail-only.
    EXPECT_EQ((*opt)["bytes_by_link_class"]["spine"].get<double>(), 0);
    EXPECT_NEAR((*only)["iteration_s"].get<double>() / (*opt)["iteration_s"].get<double>(),
                1.0,
                0.01);
    // The fat-tree puts whole domains under a leaf: DP and PP cross its spine.
    EXPECT_GT((*fat)["bytes_by_link_class"]["spine"].get<double>(), 0);
}

TEST(RailonlyLlmExample, MoeReportsTheAllToAllOverhead)
{
    nlohmann::json doc = RunLlm("--fabric=all --moe --moeEvery=2", "llm-moe.json");
    const auto* only = Row(doc, "rail-only");
    ASSERT_TRUE(only);
    ASSERT_TRUE(only->contains("moe_alltoall_overhead"));
    // The two-phase all-to-all (stage of 8 GPUs: c = 4 per domain, Dg = 2 domains) costs
    // (c-1)*Dg/(c*(Dg-1)) * B_n/B_h = 1.5/9 = 16.7 % over the ideal flat one; measured
    // at packet level against the closed-form flat time. (Against the packet-level
    // rail-optimized run it is cheaper: flow hashing collides there.)
    double overhead = (*only)["moe_overhead_vs_ideal_flat"].get<double>();
    double model = (*only)["analytical"]["moe_overhead"].get<double>();
    EXPECT_GT(overhead, 0.0);
    EXPECT_NEAR(overhead, model, 0.05);
    EXPECT_NEAR((*only)["moe_alltoall_s"].get<double>() /
                    (*only)["analytical_moe_alltoall_s"].get<double>(),
                1.0,
                0.05);
    EXPECT_EQ((*only)["bytes_by_link_class"]["spine"].get<double>(), 0);
}

TEST(RailonlyLlmExample, FailedRailSwitchReroutesAndReportsTheSlowdown)
{
    nlohmann::json doc = RunLlm("--fabric=rail-only --failRailSwitch=2", "llm-fail.json");
    ASSERT_EQ(doc["rows"].size(), 2u);
    const auto* failed = Row(doc, "rail-only", "rail-switch 2");
    ASSERT_TRUE(failed);
    EXPECT_GT((*failed)["slowdown"].get<double>(), 0);
    EXPECT_EQ((*failed)["failed_links"].get<int>(), 4);
}

TEST(RailonlyLlmExample, SameFlagsGiveTheSameJson)
{
    nlohmann::json a = RunLlm("--fabric=rail-only --moe", "llm-det-a.json");
    nlohmann::json b = RunLlm("--fabric=rail-only --moe", "llm-det-b.json");
    StripWall(a);
    StripWall(b);
    a["meta"].erase("command_line");
    b["meta"].erase("command_line");
    EXPECT_EQ(a, b);
}

// The default data path is the fast one for UDP; the IPv4 path gives the same rows (the
// same iteration times, twin and link bytes), healthy and with a failed NIC; TCP runs on
// IPv4 under auto.
TEST(RailonlyLlmExample, BothDataPathsGiveTheSameRows)
{
    nlohmann::json fast = RunLlm("--transport=udp --fabric=all --failNic=5", "llm-fast.json");
    nlohmann::json ipv4 =
        RunLlm("--transport=udp --fabric=all --failNic=5 --dataPath=ipv4", "llm-ipv4.json");
    EXPECT_EQ(fast["meta"]["data_path"], "fast");
    EXPECT_EQ(ipv4["meta"]["data_path"], "ipv4");
    ASSERT_EQ(fast["rows"].size(), 6u) << "3 fabrics, healthy and with a failed NIC";
    StripWall(fast);
    StripWall(ipv4);
    EXPECT_EQ(fast["rows"], ipv4["rows"]);
    nlohmann::json tcp = RunLlm("--fabric=rail-only --transport=tcp", "llm-tcp.json");
    EXPECT_EQ(tcp["meta"]["data_path"], "ipv4");
}

TEST(RailonlyLlmExample, ReplicatedRailsGiveTheFullRunsIteration)
{
    // One switch per rail (a rail-optimized rail of one leaf too): the replica is exact,
    // its byte totals too, and the row says so.
    nlohmann::json full;
    nlohmann::json rep;
    for (const std::string fabric : {"rail-optimized", "rail-only"}) // rail-only's kept
    {
        const std::string flags = "--fabric=" + fabric + " --level=flow --transport=udp";
        full = RunLlm(flags, "full.json");
        rep = RunLlm(flags + " --replicateRails", "replica.json");
        const nlohmann::json* f = Row(full, fabric);
        const nlohmann::json* r = Row(rep, fabric);
        ASSERT_TRUE(f && r) << fabric;
        EXPECT_EQ((*r)["iteration_s"], (*f)["iteration_s"]) << fabric;
        EXPECT_EQ((*r)["rail_replicas"], 4);
        EXPECT_EQ((*r)["rail_replication"], "exact: one switch per rail");
        EXPECT_EQ((*f)["rail_replication"], "off");
        EXPECT_EQ((*r)["bytes_by_link_class"], (*f)["bytes_by_link_class"]) << fabric;
        EXPECT_LT((*r)["health"]["messages_sent"], (*f)["health"]["messages_sent"]);
    }
    const nlohmann::json* f = Row(full, "rail-only");
    const nlohmann::json* r = Row(rep, "rail-only");
    ASSERT_TRUE(f && r);
    // Replicated replicas too: same iteration, same byte totals (the fluid's).
    nlohmann::json both = RunLlm("--fabric=rail-only --level=flow --transport=udp "
                                 "--replicateRails --replicateReplicas",
                                 "replicas.json");
    const nlohmann::json* b = Row(both, "rail-only");
    ASSERT_TRUE(b);
    EXPECT_EQ((*b)["iteration_s"], (*f)["iteration_s"]);
    EXPECT_EQ((*b)["dp_replicas"], 2); // kTiny's --dp
    EXPECT_EQ((*b)["replica_replication"], "exact: one switch per rail");
    EXPECT_EQ((*f)["replica_replication"], "off");
    EXPECT_EQ((*b)["bytes_by_link_class"], (*f)["bytes_by_link_class"]);
    EXPECT_LT((*b)["health"]["messages_sent"], (*r)["health"]["messages_sent"]);
}

TEST(RailonlyLlmExample, BadInputGivesOneErrorLine)
{
    for (const std::string& flags : std::vector<std::string>{
             "--tp=3 --dp=2",                     // TP does not divide the domain
             "--tp=4 --pp=2 --dp=4",              // 32 ranks on 16 GPUs
             "--domains=40 --radix=4",            // rail too wide for radix 4
             "--fabric=torus",                    // unknown fabric
             "--failRailSwitch=7",                // no such rail
             "--dataPath=fast --transport=tcp",   // TCP needs the IPv4 stack
             "--dataPath=dpdk",                   // no such data path
             "--replicateRails --fabric=all",     // the fat-tree has no rails
             "--replicateRails --failNic=3",      // one rail differs
             "--replicateRails --tp=2 --dp=4",    // groups share rails
             "--replicateReplicas --tp=2 --dp=4", // replicas share HB domains
             "--replicateReplicas --experts=8",   // MoE couples the replicas
             "--replicateReplicas --fabric=all",  // rail-optimized's spines
         })
    {
        ExampleRun run = RunExample("railonly-llm", kTiny + " " + flags);
        ExpectOneErrorLine(run, flags);
    }
}
