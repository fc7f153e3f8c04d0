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

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

/// "4096,8192" -> {4096, 8192}; throws std::invalid_argument naming the flag.
std::vector<uint64_t>
ParseList(const std::string& text, const std::string& flag)
{
    std::vector<uint64_t> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        size_t used = 0;
        unsigned long long v = 0;
        try
        {
            v = std::stoull(item, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (used != item.size() || item.empty() || v == 0)
        {
            throw std::invalid_argument(flag + ": '" + item +
                                        "' is not a positive integer; give a list like 8,16,32");
        }
        out.push_back(v);
    }
    if (out.empty())
    {
        throw std::invalid_argument(flag + " is empty; give a list like 8,16,32");
    }
    return out;
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
    CommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("gpus", "comma-separated GPU counts N", gpus);
    cmd.AddValue("hbDomains",
                 "comma-separated HB-domain sizes K (each must divide every N)",
                 hbDomains);
    cmd.AddValue("radix", "switch radix k (ports)", radix);
    cmd.AddValue("table", "JSON file overriding the price/power table (see railonly.md)", table);
    cmd.AddValue("json", "write the results document to this file", json);
    cmd.Parse(argc, argv);

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
        OutputFiles::Declare({json});
        report.SetMeta("level", ToString(level.Get()));
        Ptr<RailCostModel> model = CreateObject<RailCostModel>();
        model->SetRadix(radix);
        if (!table.empty())
        {
            model->LoadJsonFile(table);
        }
        // Every requested pair is priced; one that cannot be built is an error.
        std::vector<CostComparison> rows;
        for (uint64_t n : ParseList(gpus, "--gpus"))
        {
            for (uint64_t k : ParseList(hbDomains, "--hbDomains"))
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
