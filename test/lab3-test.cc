// SPDX-License-Identifier: GPL-2.0-only
// Lab 3 (doc/labs/lab3-railonly-checkpointing.md) as a student runs it: the
// documented railonly-llm commands of Part A and the small checkmate-recovery run of
// Part B give the numbers the lab's tables and sentences print, read from the lab
// itself, to the digits the lab shows. Part B's larger run (about 27 s of CPU) is
// left out to keep the suite fast.
#include "example-process.h"
#include "lab-doc.h"

using namespace mlnettest;

namespace
{

const char* const kLab = "lab3-railonly-checkpointing.md";

/// The row of a railonly-llm run for `fabric` and `failure` (null if none).
nlohmann::json
FabricRow(const nlohmann::json& j, const std::string& fabric, const std::string& failure = "none")
{
    for (const auto& row : j.value("rows", nlohmann::json::array()))
    {
        if (row.value("fabric", "") == fabric && row.value("failure", "") == failure)
        {
            return row;
        }
    }
    return nullptr;
}

const std::string kGpt = "--domains=4 --domainSize=4 --radix=8 --tp=4 --pp=2 --dp=2 --layers=2 "
                         "--hidden=1024 --seq=512 --microBatches=2 --transport=udp";
/// The table's columns, in order.
const std::vector<std::string> kFabrics = {"rail-only", "rail-optimized", "fat-tree"};

/// Check the table row starting `rowStart` against `field` of each fabric's row.
void
ExpectFabricCells(const std::string& lab,
                  const nlohmann::json& j,
                  const std::string& rowStart,
                  const std::string& field)
{
    std::vector<std::string> cells = LabRow(lab, rowStart);
    ASSERT_EQ(cells.size(), 1 + kFabrics.size())
        << "the lab has no single row '" << rowStart << "'";
    for (size_t f = 0; f < kFabrics.size(); ++f)
    {
        nlohmann::json row = FabricRow(j, kFabrics[f]);
        ASSERT_FALSE(row.is_null()) << kFabrics[f];
        ExpectCell(row[field].get<double>(), cells[1 + f], cells[0] + ", " + kFabrics[f]);
    }
}

} // namespace

TEST(Lab3, PartADense)
{
    const std::string lab = LabText(kLab);
    ASSERT_FALSE(lab.empty()) << "doc/labs/" << kLab << " not found";
    nlohmann::json j = LabRunJson("railonly-llm", kGpt + " --fabric=all");
    ExpectFabricCells(lab, j, "| dense iteration (packet-level) |", "iteration_s");
    ExpectFabricCells(lab, j, "| dense, Megatron closed form |", "analytical_iteration_s");
    ExpectFabricCells(lab, j, "| dense, spine bytes |", "spine_bytes");

    // Question 1: rail-only and rail-optimized give the same iteration to the ps.
    ASSERT_NE(lab.find("give the *same* dense iteration to the picosecond"), std::string::npos)
        << "the lab's question 1 is missing";
    double railOnly = FabricRow(j, "rail-only")["iteration_s"].get<double>();
    double railOpt = FabricRow(j, "rail-optimized")["iteration_s"].get<double>();
    EXPECT_NEAR(railOnly, railOpt, 0.5e-12);
    // Question 2: the NVLink fat-tree is N× slower than rail-optimized.
    std::vector<std::string> slower = LabMatch(lab, R"(no rails: ([0-9.]+)× slower)");
    ASSERT_EQ(slower.size(), 1u) << "the lab's question on the fat-tree's slowdown is missing";
    ExpectShownAs(FabricRow(j, "fat-tree")["iteration_s"].get<double>() / railOpt,
                  slower[0],
                  "fat-tree iteration over rail-optimized");
}

TEST(Lab3, PartAMoe)
{
    const std::string lab = LabText(kLab);
    ASSERT_FALSE(lab.empty()) << "doc/labs/" << kLab << " not found";
    nlohmann::json j = LabRunJson("railonly-llm", kGpt + " --fabric=all --moe");
    ExpectFabricCells(lab, j, "| MoE iteration (packet-level) |", "iteration_s");
    ExpectFabricCells(lab, j, "| MoE, spine bytes |", "spine_bytes");
}

