// SPDX-License-Identifier: GPL-2.0-only
// The training-workload example as a user runs it: per-iteration packet-level and
// analytical times, identical iterations, clear errors for bad workloads.
#include "example-process.h"
#include "mlnet-test-support.h"

using namespace mlnettest;

namespace
{

int
RunTraining(const std::string& flags, std::string* err)
{
    ExampleRun run = RunExample("training-workload", flags);
    *err = run.err;
    return run.status;
}

} // namespace

TEST(TrainingWorkloadExample, IterationsMatchTheAnalyticalCriticalPath)
{
    std::string json = ::testing::TempDir() + "/tw.json";
    std::string err;
    ASSERT_EQ(RunTraining("--ranks=4 --iterations=2 --json=" + json, &err), 0) << err;
    std::ifstream in(json);
    nlohmann::json doc = nlohmann::json::parse(in);
    ExpectTrafficConserved(doc, 1);
    ASSERT_TRUE(doc.contains("health")) << "the run's health section";
    EXPECT_TRUE(doc["health"].contains("twin_gap"));
    ASSERT_EQ(doc["rows"].size(), 2u);
    // Back-to-back iterations of one job on an idle fabric take the same time.
    EXPECT_EQ(doc["rows"][0]["iteration_s"], doc["rows"][1]["iteration_s"]);
    // Ring all-reduce on an ideal switch: the twin is exact to well under 1%.
    EXPECT_LT(std::abs(doc["rows"][0]["error"].get<double>()), 0.01);
    EXPECT_GT(doc["bytes_by_link_class"]["host-tor"].get<double>(), 0);
}

TEST(TrainingWorkloadExample, ReuseConvergedReportsTheExactIterationTimes)
{
    std::string exact = ::testing::TempDir() + "/tw-exact.json";
    std::string reuse = ::testing::TempDir() + "/tw-reuse.json";
    std::string err;
    const std::string flags = "--ranks=4 --iterations=6 ";
    ASSERT_EQ(RunTraining(flags + "--json=" + exact, &err), 0) << err;
    ASSERT_EQ(RunTraining(flags + "--reuseConverged --convergedIterations=2 --json=" + reuse, &err),
              0)
        << err;
    nlohmann::json a = ReadJson(exact);
    nlohmann::json b = ReadJson(reuse);
    ASSERT_EQ(b["rows"].size(), 6u);
    EXPECT_FALSE(a["rows"][0].contains("extrapolated")); // off: the document is unchanged
    EXPECT_FALSE(a.contains("converged_reuse"));
    const uint32_t copies = b["converged_reuse"]["extrapolated_iterations"];
    EXPECT_EQ(copies, 4u); // iterations 0 and 1 agree: 2..5 are copies
    EXPECT_EQ(b["converged_reuse"]["simulated_iterations"], 2);
    for (size_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(b["rows"][i]["iteration_s"], a["rows"][i]["iteration_s"]) << i;
        EXPECT_EQ(b["rows"][i]["extrapolated"], i >= 2) << i;
    }
    ExpectTrafficConserved(b, 1); // the simulated iterations' bytes, accounted
}

TEST(TrainingWorkloadExample, JobsRunSideBySideAndReplicateToTheSameRows)
{
    // Four jobs of 4 ranks, each under its own ToR (radix 8): the jobs cannot interact,
    // so job 0 simulated alone gives every job's rows.
    const std::string whole = ::testing::TempDir() + "/tw-jobs.json";
    const std::string replica = ::testing::TempDir() + "/tw-jobs-replica.json";
    const std::string flags =
        "--fabric=fattree --radix=8 --ranks=16 --jobs=4 --iterations=2 --level=flow ";
    std::string err;
    ASSERT_EQ(RunTraining(flags + "--json=" + whole, &err), 0) << err;
    ASSERT_EQ(RunTraining(flags + "--replicateJobs --json=" + replica, &err), 0) << err;
    nlohmann::json a = ReadJson(whole);
    nlohmann::json b = ReadJson(replica);
    ASSERT_EQ(a["rows"].size(), 8u); // a row per job and iteration
    ASSERT_EQ(b["rows"].size(), 8u);
    for (size_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(a["rows"][i]["job"], i / 2) << i;
        EXPECT_EQ(b["rows"][i]["job"], a["rows"][i]["job"]) << i;
        EXPECT_EQ(b["rows"][i]["iteration_s"], a["rows"][i]["iteration_s"]) << i;
    }
    EXPECT_EQ(a["jobs"]["replication"], "off");
    EXPECT_EQ(b["jobs"]["ranks_per_job"], 4);
    EXPECT_NE(b["jobs"]["replication"].get<std::string>().find("exact"), std::string::npos);
    EXPECT_EQ(b["bytes_by_link_class"], a["bytes_by_link_class"]);
    ExpectTrafficConserved(b, 1); // job 0's traffic, accounted
}

TEST(TrainingWorkloadExample, BadWorkloadGivesOneErrorLine)
{
    std::string bad = ::testing::TempDir() + "/tw-bad.json";
    std::ofstream(bad) << R"({"name": "x", "layers": [{"name": "a", "forward_us": -1}]})";
    for (const std::string& flags : std::vector<std::string>{"--workload=/nonexistent.json",
                                                             "--workload=" + bad,
                                                             "--iterations=0"})
    {
        std::string err;
        EXPECT_EQ(RunTraining(flags + " --ranks=2", &err), 1) << flags;
        EXPECT_EQ(err.rfind("error: ", 0), 0u) << err;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    }
}
