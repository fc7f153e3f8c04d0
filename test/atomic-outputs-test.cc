// SPDX-License-Identifier: GPL-2.0-only
// Atomic outputs, as a user meets them: a run that fails after its simulation (the
// file system refuses a write: RLIMIT_FSIZE stands in for a full disk) leaves the
// working folder exactly as it was -- no new JSON, CSV, PNG, pcap, FlowMonitor XML or
// timeline, no new folder, an earlier result untouched -- and a path that cannot be
// written is refused before any simulation.
#include "example-process.h"

#include <chrono>
#include <filesystem>
#include <map>

using namespace mlnettest;

namespace
{

namespace fs = std::filesystem;

class AtomicOutputsTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_folder.Write({{"out/run.json", "an earlier result\n"}});
    }

    /// Every file (with its content) and folder under the working folder.
    std::map<std::string, std::string> Tree() const
    {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::recursive_directory_iterator(m_dir))
        {
            std::string name = fs::relative(e.path(), m_dir).string();
            std::ifstream in(e.path());
            std::stringstream ss;
            ss << in.rdbuf();
            out[name] = e.is_directory() ? "(folder)" : ss.str();
        }
        return out;
    }

    /// Run an example whose files may be at most `blocks` x 512 bytes each (a write
    /// beyond fails with EFBIG, as on a full disk); expect the error contract and the
    /// working folder as it was.
    void ExpectFailedRunLeavesNothing(const std::string& example,
                                      const std::string& flags,
                                      int blocks,
                                      const std::string& error)
    {
        const auto before = Tree();
        const std::string launcher = "sh -c 'ulimit -f " + std::to_string(blocks) +
                                     " && trap \"\" XFSZ && exec \"$0\" \"$@\"'";
        ExampleRun r = RunExample(example, flags, launcher);
        ExpectOneErrorLine(r, example + " " + flags);
        EXPECT_NE(r.err.find(error), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("results: "), std::string::npos) << r.out;
        EXPECT_EQ(Tree(), before) << example << " " << flags;
    }

    TempFolder m_folder{"mlnet-atomic"};
    const std::string m_dir{m_folder.Path()};
};

} // namespace

TEST_F(AtomicOutputsTest, FailedPcapLeavesNoCaptureNoXmlNoJson)
{
    // 4 ranks, one iteration: each capture is ~450 KB, over the 64 KiB limit; the
    // FlowMonitor XML, the JSON and the new folders would fit.
    const std::string flags = "--ranks=4 --iterations=1 --transport=udp --pcap=" + m_dir +
                              "/cap/p --flowmon=" + m_dir + "/fm/flows.xml --json=" + m_dir +
                              "/out/run.json";
    ExpectFailedRunLeavesNothing("training-workload",
                                 flags,
                                 128,
                                 "pcap: writing " + m_dir + "/cap/p-0-1.pcap failed");

    // Without the limit the same run commits every file under its final name, and the
    // JSON names those (never a temporary).
    ExampleRun ok = RunExample("training-workload", flags);
    ASSERT_EQ(ok.status, 0) << ok.err;
    nlohmann::json doc = ReadJson(m_dir + "/out/run.json");
    ASSERT_EQ(doc["captures"].size(), 4u);
    for (const auto& c : doc["captures"])
    {
        EXPECT_TRUE(fs::exists(c["file"].get<std::string>())) << c;
    }
    EXPECT_EQ(doc["outputs"]["flowmon"][0], m_dir + "/fm/flows.xml");
    EXPECT_GT(fs::file_size(m_dir + "/fm/flows.xml"), 0u);
    for (const auto& [name, content] : Tree())
    {
        EXPECT_EQ(fs::path(name).filename().string()[0] == '.', false) << "left behind: " << name;
    }
}

TEST_F(AtomicOutputsTest, FailedFlowMonitorXmlIsAnError)
{
    // The XML (~11 KB) is over an 8 KiB limit; the JSON, the CSV and the timeline fit.
    // FlowMonitor writes at Simulator::Destroy: the failure used to be silent.
    ExpectFailedRunLeavesNothing("collective-validation",
                                 "--ranks=4 --bytes=64KiB --flowmon=" + m_dir +
                                     "/fm/flows.xml --json=" + m_dir +
                                     "/out/run.json --csv=" + m_dir + "/out/run.csv",
                                 16,
                                 "--flowmon: writing " + m_dir + "/fm/flows.xml failed");
}

