// SPDX-License-Identifier: GPL-2.0-only
/*
 * TrainingClusterRunner: one training job on a fat-tree, TopoOpt and rail-only,
 * packet level and analytical, with cost, power, bytes by link class and
 * Checkmate's checkpoint interval. See training-cluster-runner.h for what it models
 * and leaves out.
 */
#include "training-cluster-runner.h"

#include "ns3/checkmate-runner.h"
#include "ns3/core-module.h"
#include "ns3/cost-model.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-registry.h"
#include "ns3/model-profile.h"
#include "ns3/price-table.h"
#include "ns3/rail-cost-model.h"
#include "ns3/topoopt-cluster-runner.h"
#include "ns3/topoopt-job-options.h"
#include "ns3/topoopt-search.h"
#include "ns3/transport-choice.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenariosTrainingClusterRunner");

namespace
{

/// \return the rate in whole Gbps if it is one, else 0
uint32_t
WholeGbps(const DataRate& rate)
{
    double g = rate.GetBitRate() / 1e9;
    uint32_t r = static_cast<uint32_t>(std::lround(g));
    return std::abs(g - r) < 1e-9 ? r : 0;
}

/// \return a rate as text CheckmateRunConfig parses
std::string
RateText(const DataRate& rate)
{
    return std::to_string(rate.GetBitRate()) + "bps";
}

/// \return a rate for people: "100 Gbps"
std::string
Gbps(const DataRate& rate)
{
    std::ostringstream os;
    os << rate.GetBitRate() / 1e9 << " Gbps";
    return os.str();
}

} // namespace

void
TrainingClusterConfig::Validate() const
{
    if (gpus < 4 || gpus % 2 != 0)
    {
        throw std::invalid_argument("--gpus=" + std::to_string(gpus) +
                                    " is not an even number >= 4; give e.g. --gpus=16");
    }
    TopoOptJobOptions::CheckSize("--gpus", gpus, degree);
    if (hbDomain < 2 || gpus % hbDomain != 0 || hbDomain == gpus)
    {
        throw std::invalid_argument("--hbDomain=" + std::to_string(hbDomain) +
                                    " must divide --gpus=" + std::to_string(gpus) +
                                    " into at least 2 HB domains of >= 2 GPUs (e.g. 8 for 16)");
    }
    if (bandwidth.GetBitRate() % degree != 0)
    {
        throw std::invalid_argument("--bandwidth must split evenly over --degree ports");
    }
    if (!(scale > 0))
    {
        throw std::invalid_argument("--scale must be > 0 (1 = the full model)");
    }
    if (iterations < 1)
    {
        throw std::invalid_argument("--iterations must be >= 1");
    }
    if (fabrics.empty())
    {
        throw std::invalid_argument("--fabrics is empty; use fattree,topoopt,railonly");
    }
    for (const auto& f : fabrics)
    {
        if (f != "fattree" && f != "topoopt" && f != "railonly")
        {
            throw std::invalid_argument("unknown fabric '" + f +
                                        "' in --fabrics; use fattree, topoopt, railonly");
        }
    }
    TransportChoice::Check(transport);
    DataPath(); // throws naming --dataPath for an impossible choice
}

std::string
TrainingClusterConfig::DataPath() const
{
    return DataPathChoice::ResolveFromFlags(dataPath, transport, traces, level);
}

double
TrainingClusterResult::IterationS() const
{
    double s = 0;
    for (double v : iterationS)
    {
        s += v;
    }
    return iterationS.empty() ? 0.0 : s / iterationS.size();
}

nlohmann::json
TrainingClusterResult::Row() const
{
    double it = IterationS();
    uint64_t total = 0;
    for (const auto& [k, v] : bytesByLinkClass)
    {
        total += v;
    }
    nlohmann::json row = {{"fabric", fabric},
                          {"iteration_s", it},
                          {"analytical_iteration_s", analyticalIterationS},
                          {"error", it > 0 ? (it - analyticalIterationS) / it : 0.0},
                          {"cost_usd", costUsd},
                          {"power_w", powerW},
                          {"costmodel_usd", costModelUsd},
                          {"checkpoint_interval_iterations", checkpointInterval},
                          {"checkpoint_note", checkpointNote},
                          {"wire_bytes", total},
                          {"bytes_by_link_class", RunReport::ToJson(bytesByLinkClass)},
                          {"detail", detail},
                          {"wall_s", wallS}};
    health.Annotate(row, fabric, it, analyticalIterationS); // twin_gap, health
    return row;
}

