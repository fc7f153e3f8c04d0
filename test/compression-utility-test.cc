// SPDX-License-Identifier: GPL-2.0-only
// The compression-utility example as a user runs it: the rows the issue asks for,
// determinism, and one clear error line for impossible settings.
#include "example-process.h"
#include "mlnet-test-support.h"

using namespace mlnettest;

namespace
{

const std::string kSmall = " --workers=4 --inputs=16 --hidden=16 --iterations=20 ";

} // namespace

TEST(CompressionUtilityExample, RowCarriesTheEndToEndFields)
{
    std::string json = ::testing::TempDir() + "/cu.json";
    ExampleRun run =
        RunExample("compression-utility",
                   kSmall + "--scheme=topk --density=0.1 --targetAccuracy=0.3 --json=" + json);
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = ReadJson(json);
    ExpectTrafficConserved(doc, 1);
    ExpectRowsHaveHealth(doc, "comm_s", "analytical_comm_s");
    ASSERT_EQ(doc["rows"].size(), 1u);
    const auto& row = doc["rows"][0];
    EXPECT_EQ(row["scheme"], "topk");
    EXPECT_EQ(row["algorithm"], "allgather/ring");
    for (const char* k : {"bytes_on_wire",
                          "iteration_s",
                          "analytical_comm_s",
                          "time_to_target_s",
                          "final_accuracy"})
    {
        EXPECT_TRUE(row.contains(k)) << k;
    }
    EXPECT_GT(row["bytes_on_wire"].get<double>(), 0);
    // An unreachable target is null, not a number.
    ASSERT_EQ(RunExample("compression-utility",
                         kSmall + "--scheme=bf16 --targetAccuracy=1 --json=" + json)
                  .status,
              0);
    EXPECT_TRUE(ReadJson(json)["rows"][0]["time_to_target_s"].is_null());
}

TEST(CompressionUtilityExample, SameFlagsGiveIdenticalResults)
{
    std::string a = ::testing::TempDir() + "/cu-a.json";
    for (const std::string& scheme : {"quant", "powersgd"})
    {
        std::string flags = kSmall + "--scheme=" + scheme + " --rank=2 --json=";
        ASSERT_EQ(RunExample("compression-utility", flags + a).status, 0);
        nlohmann::json ja = ReadJson(a);
        ASSERT_EQ(RunExample("compression-utility", flags + a).status, 0); // same command line
        nlohmann::json jb = ReadJson(a);
        StripWall(ja);
        StripWall(jb);
        EXPECT_EQ(ja, jb) << scheme;
    }
}

TEST(CompressionUtilityExample, BadInputGivesOneErrorLine)
{
    for (const std::string& flags : std::vector<std::string>{"--scheme=topk --density=0",
                                                             "--scheme=topk --density=1.5",
                                                             "--scheme=quant --bits=3",
                                                             "--scheme=quant --bits=16",
                                                             "--scheme=powersgd --rank=100",
                                                             "--bandwidth=fast",
                                                             "--computeTime=soon",
                                                             "--scheme=zip"})
    {
        ExampleRun run = RunExample("compression-utility", kSmall + flags);
        ExpectOneErrorLine(run, flags);
    }
}
