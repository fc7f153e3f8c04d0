// SPDX-License-Identifier: GPL-2.0-only
// Lab 2 (doc/labs/lab2-optical-switching.md) as a student runs it: every documented
// command of Part A (topoopt-plan per degree) and Part B (topoopt-cluster --ocs per
// dark time and policy) gives the numbers the lab's tables and sentences print, read
// from the lab itself, to the digits the lab shows.
#include "example-process.h"
#include "lab-doc.h"

using namespace mlnettest;

namespace
{

const char* const kLab = "lab2-optical-switching.md";

/// The row of `rows` whose "fabric" is `fabric` (null if none).
nlohmann::json
FabricRow(const nlohmann::json& j, const std::string& fabric)
{
    for (const auto& row : j.value("rows", nlohmann::json::array()))
    {
        if (row.value("fabric", "") == fabric)
        {
            return row;
        }
    }
    return nullptr;
}

} // namespace

TEST(Lab2, PartADegreeDiameterIteration)
{
    const std::string lab = LabText(kLab);
    ASSERT_FALSE(lab.empty()) << "doc/labs/" << kLab << " not found";
    const std::string header = "| degree | diameter | predicted iteration |";
    const std::vector<int> degrees = {2, 4, 8}; // the lab's `for d in 2 4 8`
    ASSERT_EQ(LabTableRows(lab, header), degrees.size()) << "one table row per documented run";
    for (int d : degrees)
    {
        const std::string what = "--degree=" + std::to_string(d);
        std::vector<std::string> cells = LabRow(lab, "| " + std::to_string(d) + " |");
        ASSERT_EQ(cells.size(), 5u) << "the lab has no single row for degree " << d;
        nlohmann::json row = LabRunJson("topoopt-plan",
                                        "--servers=16 --degree=" + std::to_string(d) +
                                            " --model=dlrm --bandwidth=25Gbps")["rows"][0];
        EXPECT_EQ(row["degree"].get<int>(), d);
        ExpectCell(row["diameter"].get<double>(), cells[1], what + " diameter");
        ExpectCell(row["predicted_iteration_s"].get<double>(), cells[2], what + " iteration");
        ExpectCell(row["allreduce_s"].get<double>(), cells[3], what + " all-reduce");
        ExpectCell(row["model_parallel_s"].get<double>(), cells[4], what + " model-parallel");
    }
}

