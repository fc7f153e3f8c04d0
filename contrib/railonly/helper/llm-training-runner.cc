// SPDX-License-Identifier: GPL-2.0-only
#include "llm-training-runner.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/boolean.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-registry.h"
#include "ns3/log.h"
#include "ns3/packetization.h"
#include "ns3/progress-scheduler.h"
#include "ns3/route-planner.h"
#include "ns3/simulator.h"
#include "ns3/training-driver.h"
#include "ns3/training-runner.h"
#include "ns3/transport-choice.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyLlmTrainingRunner");

double
LlmRunResult::IterationS() const
{
    if (iterations.empty())
    {
        return 0;
    }
    double sum = 0;
    for (const auto& it : iterations)
    {
        sum += it.GetDuration().GetSeconds();
    }
    return sum / iterations.size();
}

nlohmann::json
LlmRunResult::Row() const
{
    double s = IterationS();
    nlohmann::json bytes = nlohmann::json::object();
    for (const char* cls : {"nvlink", "rail", "spine"})
    {
        bytes[cls] = 0;
    }
    for (const auto& [cls, b] : bytesByLinkClass)
    {
        bytes[cls] = b;
    }
    nlohmann::json row = {{"fabric", fabric},
                          {"failure", failure},
                          {"iteration_s", s},
                          {"analytical_iteration_s", analytical.totalS},
                          {"twin_iteration_s", twinIterationS},
                          {"error_analytical", (s - analytical.totalS) / s},
                          {"error_twin", (s - twinIterationS) / s},
                          {"bytes_by_link_class", bytes},
                          {"spine_bytes", bytes["spine"]},
                          {"failed_links", failedLinks},
                          {"tasks", tasks},
                          {"rail_replicas", railReplicas},
                          {"rail_replication",
                           railReplicas == 1 ? "off"
                           : oneSwitchRails  ? "exact: one switch per rail"
                           : fabric == "rail-optimized"
                               ? "rails meeting at spines on links of their own: rail 0's "
                                 "flow-hash choices stand for every rail's"
                               : "two-tier rails: rail 0's flow-hash choices stand for every "
                                 "rail's"},
                          {"dp_replicas", dpReplicas},
                          {"replica_replication",
                           dpReplicas == 1  ? "off"
                           : oneSwitchRails ? "exact: one switch per rail"
                                            : "two-tier rails: replica 0's flow-hash "
                                              "choices stand for every replica's"},
                          {"analytical", analytical.ToJson()}};
    if (moeAllToAllS > 0)
    {
        row["moe_alltoall_s"] = moeAllToAllS;
        row["analytical_moe_alltoall_s"] = analytical.moeAllToAllS;
        // Against the ideal flat all-to-all (NIC-bound, no flow-hash collisions).
        row["moe_overhead_vs_ideal_flat"] = moeAllToAllS / analytical.moeFlatAllToAllS - 1.0;
    }
    health.Annotate(row,
                    failure == "none" ? fabric : fabric + " (" + failure + " failed)",
                    s,
                    twinIterationS); // twin_gap, health
    return row;
}

std::vector<std::string>
LlmTrainingRunner::ParseFabrics(const std::string& choice)
{
    if (choice == "all")
    {
        return {"rail-only", "rail-optimized", "fat-tree"};
    }
    if (choice == "rail-only" || choice == "rail-optimized" || choice == "fat-tree")
    {
        return {choice};
    }
    throw std::invalid_argument("unknown --fabric '" + choice +
                                "'; use rail-only, rail-optimized, fat-tree or all");
}

Ptr<Cluster>
LlmTrainingRunner::BuildFabric(const LlmRunOptions& o,
                               const std::string& fabric,
                               std::shared_ptr<RailFabricHelper>* out)
{
    ParseFabrics(fabric); // throws for unknown names
    FabricRequest request;
    // railonly-llm's "fat-tree" is the registry's NVLink fat-tree (HB domains on a Clos).
    request.fabric = fabric == "fat-tree" ? "nvlink-fattree" : fabric;
    request.ranks = o.domains * o.domainSize;
    request.domainSize = o.domainSize;
    request.radix = o.radix;
    request.hbRate = o.hbRate;
    request.hbDelay = o.hbDelay;
    request.linkRate = o.nicRate;
    request.linkDelay = o.nicDelay;
    request.crossRailPolicy = o.policy;
    request.dataPath = o.ResolveDataPath();
    request.loadBalancing = o.loadBalancing;
    TransportChoice::SetFabricFeatures(o.transport, request); // ECN (dctcp, roce), PFC (roce)
    std::shared_ptr<FabricHelper> helper;
    Ptr<Cluster> cluster = FabricRegistry::Build(request, &helper);
    if (out)
    {
        *out = std::dynamic_pointer_cast<RailFabricHelper>(helper);
    }
    return cluster;
}

