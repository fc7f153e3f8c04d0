// SPDX-License-Identifier: GPL-2.0-only
// Tests of RunReport: the JSON document, atomic writes, CSV and the printed table.
#include "mlnet-test-support.h"

#include "ns3/run-report.h"
#include "ns3/simulator.h"

#include <cstdio>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/stat.h>

using namespace ns3;

namespace
{

class RunReportTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    std::vector<std::string> Files() const
    {
        std::vector<std::string> out;
        DIR* d = opendir(m_dir.c_str());
        if (!d)
        {
            return out;
        }
        while (dirent* e = readdir(d))
        {
            std::string n = e->d_name;
            if (n != "." && n != "..")
            {
                out.push_back(n);
            }
        }
        closedir(d);
        return out;
    }

    static std::string Read(const std::string& path)
    {
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

    mlnettest::TempFolder m_folder{"mlnet-run-report"};
    const std::string m_dir{m_folder.Path()};
};

void
Nothing()
{
}

/// Runs `events` empty events, one every microsecond, and returns a report of it.
RunReport
SmallRun(uint32_t events)
{
    RunReport report("small");
    report.Start();
    for (uint32_t i = 1; i <= events; ++i)
    {
        Simulator::Schedule(MicroSeconds(i), &Nothing);
    }
    Simulator::Run();
    report.Add("first", {{"time_us", 12.5}, {"bytes", 1000}, {"link", {{"util", 0.5}}}});
    report.Add("second", {{"time_us", 7.25}, {"bytes", 20}, {"note", "a, \"quoted\" one"}});
    report.SetMeta("topology", "ideal");
    report.Stop();
    return report;
}

nlohmann::json
WithoutWallFields(nlohmann::json doc)
{
    doc.erase("wall_s");
    doc.erase("events_per_s");
    return doc;
}

} // namespace

TEST_F(RunReportTest, JsonHasRowsMetaAndRunCost)
{
    RunReport report = SmallRun(10);
    nlohmann::json doc = report.ToJson();
    EXPECT_EQ(doc["name"], "small");
    EXPECT_EQ(doc["meta"]["ns3_version"], "3.37");
    EXPECT_TRUE(doc["meta"].contains("seed"));
    EXPECT_TRUE(doc["meta"].contains("run"));
    EXPECT_EQ(doc["meta"]["topology"], "ideal");
    ASSERT_EQ(doc["rows"].size(), 2u);
    EXPECT_EQ(doc["rows"][0]["case"], "first");
    EXPECT_EQ(doc["rows"][1]["bytes"], 20);
    // 10 events, the last one at 10 us.
    EXPECT_EQ(doc["events"], 10u);
    EXPECT_NEAR(doc["simulated_s"].get<double>(), 10e-6, 1e-15);
    double wall = doc["wall_s"].get<double>();
    EXPECT_GT(wall, 0.0);
    EXPECT_NEAR(doc["events_per_s"].get<double>(), 10 / wall, 1e-9 * 10 / wall);
    // Stop froze the cost: more simulation later does not change it.
    Simulator::Schedule(Seconds(1), &Nothing);
    Simulator::Run();
    EXPECT_EQ(report.ToJson()["events"], 10u);
    EXPECT_EQ(report.ToJson()["wall_s"].get<double>(), wall);
}

