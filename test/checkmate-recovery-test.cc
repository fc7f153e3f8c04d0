// SPDX-License-Identifier: GPL-2.0-only
// The checkmate-recovery example as a user runs it: every scheme measured in one
// invocation, a failure recovered from the shadows, determinism, and one error
// line for bad input.
#include "example-process.h"
#include "mlnet-test-support.h"

using namespace mlnettest;

namespace
{

const std::string kSmall = " --workers=4 --shadows=2 --inputs=8 --hidden=16 --classes=4 "
                           "--compute=100us --iterations=8";

} // namespace

TEST(CheckmateRecoveryExample, AllSchemesInOneRun)
{
    std::string json = ::testing::TempDir() + "/cm-all.json";
    ExampleRun run =
        RunExample("checkmate-recovery", kSmall + " --mode=all --failAt=5 --json=" + json);
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = ReadJson(json);
    // One run per scheme; the mirrored copies are counted as such.
    ExpectTrafficConserved(doc, doc["accounting"].size());
    EXPECT_GE(doc["accounting"].size(), 2u);
    ASSERT_EQ(doc["iterations"].size(), 8u);
    for (const auto& row : doc["iterations"])
    {
        EXPECT_TRUE(row["shadow_matches_workers"].get<bool>());
        EXPECT_GT(row["iteration_s"].get<double>(), 0.0);
    }
    const auto& s = doc["summary"];
    // Its run's health (no twin to compare with: twin_gap null, never a warning).
    ASSERT_TRUE(doc.contains("health"));
    EXPECT_TRUE(doc["health"]["twin_gap"].is_null());
    EXPECT_FALSE(doc["health"].contains("warning"));
    EXPECT_EQ(s["checkpoint_interval_iterations"].get<double>(), 1.0);
    EXPECT_EQ(s["throughput_overhead"].get<double>(), 0.0);
    EXPECT_EQ(s["repeated_iterations_after_failure"], 0);
    EXPECT_EQ(s["mirrored_bytes"].get<uint64_t>(), 8u * 4 * 212);
    EXPECT_EQ(s["repaired_packets"], 0);
    for (const char* m : {"checkmate", "checkfreq", "gemini", "none"})
    {
        ASSERT_TRUE(doc["modes"].contains(m)) << m;
        EXPECT_TRUE(doc["modes"][m]["final_model_matches_uninterrupted"].get<bool>()) << m;
        EXPECT_TRUE(doc["modes"][m].contains("repeated_iterations_after_failure")) << m;
    }
    EXPECT_EQ(doc["modes"]["none"]["repeated_iterations_after_failure"], 5);
}

TEST(CheckmateRecoveryExample, SameFlagsGiveTheSameDocument)
{
    // The same path both times: the document records its command line.
    std::string path = ::testing::TempDir() + "/cm-det.json";
    ASSERT_EQ(RunExample("checkmate-recovery", kSmall + " --failAt=3 --json=" + path).status, 0);
    nlohmann::json ja = ReadJson(path);
    ASSERT_EQ(RunExample("checkmate-recovery", kSmall + " --failAt=3 --json=" + path).status, 0);
    nlohmann::json jb = ReadJson(path);
    StripWall(ja);
    StripWall(jb);
    EXPECT_EQ(ja, jb);
}

TEST(CheckmateRecoveryExample, BadInputGivesOneErrorLine)
{
    ExpectOneErrorLine(RunExample("checkmate-recovery", kSmall + " --shadows=0"), "zero shadows");
    ExpectOneErrorLine(RunExample("checkmate-recovery", kSmall + " --hidden=17"),
                       "model not divisible into chunks");
    ExpectOneErrorLine(RunExample("checkmate-recovery", kSmall + " --mode=bogus"), "unknown mode");
    ExpectOneErrorLine(RunExample("checkmate-recovery", kSmall + " --replicate=twice"),
                       "unknown replicate");
    ExpectOneErrorLine(RunExample("checkmate-recovery", kSmall + " --failAt=8"),
                       "failure after the end");
}

// The printed summary is for people: aligned "key  value" lines, none longer than a
// terminal line, the same values as the JSON, and a negative commit lag explained.
TEST(CheckmateRecoveryExample, SummaryPrintsAsReadableLines)
{
    std::string json = ::testing::TempDir() + "/cm-readable-" + std::to_string(getpid()) + ".json";
    ExampleRun run = RunExample("checkmate-recovery", kSmall + " --json=" + json);
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json s = ReadJson(json)["summary"];
    std::remove(json.c_str());
    std::istringstream in(run.out);
    bool inSummary = false;
    uint32_t entries = 0;
    bool explained = false;
    for (std::string line; std::getline(in, line);)
    {
        EXPECT_LE(line.size(), 200u) << line;
        if (line == "summary:")
        {
            inSummary = true;
            continue;
        }
        if (inSummary && line.rfind("  (mean_commit_lag_s < 0", 0) == 0)
        {
            explained = true;
        }
        else if (inSummary && line.rfind("  ", 0) == 0)
        {
            std::istringstream kv(line);
            std::string key;
            kv >> key;
            EXPECT_TRUE(s.contains(key)) << line;
            ++entries;
        }
    }
    EXPECT_EQ(entries, s.size()) << run.out;
    ASSERT_TRUE(s["mean_commit_lag_s"].is_number());
    EXPECT_EQ(explained, s["mean_commit_lag_s"].get<double>() < 0) << run.out;
}