void
LlmTrainingRunner::CheckReplicable(const LlmRunOptions& o, const std::string& fabric)
{
    // A rail-optimized fabric's rails meet at spines, but on links of their own (every
    // leaf is one rail's): traffic that stays on its rail shares no link with another's.
    if (o.replicateRails && fabric != "rail-only" && fabric != "rail-optimized")
    {
        throw std::invalid_argument("--replicateRails needs --fabric=rail-only or "
                                    "--fabric=rail-optimized: " +
                                    fabric +
                                    " has no rails, so one rail's traffic does not stand for "
                                    "the others; drop --replicateRails");
    }
    if (o.replicateReplicas && fabric != "rail-only")
    {
        throw std::invalid_argument(
            "--replicateReplicas needs --fabric=rail-only: on " + fabric +
            " the replicas' pipeline sends share switch-to-switch links, so one replica's "
            "do not stand for the others; drop --replicateReplicas");
    }
}

uint32_t
LlmTrainingRunner::FailRail(Ptr<Cluster> cluster, const RailFabricHelper& helper, uint32_t rail)
{
    if (rail >= helper.GetDomainSize())
    {
        throw std::invalid_argument("--failRailSwitch=" + std::to_string(rail) +
                                    " is not a rail; rails are 0.." +
                                    std::to_string(helper.GetDomainSize() - 1));
    }
    uint32_t failed = 0;
    for (uint32_t i = 0; i < cluster->GetSwitchNodes().GetN(); ++i)
    {
        uint32_t id = cluster->GetSwitchNodes().Get(i)->GetId();
        if (helper.GetRailOfSwitch(id) != rail)
        {
            continue;
        }
        for (uint32_t link : cluster->GetLinksOfNode(id))
        {
            if (!cluster->GetLink(link).failed)
            {
                cluster->FailLink(link);
                ++failed;
            }
        }
    }
    if (failed == 0)
    {
        throw std::invalid_argument("this fabric has no switch of rail " + std::to_string(rail) +
                                    " (the fat-tree has no rails); fail a rail on rail-only "
                                    "or rail-optimized");
    }
    return failed;
}

uint32_t
LlmTrainingRunner::FailNic(Ptr<Cluster> cluster, uint32_t rank)
{
    if (rank >= cluster->GetNRanks())
    {
        throw std::invalid_argument("--failNic=" + std::to_string(rank) +
                                    " is not a GPU; GPUs are 0.." +
                                    std::to_string(cluster->GetNRanks() - 1));
    }
    uint32_t failed = 0;
    for (uint32_t link : cluster->GetLinksOfNode(cluster->GetRankNode(rank)->GetId()))
    {
        if (cluster->GetLink(link).linkClass != "nvlink" && !cluster->GetLink(link).failed)
        {
            cluster->FailLink(link);
            ++failed;
        }
    }
    return failed;
}