TEST_F(RunReportTest, SectionsHelpersAndBadInput)
{
    RunReport report("helpers");
    EXPECT_THROW(report.Add(nlohmann::json::array({1, 2})), std::invalid_argument);
    EXPECT_THROW(report.Set("rows", 1), std::invalid_argument);
    EXPECT_THROW(report.Set("wall_s", 1), std::invalid_argument);

    CollectiveRecord c;
    c.collective = "allreduce";
    c.algorithm = "ring";
    c.ranks = 8;
    c.bytes = 1 << 20;
    c.start = MicroSeconds(10);
    c.end = MicroSeconds(110);
    nlohmann::json cj = RunReport::ToJson(c);
    EXPECT_EQ(cj["algorithm"], "ring");
    EXPECT_EQ(cj["bytes"], 1u << 20);
    EXPECT_DOUBLE_EQ(cj["duration_us"].get<double>(), 100.0);

    std::vector<IterationRecord> its = {{0, Time(0), MicroSeconds(5)},
                                        {1, MicroSeconds(5), MicroSeconds(12)}};
    nlohmann::json ij = RunReport::ToJson(its);
    ASSERT_EQ(ij.size(), 2u);
    EXPECT_DOUBLE_EQ(ij[1]["duration_us"].get<double>(), 7.0);

    std::map<std::string, uint64_t> bytes = {{"host-tor", 100}, {"tor-agg", 40}};
    nlohmann::json bj = RunReport::ToJson(bytes);
    EXPECT_EQ(bj["host-tor"], 100u);
    EXPECT_EQ(bj["tor-agg"], 40u);

    FabricSpec spec;
    spec.kind = "fattree";
    spec.ranks = 16;
    spec.tiers = 2;
    report.SetFabricSpec(spec);
    report.Set("iterations", ij);
    report.Set("bytes_by_link_class", bj);
    nlohmann::json doc = report.ToJson();
    EXPECT_EQ(doc["meta"]["fabric"]["kind"], "fattree");
    EXPECT_EQ(doc["meta"]["fabric"]["link_rate_bps"], 100000000000ull);
    EXPECT_EQ(doc["iterations"].size(), 2u);
    EXPECT_EQ(doc["bytes_by_link_class"]["tor-agg"], 40u);
}

TEST_F(RunReportTest, WritesJsonAtomically)
{
    RunReport report = SmallRun(3);
    std::string path = m_dir + "/run.json";
    report.WriteJson(path);
    // Only the result is left in the directory: no temporary file.
    EXPECT_EQ(Files(), (std::vector<std::string>{"run.json"}));
    nlohmann::json back = nlohmann::json::parse(Read(path));
    EXPECT_EQ(back, report.ToJson());

    // Overwriting replaces the whole file.
    report.Add({{"case", "third"}});
    report.WriteJson(path);
    EXPECT_EQ(nlohmann::json::parse(Read(path))["rows"].size(), 3u);
    EXPECT_EQ(Files().size(), 1u);

    // An unwritable destination (its folder would have to be the file run.json)
    // throws, names the path and leaves nothing behind.
    std::string bad = m_dir + "/run.json/sub/run.json";
    try
    {
        report.WriteJson(bad);
        ADD_FAILURE() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        EXPECT_NE(
            std::string(e.what()).find("cannot create the folder '" + m_dir + "/run.json/sub'"),
            std::string::npos)
            << e.what();
    }
    EXPECT_EQ(Files().size(), 1u);
    EXPECT_THROW(report.WriteJson(""), std::invalid_argument);
    EXPECT_THROW(RunReport::PrepareOutput(bad), std::invalid_argument);

    // Missing folders are created (--json=results/run.json on a fresh clone), for the
    // JSON and the CSV alike; PrepareOutput makes them before a run without a file.
    report.WriteJson(m_dir + "/results/a/run.json");
    report.WriteCsv(m_dir + "/results/b/run.csv");
    RunReport::PrepareOutput(m_dir + "/results/c/run.json");
    EXPECT_EQ(nlohmann::json::parse(Read(m_dir + "/results/a/run.json")), report.ToJson());
    EXPECT_TRUE(std::filesystem::exists(m_dir + "/results/b/run.csv"));
    EXPECT_TRUE(std::filesystem::is_directory(m_dir + "/results/c"));
    EXPECT_FALSE(std::filesystem::exists(m_dir + "/results/c/run.json"));
    // A bare file name needs no folder.
    EXPECT_NO_THROW(RunReport::PrepareOutput("run.json"));
}

TEST_F(RunReportTest, CsvColumnsAreTheUnionOfFlattenedKeys)
{
    RunReport report = SmallRun(1);
    std::string path = m_dir + "/rows.csv";
    report.WriteCsv(path);
    // Row 1 gives case, bytes, link.util, time_us (case first, then JSON's key order);
    // row 2 adds note. Missing cells are empty; a cell with a comma or quote is quoted.
    EXPECT_EQ(Read(path),
              "case,bytes,link.util,time_us,note\n"
              "first,1000,0.5,12.5,\n"
              "second,20,,7.25,\"a, \"\"quoted\"\" one\"\n");
    EXPECT_EQ(Files(), (std::vector<std::string>{"rows.csv"}));
}