TEST_F(AtomicOutputsTest, FailedJsonLeavesNoCsvAndNoTimeline)
{
    // A 4 KiB limit: the timeline (~7 KB) and the JSON (~6 KB) fail, the CSV fits.
    ExpectFailedRunLeavesNothing("collective-validation",
                                 "--ranks=4 --bytes=64KiB --timeline=" + m_dir +
                                     "/new/timeline.json --json=" + m_dir +
                                     "/out/run.json --csv=" + m_dir + "/out/run.csv",
                                 8,
                                 "failed");
}

TEST_F(AtomicOutputsTest, FailedPlanJsonKeepsTheEarlierOne)
{
    // An analytic run: the plan document with every route (~19 KB) is over an 8 KiB limit.
    ExpectFailedRunLeavesNothing("topoopt-plan",
                                 "--servers=8 --degree=2 --budget=10 --routes --json=" + m_dir +
                                     "/out/run.json",
                                 16,
                                 "cannot write results to '" + m_dir + "/out/run.json'");
}

TEST_F(AtomicOutputsTest, FailedRunWithPlotLeavesNoPngAndAFailedPlotNoHalfPng)
{
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (utils/setup.sh installs it)";
    }
    const std::string flags = "--gpus=8 --degree=2 --hbDomain=4 --scale=0.001 --budget=5 "
                              "--iterations=1 --fabrics=fattree --plot=true --out=" +
                              m_dir + "/tc --json=" + m_dir + "/out/run.json";
    // A 2 KiB limit: the JSON (~3 KB) fails after the simulation; the CSV would fit.
    ExpectFailedRunLeavesNothing("training-cluster",
                                 flags,
                                 4,
                                 "cannot write results to '" + m_dir + "/out/run.json'");

    // A 50 KiB limit: JSON and CSV fit, plot.py fails half-way through the PNG (~60 KB):
    // the run succeeds without a PNG (as without matplotlib) and leaves no part of one;
    // an earlier PNG stays.
    fs::create_directories(m_dir + "/tc");
    std::ofstream(m_dir + "/tc/training-cluster.png") << "an earlier figure";
    ExampleRun r = RunExample("training-cluster",
                              flags,
                              "sh -c 'ulimit -f 100 && trap \"\" XFSZ && exec \"$0\" \"$@\"'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("plot: (no PNG: "), std::string::npos) << r.out;
    auto after = Tree();
    EXPECT_EQ(after["tc/training-cluster.png"], "an earlier figure");
    EXPECT_NE(after["out/run.json"], "an earlier result\n");
    EXPECT_EQ(ReadJson(m_dir + "/out/run.json")["name"], "training-cluster");
    EXPECT_EQ(after.count("tc/training-cluster.csv"), 1u);
    EXPECT_EQ(after.size(), 5u) << "out, tc and their files only"; // out, tc, json, csv, png
}

TEST_F(AtomicOutputsTest, BadPathFailsBeforeSimulating)
{
    std::ofstream(m_dir + "/file") << "x";
    const auto before = Tree();
    // A training run of several seconds if it started; each refusal comes first.
    for (const std::string& bad : {"--json=" + m_dir + "/file/run.json",
                                   "--csv=" + m_dir + "/out/",
                                   "--pcap=" + m_dir + "/file/cap",
                                   "--timeline=" + m_dir + "/file/t.json",
                                   "--json=" + m_dir + "/out/" + std::string(300, 'n') + ".json"})
    {
        auto start = std::chrono::steady_clock::now();
        ExampleRun r = RunExample("training-cluster",
                                  "--gpus=8 --degree=2 --hbDomain=4 --scale=0.01 --iterations=3 "
                                  "--out=" +
                                      m_dir + "/tc " + bad);
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ExpectOneErrorLine(r, bad);
        EXPECT_EQ(r.out, "") << bad; // no progress line, no table
        EXPECT_LT(seconds, 1.0) << bad;
        EXPECT_EQ(Tree(), before) << bad; // not even the --out folder
    }
}