LlmRunResult
LlmTrainingRunner::Run(const LlmRunOptions& o, const std::string& fabric, bool failed)
{
    if (o.iterations == 0)
    {
        throw std::invalid_argument("--iterations must be at least 1");
    }
    std::shared_ptr<RailFabricHelper> helper;
    Ptr<Cluster> cluster = BuildFabric(o, fabric, &helper);
    LlmRunResult result;
    result.fabric = fabric;
    result.dataPath = cluster->GetFabricSpec().dataPath;

    Ptr<LlmWorkload> workload = CreateObject<LlmWorkload>();
    bool hierarchical =
        o.moeAllToAll == "hierarchical" || (o.moeAllToAll == "auto" && fabric == "rail-only");
    if (o.moeAllToAll != "auto" && o.moeAllToAll != "hierarchical" && o.moeAllToAll != "flat")
    {
        throw std::invalid_argument("unknown --moeAllToAll '" + o.moeAllToAll +
                                    "'; use auto, hierarchical or flat");
    }
    workload->SetAttribute("HierarchicalAllToAll", BooleanValue(hierarchical));
    CheckReplicable(o, fabric);
    workload->SetAttribute("ReplicateRails", BooleanValue(o.replicateRails));
    workload->SetAttribute("ReplicateReplicas", BooleanValue(o.replicateReplicas));
    workload->Setup(o.model, cluster->GetNRanks(), o.domainSize);
    result.railReplicas = workload->GetRailReplicas();
    result.dpReplicas = workload->GetDpReplicas();
    // Rails of one switch choose no path; where a rail is several (two-tier rail-only,
    // rail-optimized leaves joined at spines) each rail hashes its own.
    result.oneSwitchRails = helper->GetNSwitchesOfRail(0) == 1;

    if (failed)
    {
        std::string what;
        if (o.failRailSwitch >= 0)
        {
            result.failedLinks += FailRail(cluster, *helper, o.failRailSwitch);
            what = "rail-switch " + std::to_string(o.failRailSwitch);
        }
        if (o.failNic >= 0)
        {
            result.failedLinks += FailNic(cluster, o.failNic);
            what += (what.empty() ? "" : ", ") + std::string("nic ") + std::to_string(o.failNic);
        }
        result.failure = what.empty() ? "none" : what;
        RoutePlanner(cluster).Install();
    }

    o.traces.Attach(cluster);
    Ptr<MessageTransport> transport = TransportChoice::Create(o.transport, o.level);
    transport->Install(cluster);
    IterationGraph graph = workload->BuildGraph();
    result.tasks = graph.GetNTasks();

    // Closed form, with the hops of a rail (rank 0 to its peer in domain 1) as routed.
    const std::shared_ptr<const RoutePlanner> planner = RoutePlanner::Shared(cluster);
    Ptr<LlmIterationModel> model = CreateObject<LlmIterationModel>();
    model->SetAttribute("HbRate", DataRateValue(o.hbRate));
    model->SetAttribute("NicRate", DataRateValue(o.nicRate));
    model->SetAttribute("HbDelay", TimeValue(o.hbDelay));
    model->SetAttribute("NicDelay", TimeValue(o.nicDelay));
    if (o.domains > 1)
    {
        model->SetAttribute("NicHops", UintegerValue(planner->Hops(0, o.domainSize)));
    }
    model->SetPacketization(transport->GetMaxPayload(), transport->GetPerPacketOverhead());
    result.analytical = model->Estimate(workload);

    // Twin: the same graph, each communication task predicted on the same routes.
    Ptr<AlphaBetaModel> twin = CreateObject<AlphaBetaModel>();
    twin->SetCluster(cluster);
    twin->SetPacketization(transport);
    std::map<std::tuple<std::string, std::string, std::vector<uint32_t>, uint64_t>, Time> cache;
    auto commTime = [&](const IterationTask& task) {
        std::tuple<std::string, std::string, std::vector<uint32_t>, uint64_t> key;
        if (task.kind == TaskKind::SEND)
        {
            key = {"sendrecv", "direct", {task.rank, task.dst}, task.bytes};
        }
        else
        {
            key = {task.collective.collective,
                   task.collective.algorithm,
                   task.collective.ranks,
                   task.collective.bytes};
        }
        auto it = cache.find(key);
        if (it != cache.end())
        {
            return it->second;
        }
        Ptr<Collective> c = CollectiveFactory::Create(std::get<0>(key), std::get<1>(key));
        c->Setup(transport, std::get<2>(key), std::get<3>(key));
        Time t = twin->Predict(c);
        cache[key] = t;
        return t;
    };
    result.twinIterationS = graph.EstimateIterationTime(commTime).GetSeconds();

    // MoE: one all-to-all of stage 0 alone on the idle fabric first.
    if (o.model.IsMoe())
    {
        IterationGraph probe;
        workload->AddAllToAll(probe,
                              "moe-probe",
                              workload->GetMapper()->GetStageRanks(0),
                              workload->GetMoeBytesPerPair(),
                              {});
        Ptr<TrainingDriver> probeDriver = TrainingRunner::RunGraph(transport, probe, 0);
        if (!probeDriver->IsDone())
        {
            throw std::runtime_error("the MoE all-to-all did not finish: traffic was lost");
        }
        result.moeAllToAllS = probeDriver->GetMeanIterationTime().GetSeconds();
        cluster->ResetCounters();
    }

    ProgressScheduler::SetExpectedEnd(Simulator::Now() +
                                      Seconds(result.twinIterationS * o.iterations));
    result.iterations =
        TrainingRunner::RunGraph(transport, graph, o.iterations)->GetIterationRecords();
    if (result.iterations.size() != o.iterations)
    {
        throw std::runtime_error("training stopped after " +
                                 std::to_string(result.iterations.size()) + " of " +
                                 std::to_string(o.iterations) + " iterations: traffic was lost");
    }
    result.bytesByLinkClass = cluster->GetBytesByLinkClass();
    if (result.dpReplicas > 1)
    {
        // Replicas 1..d-1 ran replica 0's pipeline: inside HB domains of their own (every
        // NVLink byte is one replica's) and over their own rail links, the same sends.
        // The DP all-reduces were simulated with every member.
        result.bytesByLinkClass["nvlink"] *= result.dpReplicas;
        const Packetization wire(transport);
        uint64_t sends = 0;
        for (const IterationTask& task : graph.GetTasks())
        {
            if (task.kind == TaskKind::SEND)
            {
                sends += wire.GetWireBytes(task.bytes) * planner->Hops(task.rank, task.dst);
            }
        }
        result.bytesByLinkClass["rail"] += (result.dpReplicas - 1) * sends * o.iterations;
    }
    if (result.railReplicas > 1)
    {
        // The other rails carried what the simulated one did (same traffic, shifted rail),
        // on rail-optimized fabrics over their own leaves' spine links too.
        result.bytesByLinkClass["rail"] *= result.railReplicas;
        if (auto spine = result.bytesByLinkClass.find("spine");
            spine != result.bytesByLinkClass.end())
        {
            spine->second *= result.railReplicas;
        }
    }
    result.health = RunHealth::Measure(cluster, o.level == RunLevel::FLOW);
    if (result.railReplicas > 1)
    {
        // Rails 1..K-1 carried nothing: their links would dilute the mean K times.
        std::vector<bool> simulated;
        for (const ClusterLink& l : cluster->GetLinks())
        {
            const uint32_t rail = helper->GetRailOfLink(l);
            simulated.push_back(rail == UINT32_MAX || rail == 0);
        }
        result.health.linkImbalance =
            RunHealth::LinkImbalance(cluster, &result.health.imbalanceClass, &simulated);
    }
    for (const ClusterLink& l : cluster->GetLinks())
    {
        result.linkBytes.push_back(l.bytesAtoB);
        result.linkBytes.push_back(l.bytesBtoA);
    }
    NS_LOG_INFO(fabric << " (" << result.failure << "): " << result.IterationS() << " s");
    return result;
}

