// SPDX-License-Identifier: GPL-2.0-only
// Progress lines (ProgressScheduler, registered with --level by every example): a run
// longer than --progressInterval prints lines of the documented form on stderr,
// --quiet prints none, and the results are the same either way (no event is added).
#include "example-process.h"

#include <regex>

using namespace mlnettest;

namespace
{

/// The lines of text that start with "progress:".
std::vector<std::string>
ProgressLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
    {
        if (line.rfind("progress:", 0) == 0)
        {
            lines.push_back(line);
        }
    }
    return lines;
}

} // namespace

TEST(ProgressTest, LinesAtTheIntervalOnlyWithoutQuietAndResultsUnchanged)
{
    const std::string dir = ::testing::TempDir() + "/progress-" + std::to_string(getpid());
    const std::string flags = "--bytes=16MiB --ranks=8";
    ExampleRun loud = RunExample("collective-validation",
                                 flags + " --progressInterval=0.02 --json=" + dir + "-loud.json");
    ExampleRun quiet =
        RunExample("collective-validation",
                   flags + " --progressInterval=0.02 --quiet --json=" + dir + "-quiet.json");
    ExampleRun plain = RunExample("collective-validation", flags);
    ASSERT_EQ(loud.status, 0) << loud.err;
    ASSERT_EQ(quiet.status, 0) << quiet.err;
    ASSERT_EQ(plain.status, 0) << plain.err;

    // The twin's prediction is known, so every line has the fraction of it.
    static const std::regex form(
        R"(^progress: simulated [0-9]+(\.[0-9]+)? (s|ms|us|ns|ps) of [0-9]+(\.[0-9]+)? )"
        R"((s|ms|us|ns|ps) expected \([0-9]+%\), [0-9.e+]+ events/s, wall [0-9]+\.[0-9] s$)");
    std::vector<std::string> lines = ProgressLines(loud.err);
    EXPECT_GE(lines.size(), 2u) << loud.err;
    for (const auto& line : lines)
    {
        EXPECT_TRUE(std::regex_match(line, form)) << line;
    }
    EXPECT_EQ(loud.out.find("progress:"), std::string::npos) << "progress goes to stderr only";
    EXPECT_TRUE(ProgressLines(quiet.err).empty()) << quiet.err;
    // The default interval (5 s) is longer than this run: no line.
    EXPECT_TRUE(ProgressLines(plain.err).empty()) << plain.err;

    // Same rows, events included, with and without progress (wall clock aside).
    nlohmann::json a = ReadJson(dir + "-loud.json");
    nlohmann::json b = ReadJson(dir + "-quiet.json");
    EXPECT_EQ(a["events"], b["events"]);
    StripWall(a);
    StripWall(b);
    EXPECT_EQ(a["rows"], b["rows"]);
    std::remove((dir + "-loud.json").c_str());
    std::remove((dir + "-quiet.json").c_str());
}

TEST(ProgressTest, EveryExampleTakesQuietAndProgressInterval)
{
    for (const char* name : {"checkmate-recovery",
                             "collective-validation",
                             "compression-utility",
                             "distributed-collective",
                             "railonly-cost",
                             "railonly-llm",
                             "topoopt-cluster",
                             "topoopt-plan",
                             "training-cluster",
                             "training-workload"})
    {
        ExampleRun help = RunExample(name, "--help");
        EXPECT_NE(help.out.find("--quiet:"), std::string::npos) << name << help.out;
        EXPECT_NE(help.out.find("--progressInterval:"), std::string::npos) << name;
    }
}
