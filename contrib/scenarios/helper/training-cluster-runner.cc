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
#include "ns3/fabric-registry.h"
#include "ns3/model-profile.h"
#include "ns3/price-table.h"
#include "ns3/rail-cost-model.h"
#include "ns3/topoopt-cluster-runner.h"
#include "ns3/topoopt-search.h"

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
    if (degree < 1 || degree >= gpus)
    {
        throw std::invalid_argument("--degree=" + std::to_string(degree) +
                                    " must be between 1 and gpus-1; give e.g. --degree=4");
    }
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
    if (transport != "udp" && transport != "tcp" && transport != "dctcp")
    {
        throw std::invalid_argument("--transport=" + transport + " unknown; use udp, tcp or dctcp");
    }
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
    return {{"fabric", fabric},
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

std::vector<TrainingClusterResult>
TrainingClusterRunner::Run(RunReport& report, std::ostream* progress)
{
    const TrainingClusterConfig& c = m_config;
    const uint32_t n = c.gpus;
    const uint32_t d = c.degree;
    DataRate portRate(c.bandwidth.GetBitRate() / d);

    ModelProfile profile = c.profileFile.empty() ? ModelProfile::FromName(c.model)
                                                 : ModelProfile::FromFile(c.profileFile);
    if (c.scale != 1.0)
    {
        profile = profile.Scaled(c.scale, c.scale);
    }

    // The job: TopoOpt's strategy and topology for n servers of degree d at B/d.
    auto t0 = std::chrono::steady_clock::now();
    Ptr<TopoOptSearch> search = CreateObject<TopoOptSearch>();
    search->SetAttribute("Degree", UintegerValue(d));
    search->SetAttribute("LinkRate", DataRateValue(portRate));
    search->SetAttribute("HopLatency", TimeValue(c.linkDelay));
    search->SetAttribute("Budget", UintegerValue(c.searchBudget));
    search->AssignStreams(0);
    SearchResult found = search->Run(profile, n);
    double searchWall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report.Set("search",
               {{"model", profile.GetName()},
                {"scale", c.scale},
                {"predicted_topoopt_iteration_s", found.cost.total},
                {"steps", found.steps},
                {"wall_s", searchWall},
                {"strategy", found.strategy.ToJson(profile)}});
    if (progress)
    {
        *progress << "[search] " << profile.GetName() << " x" << c.scale << " on " << n
                  << " GPUs: TopoOpt strategy and topology in " << std::fixed
                  << std::setprecision(1) << searchWall << " s wall" << std::endl;
    }
    std::vector<std::vector<uint32_t>> switchRings = TopoOptSearch::RingOrders(TopologyPlan(n, d));

    // Cost and power: both models read the one PriceTable (MLNET_PRICE_TABLE or
    // ns3::PriceTable::Path replaces it), so every figure below comes from one file.
    Ptr<PriceTable> prices = CreateObject<PriceTable>();
    Ptr<RailCostModel> rail = CreateObject<RailCostModel>();
    rail->SetPriceTable(prices);
    Ptr<CostModel> topo = CreateObject<CostModel>();
    topo->SetPriceTable(prices);
    std::vector<uint32_t> speeds = topo->Speeds();
    auto inTable = [&speeds](uint32_t g) {
        return g != 0 && std::find(speeds.begin(), speeds.end(), g) != speeds.end();
    };
    const uint32_t bGbps = WholeGbps(c.bandwidth);
    const uint32_t portGbps = WholeGbps(portRate);

    // Checkmate on the fat-tree (its own real-gradient job, same n and B).
    nlohmann::json checkmate = nullptr;
    std::string checkmateNote = "not run (--checkmate=false)";
    bool wantFatTree = std::find(c.fabrics.begin(), c.fabrics.end(), "fattree") != c.fabrics.end();
    if (c.checkmate && wantFatTree)
    {
        auto w0 = std::chrono::steady_clock::now();
        CheckmateRunConfig ck;
        ck.workers = n;
        ck.shadows = 1;
        ck.fabric = "fattree";
        ck.rate = RateText(c.bandwidth);
        ck.iterations = c.checkmateIterations;
        ck.mode = "checkmate";
        // Checkmate's single ring needs the parameter count to split into n equal
        // chunks: widen the hidden layer to the first width that does.
        for (ck.hidden = 64; ck.Parameters() % n != 0; ++ck.hidden)
        {
            if (ck.hidden > 64 + 64 * n)
            {
                throw std::invalid_argument("no Checkmate model size splits into " +
                                            std::to_string(n) + " chunks; use --checkmate=false");
            }
        }
        RunReport ckReport("checkmate");
        nlohmann::json out = CheckmateRunner::Run(ck, ckReport);
        const nlohmann::json& s = out["summary"];
        checkmate = s.value("checkpoint_interval_iterations", nlohmann::json(nullptr));
        checkmateNote = "Checkmate shadow on the fat-tree ToRs (CheckmateRunner, " +
                        std::to_string(ck.iterations) + " iterations of its real MLP job)";
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
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
                      << (checkmate.is_null() ? std::string("none") : checkmate.dump())
                      << " iteration(s), " << std::fixed << std::setprecision(1) << wall
                      << " s wall" << std::endl;
        }
    }

    // Every fabric: n GPUs, the same link delay, network links at `rate`.
    auto Request = [&](const std::string& name, DataRate rate) {
        FabricRequest r;
        r.fabric = name;
        r.ranks = n;
        r.linkRate = rate;
        r.linkDelay = c.linkDelay;
        return r;
    };
    std::vector<TrainingClusterResult> results;
    uint32_t index = 0;
    for (const auto& fabric : c.fabrics)
    {
        ++index;
        auto w0 = std::chrono::steady_clock::now();
        TrainingClusterResult r;
        r.fabric = fabric;
        Ptr<Cluster> cluster;
        std::vector<std::vector<uint32_t>> rings = switchRings;
        std::ostringstream detail;
        if (fabric == "fattree")
        {
            FabricRequest request = Request("fattree", c.bandwidth);
            request.tiers = 2;
            cluster = FabricRegistry::Build(request);
            detail << "2-tier leaf-spine, full bisection, hosts at " << Gbps(c.bandwidth);
            DesignCost dc = rail->RailOptimized(n, c.hbDomain);
            r.costUsd = dc.cost;
            r.powerW = dc.powerW;
            r.costModelUsd = inTable(bGbps) ? nlohmann::json(n * topo->FatTreeCostPerServer(bGbps))
                                            : nlohmann::json(nullptr);
            r.checkpointInterval = checkmate;
            r.checkpointNote = checkmateNote;
        }
        else if (fabric == "topoopt")
        {
            FabricRequest request = Request("topoopt", portRate);
            request.degree = d;
            request.plan = found.plan;
            request.opticalAttributes = {{"Technology", "patch-panel"}};
            cluster = FabricRegistry::Build(request);
            rings = TopoOptSearch::RingOrders(found.plan);
            detail << d << " x " << Gbps(portRate) << " patch-panel planes, diameter "
                   << found.plan.Diameter() << ", " << rings.size() << " rings";
            const auto& table = rail->GetTable();
            double ports = static_cast<double>(n) * d;
            double panel = inTable(portGbps) ? topo->GetPrices(portGbps).panelPort : 0.0;
            r.costUsd =
                ports * (table.at("nic_transceiver").priceUsd + table.at("fiber").priceUsd + panel);
            r.powerW = ports * table.at("nic_transceiver").powerW;
            r.costModelUsd = inTable(portGbps)
                                 ? nlohmann::json(n * topo->TopoOptCostPerServer(d, portGbps))
                                 : nlohmann::json(nullptr);
            r.checkpointNote = "n/a: no switch on the all-reduce path to mirror gradients "
                               "(circuits and host forwarding)";
        }
        else // railonly
        {
            FabricRequest request = Request("rail-only", c.bandwidth);
            request.domainSize = c.hbDomain;
            request.hbRate = c.hbRate;
            cluster = FabricRegistry::Build(request);
            detail << n / c.hbDomain << " HB domains x " << c.hbDomain << " GPUs (NVLink "
                   << Gbps(c.hbRate) << "), " << c.hbDomain << " rails at " << Gbps(c.bandwidth);
            DesignCost dc = rail->RailOnly(n, c.hbDomain);
            r.costUsd = dc.cost;
            r.powerW = dc.powerW;
            r.costModelUsd = nullptr;
            r.checkpointNote = "n/a: CheckmateRunner builds no rail fabric (mirroring on "
                               "rail switches is not implemented)";
        }
        r.detail = detail.str();
        c.traces.Attach(cluster, fabric); // monitor files named by fabric
        double analytical = 0;
        r.iterationS = TopoOptClusterRunner::RunIterations(cluster,
                                                           profile,
                                                           found.strategy,
                                                           rings,
                                                           c.transport,
                                                           c.iterations,
                                                           &analytical);
        r.analyticalIterationS = analytical;
        r.bytesByLinkClass = cluster->GetBytesByLinkClass();
        if (r.iterationS.size() != c.iterations)
        {
            throw std::runtime_error(
                "training on " + fabric + " stopped after " + std::to_string(r.iterationS.size()) +
                " of " + std::to_string(c.iterations) + " iterations: traffic was lost");
        }
        report.CloseSimulation();
        Simulator::Destroy();
        r.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        if (progress)
        {
            *progress << "[" << index << "/" << c.fabrics.size() << "] " << std::left
                      << std::setw(9) << fabric << std::right << " iteration " << std::scientific
                      << std::setprecision(3) << r.IterationS() << " s (twin "
                      << r.analyticalIterationS << " s), " << std::fixed << std::setprecision(1)
                      << r.wallS << " s wall" << std::endl;
        }
        nlohmann::json row = r.Row();
        row["model"] = profile.GetName();
        row["gpus"] = n;
        report.Add(row);
        results.push_back(r);
    }
    return results;
}

} // namespace ns3