TEST_F(RunReportTest, ContentIsDeterministicApartFromWallTime)
{
    nlohmann::json a = WithoutWallFields(SmallRun(5).ToJson());
    Simulator::Destroy();
    nlohmann::json b = WithoutWallFields(SmallRun(5).ToJson());
    EXPECT_EQ(a, b);
    EXPECT_EQ(a["events"], 5u);
}

TEST_F(RunReportTest, PrintsAnAlignedTable)
{
    RunReport report = SmallRun(1);
    report.SetColumns({"case", "time_us", "bytes"});
    std::ostringstream os;
    report.Print(os);
    std::istringstream in(os.str());
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
    {
        lines.push_back(l);
    }
    ASSERT_EQ(lines.size(), 5u) << os.str();
    EXPECT_EQ(lines[0], "case    time_us  bytes");
    EXPECT_EQ(lines[1], "------  -------  -----");
    EXPECT_EQ(lines[2], "first      12.5   1000");
    EXPECT_EQ(lines[3], "second     7.25     20");
    // The closing line reports the run's cost, as every example must.
    EXPECT_EQ(lines[4].rfind("wall ", 0), 0u) << lines[4];
    EXPECT_NE(lines[4].find(" events per wall second"), std::string::npos) << lines[4];
}

// Main fixes ns-3's default resolution to end Time::Mark's bookkeeping, and leaves
// one the program chose before it alone: this binary runs at picoseconds
// (gtest-ns3-main.cc), and a serialization time stays exact to the picosecond
// through Main and a run inside it.
TEST(RunReportMainTest, KeepsTheResolutionTheProgramChose)
{
    ASSERT_EQ(Time::GetResolution(), Time::PS);
    Time seen;
    const int status = RunReport::Main([&] {
        Simulator::Schedule(PicoSeconds(720160), [&] { seen = Simulator::Now(); });
        Simulator::Run();
    });
    Simulator::Destroy();
    EXPECT_EQ(status, 0);
    EXPECT_EQ(Time::GetResolution(), Time::PS);
    EXPECT_EQ(seen.GetPicoSeconds(), 720160);
    // A second Main in the same process (tests call it many times) is no new fix.
    EXPECT_EQ(RunReport::Main([] {}), 0);
    EXPECT_EQ(Time::GetResolution(), Time::PS);
}

// Durations for people: three significant digits in the unit that keeps them >= 1.
TEST(RunReportFormatTest, SecondsGetAUnitAndSignificantDigits)
{
    EXPECT_EQ(RunReport::FormatSeconds(0.028), "28.0 ms");
    EXPECT_EQ(RunReport::FormatSeconds(1.234), "1.23 s");
    EXPECT_EQ(RunReport::FormatSeconds(307), "307 s");
    EXPECT_EQ(RunReport::FormatSeconds(4.5e-6), "4.50 us");
    EXPECT_EQ(RunReport::FormatSeconds(0.0), "0 s");
    EXPECT_EQ(RunReport::FormatSeconds(3e-13), "0.30 ps");
    // The footer of a packet run says all of it; an analytic run only what applies.
    EXPECT_EQ(RunReport::FormatCost(2.0, 0.028, 1000),
              "wall 2.00 s, simulated 28.0 ms, 1000 events, 500 events per wall second");
    EXPECT_EQ(RunReport::FormatCost(0.012, 0, 0), "wall 12.0 ms (analytic: nothing simulated)");
}

// A summary object prints as one aligned "key  value" line per entry, nested objects
// indented under their key, booleans as yes/no and null as "-".
TEST(RunReportFormatTest, KeyValuesAreAlignedLines)
{
    std::ostringstream os;
    RunReport::PrintKeyValues(
        os,
        "summary",
        {{"a", 1.5}, {"long_key", true}, {"none", nullptr}, {"sub", {{"x", "text"}}}});
    EXPECT_EQ(os.str(),
              "summary:\n"
              "  a         1.5\n"
              "  long_key  yes\n"
              "  none      -\n"
              "  sub:\n"
              "    x  text\n");
}
