// SPDX-License-Identifier: GPL-2.0-only
#include "topoopt-cluster-runner.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/cost-model.h"
#include "ns3/data-path-choice.h"
#include "ns3/direct-connect-fabric.h"
#include "ns3/direct-connect-helper.h"
#include "ns3/enum.h"
#include "ns3/fabric-registry.h"
#include "ns3/json-reader.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/progress-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/topoopt-job-options.h"
#include "ns3/traffic-accounting.h"
#include "ns3/training-driver.h"
#include "ns3/training-runner.h"
#include "ns3/transport-choice.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptTopoOptClusterRunner");

namespace
{

/// Collective tasks of one bucket share the name prefix before "/ring".
std::string
BucketKey(const std::string& name)
{
    return name.substr(0, name.find("/ring"));
}

/// Read a plan file: a plan document, or a topoopt-plan report holding one under "plan".
TopologyPlan
ReadPlan(const std::string& path)
{
    const JsonReader file = JsonReader::FromFile(path);
    const JsonField root = file.Root();
    return TopologyPlan::Read(root.IsObject() && root.Has("plan") ? root.At("plan") : root);
}

/// Depth-first search for a Hamiltonian cycle over the circuits, from server 0,
/// neighbours in index order, at most `budget` expansions.
bool
ExtendCycle(const std::vector<std::vector<uint32_t>>& nbr,
            std::vector<uint32_t>& path,
            std::vector<bool>& used,
            uint64_t& budget)
{
    const uint32_t n = nbr.size();
    if (path.size() == n)
    {
        const auto& last = nbr[path.back()];
        return std::find(last.begin(), last.end(), path.front()) != last.end();
    }
    for (uint32_t next : nbr[path.back()])
    {
        if (used[next] || budget == 0)
        {
            continue;
        }
        --budget;
        used[next] = true;
        path.push_back(next);
        if (ExtendCycle(nbr, path, used, budget))
        {
            return true;
        }
        path.pop_back();
        used[next] = false;
    }
    return false;
}

} // namespace

