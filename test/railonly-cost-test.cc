// SPDX-License-Identifier: GPL-2.0-only
// The railonly-cost example: rows for both designs, the reduction range, bad input.
#include "example-process.h"
#include "mlnet-test-support.h"

using namespace mlnettest;

TEST(RailonlyCostExample, RowsCoverBothDesignsAndThePaperRange)
{
    std::string json = ::testing::TempDir() + "/cost.json";
    ExampleRun run = RunExample("railonly-cost", "--json=" + json);
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = ReadJson(json);
    ExpectTrafficConserved(doc, 0);            // analytic: nothing simulated, nothing to account
    ASSERT_EQ(doc["rows"].size(), 2u * 4 * 6); // 2 designs x 4 N x 6 K
    double lo = 1, hi = 0;
    for (const auto& r : doc["rows"])
    {
        for (const char* k : {"gpus",
                              "hb_domain",
                              "design",
                              "switches",
                              "transceivers",
                              "cost_usd",
                              "power_w",
                              "cost_reduction",
                              "power_reduction"})
        {
            EXPECT_TRUE(r.contains(k)) << k;
        }
        if (r["design"] == "rail-only" && r["cost_reduction"].get<double>() > 0)
        {
            lo = std::min(lo, r["cost_reduction"].get<double>());
            hi = std::max(hi, r["cost_reduction"].get<double>());
        }
    }
    // Documented in railonly.md: 35.7 % to 71.3 % (paper: 38 % to 77 %).
    EXPECT_NEAR(lo, 0.357, 0.005);
    EXPECT_NEAR(hi, 0.713, 0.005);
}

TEST(RailonlyCostExample, BadInputGivesOneErrorLine)
{
    for (const std::string& flags : std::vector<std::string>{"--radix=4 --gpus=4096",
                                                             "--gpus=1000 --hbDomains=64",
                                                             "--hbDomains=8,x",
                                                             "--table=/nonexistent.json"})
    {
        ExpectOneErrorLine(RunExample("railonly-cost", flags), flags);
    }
}