TrainingClusterRunner::TrainingClusterRunner(const TrainingClusterConfig& config)
    : m_config(config)
{
    m_config.Validate();
}

std::vector<std::string>
TrainingClusterRunner::ParseFabrics(const std::string& list)
{
    std::vector<std::string> out;
    std::stringstream ss(list);
    for (std::string f; std::getline(ss, f, ',');)
    {
        if (f == "all")
        {
            return {"fattree", "topoopt", "railonly"};
        }
        if (f != "fattree" && f != "topoopt" && f != "railonly")
        {
            throw std::invalid_argument("unknown fabric '" + f +
                                        "' in --fabrics; use fattree, topoopt, railonly or all");
        }
        out.push_back(f);
    }
    if (out.empty())
    {
        throw std::invalid_argument("--fabrics is empty; use fattree,topoopt,railonly");
    }
    return out;
}

namespace
{

/// What every fabric of the comparison shares: the job, its strategy and topology, the
/// price models and Checkmate's result on the fat-tree.
struct Job
{
    const TrainingClusterConfig& c;                           //!< the flags
    ModelProfile profile;                                     //!< the (scaled) model
    DataRate portRate;                                        //!< TopoOpt's B/d per port
    SearchResult found;                                       //!< TopoOpt's strategy and plan
    std::vector<std::vector<uint32_t>> switchRings;           //!< rings on switched fabrics
    Ptr<RailCostModel> rail;                                  //!< rail-table prices
    Ptr<CostModel> topo;                                      //!< per-speed prices
    nlohmann::json checkmate{nullptr};                        //!< checkpoint interval or null
    std::string checkmateNote{"not run (--checkmate=false)"}; //!< why, or what ran

