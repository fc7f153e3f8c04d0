// SPDX-License-Identifier: GPL-2.0-only
// Lab 1 (doc/labs/lab1-collectives.md) as a student runs it: every documented command,
// with its table row read from the lab itself, gives the numbers the lab prints (to
// the digits the lab shows). A change to the simulator or to the lab that makes them
// disagree fails here.
#include "example-process.h"
#include "lab-doc.h"

#include <cstdio>
#include <regex>
#include <sstream>
#include <vector>

using namespace mlnettest;

namespace
{

/// One documented run: its flags, the table row that reports it, and which of the
/// row's "X ms" cells are its packet-level time and its twin (-1: not in the row).
struct LabRun
{
    std::string flags;
    std::string rowStart; //!< the row's first cells, e.g. "| fat-tree | all-reduce / ring |"
    int simulatedCell;    //!< index among the row's "X ms" cells
    int twinCell;         //!< index among the row's "X ms" cells, or -1
};

/// The "X ms" cells of the table row that starts with `start` (empty if none).
std::vector<std::string>
MsCells(const std::string& lab, const std::string& start)
{
    std::istringstream lines(lab);
    for (std::string line; std::getline(lines, line);)
    {
        if (line.rfind(start, 0) != 0)
        {
            continue;
        }
        std::vector<std::string> cells;
        static const std::regex ms(R"(([0-9]+\.[0-9]+) ms)");
        for (std::sregex_iterator it(line.begin(), line.end(), ms), end; it != end; ++it)
        {
            cells.push_back((*it)[1]);
        }
        return cells;
    }
    return {};
}

void
RunAndCompare(const std::vector<LabRun>& runs)
{
    const std::string lab = LabText("lab1-collectives.md");
    ASSERT_FALSE(lab.empty()) << "doc/labs/lab1-collectives.md not found";
    const std::string json = ::testing::TempDir() + "/lab1-" + std::to_string(getpid()) + ".json";
    for (const LabRun& run : runs)
    {
        std::vector<std::string> cells = MsCells(lab, run.rowStart);
        ASSERT_GT(cells.size(), static_cast<size_t>(std::max(run.simulatedCell, run.twinCell)))
            << "the lab has no row '" << run.rowStart << "' with enough ms cells";
        ExampleRun r = RunExample("collective-validation", run.flags + " --quiet --json=" + json);
        ASSERT_EQ(r.status, 0) << run.flags << ": " << r.err;
        nlohmann::json row = ReadJson(json)["rows"][0];
        ExpectShownAs(row["simulated_s"].get<double>() * 1e3, cells[run.simulatedCell], run.flags);
        if (run.twinCell >= 0)
        {
            ExpectShownAs(row["analytical_s"].get<double>() * 1e3, cells[run.twinCell], run.flags);
        }
    }
    std::remove(json.c_str());
}

const std::string kFat = "--fabric=fattree --ranks=16 ";
const std::string kTorus = "--fabric=torus --torusDims=4x4 ";
const std::string kAr = "--collective=allreduce --bytes=4MiB --algorithm=";
const std::string kA2a = "--collective=alltoall --algorithm=direct --bytes=4MiB";

} // namespace

TEST(Lab1, PartAOneJobTwoFabrics)
{
    RunAndCompare({
        {kFat + kAr + "ring", "| fat-tree | all-reduce / ring |", 0, 1},
        {kTorus + kAr + "ring", "| torus 4×4 | all-reduce / ring |", 0, 1},
        {kTorus + kAr + "torus", "| torus 4×4 | all-reduce / torus (2-D) |", 0, 1},
        {kFat + kA2a, "| fat-tree | all-to-all / direct |", 0, 1},
        {kTorus + kA2a, "| torus 4×4 | all-to-all / direct |", 0, 1},
    });
}

TEST(Lab1, PartBPlacement)
{
    // The table's cells, per placement: ring, halving-doubling, pairwise all-to-all.
    const char* algorithms[] = {"--collective=allreduce --algorithm=ring",
                                "--collective=allreduce --algorithm=hd",
                                "--collective=alltoall --algorithm=pairwise"};
    std::vector<LabRun> runs;
    for (const char* p : {"packed", "scattered"})
    {
        for (int a = 0; a < 3; ++a)
        {
            runs.push_back({std::string("--fabric=graph --graph=") + MLNET_SOURCE_DIR +
                                "/doc/labs/lab1/" + p + ".json " + algorithms[a] + " --bytes=16MiB",
                            std::string("| ") + p + " |",
                            a,
                            -1});
        }
    }
    RunAndCompare(runs);
}

TEST(Lab1, PartCFailures)
{
    // The lab names the two links (what --failLinks=2 drew before random failures had
    // their own random stream), so the table does not depend on the generator.
    const std::string torusFail = " --fail=torus:31,torus:5";
    RunAndCompare({
        {kTorus + kAr + "torus" + torusFail, "| torus, torus all-reduce |", 1, 2},
        {kTorus + kAr + "ring" + torusFail, "| torus, ring all-reduce |", 1, 2},
        {kFat + kA2a + " --fail=tor-agg:9,tor-agg:8", "| fat-tree, direct all-to-all |", 1, 2},
    });
}
