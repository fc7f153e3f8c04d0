// SPDX-License-Identifier: GPL-2.0-only
// Network cost and power of rail-only against the rail-optimized Clos across GPU
// counts and HB-domain sizes (RailCostModel), with the reduction per case.
//
//   railonly-cost --json=cost.json
//   railonly-cost --gpus=4096,16384 --hbDomains=8,64,256 --radix=64 --table=prices.json
#include "ns3/core-module.h"
#include "ns3/rail-cost-model.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

/// Largest GPU count or HB-domain size a list may hold.
constexpr uint64_t MAX_GPUS = 1ull << 24;

/// "4096,8192" -> {4096, 8192}; throws std::invalid_argument naming the flag.
std::vector<uint64_t>
ParseCounts(const std::string& text, const std::string& flag)
{
    std::vector<uint64_t> out;
    for (const std::string& item : ValueParser::List(flag, text))
    {
        out.push_back(ValueParser::Unsigned(flag, item, 1, MAX_GPUS));
    }
    return out;
}

/// ScenarioCommandLine's check of a list item.
void
CheckCount(const std::string& flag, const std::string& item)
{
    ValueParser::Unsigned(flag, item, 1, MAX_GPUS);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string gpus = "4096,8192,16384,32768";
    std::string hbDomains = "8,16,32,64,128,256";
    uint32_t radix = 64;
    std::string table;
    std::string json;
    RunLevelOption level("railonly-cost", {RunLevel::ANALYTIC});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddList("gpus", "comma-separated GPU counts N (1..16777216)", gpus, CheckCount);
    cmd.AddList("hbDomains",
                "comma-separated HB-domain sizes K (each must divide every N)",
                hbDomains,
                CheckCount);
    cmd.AddValue("radix", "switch radix k (ports, 2..4096)", radix, 2, 4096);
    // The cross-flag rule, at parse time: every N splits into HB domains of every K.
    cmd.OnParsed([&] {
        for (uint64_t n : ParseCounts(gpus, "gpus"))
        {
            for (uint64_t k : ParseCounts(hbDomains, "hbDomains"))
            {
                if (n % k != 0)
                {
                    throw std::invalid_argument(
                        "--hbDomains=" + std::to_string(k) + ": " + std::to_string(n) +
                        " GPUs (--gpus) do not split into HB domains of " + std::to_string(k) +
                        "; give HB-domain sizes that divide every --gpus count");
                }
            }
        }
    });
    cmd.AddValue("table", "JSON file overriding the price/power table (see railonly.md)", table);
    cmd.AddValue("json", "write the results document to this file", json);

    RunReport report("railonly-cost");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"gpus",
                       "hb_domain",
                       "design",
                       "tiers",
                       "switches",
                       "transceivers",
                       "cost_usd",
                       "power_w",
                       "cost_reduction",
                       "power_reduction"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        OutputFiles::Declare({{"json", json}});
        report.SetMeta("level", ToString(level.Get()));
        Ptr<RailCostModel> model = CreateObject<RailCostModel>();
        model->SetRadix(radix);
        if (!table.empty())
        {
            model->LoadJsonFile(table);
        }
        // Every requested pair is priced; one that cannot be built is an error.
        std::vector<CostComparison> rows;
        for (uint64_t n : ParseCounts(gpus, "gpus"))
        {
            for (uint64_t k : ParseCounts(hbDomains, "hbDomains"))
            {
                rows.push_back(model->Compare(n, static_cast<uint32_t>(k)));
            }
        }
        const nlohmann::json doc = nlohmann::json::parse(RailCostModel::RowsToJson(rows));
        for (const auto& row : doc["rows"])
        {
            report.Add(row);
        }
        report.Set("table", nlohmann::json::parse(model->GetTableJson()));
        report.Finish(std::cout, json);
    });
}
