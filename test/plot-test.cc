// SPDX-License-Identifier: GPL-2.0-only
// utils/plot.py as a user runs it: input it cannot draw (another kind's document, no
// rows, a missing field, a topoopt run without the ideal row, a malformed file, an
// empty or foreign CSV) is one "error:" line and exit 1, found before matplotlib is
// even imported; the sweep kind draws a merged.csv as the mean and spread over seeds,
// and prints the numbers it drew.
#include "example-process.h"

#include <cstdlib>
#include <filesystem>

namespace
{

namespace fs = std::filesystem;

struct Shell
{
    int status;
    std::string out; //!< stdout
    std::string err; //!< stderr
};

bool
HaveMatplotlib()
{
    return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

Shell
RunPlot(const std::string& args)
{
    std::string errFile =
        ::testing::TempDir() + "/plot-stderr-" + std::to_string(getpid()) + ".txt";
    std::string command = "/usr/bin/python3 " + std::string(MLNET_SOURCE_DIR) + "/utils/plot.py " +
                          args + " 2>" + errFile;
    Shell s{};
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buf{};
    while (pipe && fgets(buf.data(), buf.size(), pipe))
    {
        s.out += buf.data();
    }
    int raw = pipe ? pclose(pipe) : -1;
    s.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    std::ifstream in(errFile);
    std::stringstream ss;
    ss << in.rdbuf();
    s.err = ss.str();
    std::remove(errFile.c_str());
    return s;
}

class PlotTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_dir = fs::path(::testing::TempDir()) / ("mlnet-plot-" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
    }

    std::string Write(const std::string& name, const std::string& text)
    {
        std::string path = (m_dir / name).string();
        std::ofstream(path) << text;
        return path;
    }

    /// plot.py with these arguments fails with one error line naming `what`.
    void ExpectOneErrorLine(const std::string& args, const std::string& what)
    {
        Shell s = RunPlot(args + " " + (m_dir / "out.png").string());
        EXPECT_EQ(s.status, 1) << args << ": " << s.err;
        EXPECT_EQ(s.err.rfind("error: ", 0), 0u) << args << ": " << s.err;
        EXPECT_EQ(std::count(s.err.begin(), s.err.end(), '\n'), 1) << args << ": " << s.err;
        EXPECT_NE(s.err.find(what), std::string::npos) << args << ": " << s.err;
        EXPECT_FALSE(fs::exists(m_dir / "out.png")) << args;
    }

    fs::path m_dir;
};

/// A topoopt-cluster document with rows for these fabrics (one model).
std::string
TopoOpt(const std::vector<std::string>& fabrics)
{
    nlohmann::json doc = {{"name", "topoopt-cluster"}, {"rows", nlohmann::json::array()}};
    double t = 1.0;
    for (const std::string& f : fabrics)
    {
        doc["rows"].push_back({{"fabric", f},
                               {"model", "vgg16"},
                               {"iteration_s", t},
                               {"analytical_iteration_s", t},
                               {"per_server_gbps", 100}});
        t += 0.5;
    }
    return doc.dump();
}

} // namespace

