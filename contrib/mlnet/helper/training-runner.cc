// SPDX-License-Identifier: GPL-2.0-only
#include "training-runner.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/boolean.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/error-model.h"
#include "ns3/fault-plan.h"
#include "ns3/job-replication.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/progress-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace ns3
{

const std::vector<IterationRecord>&
TrainingRunResult::Iterations() const
{
    static const std::vector<IterationRecord> none;
    return jobIterations.empty() ? none : jobIterations.front();
}

nlohmann::json
TrainingRunResult::IterationRows() const
{
    nlohmann::json rows = nlohmann::json::array();
    for (size_t job = 0; job < jobIterations.size(); ++job)
    {
        for (const auto& it : jobIterations[job])
        {
            double s = it.GetDuration().GetSeconds();
            nlohmann::json row = {{"iteration", it.iteration},
                                  {"iteration_s", s},
                                  {"analytical_iteration_s", analyticalIterationS},
                                  {"error", (s - analyticalIterationS) / s},
                                  {"twin_gap",
                                   analyticalIterationS > 0
                                       ? nlohmann::json(RunHealth::TwinGap(s, analyticalIterationS))
                                       : nlohmann::json(nullptr)}};
            if (jobIterations.size() > 1)
            {
                row["job"] = job;
            }
            if (reuse)
            {
                row["extrapolated"] = it.extrapolated;
            }
            rows.push_back(row);
        }
    }
    return rows;
}

nlohmann::json
TrainingRunResult::JobsJson() const
{
    const bool replicated = replication != "off";
    return {{"count", jobs.count},
            {"placement", jobs.placement},
            {"ranks_per_job", ranksPerJob},
            {"replication", replication},
            {"covers",
             replicated ? "bytes_by_link_class: every job (job 0's times the jobs); link "
                          "bytes and health: job 0, the one simulated"
                        : "every job: all were simulated"}};
}

nlohmann::json
TrainingRunResult::ReuseJson() const
{
    return {{"enabled", reuse},
            {"extrapolated_iterations", extrapolatedIterations},
            {"simulated_iterations", Iterations().size() - extrapolatedIterations},
            {"note", reuseNote},
            {"bytes",
             "link byte counters and bytes_by_link_class cover the simulated "
             "iterations only"}};
}

nlohmann::json
TrainingRunResult::HealthJson(const std::string& run) const
{
    double mean = 0;
    size_t count = 0;
    for (const auto& job : jobIterations)
    {
        for (const auto& it : job)
        {
            mean += it.GetDuration().GetSeconds();
            ++count;
        }
    }
    mean /= std::max<size_t>(count, 1);
    nlohmann::json row;
    health.Annotate(row, run, mean, analyticalIterationS);
    nlohmann::json h = row["health"];
    h["twin_gap"] = row["twin_gap"];
    return h;
}

void
ConvergedReuse::Configure(Ptr<TrainingDriver> driver) const
{
    driver->SetAttribute("ReuseConverged", BooleanValue(enabled));
    driver->SetAttribute("ConvergedIterations", UintegerValue(iterations));
    driver->SetAttribute("ConvergedTolerance", TimeValue(tolerance));
}

Time
ConvergedReuse::Horizon(Ptr<Cluster> cluster)
{
    Ptr<FaultPlan> plan = cluster->GetObject<FaultPlan>();
    Time last(0);
    if (!plan)
    {
        return last;
    }
    for (const FaultSpec& f : plan->GetFaults())
    {
        last = std::max(last, f.at);
    }
    if (last.IsZero())
    {
        return last; // faults before the run only: routes already around them
    }
    TimeValue convergence;
    plan->GetAttribute("Convergence", convergence);
    return last + convergence.Get();
}

std::string
ConvergedReuse::Blocker(Ptr<Cluster> cluster)
{
    for (const auto& link : cluster->GetLinks())
    {
        for (const auto& dev : {link.devA, link.devB})
        {
            PointerValue em;
            if (dev)
            {
                dev->GetAttribute("ReceiveErrorModel", em);
            }
            if (em.Get<ErrorModel>())
            {
                return "a link has a receive error model (random loss changes iterations)";
            }
        }
    }
    return "";
}

std::vector<std::vector<uint32_t>>
JobSet::Placements(uint32_t n) const
{
    if (count == 0 || n % count != 0)
    {
        throw std::invalid_argument("--jobs=" + std::to_string(count) + " does not divide the " +
                                    std::to_string(n) +
                                    " ranks; give a job count that divides them");
    }
    if (placement != "block" && placement != "strided")
    {
        throw std::invalid_argument("unknown job placement '" + placement +
                                    "'; use block or strided");
    }
    const uint32_t m = n / count;
    std::vector<std::vector<uint32_t>> ranks(count, std::vector<uint32_t>(m));
    for (uint32_t k = 0; k < count; ++k)
    {
        for (uint32_t i = 0; i < m; ++i)
        {
            ranks[k][i] = placement == "block" ? k * m + i : k + i * count;
        }
    }
    return ranks;
}

TrainingRunResult
TrainingRunner::Run(Ptr<Cluster> cluster,
                    const TrainingWorkload& workload,
                    const std::string& transportName,
                    uint32_t iterations,
                    const ConvergedReuse& reuse,
                    RunLevel level,
                    const JobSet& jobs)
{
    if (iterations == 0)
    {
        throw std::invalid_argument("--iterations must be at least 1");
    }
    const std::vector<std::vector<uint32_t>> placements = jobs.Placements(cluster->GetNRanks());
    if (jobs.replicate && jobs.count < 2)
    {
        throw std::invalid_argument("--replicateJobs needs two jobs or more (--jobs)");
    }
    // Each job is the workload on n ranks, placed on its own.
    const uint32_t n = placements.front().size();
    IterationGraph graph = workload.BuildGraph(n);
    Ptr<MessageTransport> transport = TransportChoice::Create(transportName, level);
    transport->Install(cluster);
    TrainingRunResult result;
    result.jobs = jobs;
    result.ranksPerJob = n;
    if (jobs.replicate)
    {
        const std::string why = JobReplication::Check(transport, placements);
        if (!why.empty())
        {
            throw std::invalid_argument("--replicateJobs: " + why);
        }
        result.replication = "exact: the jobs share no link and their routes are laid out "
                             "alike; job 0 simulated for all " +
                             std::to_string(jobs.count);
    }

    // Analytical: each bucket's all-reduce on the first data-parallel group, timed by
    // the twin over the same routes and packetization.
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetCluster(cluster);
    model->SetPacketization(transport);
    std::vector<uint32_t> group = workload.GetDataParallelGroups(n).front();
    for (uint32_t& r : group)
    {
        r = placements.front()[r]; // job 0's ranks
    }
    auto allReduceTime = [&](uint64_t bytes) {
        Ptr<Collective> c = CollectiveFactory::Create("allreduce", workload.GetAlgorithm());
        c->Setup(transport, group, bytes);
        return model->Predict(c);
    };
    result.analyticalIterationS =
        group.size() > 1
            ? workload.EstimateIterationTime(n, allReduceTime).GetSeconds()
            : workload.EstimateIterationTime(n, [](uint64_t) { return Time(0); }).GetSeconds();

    ProgressScheduler::SetExpectedEnd(Simulator::Now() +
                                      Seconds(result.analyticalIterationS * iterations));
    // One job on every rank runs the graph as built (not copied); several run it placed.
    std::vector<IterationGraph> placed;
    const size_t simulated = jobs.replicate ? 1 : placements.size();
    for (size_t k = 0; jobs.count > 1 && k < simulated; ++k)
    {
        placed.push_back(graph.Placed(placements[k]));
    }
    std::vector<std::reference_wrapper<const IterationGraph>> refs(placed.begin(), placed.end());
    if (jobs.count == 1)
    {
        refs.emplace_back(graph);
    }
    std::vector<Ptr<TrainingDriver>> drivers = RunJobs(transport, refs, iterations, {}, reuse);
    for (Ptr<TrainingDriver> driver : drivers)
    {
        result.jobIterations.push_back(driver->GetIterationRecords());
        if (result.jobIterations.back().size() != iterations)
        {
            throw std::runtime_error("training stopped after " +
                                     std::to_string(result.jobIterations.back().size()) + " of " +
                                     std::to_string(iterations) + " iterations: traffic was lost");
        }
    }
    result.jobIterations.resize(jobs.count, result.jobIterations.front());
    result.reuse = reuse.enabled;
    result.extrapolatedIterations = drivers.front()->GetExtrapolatedIterations();
    result.reuseNote = drivers.front()->GetReuseNote();
    result.bytesByLinkClass = cluster->GetBytesByLinkClass();
    if (jobs.replicate)
    {
        for (auto& [linkClass, bytes] : result.bytesByLinkClass)
        {
            bytes *= jobs.count;
        }
    }
    result.health = RunHealth::Measure(cluster, level == RunLevel::FLOW);
    return result;
}

Ptr<TrainingDriver>
TrainingRunner::RunGraph(Ptr<MessageTransport> transport,
                         const IterationGraph& graph,
                         uint32_t iterations,
                         const std::function<void()>& atStart,
                         const ConvergedReuse& reuse)
{
    return RunJobs(transport, {std::cref(graph)}, iterations, atStart, reuse).front();
}

std::vector<Ptr<TrainingDriver>>
TrainingRunner::RunJobs(Ptr<MessageTransport> transport,
                        const std::vector<std::reference_wrapper<const IterationGraph>>& jobs,
                        uint32_t iterations,
                        const std::function<void()>& atStart,
                        const ConvergedReuse& reuse)
{
    if (jobs.empty())
    {
        throw std::invalid_argument("no job to run; give at least one iteration graph");
    }
    Ptr<Cluster> cluster = transport->GetCluster();
    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(cluster, transport);
    std::vector<Ptr<TrainingDriver>> drivers;
    std::string blocker;
    Time horizon(0);
    if (reuse.enabled)
    {
        blocker = jobs.size() > 1 ? "several jobs share the fabric"
                  : atStart       ? "the scenario schedules events of its own during the run"
                                  : ConvergedReuse::Blocker(cluster);
        horizon = ConvergedReuse::Horizon(cluster);
    }
    auto pending = std::make_shared<size_t>(jobs.size());
    for (const IterationGraph& graph : jobs)
    {
        Ptr<TrainingDriver> driver = CreateObject<TrainingDriver>();
        if (iterations > 0)
        {
            driver->SetAttribute("Iterations", UintegerValue(iterations));
        }
        if (reuse.enabled)
        {
            reuse.Configure(driver);
        }
        if (!blocker.empty())
        {
            driver->SetReuseBlocked(blocker);
        }
        driver->SetReuseHorizon(horizon);
        driver->SetGraph(graph);
        driver->SetTransport(transport);
        driver->SetCollectiveCreator(&CollectiveFactory::Create);
        // The workload is done when the last job is.
        driver->SetDoneCallback(
            Callback<void, Ptr<TrainingDriver>>([cluster, pending](Ptr<TrainingDriver>) {
                if (--*pending == 0)
                {
                    cluster->NotifyWorkloadDone();
                }
            }));
        drivers.push_back(driver);
    }
    for (Ptr<TrainingDriver> driver : drivers)
    {
        driver->Start();
    }
    if (atStart)
    {
        atStart();
    }
    Simulator::Run();
    accounting->Close(); // throws when a frame or message is unaccounted for
    return drivers;
}

} // namespace ns3