std::string
LlmRunOptions::ResolveDataPath() const
{
    return DataPathChoice::ResolveFromFlags(dataPath, transport, traces, level);
}

void
LlmRunOptions::Validate() const
{
    ResolveDataPath(); // throws naming --dataPath for a bad or impossible choice
    const std::string tpFlag = "--tp=" + std::to_string(model.tp);
    if (model.tp == 0 || domainSize % model.tp != 0)
    {
        throw std::invalid_argument(tpFlag +
                                    " does not divide --domainSize=" + std::to_string(domainSize) +
                                    ": tensor parallelism stays inside an HB domain; give a "
                                    "--tp that divides --domainSize");
    }
    const uint64_t gpus = uint64_t(domains) * domainSize;
    const uint64_t product = uint64_t(model.tp) * model.pp * model.dp;
    if (product != gpus)
    {
        throw std::invalid_argument(
            "--tp x --pp x --dp = " + std::to_string(model.tp) + "x" + std::to_string(model.pp) +
            "x" + std::to_string(model.dp) + " = " + std::to_string(product) + " is not the " +
            std::to_string(gpus) +
            " GPUs of --domains x --domainSize = " + std::to_string(domains) + "x" +
            std::to_string(domainSize) + "; give degrees whose product is the number of GPUs");
    }
    if (failRailSwitch >= 0 && uint32_t(failRailSwitch) >= domainSize)
    {
        throw std::invalid_argument("--failRailSwitch=" + std::to_string(failRailSwitch) +
                                    " is not a rail; rails are 0.." +
                                    std::to_string(domainSize - 1));
    }
    if (failNic >= 0 && uint64_t(failNic) >= gpus)
    {
        throw std::invalid_argument("--failNic=" + std::to_string(failNic) +
                                    " is not a GPU; GPUs are 0.." + std::to_string(gpus - 1));
    }
    // Replication stands one rail, or one DP replica, for identical others.
    for (const auto& [on, flag] : {std::pair<bool, std::string>{replicateRails, "--replicateRails"},
                                   {replicateReplicas, "--replicateReplicas"}})
    {
        if (on && model.tp != domainSize)
        {
            throw std::invalid_argument(
                flag + " needs " + tpFlag + " equal to --domainSize=" + std::to_string(domainSize) +
                " (then every pipeline and data-parallel group lies on one rail, and a "
                "TP group fills its HB domain); give --tp=" +
                std::to_string(domainSize) + " or drop " + flag);
        }
        if (on && (failRailSwitch >= 0 || failNic >= 0))
        {
            throw std::invalid_argument(flag +
                                        " with --failRailSwitch or --failNic: a failure makes "
                                        "one rail or replica differ from the others; drop one");
        }
    }
    if (replicateRails && model.IsMoe() && moeAllToAll == "flat")
    {
        throw std::invalid_argument("--replicateRails with --moeAllToAll=flat: the flat "
                                    "all-to-all crosses rails; use hierarchical or drop "
                                    "--replicateRails");
    }
    if (replicateReplicas && model.IsMoe())
    {
        throw std::invalid_argument("--replicateReplicas with MoE layers (--experts): their "
                                    "all-to-alls span the DP replicas; drop one");
    }
}

