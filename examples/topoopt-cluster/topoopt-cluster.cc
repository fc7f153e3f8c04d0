// SPDX-License-Identifier: GPL-2.0-only
// Packet-level training iterations of one model on TopoOpt (strategy and topology
// co-optimized), the similar-cost fat-tree, the ideal switch (d x B per server) and
// a random-regular expander, with the analytical iteration time beside each.
// --ocs adds a run on OCS planes reconfigured mid-iteration.
//
//   topoopt-cluster --servers=16 --degree=4 --bandwidth=25Gbps --model=bert \
//       --iterations=1 --json=bert.json
#include "ns3/core-module.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-options.h"
#include "ns3/run-level.h"
#include "ns3/run-report.h"
#include "ns3/scenario-command-line.h"
#include "ns3/topoopt-cluster-runner.h"
#include "ns3/topoopt-job-options.h"
#include "ns3/transport-choice.h"

#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    TopoOptClusterConfig config;
    std::string model = "dlrm";
    std::string profileFile;
    std::string bandwidth = "25Gbps";
    std::string fabrics = "topoopt,fattree,ideal,expander";
    std::string ocsDelay = "100us";
    std::string forwarding = "0s";
    double scale = 1.0;
    std::string json;
    RunLevelOption level("topoopt-cluster", {RunLevel::PACKET, RunLevel::FLOW});
    ScenarioCommandLine cmd(__FILE__);
    level.AddToCommandLine(cmd);
    cmd.AddValue("servers",
                 "servers n (even, 2..4096)",
                 config.servers,
                 2,
                 TopologyPlan::MAX_SERVERS);
    cmd.AddValue("degree", "optical ports used per server d (1..64)", config.degree, 1, 64);
    cmd.AddValue("ports", "NIC ports per server (0: = degree; at most 64)", config.ports, 0, 64);
    cmd.AddRate("bandwidth", "bandwidth per port B", bandwidth);
    TopoOptJobOptions::AddModel(cmd, model, true);
    cmd.AddValue("profile", "model profile file (overrides --model)", profileFile);
    cmd.AddValue("scale",
                 "multiply the model's bytes and compute times (test runs), in (0, 100]",
                 scale,
                 0,
                 100,
                 true);
    cmd.AddValue("iterations",
                 "training iterations per fabric (1..10000)",
                 config.iterations,
                 1,
                 10000);
    cmd.AddValue("budget",
                 "MCMC steps of the strategy search (at most 1000000)",
                 config.searchBudget,
                 0,
                 1000000);
    cmd.AddList("fabrics",
                "comma-separated: topoopt,fattree,ideal,expander",
                fabrics,
                [](const std::string& flag, const std::string& item) {
                    ValueParser::Choice(flag, item, {"topoopt", "fattree", "ideal", "expander"});
                });
    cmd.AddValue("plan",
                 "use this plan file (topoopt-plan --json output) instead of searching",
                 config.planFile);
    TransportChoice::AddToCommandLine(cmd, config.transport);
    DataPathChoice::AddToCommandLine(cmd, config.dataPath);
    cmd.AddTime("forwarding-latency",
                "host relay latency per hop (at most 1s)",
                forwarding,
                Time(0),
                Seconds(1));
    cmd.AddValue("ocs", "add a run on OCS planes with a mid-iteration reconfiguration", config.ocs);
    cmd.AddChoice("ocs-policy",
                  "drop | buffer | drain-then-switch",
                  config.ocsPolicy,
                  {"drop", "buffer", "drain-then-switch"});
    cmd.AddTime("ocs-delay",
                "OCS reconfiguration (dark) time (at most 1s)",
                ocsDelay,
                Time(0),
                Seconds(1));
    cmd.AddValue("json", "write the results document to this file", json);
    config.traces.AddToCommandLine(cmd);

    RunReport report("topoopt-cluster");
    report.SetCommandLine(argc, argv);
    report.SetColumns({"fabric", "model", "iteration_s", "analytical_iteration_s", "error"});
    return RunReport::Main([&] {
        cmd.Parse(argc, argv);
        config.traces.DeclareOutputs({{"json", json}});
        config.level = level.Get();
        report.SetMeta("level", ToString(config.level));
        config.rate = ParseDataRate(bandwidth);
        config.ocsDelay = ParseTime(ocsDelay);
        config.forwardingLatency = ParseTime(forwarding);
        config.fabrics.clear();
        std::stringstream ss(fabrics);
        for (std::string f; std::getline(ss, f, ',');)
        {
            config.fabrics.push_back(f);
        }
        std::vector<ModelProfile> profiles;
        if (!profileFile.empty())
        {
            profiles.push_back(ModelProfile::FromFile(profileFile));
        }
        else
        {
            std::stringstream ms(model);
            for (std::string m; std::getline(ms, m, ',');)
            {
                profiles.push_back(ModelProfile::FromName(m));
            }
        }
        TopoOptClusterRunner runner(config);
        report.SetMeta("data_path", runner.GetDataPath());
        nlohmann::json searches = nlohmann::json::object();
        for (ModelProfile profile : profiles)
        {
            if (scale != 1.0)
            {
                profile = profile.Scaled(scale, scale);
            }
            auto results = runner.Run(profile, report);
            for (const auto& r : results)
            {
                double it = r.MeanIterationS();
                nlohmann::json row = {{"fabric", r.fabric},
                                      {"model", profile.GetName()},
                                      {"iteration_s", it},
                                      {"analytical_iteration_s", r.analyticalIterationS},
                                      {"error", it > 0 ? (it - r.analyticalIterationS) / it : 0.0},
                                      {"iterations_s", r.iterationS},
                                      {"per_server_gbps", r.perServerGbps},
                                      {"cost_per_server_usd", r.costPerServer},
                                      {"detail", r.detail}};
                for (const auto& [k, v] : r.extra.items())
                {
                    row[k] = v;
                }
                r.health.Annotate(row,
                                  r.fabric + "/" + profile.GetName(),
                                  it,
                                  r.analyticalIterationS); // twin_gap, health
                report.Add(row);
            }
            const SearchResult& s = runner.GetSearch();
            searches[profile.GetName()] = {{"predicted_iteration_s", s.cost.total},
                                           {"start_iteration_s", s.startCost.total},
                                           {"steps", s.steps},
                                           {"accepted", s.accepted},
                                           {"strategy", s.strategy.ToJson(profile)}};
        }
        report.Set("search", searches);
        report.Finish(std::cout, json);
    });
}