std::vector<std::vector<uint32_t>>
TopoOptClusterRunner::CircuitRings(const TopologyPlan& plan)
{
    const uint32_t n = plan.GetServers();
    std::vector<std::vector<uint32_t>> nbr = plan.Neighbours();
    for (auto& v : nbr)
    {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    std::vector<uint32_t> path{0};
    std::vector<bool> used(n, false);
    used[0] = true;
    uint64_t budget = 1000000;
    if (n < 3 || !ExtendCycle(nbr, path, used, budget))
    {
        return TopoOptSearch::RingOrders(TopologyPlan(n, plan.GetDegree()));
    }
    std::vector<uint32_t> back{path.front()};
    back.insert(back.end(), path.rbegin(), path.rend() - 1);
    return {path, back};
}

double
TopoOptFabricResult::MeanIterationS() const
{
    if (iterationS.empty())
    {
        return 0;
    }
    return std::accumulate(iterationS.begin(), iterationS.end(), 0.0) / iterationS.size();
}

TopoOptClusterRunner::TopoOptClusterRunner(const TopoOptClusterConfig& c)
    : m_config(c)
{
    TopoOptJobOptions::CheckSize("--servers", c.servers, c.degree, c.ports);
    if (c.iterations == 0)
    {
        throw std::invalid_argument("--iterations must be at least 1");
    }
    for (const auto& f : c.fabrics)
    {
        if (f != "topoopt" && f != "fattree" && f != "ideal" && f != "expander")
        {
            throw std::invalid_argument("unknown fabric '" + f +
                                        "'; use topoopt, fattree, ideal, expander");
        }
    }
    if (c.ocsPolicy != "drop" && c.ocsPolicy != "buffer" && c.ocsPolicy != "drain-then-switch")
    {
        throw std::invalid_argument(
            "--ocs-policy must be drop, buffer or drain-then-switch, got '" + c.ocsPolicy + "'");
    }
    if (c.ocs && c.level == RunLevel::FLOW)
    {
        throw std::invalid_argument("--ocs reconfigures circuits under moving packets, which the "
                                    "flow level does not have; use --level=packet or drop --ocs");
    }
    m_dataPath = DataPathChoice::ResolveFromFlags(c.dataPath, c.transport, c.traces, c.level);
}

const std::string&
TopoOptClusterRunner::GetDataPath() const
{
    return m_dataPath;
}

const SearchResult&
TopoOptClusterRunner::GetSearch() const
{
    return m_search;
}

std::vector<double>
TopoOptClusterRunner::RunIterations(Ptr<Cluster> cluster,
                                    const ModelProfile& profile,
                                    const ParallelStrategy& strategy,
                                    const std::vector<std::vector<uint32_t>>& rings,
                                    const std::string& transportName,
                                    RunLevel level,
                                    uint32_t iterations,
                                    double* analytical,
                                    const std::function<void(double)>& atStart)
{
    Ptr<MessageTransport> transport = TransportChoice::Create(transportName, level);
    transport->Install(cluster);
    std::vector<int64_t> phase;
    IterationGraph graph = strategy.BuildGraph(profile, rings, &phase);

    // Twin: concurrent communication timed together by the alpha-beta model.
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetCluster(cluster);
    model->SetPacketization(transport);
    std::map<std::string, Time> bucketTime;
    std::map<int64_t, Time> phaseTime;
    const auto& tasks = graph.GetTasks();
    auto commTime = [&](const IterationTask& t) -> Time {
        if (t.kind == TaskKind::COLLECTIVE)
        {
            std::string key = BucketKey(t.name);
            auto it = bucketTime.find(key);
            if (it != bucketTime.end())
            {
                return it->second;
            }
            std::vector<CollectiveStep> merged;
            uint32_t chainOffset = 0;
            for (const auto& o : tasks)
            {
                if (o.kind != TaskKind::COLLECTIVE || BucketKey(o.name) != key)
                {
                    continue;
                }
                Ptr<Collective> c =
                    CollectiveFactory::Create(o.collective.collective, o.collective.algorithm);
                c->Setup(transport, o.collective.ranks, o.collective.bytes);
                auto sched = c->GetSchedule();
                uint32_t maxChain = 0;
                merged.resize(std::max(merged.size(), sched.size()));
                for (size_t s = 0; s < sched.size(); ++s)
                {
                    for (auto m : sched[s].messages)
                    {
                        maxChain = std::max(maxChain, m.chain);
                        m.chain += chainOffset;
                        merged[s].messages.push_back(m);
                    }
                    merged[s].reduceBytes = std::max(merged[s].reduceBytes, sched[s].reduceBytes);
                }
                chainOffset += maxChain + 1;
            }
            Time t1 = model->Predict(merged);
            bucketTime[key] = t1;
            return t1;
        }
        if (t.kind == TaskKind::SEND)
        {
            int64_t ph = phase[t.id];
            auto it = phaseTime.find(ph);
            if (it != phaseTime.end())
            {
                return it->second;
            }
            CollectiveStep step;
            uint32_t chain = 0;
            for (const auto& o : tasks)
            {
                if (o.kind == TaskKind::SEND && phase[o.id] == ph)
                {
                    ScheduledMessage m;
                    m.src = o.rank;
                    m.dst = o.dst;
                    m.bytes = o.bytes;
                    m.chain = chain++;
                    step.messages.push_back(m);
                }
            }
            Time t1 = model->Predict(std::vector<CollectiveStep>{step});
            phaseTime[ph] = t1;
            return t1;
        }
        return Time(0);
    };
    *analytical = graph.EstimateIterationTime(commTime).GetSeconds();
    model->Dispose();

    ProgressScheduler::SetExpectedEnd(Simulator::Now() + Seconds(*analytical * iterations));
    const double twin = *analytical;
    Ptr<TrainingDriver> driver = TrainingRunner::RunGraph(transport, graph, iterations, [&]() {
        if (atStart)
        {
            atStart(twin);
        }
    });
    std::vector<double> out;
    for (const auto& rec : driver->GetIterationRecords())
    {
        out.push_back(rec.GetDuration().GetSeconds());
    }
    return out;
}

void
TopoOptClusterRunner::FindPlan(const ModelProfile& profile)
{
    const TopoOptClusterConfig& c = m_config;
    const uint32_t n = c.servers;
    const uint32_t d = c.degree;
    Ptr<TopoOptSearch> search = CreateObject<TopoOptSearch>();
    search->SetAttribute("Degree", UintegerValue(d));
    search->SetAttribute("LinkRate", DataRateValue(c.rate));
    search->SetAttribute("HopLatency", TimeValue(c.linkDelay + c.forwardingLatency));
    search->SetAttribute("Budget", UintegerValue(c.searchBudget));
    search->AssignStreams(0);
    if (c.planFile.empty())
    {
        m_search = search->Run(profile, n);
        return;
    }
    TopologyPlan plan = ReadPlan(c.planFile);
    if (plan.GetServers() != n || plan.GetDegree() != d)
    {
        throw std::invalid_argument(
            "plan file '" + c.planFile + "' has " + std::to_string(plan.GetServers()) +
            " servers of degree " + std::to_string(plan.GetDegree()) +
            ", but --servers=" + std::to_string(n) + " --degree=" + std::to_string(d));
    }
    m_search = SearchResult();
    m_search.start = ParallelStrategy::Initial(profile, n);
    m_search.strategy = m_search.start;
    m_search.plan = plan;
    m_search.cost = search->Estimate(profile, m_search.strategy, plan);
    m_search.startCost = m_search.cost;
}

void
TopoOptClusterRunner::Train(Ptr<Cluster> cluster,
                            const ModelProfile& profile,
                            const std::vector<std::vector<uint32_t>>& rings,
                            const std::function<void(double)>& atStart,
                            Ptr<DirectConnectFabric> dcf,
                            TopoOptFabricResult& r) const
{
    const TopoOptClusterConfig& c = m_config;
    double analytical = 0;
    if (dcf)
    {
        dcf->AccountLostFrames();
    }
    r.iterationS = RunIterations(cluster,
                                 profile,
                                 m_search.strategy,
                                 rings,
                                 c.transport,
                                 c.level,
                                 c.iterations,
                                 &analytical,
                                 atStart);
    r.analyticalIterationS = analytical;
    if (dcf)
    {
        RecordOcsCounters(dcf, analytical, r);
    }
    else if (r.iterationS.size() != c.iterations)
    {
        throw std::runtime_error("training on " + r.fabric + " stopped after " +
                                 std::to_string(r.iterationS.size()) + " of " +
                                 std::to_string(c.iterations) + " iterations: traffic was lost");
    }
}

void
TopoOptClusterRunner::RecordOcsCounters(Ptr<DirectConnectFabric> dcf,
                                        double analytical,
                                        TopoOptFabricResult& r)
{
    uint64_t dropped = 0;
    uint64_t held = 0;
    double dark = 0;
    for (uint32_t p = 0; p < dcf->GetNPlanes(); ++p)
    {
        Ptr<OpticalCircuitSwitch> sw = dcf->GetPlane(p);
        dropped += sw->GetFramesDroppedWhileDark();
        held += sw->GetFramesHeld();
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            dark += sw->GetDarkTime(port).GetSeconds();
        }
    }
    r.extra["reconfigure_at_s"] = analytical / 2;
    r.extra["frames_dropped_while_dark"] = dropped;
    r.extra["frames_held_while_dark"] = held;
    r.extra["port_dark_s"] = dark;
    r.extra["route_installs"] = dcf->GetRouteInstalls();
    r.extra["completed_iterations"] = r.iterationS.size();
}

