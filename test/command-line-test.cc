// SPDX-License-Identifier: GPL-2.0-only
// Every example parses its command line inside its error wrapper (ScenarioCommandLine
// in RunReport::Main): an unknown flag, a positional argument, a bad ns-3 attribute or
// global value and a value its strict parser refuses are each exit code 1 and exactly
// one "error: ..." line on stderr (not ns-3's help text, an abort or a silent default);
// --help still prints the flags and exits 0.
#include "example-process.h"

#include <filesystem>
#include <set>

using namespace mlnettest;

namespace
{

/// An example and flags with a bad value of its own (from the findings).
struct BadValues
{
    const char* example;
    std::vector<std::string> flags;
};

const std::vector<BadValues> kExamples = {
    {"collective-validation", {"--ranks=-1", "--bytes=17179869185GiB", "--mtu=9000x"}},
    {"distributed-collective", {"--ranks=4abc", "--communicators=some"}},
    {"training-workload", {"--iterations=-1", "--delay=99999999999s"}},
    {"checkmate-recovery", {"--lr=-0.01", "--failAt=-2"}},
    {"compression-utility", {"--schemes=,", "--memoryBandwidth=0", "--bandwidths=1Gbps,,2Gbps"}},
    {"topoopt-plan", {"--degree=0", "--servers=0x10"}},
    {"topoopt-cluster", {"--ocs-delay=99999999999s", "--fabrics=topoopt,nope"}},
    {"railonly-llm", {"--failNic=-2", "--iterations=0"}},
    {"railonly-cost", {"--gpus=4096,,8192", "--radix=0x10"}},
    {"training-cluster", {"--gpus=0x10", "--fabrics=,"}},
};

/// The contract for one run, with the flags in the failure message.
void
ExpectRejected(const std::string& example, const std::string& flags, const std::string& says)
{
    ExampleRun run = RunExample(example, flags);
    ExpectOneErrorLine(run, example + " " + flags);
    EXPECT_NE(run.err.find(says), std::string::npos) << example << " " << flags << ": " << run.err;
    EXPECT_EQ(run.out.find("Program Options"), std::string::npos) << "help printed";
}

class CommandLineExampleTest : public ::testing::TestWithParam<BadValues>
{
};

} // namespace

TEST_P(CommandLineExampleTest, EveryRejectionIsOneErrorLine)
{
    const std::string example = GetParam().example;
    ExpectRejected(example, "--noSuchFlag=1", "error: --noSuchFlag: unknown flag; see --help");
    ExpectRejected(example, "extra", "error: 'extra': unexpected argument");
    ExpectRejected(example, "--RngRun=abc", "error: --RngRun=abc: not an unsigned decimal integer");
    ExpectRejected(example, "--ns3::NoSuchType::X=1", "error: --ns3::NoSuchType::X: no type");
    for (const std::string& flags : GetParam().flags)
    {
        // The value is named in the message (its flag and text).
        ExpectRejected(example, flags, "error: " + flags.substr(0, flags.find('=') + 1));
    }
    ExampleRun help = RunExample(example, "--help");
    EXPECT_EQ(help.status, 0) << example << help.err;
    EXPECT_NE(help.out.find("Program Options:"), std::string::npos) << example;
    EXPECT_NE(help.out.find("--level:"), std::string::npos) << example;
}

INSTANTIATE_TEST_SUITE_P(Examples,
                         CommandLineExampleTest,
                         ::testing::ValuesIn(kExamples),
                         [](const ::testing::TestParamInfo<BadValues>& info) {
                             std::string name = info.param.example;
                             name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                             return name;
                         });

TEST(CommandLineExampleTest, EveryExampleIsCovered)
{
    std::set<std::string> covered;
    for (const auto& e : kExamples)
    {
        covered.insert(e.example);
    }
    std::set<std::string> examples;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(MLNET_SOURCE_DIR) + "/examples"))
    {
        if (entry.is_directory())
        {
            examples.insert(entry.path().filename().string());
        }
    }
    EXPECT_EQ(covered, examples) << "a new example joins kExamples";
}