void
LlmTrainingRunner::RunAll(const LlmRunOptions& o,
                          const std::vector<std::string>& fabrics,
                          RunReport& report)
{
    const bool failure = o.failRailSwitch >= 0 || o.failNic >= 0;
    // Validate what can be checked before simulating anything.
    for (const auto& f : fabrics)
    {
        ParseFabrics(f);
        CheckReplicable(o, f);
    }
    o.Validate();
    std::vector<LlmRunResult> results;
    for (const auto& f : fabrics)
    {
        for (bool failed : {false, true})
        {
            // The fat-tree has no rails: only a NIC failure applies to it.
            if (failed && (!failure || (f == "fat-tree" && o.failNic < 0)))
            {
                continue;
            }
            results.push_back(Run(o, f, failed));
            report.CloseSimulation();
            Simulator::Destroy();
        }
    }
    std::map<std::string, const LlmRunResult*> healthy;
    for (const auto& r : results)
    {
        if (r.failure == "none")
        {
            healthy[r.fabric] = &r;
        }
    }
    const LlmRunResult* base =
        healthy.count("rail-optimized") ? healthy["rail-optimized"] : nullptr;
    for (const auto& r : results)
    {
        nlohmann::json row = r.Row();
        row["model"] = o.model.name;
        row["gpus"] = o.domains * o.domainSize;
        row["tp"] = o.model.tp;
        row["pp"] = o.model.pp;
        row["dp"] = o.model.dp;
        row["moe"] = o.model.IsMoe();
        if (r.failure != "none" && healthy.count(r.fabric))
        {
            row["slowdown"] = r.IterationS() / healthy[r.fabric]->IterationS() - 1.0;
        }
        if (base && r.failure == "none")
        {
            row["iteration_vs_rail_optimized"] = r.IterationS() / base->IterationS() - 1.0;
            if (r.moeAllToAllS > 0)
            {
                row["moe_alltoall_overhead"] = r.moeAllToAllS / base->moeAllToAllS - 1.0;
            }
        }
        report.Add(row);
    }
}

} // namespace ns3