TEST(Lab3, PartAFailedRailSwitch)
{
    const std::string lab = LabText(kLab);
    ASSERT_FALSE(lab.empty()) << "doc/labs/" << kLab << " not found";
    std::vector<std::string> cells = LabRow(lab, "| dense, rail 1's switch failed |");
    ASSERT_EQ(cells.size(), 4u) << "the lab's failed-rail row is missing";
    std::vector<std::string> pct = LabMatch(cells[1], R"(\(\+([0-9]+)%\))");
    ASSERT_EQ(pct.size(), 1u) << "the failed-rail cell shows no (+N%)";
    EXPECT_EQ(cells[2], "") << "only rail-only is run with a failed rail switch";
    EXPECT_EQ(cells[3], "") << "only rail-only is run with a failed rail switch";
    std::vector<std::string> costs =
        LabMatch(lab, R"(A failed rail switch costs the dense job ([0-9]+)%)");
    ASSERT_EQ(costs.size(), 1u) << "the lab's question on the failed rail is missing";

    nlohmann::json j = LabRunJson("railonly-llm", kGpt + " --fabric=rail-only --failRailSwitch=1");
    nlohmann::json failed = FabricRow(j, "rail-only", "rail-switch 1");
    ASSERT_FALSE(failed.is_null());
    ExpectCell(failed["iteration_s"].get<double>(), cells[1], "failed rail switch iteration");
    ExpectShownAs(failed["slowdown"].get<double>() * 100, pct[0], "failed rail switch slowdown, %");
    ExpectShownAs(failed["slowdown"].get<double>() * 100, costs[0], "question 4's slowdown, %");
}

TEST(Lab3, PartBCheckmateSmallJob)
{
    const std::string lab = LabText(kLab);
    ASSERT_FALSE(lab.empty()) << "doc/labs/" << kLab << " not found";
    const std::vector<std::string> schemes = {"Checkmate", "Gemini", "CheckFreq", "none"};
    ASSERT_EQ(LabTableRows(lab, "| scheme | checkpoint interval |"), schemes.size());
    std::vector<std::string> params = LabMatch(lab, R"(\(here ([0-9,]+) parameters\))");
    ASSERT_EQ(params.size(), 1u) << "the lab's parameter count is missing";

    nlohmann::json j =
        LabRunJson("checkmate-recovery",
                   "--mode=all --failAt=17 --iterations=30 --inputs=256 --hidden=512 "
                   "--classes=16 --rate=10Gbps");
    for (const std::string& scheme : schemes)
    {
        std::vector<std::string> cells = LabRow(lab, "| " + scheme + " |");
        ASSERT_EQ(cells.size(), 5u) << "the lab has no single row for " << scheme;
        std::string key = scheme;
        std::transform(key.begin(), key.end(), key.begin(), ::tolower);
        const nlohmann::json& m = j["modes"][key];
        ASSERT_TRUE(m.is_object()) << "no modes." << key << " in the JSON";
        EXPECT_EQ(m["parameters"].get<double>(), LabNumber(params[0])) << scheme;
        if (cells[1] == "—")
        {
            EXPECT_TRUE(m["checkpoint_interval_iterations"].is_null()) << scheme;
        }
        else
        {
            ASSERT_TRUE(m["checkpoint_interval_iterations"].is_number())
                << scheme << ": the lab shows an interval, the run chose none";
            ExpectCell(m["checkpoint_interval_iterations"].get<double>(),
                       cells[1],
                       scheme + " interval");
        }
        ExpectCell(m["throughput_overhead"].get<double>(), cells[2], scheme + " overhead");
        ExpectCell(m["repeated_iterations_after_failure"].get<double>(),
                   cells[3],
                   scheme + " repeated iterations");
        if (cells[4] == "—")
        {
            // No checkpoint to recover from: nothing restored, nothing streamed.
            EXPECT_EQ(m["recovery_s"].get<double>(), 0.0) << scheme;
            EXPECT_EQ(m["restored_from_iteration"].get<int>(), -1) << scheme;
        }
        else
        {
            ExpectCell(m["recovery_s"].get<double>(), cells[4], scheme + " recovery");
        }
    }
    // Question 6: every Checkmate iteration's shadow equals the workers bit for bit.
    ASSERT_NE(lab.find("Every Checkmate row of `cm.json` has `shadow_matches_workers: true`"),
              std::string::npos)
        << "the lab's question 6 is missing";
    ASSERT_EQ(j["rows"].size(), 30u);
    for (const auto& row : j["rows"])
    {
        EXPECT_TRUE(row["shadow_matches_workers"].get<bool>()) << row.dump();
    }
    // Question 7: replicate-once mirrors exactly the gradient size S per iteration.
    ASSERT_NE(lab.find("`mirrored_bytes_per_iteration` equals the gradient size S exactly"),
              std::string::npos)
        << "the lab's question 7 is missing";
    EXPECT_EQ(j["modes"]["checkmate"]["mirrored_bytes_per_iteration"].get<double>(),
              j["modes"]["checkmate"]["gradient_bytes"].get<double>());
}