TEST(Lab2, PartBLiveReconfiguration)
{
    const std::string lab = LabText(kLab);
    ASSERT_FALSE(lab.empty()) << "doc/labs/" << kLab << " not found";
    const std::string f = "--servers=8 --degree=4 --model=vgg16 --scale=0.01 --fabrics=topoopt "
                          "--ocs --transport=udp --ocs-policy=";

    struct OcsRun
    {
        std::string flags;    //!< after --ocs-policy=
        std::string rowStart; //!< the row's dark-time and policy cells
        double dark;          //!< the row's dark time, s
    };

    // The lab's commands: its loop over the policies at the default dark time, then
    // its loop over the two other dark times for drop and drain-then-switch.
    const std::vector<OcsRun> runs = {
        {"drop", "| 100 µs | drop |", 100e-6},
        {"buffer", "| 100 µs | buffer |", 100e-6},
        {"drain-then-switch", "| 100 µs | drain-then-switch |", 100e-6},
        {"drop --ocs-delay=10us", "| 10 µs | drop |", 10e-6},
        {"drain-then-switch --ocs-delay=10us", "| 10 µs | drain-then-switch |", 10e-6},
        {"drop --ocs-delay=1ms", "| 1 ms | drop |", 1e-3},
        {"drain-then-switch --ocs-delay=1ms", "| 1 ms | drain-then-switch |", 1e-3},
    };
    ASSERT_EQ(LabTableRows(lab, "| dark time | policy |"), runs.size())
        << "one table row per documented run";

    std::vector<std::string> healthy =
        LabMatch(lab, R"(The healthy iteration takes ([0-9.]+) ms \(analytical ([0-9.]+) ms\))");
    ASSERT_EQ(healthy.size(), 2u) << "the lab's healthy-iteration sentence is missing";
    std::vector<std::string> darkCost = LabMatch(
        lab,
        R"(A 10 µs dark period costs the iteration ([0-9.]+)–([0-9.]+) ms, ([0-9]+)–([0-9]+)×)");
    ASSERT_EQ(darkCost.size(), 4u) << "the lab's question on a 10 µs dark period is missing";
    std::vector<std::string> bufferLoss =
        LabMatch(lab, R"(`buffer` still loses ([0-9]+) frames at 100 µs)");
    ASSERT_EQ(bufferLoss.size(), 1u) << "the lab's question on buffer's losses is missing";
    ASSERT_NE(lab.find("(at half the analytical iteration time)"), std::string::npos)
        << "the lab no longer says when the plane is reconfigured";

    std::vector<double> tenMicroCosts;
    for (const OcsRun& run : runs)
    {
        std::vector<std::string> cells = LabRow(lab, run.rowStart);
        ASSERT_EQ(cells.size(), 5u) << "the lab has no single row '" << run.rowStart << "'";
        nlohmann::json j = LabRunJson("topoopt-cluster", f + run.flags);
        nlohmann::json base = FabricRow(j, "topoopt");
        nlohmann::json ocs = FabricRow(j, "topoopt-ocs");
        ASSERT_FALSE(base.is_null() || ocs.is_null()) << run.flags;
        ExpectCell(base["iteration_s"].get<double>(), healthy[0] + " ms", "healthy iteration");
        ExpectCell(base["analytical_iteration_s"].get<double>(),
                   healthy[1] + " ms",
                   "healthy analytical iteration");
        ExpectCell(ocs["iteration_s"].get<double>(), cells[2], run.flags + " iteration");
        ExpectCell(ocs["frames_dropped_while_dark"].get<double>(),
                   cells[3],
                   run.flags + " dropped");
        ExpectCell(ocs["frames_held_while_dark"].get<double>(), cells[4], run.flags + " held");
        // The plane goes dark at half the analytical iteration time.
        EXPECT_DOUBLE_EQ(ocs["reconfigure_at_s"].get<double>(),
                         ocs["analytical_iteration_s"].get<double>() / 2)
            << run.flags;
        // Question 7: eight ports dark for the row's dark time.
        EXPECT_NEAR(ocs["port_dark_s"].get<double>(), 8 * run.dark, 8 * run.dark * 1e-9)
            << run.flags;
        if (run.rowStart == "| 100 µs | buffer |")
        {
            ExpectCell(ocs["frames_dropped_while_dark"].get<double>(),
                       bufferLoss[0],
                       "question 6's buffer losses");
        }
        if (run.dark == 10e-6)
        {
            tenMicroCosts.push_back(ocs["iteration_s"].get<double>() -
                                    base["iteration_s"].get<double>());
        }
    }
    // Question 4: the 10 µs rows cost the iteration lo–hi ms (as rounded there), and
    // lo–hi× is that cost over the 10 µs dark time.
    ASSERT_EQ(tenMicroCosts.size(), 2u);
    auto [lo, hi] = std::minmax_element(tenMicroCosts.begin(), tenMicroCosts.end());
    ExpectShownAs(*lo * 1e3, darkCost[0], "question 4's smaller 10 µs cost, ms");
    ExpectShownAs(*hi * 1e3, darkCost[1], "question 4's larger 10 µs cost, ms");
    EXPECT_NEAR(LabNumber(darkCost[2]), LabNumber(darkCost[0]) * 1e-3 / 10e-6, 1e-9);
    EXPECT_NEAR(LabNumber(darkCost[3]), LabNumber(darkCost[1]) * 1e-3 / 10e-6, 1e-9);
}
