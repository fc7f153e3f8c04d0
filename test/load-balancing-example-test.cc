// SPDX-License-Identifier: GPL-2.0-only
// --loadBalancing as a user gives it (railonly-llm at a tiny size): the policy is
// recorded in meta.load_balancing, a sprayed run conserves its traffic and gives the
// same times twice, and a bad name or a policy on the IPv4 path is one error line.
#include "example-process.h"
#include "mlnet-test-support.h"

using namespace mlnettest;

namespace
{

// Radix 4 with 4 domains of 2 GPUs: the fat-tree has 2 spines, so a switch has choices.
const std::string kTiny = "--fabric=fat-tree --domains=4 --domainSize=2 --radix=4 --tp=2 "
                          "--pp=2 --dp=2 --layers=2 --hidden=128 --seq=64 --microBatches=2 "
                          "--vocab=256";

nlohmann::json
RunLb(const std::string& policy, const std::string& file)
{
    std::string json = ::testing::TempDir() + "/" + file;
    ExampleRun run =
        RunExample("railonly-llm", kTiny + " --loadBalancing=" + policy + " --json=" + json);
    EXPECT_EQ(run.status, 0) << run.err;
    if (run.status != 0)
    {
        return nlohmann::json::object();
    }
    nlohmann::json doc = ReadJson(json);
    ExpectTrafficConserved(doc, doc["accounting"].size());
    return doc;
}

} // namespace

TEST(LoadBalancingExample, PolicyIsRecordedAndSprayIsDeterministic)
{
    nlohmann::json hash = RunLb("hash", "lb-hash.json");
    nlohmann::json a = RunLb("spray", "lb-spray-a.json");
    nlohmann::json b = RunLb("spray", "lb-spray-b.json");
    ASSERT_EQ(hash["rows"].size(), 1u);
    ASSERT_EQ(a["rows"].size(), 1u);
    EXPECT_EQ(hash["meta"]["load_balancing"], "hash");
    EXPECT_EQ(a["meta"]["load_balancing"], "spray");
    EXPECT_EQ(a["meta"]["data_path"], "fast");
    EXPECT_GT(a["rows"][0]["iteration_s"].get<double>(), 0);
    EXPECT_EQ(a["rows"][0]["iteration_s"], b["rows"][0]["iteration_s"]);
    EXPECT_EQ(a["rows"][0]["spine_bytes"], b["rows"][0]["spine_bytes"]);
}

TEST(LoadBalancingExample, BadPolicyOrIpv4PathIsOneErrorLine)
{
    ExampleRun bad = RunExample("railonly-llm", kTiny + " --loadBalancing=ecmp");
    ExpectOneErrorLine(bad, "--loadBalancing=ecmp");
    for (const std::string name : {"hash", "spray", "flowlet", "adaptive"})
    {
        EXPECT_NE(bad.err.find(name), std::string::npos) << bad.err;
    }
    ExampleRun ipv4 = RunExample("railonly-llm",
                                 kTiny + " --transport=udp --loadBalancing=spray --dataPath=ipv4");
    ExpectOneErrorLine(ipv4, "--loadBalancing=spray --dataPath=ipv4");
    EXPECT_NE(ipv4.err.find("--loadBalancing=spray"), std::string::npos) << ipv4.err;
    EXPECT_NE(ipv4.err.find("--dataPath"), std::string::npos) << ipv4.err;
}