TEST_F(PlotTest, InputItCannotDrawIsOneErrorLine)
{
    // Lab 2's topoopt-cluster --fabrics=topoopt --ocs output: nothing to normalise by.
    ExpectOneErrorLine("topoopt-cluster " + Write("ocs.json", TopoOpt({"topoopt", "topoopt-ocs"})),
                       "no ideal-switch row for vgg16");
    ExpectOneErrorLine("topoopt-cluster " + Write("only-ocs.json", TopoOpt({"topoopt-ocs"})),
                       "only topoopt-ocs rows");
    // Another example's document, and what is not a results document at all.
    ExpectOneErrorLine("railonly-cost " + Write("t.json", TopoOpt({"ideal", "topoopt"})),
                       "a topoopt-cluster document, not railonly-cost; plot it with: plot.py "
                       "topoopt-cluster");
    ExpectOneErrorLine("railonly-llm " + Write("array.json", "[1, 2]"), "no \"name\"");
    ExpectOneErrorLine("railonly-llm " + Write("broken.json", "{\"name\": "), "not JSON");
    ExpectOneErrorLine("railonly-llm " + (m_dir / "missing.json").string(), "cannot read it");
    // No rows; a row without a field the plot needs; a field of the wrong type.
    ExpectOneErrorLine("railonly-llm " +
                           Write("empty.json", R"({"name": "railonly-llm", "rows": []})"),
                       "no rows");
    ExpectOneErrorLine(
        "railonly-llm " +
            Write(
                "field.json",
                R"({"name": "railonly-llm", "rows": [{"fabric": "rail-only", "iteration_s": 1}]})"),
        "row 0 (rail-only) has no analytical_iteration_s");
    ExpectOneErrorLine("railonly-llm " + Write("type.json",
                                               R"({"name": "railonly-llm", "rows": [{"fabric": "a",
                       "iteration_s": "slow", "analytical_iteration_s": 1}]})"),
                       "the railonly-llm plot cannot read this document");
    ExpectOneErrorLine("checkmate-recovery " +
                           Write("cm.json", R"({"name": "checkmate-recovery", "rows": []})"),
                       "--mode=all");
    // Sweep: an empty merged.csv (a sweep whose points all failed), an example's CSV,
    // a column that is not there.
    ExpectOneErrorLine("sweep " + Write("empty.csv", ""), "empty");
    ExpectOneErrorLine("sweep " + Write("rows.csv", "fabric,simulated_s\nideal,1\n"),
                       "no point.* columns");
    std::string merged = Write("m.csv", "point.bytes,point.RngRun,simulated_s\n1KiB,1,2\n");
    ExpectOneErrorLine("sweep " + merged + " --y=wall", "--y wall: no such column");
    ExpectOneErrorLine("sweep " +
                           Write("text.csv", "point.bytes,point.RngRun,simulated_s\n1KiB,1,slow\n"),
                       "line 2: simulated_s = 'slow' is not a number");
}

TEST_F(PlotTest, ValidTopoOptDocumentStillDraws)
{
    if (!HaveMatplotlib())
    {
        GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (utils/setup.sh installs it)";
    }
    std::string png = (m_dir / "t.png").string();
    Shell s =
        RunPlot("topoopt-cluster " + Write("t.json", TopoOpt({"topoopt", "ideal"})) + " " + png);
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_GT(fs::file_size(png), 1000u);
}

TEST_F(PlotTest, SweepDrawsMeanAndSpreadOverSeeds)
{
    if (!HaveMatplotlib())
    {
        GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (utils/setup.sh installs it)";
    }
    // Two fabrics x two sizes x three seeds; the value is known per seed, so the mean,
    // minimum, maximum and sample standard deviation of each point are known:
    // {1, 2, 3} -> mean 2, std 1; {10, 20, 30} -> mean 20, std 10.
    std::string csv = "point.bytes,point.fabric,point.RngRun,simulated_s,fabric\n";
    for (const char* bytes : {"64KiB", "1MiB"})
    {
        for (const char* fabric : {"ideal", "fattree"})
        {
            for (int seed = 1; seed <= 3; ++seed)
            {
                double scale = std::string(bytes) == "1MiB" ? 10 : 1;
                double offset = std::string(fabric) == "fattree" ? 100 : 0;
                csv += std::string(bytes) + "," + fabric + "," + std::to_string(seed) + "," +
                       std::to_string(offset + scale * seed) + "," + fabric + "\n";
            }
        }
    }
    std::string merged = Write("merged.csv", csv);
    std::string png = (m_dir / "sweep.png").string();
    Shell s = RunPlot("sweep " + merged + " " + png);
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_GT(fs::file_size(png), 1000u);
    // One line per series and x: series, x, n, mean, min, max, std.
    EXPECT_NE(s.out.find("fabric=ideal\t64KiB\t3\t2\t1\t3\t1\n"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("fabric=ideal\t1MiB\t3\t20\t10\t30\t10\n"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("fabric=fattree\t64KiB\t3\t102\t101\t103\t1\n"), std::string::npos)
        << s.out;
    EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 1 + 4) << s.out;

    // Another value, x and spread by flag; a seed column named explicitly.
    std::string std = (m_dir / "std.png").string();
    Shell t = RunPlot("sweep " + merged + " " + std +
                      " --x fabric --over RngRun --by bytes --spread std");
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_NE(t.out.find("bytes=1MiB\tfattree\t3\t120\t110\t130\t10\n"), std::string::npos)
        << t.out;
    EXPECT_GT(fs::file_size(std), 1000u);
}