    /// \return true if the per-speed table has this whole-Gbps speed
    bool InTable(uint32_t gbps) const
    {
        std::vector<uint32_t> speeds = topo->Speeds();
        return gbps != 0 && std::find(speeds.begin(), speeds.end(), gbps) != speeds.end();
    }
};

/// Wall seconds since t0.
double
WallSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Phase 1: the job -- TopoOpt's strategy and topology for n servers of degree d at B/d.
void
SearchStrategy(Job& job, RunReport& report, std::ostream* progress)
{
    const TrainingClusterConfig& c = job.c;
    auto t0 = std::chrono::steady_clock::now();
    Ptr<TopoOptSearch> search = CreateObject<TopoOptSearch>();
    search->SetAttribute("Degree", UintegerValue(c.degree));
    search->SetAttribute("LinkRate", DataRateValue(job.portRate));
    search->SetAttribute("HopLatency", TimeValue(c.linkDelay));
    search->SetAttribute("Budget", UintegerValue(c.searchBudget));
    search->AssignStreams(0);
    job.found = search->Run(job.profile, c.gpus);
    double searchWall = WallSince(t0);
    report.Set("search",
               {{"model", job.profile.GetName()},
                {"scale", c.scale},
                {"predicted_topoopt_iteration_s", job.found.cost.total},
                {"steps", job.found.steps},
                {"wall_s", searchWall},
                {"strategy", job.found.strategy.ToJson(job.profile)}});
    if (progress)
    {
        *progress << "[search] " << job.profile.GetName() << " x" << c.scale << " on " << c.gpus
                  << " GPUs: TopoOpt strategy and topology in " << std::fixed
                  << std::setprecision(1) << searchWall << " s wall" << std::endl;
    }
    job.switchRings = TopoOptSearch::RingOrders(TopologyPlan(c.gpus, c.degree));
}

/// Phase 2: Checkmate on the fat-tree (its own real-gradient job, same n and B).
void
RunCheckmate(Job& job, RunReport& report, std::ostream* progress)
{
    const TrainingClusterConfig& c = job.c;
    const uint32_t n = c.gpus;
    auto w0 = std::chrono::steady_clock::now();
    CheckmateRunConfig ck;
    ck.workers = n;
    ck.shadows = 1;
    ck.fabric = "fattree";
    ck.rate = RateText(c.bandwidth);
    ck.iterations = c.checkmateIterations;
    ck.mode = "checkmate";
    // The packet run's data path; at the flow level auto builds no devices.
    ck.dataPath = c.level == RunLevel::FLOW ? "auto" : c.DataPath();
    ck.level = c.level;
    // Checkmate's single ring needs the parameter count to split into n equal
    // chunks: widen the hidden layer to the first width that does.
    for (ck.hidden = 64; ck.Parameters() % n != 0; ++ck.hidden)
    {
        if (ck.hidden > 64 + 64 * n)
        {
            throw std::invalid_argument("no Checkmate model size splits into " + std::to_string(n) +
                                        " chunks; use --checkmate=false");
        }
    }
    RunReport ckReport("checkmate");
    nlohmann::json out = CheckmateRunner::Run(ck, ckReport);
    const nlohmann::json& s = out["summary"];
    job.checkmate = s.value("checkpoint_interval_iterations", nlohmann::json(nullptr));
    job.checkmateNote = "Checkmate shadow on the fat-tree ToRs (CheckmateRunner, " +
                        std::to_string(ck.iterations) + " iterations of its real MLP job, " +
                        ToString(c.level) + " level)";
    double wall = WallSince(w0);
    report.Set("checkmate",
               {{"fabric", "fattree"},
                {"workers", ck.workers},
                {"shadows", ck.shadows},
                {"parameters", ck.Parameters()},
                {"rate", ck.rate},
                {"summary", s},
                {"wall_s", wall}});
    if (progress)
    {
        *progress << "[checkmate] fattree: checkpoint interval "
                  << (job.checkmate.is_null() ? std::string("none") : job.checkmate.dump())
                  << " iteration(s), " << std::fixed << std::setprecision(1) << wall << " s wall"
                  << std::endl;
    }
}

/**
 * Phase 3, per fabric: build it by name, with its description, cost and power, and
 * Checkmate's verdict; `rings` gets the ring orders its all-reduces use.
 */
Ptr<Cluster>
BuildFabric(const Job& job,
            const std::string& fabric,
            TrainingClusterResult& r,
            std::vector<std::vector<uint32_t>>& rings)
{
    const TrainingClusterConfig& c = job.c;
    const uint32_t n = c.gpus;
    const uint32_t d = c.degree;
    FabricRequest request;
    request.fabric = fabric == "railonly" ? "rail-only" : fabric;
    request.ranks = n;
    request.linkRate = c.bandwidth;
    request.linkDelay = c.linkDelay;
    request.dataPath = c.DataPath();
    request.loadBalancing = c.loadBalancing;
    TransportChoice::SetFabricFeatures(c.transport, request); // ECN (dctcp, roce), PFC (roce)
    rings = job.switchRings;
    std::ostringstream detail;
    Ptr<Cluster> cluster;
    if (fabric == "fattree")
    {
        request.tiers = 2;
        cluster = FabricRegistry::Build(request);
        detail << "2-tier leaf-spine, full bisection, hosts at " << Gbps(c.bandwidth);
        DesignCost dc = job.rail->RailOptimized(n, c.hbDomain);
        r.costUsd = dc.cost;
        r.powerW = dc.powerW;
        const uint32_t bGbps = WholeGbps(c.bandwidth);
        r.costModelUsd = job.InTable(bGbps)
                             ? nlohmann::json(n * job.topo->FatTreeCostPerServer(bGbps))
                             : nlohmann::json(nullptr);
        r.checkpointInterval = job.checkmate;
        r.checkpointNote = job.checkmateNote;
    }
    else if (fabric == "topoopt")
    {
        request.linkRate = job.portRate;
        request.degree = d;
        request.plan = job.found.plan;
        request.opticalAttributes = {{"Technology", "patch-panel"}};
        cluster = FabricRegistry::Build(request);
        rings = TopoOptSearch::RingOrders(job.found.plan);
        detail << d << " x " << Gbps(job.portRate) << " patch-panel planes, diameter "
               << job.found.plan.Diameter() << ", " << rings.size() << " rings";
        const auto& table = job.rail->GetTable();
        const uint32_t portGbps = WholeGbps(job.portRate);
        double ports = static_cast<double>(n) * d;
        double panel = job.InTable(portGbps) ? job.topo->GetPrices(portGbps).panelPort : 0.0;
        r.costUsd =
            ports * (table.at("nic_transceiver").priceUsd + table.at("fiber").priceUsd + panel);
        r.powerW = ports * table.at("nic_transceiver").powerW;
        r.costModelUsd = job.InTable(portGbps)
                             ? nlohmann::json(n * job.topo->TopoOptCostPerServer(d, portGbps))
                             : nlohmann::json(nullptr);
        r.checkpointNote = "n/a: no switch on the all-reduce path to mirror gradients "
                           "(circuits and host forwarding)";
    }
    else // railonly
    {
        request.domainSize = c.hbDomain;
        request.hbRate = c.hbRate;
        cluster = FabricRegistry::Build(request);
        detail << n / c.hbDomain << " HB domains x " << c.hbDomain << " GPUs (NVLink "
               << Gbps(c.hbRate) << "), " << c.hbDomain << " rails at " << Gbps(c.bandwidth);
        DesignCost dc = job.rail->RailOnly(n, c.hbDomain);
        r.costUsd = dc.cost;
        r.powerW = dc.powerW;
        r.costModelUsd = nullptr;
        r.checkpointNote = "n/a: CheckmateRunner builds no rail fabric (mirroring on "
                           "rail switches is not implemented)";
    }
    r.detail = detail.str();
    return cluster;
}

/// Phase 4, per fabric: train on it at the run's level (packet: with the twin beside).
void
Train(const Job& job,
      Ptr<Cluster> cluster,
      const std::vector<std::vector<uint32_t>>& rings,
      TrainingClusterResult& r)
{
    const TrainingClusterConfig& c = job.c;
    c.traces.Attach(cluster, r.fabric); // monitor files named by fabric
    double analytical = 0;
    r.iterationS = TopoOptClusterRunner::RunIterations(cluster,
                                                       job.profile,
                                                       job.found.strategy,
                                                       rings,
                                                       c.transport,
                                                       c.level,
                                                       c.iterations,
                                                       &analytical);
    r.analyticalIterationS = analytical;
    r.bytesByLinkClass = cluster->GetBytesByLinkClass();
    r.health = RunHealth::Measure(cluster, c.level == RunLevel::FLOW);
    if (r.iterationS.size() != c.iterations)
    {
        throw std::runtime_error("training on " + r.fabric + " stopped after " +
                                 std::to_string(r.iterationS.size()) + " of " +
                                 std::to_string(c.iterations) + " iterations: traffic was lost");
    }
}

} // namespace