std::vector<TopoOptFabricResult>
TopoOptClusterRunner::Run(const ModelProfile& profile, RunReport& report)
{
    const TopoOptClusterConfig& c = m_config;
    const uint32_t n = c.servers;
    const uint32_t d = c.degree;

    FindPlan(profile);
    std::vector<std::vector<uint32_t>> switchRings = TopoOptSearch::RingOrders(TopologyPlan(n, d));

    Ptr<CostModel> cost = CreateObject<CostModel>();
    double gbps = c.rate.GetBitRate() / 1e9;
    uint32_t speed = static_cast<uint32_t>(std::lround(gbps));
    std::vector<uint32_t> speeds = cost->Speeds();
    bool priced = std::abs(gbps - speed) < 1e-9 &&
                  std::find(speeds.begin(), speeds.end(), speed) != speeds.end();
    double topooptCost = priced ? cost->TopoOptCostPerServer(d, speed) : 0;

    std::vector<std::string> order = c.fabrics;
    if (c.ocs)
    {
        order.push_back("topoopt-ocs");
    }
    // What every fabric of the comparison shares: n servers, the link delay, and for
    // the direct-connect ones degree d at the per-port rate, host forwarding, patch panels.
    auto Request = [&](const std::string& name) {
        FabricRequest r;
        r.fabric = name;
        r.ranks = n;
        r.linkRate = c.rate;
        r.linkDelay = c.linkDelay;
        r.degree = d;
        r.forwardingLatency = c.forwardingLatency;
        r.dataPath = m_dataPath;
        TransportChoice::SetFabricFeatures(c.transport, r); // ECN (dctcp, roce), PFC (roce)
        r.opticalAttributes = {{"Technology", "patch-panel"}};
        return r;
    };
    std::vector<TopoOptFabricResult> results;
    for (const auto& fabric : order)
    {
        TopoOptFabricResult r;
        r.fabric = fabric;
        Ptr<Cluster> cluster;
        std::vector<std::vector<uint32_t>> rings = switchRings;
        std::function<void(double)> atStart;
        Ptr<DirectConnectFabric> dcf;
        if (fabric == "topoopt" || fabric == "topoopt-ocs")
        {
            FabricRequest request = Request("topoopt");
            request.plan = m_search.plan;
            request.portsPerServer = c.ports;
            if (fabric == "topoopt-ocs")
            {
                request.opticalAttributes = {
                    {"Technology", "ocs"},
                    {"DarkPortPolicy", c.ocsPolicy},
                    {"ReconfigurationDelay", std::to_string(c.ocsDelay.GetPicoSeconds()) + "ps"}};
            }
            cluster = FabricRegistry::Build(request);
            rings = TopoOptSearch::RingOrders(m_search.plan);
            r.perServerGbps = d * gbps;
            r.costPerServer = topooptCost;
            r.extra["diameter"] = m_search.plan.Diameter();
            r.extra["rings"] = rings.size();
            r.detail = std::to_string(d) + " x " + std::to_string(speed) + "G patch panel";
            if (fabric == "topoopt-ocs")
            {
                dcf = cluster->GetObject<DirectConnectFabric>();
                uint32_t plane = d - 1;
                // Another perfect matching of the last plane: pair each server with the
                // partner of its neighbour's partner (a shifted pairing of the circuits).
                const auto& circ = m_search.plan.GetCircuits(plane);
                OpticalCircuitSwitch::Matching next;
                for (size_t k = 0; k < circ.size(); ++k)
                {
                    next.emplace_back(circ[k].first, circ[(k + 1) % circ.size()].second);
                }
                atStart = [dcf, plane, next](double analytical) {
                    Simulator::Schedule(Seconds(analytical / 2),
                                        &DirectConnectFabric::Reconfigure,
                                        dcf,
                                        plane,
                                        next);
                };
                r.detail = "ocs, last plane reconfigured at half the analytical iteration, " +
                           c.ocsPolicy + ", dark " + std::to_string(c.ocsDelay.GetMicroSeconds()) +
                           " us";
                r.extra["reconfigure_at_s"] = 0.0; // filled below
            }
        }
        else if (fabric == "expander")
        {
            std::shared_ptr<FabricHelper> helper;
            cluster = FabricRegistry::Build(Request("expander"), &helper);
            const TopologyPlan& plan =
                std::dynamic_pointer_cast<DirectConnectHelper>(helper)->GetPlan();
            rings = CircuitRings(plan);
            r.perServerGbps = d * gbps;
            r.costPerServer = topooptCost;
            r.extra["diameter"] = plan.Diameter();
            r.detail = "random " + std::to_string(d) + "-regular, " + std::to_string(speed) + "G";
        }
        else if (fabric == "ideal")
        {
            FabricRequest request = Request("ideal");
            request.linkRate = DataRate(c.rate.GetBitRate() * d);
            cluster = FabricRegistry::Build(request);
            r.perServerGbps = d * gbps;
            r.costPerServer = priced ? cost->IdealSwitchCostPerServer(d, speed) : 0;
            r.detail =
                "non-blocking switch at " + std::to_string(d) + " x " + std::to_string(speed) + "G";
        }
        else // fattree
        {
            if (!priced)
            {
                throw std::invalid_argument(
                    "the similar-cost fat-tree needs --bandwidth to be a speed of the price "
                    "table (10, 25, 40, 100, 200 or 400 Gbps), or leave fattree out of --fabrics");
            }
            SimilarCostFatTree sc = cost->SimilarCost(topooptCost);
            if (sc.gbps == 0)
            {
                throw std::invalid_argument("no fat-tree is affordable at TopoOpt's cost; "
                                            "raise --degree or --bandwidth");
            }
            double ratio = sc.oversubscription < 1.01 ? 1.0 : std::ceil(sc.oversubscription);
            FabricRequest request = Request("fattree");
            request.tiers = 2;
            request.oversubscription = ratio;
            request.linkRate = DataRate(uint64_t(sc.gbps) * 1000000000ull);
            cluster = FabricRegistry::Build(request);
            r.perServerGbps = sc.gbps / ratio;
            r.costPerServer = cost->FatTreeCostPerServer(sc.gbps, ratio);
            std::ostringstream os;
            os << "2-tier, " << sc.gbps << "G hosts, oversubscription " << ratio;
            r.detail = os.str();
        }
        c.traces.Attach(cluster);
        Train(cluster, profile, rings, atStart, dcf, r);
        r.health = RunHealth::Measure(cluster, c.level == RunLevel::FLOW);
        report.CloseSimulation();
        Simulator::Destroy();
        results.push_back(r);
        // Progress: full-size models take minutes per fabric.
        std::cerr << "[" << results.size() << "] " << profile.GetName() << " on " << fabric
                  << ": iteration " << (r.iterationS.empty() ? 0.0 : r.iterationS.back())
                  << " s (analytical " << r.analyticalIterationS << " s)" << std::endl;
    }
    return results;
}

} // namespace ns3