std::vector<TrainingClusterResult>
TrainingClusterRunner::Run(RunReport& report, std::ostream* progress)
{
    const TrainingClusterConfig& c = m_config;
    Job job{c,
            c.profileFile.empty() ? ModelProfile::FromName(c.model)
                                  : ModelProfile::FromFile(c.profileFile),
            DataRate(c.bandwidth.GetBitRate() / c.degree)};
    if (c.scale != 1.0)
    {
        job.profile = job.profile.Scaled(c.scale, c.scale);
    }
    SearchStrategy(job, report, progress);
    // Cost and power: both models read the one PriceTable (MLNET_PRICE_TABLE or
    // ns3::PriceTable::Path replaces it), so every figure below comes from one file.
    Ptr<PriceTable> prices = CreateObject<PriceTable>();
    job.rail = CreateObject<RailCostModel>();
    job.rail->SetPriceTable(prices);
    job.topo = CreateObject<CostModel>();
    job.topo->SetPriceTable(prices);
    const bool fatTree =
        std::find(c.fabrics.begin(), c.fabrics.end(), "fattree") != c.fabrics.end();
    if (c.checkmate && fatTree && c.level != RunLevel::ANALYTIC)
    {
        RunCheckmate(job, report, progress);
    }
    else if (c.checkmate && fatTree)
    {
        job.checkmateNote = "not run at the analytic level: Checkmate trains a real job "
                            "(use --level=packet or --level=flow)";
    }

    std::vector<TrainingClusterResult> results;
    for (size_t index = 0; index < c.fabrics.size(); ++index)
    {
        const std::string& fabric = c.fabrics[index];
        auto w0 = std::chrono::steady_clock::now();
        TrainingClusterResult r;
        r.fabric = fabric;
        std::vector<std::vector<uint32_t>> rings;
        Train(job, BuildFabric(job, fabric, r, rings), rings, r);
        report.CloseSimulation();
        Simulator::Destroy();
        r.wallS = WallSince(w0);
        if (progress)
        {
            *progress << "[" << index + 1 << "/" << c.fabrics.size() << "] " << std::left
                      << std::setw(9) << fabric << std::right << " iteration " << std::scientific
                      << std::setprecision(3) << r.IterationS() << " s (twin "
                      << r.analyticalIterationS << " s), " << std::fixed << std::setprecision(1)
                      << r.wallS << " s wall" << std::endl;
        }
        nlohmann::json row = r.Row();
        row["model"] = job.profile.GetName();
        row["gpus"] = c.gpus;
        report.Add(row);
        results.push_back(r);
    }
    return results;
}

} // namespace ns3
