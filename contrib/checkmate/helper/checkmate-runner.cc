#include "checkmate-runner.h"

#include "ns3/check-freq-policy.h"
#include "ns3/checkmate-helper.h"
#include "ns3/core-module.h"
#include "ns3/data-parallel-trainer.h"
#include "ns3/fabric-options.h"
#include "ns3/fabric-registry.h"
#include "ns3/gemini-policy.h"
#include "ns3/udp-message-transport.h"

#include <cmath>
#include <cstring>
#include <iostream>
#include <numeric>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateRunner");

uint64_t
CheckmateRunConfig::Parameters() const
{
    uint64_t d = inputs;
    uint64_t k = classes;
    uint64_t h = hidden;
    return h == 0 ? k * d + k : h * d + h + k * h + k;
}

void
CheckmateRunConfig::Validate() const
{
    if (workers < 2)
    {
        throw std::invalid_argument("--workers must be >= 2, got " + std::to_string(workers));
    }
    if (shadows == 0)
    {
        throw std::invalid_argument("--shadows must be >= 1: checkmate needs at least one "
                                    "shadow node");
    }
    if (workers % shadows != 0)
    {
        throw std::invalid_argument("--shadows=" + std::to_string(shadows) +
                                    " does not divide --workers=" + std::to_string(workers) +
                                    ": each shadow owns a whole number of the N chunks");
    }
    if (mode != "checkmate" && mode != "checkfreq" && mode != "gemini" && mode != "none" &&
        mode != "all")
    {
        throw std::invalid_argument("unknown --mode=" + mode +
                                    "; use checkmate, checkfreq, gemini, none or all");
    }
    if (replicate != "once" && replicate != "all")
    {
        throw std::invalid_argument("unknown --replicate=" + replicate + "; use once or all");
    }
    if (optimizer != "adamw" && optimizer != "sgd")
    {
        throw std::invalid_argument("unknown --optimizer=" + optimizer + "; use adamw or sgd");
    }
    if (fabric != "ideal" && fabric != "fattree")
    {
        throw std::invalid_argument("unknown --fabric=" + fabric + "; use ideal or fattree");
    }
    if (inputs == 0 || classes < 2 || batch == 0)
    {
        throw std::invalid_argument("--inputs >= 1, --classes >= 2 and --batch >= 1 are needed");
    }
    if (iterations == 0)
    {
        throw std::invalid_argument("--iterations must be >= 1");
    }
    if (failRandom && failAt >= 0)
    {
        throw std::invalid_argument("give either --failAt or --failRandom, not both");
    }
    if (failRandom && iterations < 2)
    {
        throw std::invalid_argument("--failRandom needs --iterations >= 2");
    }
    if (failAt >= static_cast<int64_t>(iterations))
    {
        throw std::invalid_argument("--failAt=" + std::to_string(failAt) +
                                    " is not before --iterations=" + std::to_string(iterations));
    }
    uint64_t p = Parameters();
    if (p % workers != 0)
    {
        // Suggest the nearest hidden width that works.
        uint32_t h = hidden;
        auto count = [&](uint64_t hw) {
            return hw == 0 ? uint64_t(classes) * inputs + classes
                           : hw * inputs + hw + uint64_t(classes) * hw + classes;
        };
        while (h < hidden + 10 * workers && count(h) % workers != 0)
        {
            ++h;
        }
        std::string hint = count(h) % workers == 0 ? " (e.g. --hidden=" + std::to_string(h) +
                                                         " gives " + std::to_string(count(h)) + ")"
                                                   : "";
        throw std::invalid_argument("the model has " + std::to_string(p) +
                                    " parameters, not divisible into " + std::to_string(workers) +
                                    " equal all-reduce chunks; change the model size" + hint);
    }
    ParseDataRate(rate);
    ParseTime(delay);
    ParseTime(compute);
    ParseTime(restart);
    if (!(shadowMemoryBandwidth > 0))
    {
        throw std::invalid_argument("--shadowMemoryBandwidth must be > 0 (bytes/s)");
    }
}

namespace
{

/// Everything one simulation of the job needs.
struct Job
{
    Ptr<Cluster> cluster;
    Ptr<UdpMessageTransport> transport;
    Ptr<DataParallelTrainer> trainer;
    std::vector<uint32_t> workers;
    std::vector<uint32_t> shadows;
    Eigen::VectorXf initial;
};

Job
BuildJob(const CheckmateRunConfig& c)
{
    Job j;
    FabricRequest fabric;
    fabric.fabric = c.fabric;
    fabric.ranks = c.workers + c.shadows;
    fabric.linkRate = ParseDataRate(c.rate);
    fabric.linkDelay = ParseTime(c.delay);
    j.cluster = FabricRegistry::Build(fabric);
    c.traces.Attach(j.cluster);
    j.transport = CreateObject<UdpMessageTransport>();
    j.transport->Install(j.cluster);
    Ptr<RealModel> model = CreateObject<RealModel>();
    model->SetAttribute("Inputs", UintegerValue(c.inputs));
    model->SetAttribute("Hidden", UintegerValue(c.hidden));
    model->SetAttribute("Classes", UintegerValue(c.classes));
    Ptr<SyntheticDataset> data = CreateObject<SyntheticDataset>();
    ObjectFactory opt(c.optimizer == "adamw" ? "ns3::AdamW" : "ns3::SgdMomentum");
    opt.Set("LearningRate", DoubleValue(c.learningRate));
    j.trainer = CreateObject<DataParallelTrainer>();
    j.trainer->SetAttribute("ComputeTime", TimeValue(ParseTime(c.compute)));
    j.trainer->SetAttribute("BatchSize", UintegerValue(c.batch));
    j.workers.resize(c.workers);
    std::iota(j.workers.begin(), j.workers.end(), 0);
    for (uint32_t s = 0; s < c.shadows; ++s)
    {
        j.shadows.push_back(c.workers + s);
    }
    j.trainer->Setup(j.transport, j.workers, model, data, opt);
    j.initial = j.trainer->GetParameters(0);
    return j;
}

bool
SameBits(const Eigen::VectorXf& a, const Eigen::VectorXf& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Worker 0's state, and whether every worker holds exactly the same.
Checkpoint
WorkerState(Ptr<DataParallelTrainer> t, int64_t iteration, bool* allEqual)
{
    Checkpoint cp;
    cp.iteration = iteration;
    cp.params = t->GetParameters(0);
    cp.step = t->GetOptimizer(0)->GetStep();
    cp.state = t->GetOptimizer(0)->GetState();
    bool eq = true;
    for (uint32_t w = 1; w < t->GetWorkers().size(); ++w)
    {
        eq = eq && SameBits(cp.params, t->GetParameters(w)) &&
             t->GetOptimizer(w)->GetStep() == cp.step;
        for (size_t v = 0; v < cp.state.size(); ++v)
        {
            eq = eq && SameBits(cp.state[v], t->GetOptimizer(w)->GetState()[v]);
        }
    }
    *allEqual = eq;
    return cp;
}

bool
SameCheckpoint(const Checkpoint& a, const Checkpoint& b)
{
    if (a.step != b.step || !SameBits(a.params, b.params) || a.state.size() != b.state.size())
    {
        return false;
    }
    for (size_t v = 0; v < a.state.size(); ++v)
    {
        if (!SameBits(a.state[v], b.state[v]))
        {
            return false;
        }
    }
    return true;
}

/// Measured numbers of the baseline run that the policies use.
struct Baseline
{
    double iterationS{0}; //!< mean iteration time
    Time total;           //!< sum of iteration times
    size_t count{0};      //!< iterations
    double allReduceS{0}; //!< mean all-reduce time
    Eigen::VectorXf finalParams;
    nlohmann::json summary;
};

double
MeanIteration(const std::vector<TrainerIterationRecord>& rec)
{
    Time s(0);
    for (const auto& r : rec)
    {
        s += r.end - r.start;
    }
    return rec.empty() ? 0 : s.GetSeconds() / rec.size();
}

/// Mean iteration time over the baseline's, minus 1, in integer time units (exact 0
/// when every iteration takes the same time in both runs).
double
Overhead(const std::vector<TrainerIterationRecord>& rec, Time baseTotal, size_t baseCount)
{
    Time s(0);
    for (const auto& r : rec)
    {
        s += r.end - r.start;
    }
    if (rec.empty() || baseCount == 0 || baseTotal.IsZero())
    {
        return 0;
    }
    int64_t a = s.GetTimeStep() * static_cast<int64_t>(baseCount);
    int64_t b = baseTotal.GetTimeStep() * static_cast<int64_t>(rec.size());
    return static_cast<double>(a - b) / static_cast<double>(b);
}

/// One run of the job under `mode`; fills `out` with iterations and summary.
nlohmann::json
RunMode(const CheckmateRunConfig& c,
        const std::string& mode,
        int64_t failAt,
        const Baseline* base,
        RunReport& report,
        Baseline* measured)
{
    Job job = BuildJob(c);
    Ptr<DataParallelTrainer> trainer = job.trainer;
    uint32_t n = c.workers;
    uint64_t p = c.Parameters();
    uint32_t stateVectors = trainer->GetOptimizer(0)->GetStateVectors();
    uint64_t ckptBytes = 4 * p * (1 + stateVectors);
    Time compute = ParseTime(c.compute);
    Time restart = ParseTime(c.restart);
    nlohmann::json summary;
    summary["mode"] = mode;

    // Scheme state.
    CheckmateHelper helper;
    Ptr<ShadowCluster> shadows;
    std::map<int64_t, Checkpoint> workerStates;
    std::map<int64_t, Checkpoint> shadowStates;
    std::map<int64_t, bool> matches;
    bool workersEqual = true;
    uint32_t interval = 0;
    Checkpoint lastCkpt; // periodic schemes: the last usable checkpoint
    lastCkpt.iteration = -1;
    lastCkpt.params = job.initial;
    lastCkpt.state.assign(stateVectors, Eigen::VectorXf::Zero(static_cast<Eigen::Index>(p)));
    std::map<int64_t, std::pair<Checkpoint, Time>> pending; // periodic: taken, usable from
    uint32_t checkpoints = 0;
    double stallS = 0;
    Ptr<CheckFreqPolicy> checkFreq = CreateObject<CheckFreqPolicy>();
    Ptr<GeminiPolicy> gemini = CreateObject<GeminiPolicy>();
    uint32_t geminiChannel = 0;
    uint64_t geminiBytes = 0;

    auto compare = [&](int64_t it) {
        auto w = workerStates.find(it);
        auto s = shadowStates.find(it);
        if (w != workerStates.end() && s != shadowStates.end())
        {
            matches[it] = SameCheckpoint(w->second, s->second);
            if (!matches[it])
            {
                NS_LOG_WARN("iteration " << it << ": shadow differs from the workers (step "
                                         << w->second.step << " vs " << s->second.step << ")");
            }
            workerStates.erase(w);
            shadowStates.erase(s);
        }
    };

    if (mode == "checkmate")
    {
        helper.SetMirrorAttribute("Mode",
                                  EnumValue(c.replicate == "all" ? GradientMirror::REPLICATE_ALL
                                                                 : GradientMirror::REPLICATE_ONCE));
        helper.SetShadowAttribute("MemoryBandwidth", DoubleValue(c.shadowMemoryBandwidth));
        shadows = helper.Install(trainer, job.transport, job.shadows);
        if (c.dropClone >= 0)
        {
            for (const auto& m : helper.GetMirrors())
            {
                m->DropClone(static_cast<uint32_t>(c.dropClone), 0);
            }
        }
        shadows->TraceConnectWithoutContext("Commit",
                                            Callback<void, uint32_t, Time>([&](uint32_t it, Time) {
                                                Checkpoint cp;
                                                if (shadows->GetStateAfter(it, cp))
                                                {
                                                    shadowStates[it] = cp;
                                                    compare(it);
                                                }
                                            }));
    }
    trainer->TraceConnectWithoutContext(
        "IterationDone",
        Callback<void, uint32_t, double, double, Time>([&](uint32_t it, double, double, Time) {
            if (mode != "checkmate")
            {
                return;
            }
            bool eq = true;
            workerStates[it] = WorkerState(trainer, it, &eq);
            workersEqual = workersEqual && eq;
            compare(it);
        }));

    if (mode == "checkfreq")
    {
        NS_ASSERT(base);
        interval = checkFreq->ChooseInterval(ckptBytes, Seconds(base->iterationS));
        Time stall = checkFreq->GetStall(ckptBytes, compute);
        double overhead = stall.GetSeconds() / (interval * base->iterationS);
        interval = checkFreq->Adapt(interval, overhead);
        summary["snapshot_s"] = checkFreq->GetSnapshotTime(ckptBytes).GetSeconds();
        summary["persist_s"] = checkFreq->GetPersistTime(ckptBytes).GetSeconds();
        trainer->SetPauseHook(DataParallelTrainer::PauseHook([&, stall](uint32_t it) {
            if ((it + 1) % interval != 0)
            {
                return Time(0);
            }
            bool eq = true;
            Checkpoint cp = WorkerState(trainer, it, &eq);
            Time usable = Simulator::Now() + checkFreq->GetSnapshotTime(ckptBytes) +
                          checkFreq->GetPersistTime(ckptBytes);
            pending[it] = {cp, usable};
            ++checkpoints;
            stallS += stall.GetSeconds();
            return stall;
        }));
    }
    if (mode == "gemini")
    {
        NS_ASSERT(base);
        Time idle = Seconds(base->iterationS - base->allReduceS);
        DataRate rate = ParseDataRate(c.rate);
        interval = gemini->ChooseInterval(ckptBytes, n, rate, idle);
        geminiBytes = gemini->GetBytesPerWorker(ckptBytes, n);
        summary["idle_s_per_iteration"] = idle.GetSeconds();
        geminiChannel = job.transport->RegisterChannel(
            MessageTransport::ReceiveCallback([](const Message&) {}));
        uint64_t slice = (geminiBytes + interval - 1) / interval;
        // Iteration it sends slice (it mod k) of the checkpoint taken after the last
        // multiple of k; that checkpoint is complete when its k-th slice arrives.
        trainer->SetIterationStartHook(Callback<void, uint32_t>([&, slice](uint32_t it) {
            if (it == 0)
            {
                return;
            }
            for (uint32_t w = 0; w < n; ++w)
            {
                job.transport->Send(job.workers[w],
                                    job.workers[(w + 1) % n],
                                    geminiChannel,
                                    it,
                                    slice);
            }
        }));
        trainer->SetPauseHook(DataParallelTrainer::PauseHook([&](uint32_t it) {
            if ((it + 1) % interval == 0)
            {
                bool eq = true;
                Checkpoint cp = WorkerState(trainer, it, &eq);
                // Sent during the next k iterations' compute phases.
                pending[it] = {cp, Time::Max()};
                ++checkpoints;
            }
            // A checkpoint taken after iteration c is complete once iteration c+k ran.
            for (auto& kv : pending)
            {
                if (kv.second.second == Time::Max() && it >= kv.first + interval)
                {
                    kv.second.second = Simulator::Now();
                }
            }
            return Time(0);
        }));
    }

    // Failure and recovery.
    int64_t repeated = -1;
    double recoveryS = 0;
    int64_t restoredFrom = -1;
    bool restoredMatches = true;
    if (failAt >= 0)
    {
        trainer->SetFailure(static_cast<uint32_t>(failAt));
    }
    trainer->SetStopCallback(DataParallelTrainer::StopCallback([&](uint32_t next, bool failed) {
        if (!failed)
        {
            if (next >= c.iterations)
            {
                job.cluster->NotifyWorkloadDone();
            }
            return;
        }
        Time failedAt = Simulator::Now();
        auto resume = [&, failedAt](const Checkpoint& cp, Time extra) {
            restoredFrom = cp.iteration;
            repeated = failAt - (cp.iteration + 1);
            recoveryS = (Simulator::Now() - failedAt + extra).GetSeconds();
            trainer->Restore(cp.params, cp.step, cp.state);
            Simulator::Schedule(extra, [&, cp]() {
                trainer->Run(static_cast<uint32_t>(cp.iteration + 1), c.iterations);
            });
        };
        (void)next;
        if (mode == "checkmate")
        {
            Checkpoint expected = shadows->GetCheckpoint();
            shadows->StreamCheckpoint(ShadowCluster::RecoveredCallback(
                [&, expected, resume, restart](const Checkpoint& cp) {
                    restoredMatches =
                        SameCheckpoint(cp, expected) && cp.iteration == expected.iteration;
                    resume(cp, restart);
                }));
            return;
        }
        // Periodic schemes: the newest checkpoint usable at the failure.
        Checkpoint use = lastCkpt;
        for (const auto& kv : pending)
        {
            if (kv.second.second <= failedAt && kv.first > use.iteration)
            {
                use = kv.second.first;
            }
        }
        pending.clear();
        Time load(0);
        if (mode == "checkfreq")
        {
            load = checkFreq->GetPersistTime(ckptBytes); // read back from storage
        }
        else if (mode == "gemini")
        {
            load = ParseDataRate(c.rate).CalculateBytesTxTime(geminiBytes); // from a peer
        }
        resume(use, restart + load);
    }));

    trainer->Run(0, c.iterations);
    Simulator::Run();

    // Results.
    const auto& rec = trainer->GetRecords();
    nlohmann::json iterations = nlohmann::json::array();
    for (const auto& r : rec)
    {
        nlohmann::json row;
        row["iteration"] = r.iteration;
        row["start_s"] = r.start.GetSeconds();
        row["iteration_s"] = (r.end - r.start).GetSeconds();
        row["allreduce_s"] = (r.reduceEnd - r.computeEnd).GetSeconds();
        row["loss"] = r.loss;
        row["accuracy"] = r.accuracy;
        if (mode == "checkmate")
        {
            auto m = matches.find(r.iteration);
            row["shadow_matches_workers"] = m != matches.end() && m->second && workersEqual;
            auto ct = shadows->GetCommitTimes().find(r.iteration);
            if (ct != shadows->GetCommitTimes().end())
            {
                row["commit_lag_s"] = (ct->second - r.reduceEnd).GetSeconds();
            }
        }
        iterations.push_back(row);
    }
    double meanIt = MeanIteration(rec);
    double meanAr = 0;
    for (const auto& r : rec)
    {
        meanAr += (r.reduceEnd - r.computeEnd).GetSeconds();
    }
    meanAr = rec.empty() ? 0 : meanAr / rec.size();
    summary["parameters"] = p;
    summary["gradient_bytes"] = 4 * p;
    summary["checkpoint_bytes"] = ckptBytes;
    summary["iterations_run"] = rec.size();
    summary["mean_iteration_s"] = meanIt;
    summary["mean_allreduce_s"] = meanAr;
    summary["final_loss"] = rec.empty() ? 0.0 : rec.back().loss;
    summary["final_accuracy"] = rec.empty() ? 0.0 : rec.back().accuracy;
    summary["throughput_overhead"] = base ? Overhead(rec, base->total, base->count) : 0.0;
    // Goodput: the job's iterations over the simulated time to finish them, failure,
    // recovery and repeated work included.
    double finish = rec.empty() ? 0.0 : rec.back().end.GetSeconds();
    summary["time_to_train_s"] = finish;
    summary["goodput_iterations_per_s"] = finish > 0 ? c.iterations / finish : 0.0;
    summary["mirrored_bytes"] = 0;
    summary["repaired_packets"] = 0;
    if (mode == "checkmate")
    {
        size_t commits = shadows->GetCommitTimes().size();
        summary["checkpoints"] = commits;
        summary["checkpoint_interval_iterations"] =
            commits ? nlohmann::json(static_cast<double>(rec.size()) / commits)
                    : nlohmann::json(nullptr);
        summary["mirrored_bytes"] = helper.GetMirroredBytes();
        summary["mirrored_bytes_per_iteration"] =
            rec.empty() ? 0.0 : static_cast<double>(helper.GetMirroredBytes()) / rec.size();
        // Bandwidth budget: each shadow NIC's ingress as a fraction of its link rate.
        double perShadow = rec.empty() ? 0.0
                                       : static_cast<double>(helper.GetMirroredBytes()) /
                                             rec.size() / job.shadows.size();
        summary["shadow_ingress_fraction_of_link"] =
            meanIt > 0 ? perShadow / (ParseDataRate(c.rate).GetBitRate() / 8.0 * meanIt) : 0.0;
        uint64_t dup = 0;
        for (const auto& sh : shadows->GetShadows())
        {
            dup += sh->GetDuplicateBytes();
        }
        summary["shadow_duplicate_bytes"] = dup;
        summary["repaired_packets"] = shadows->GetRepairRanges();
        summary["repaired_bytes"] = shadows->GetRepairBytes();
        bool all = !rec.empty();
        double lag = 0;
        uint32_t lags = 0;
        for (const auto& row : iterations)
        {
            all = all && row["shadow_matches_workers"].get<bool>();
            if (row.contains("commit_lag_s"))
            {
                lag += row["commit_lag_s"].get<double>();
                ++lags;
            }
        }
        summary["shadow_matches_workers"] = all;
        summary["workers_identical"] = workersEqual;
        summary["mean_commit_lag_s"] = lags ? lag / lags : 0.0;
        double apply = shadows->GetShadows()[0]->GetApplyTime().GetSeconds();
        summary["shadow_apply_s"] = apply;
        summary["shadow_keeps_up"] = apply <= meanIt;
        // Expected loss per failure: the fraction of an iteration during which the
        // newest finished iteration is not committed yet.
        summary["expected_repeated_iterations_per_failure"] =
            meanIt > 0 ? std::max(0.0, lags ? lag / lags : 0.0) / meanIt : 0.0;
    }
    else if (mode == "checkfreq" || mode == "gemini")
    {
        summary["checkpoints"] = checkpoints;
        summary["checkpoint_interval_iterations"] = interval;
        summary["expected_repeated_iterations_per_failure"] = interval / 2.0;
        summary["checkpoint_stall_s"] = stallS;
    }
    else
    {
        summary["checkpoints"] = 0;
        summary["checkpoint_interval_iterations"] = nullptr;
        summary["expected_repeated_iterations_per_failure"] =
            static_cast<double>(c.iterations) / 2.0;
    }
    if (failAt >= 0)
    {
        summary["fail_at"] = failAt;
        summary["restored_from_iteration"] = restoredFrom;
        summary["repeated_iterations_after_failure"] = repeated;
        summary["recovery_s"] = recoveryS;
        if (mode == "checkmate")
        {
            summary["recovery_state_matches_checkpoint"] = restoredMatches;
            summary["recovery_bytes_per_worker"] = shadows->GetCheckpointBytes();
        }
    }
    else
    {
        summary["repeated_iterations_after_failure"] = nullptr;
    }
    if (base)
    {
        summary["final_model_matches_uninterrupted"] =
            SameBits(trainer->GetParameters(0), base->finalParams);
    }
    if (measured)
    {
        measured->iterationS = meanIt;
        measured->count = rec.size();
        measured->total = Time(0);
        for (const auto& r : rec)
        {
            measured->total += r.end - r.start;
        }
        measured->allReduceS = meanAr;
        measured->finalParams = trainer->GetParameters(0);
    }
    nlohmann::json out;
    out["iterations"] = iterations;
    out["summary"] = summary;

    report.CloseSimulation();
    if (shadows)
    {
        shadows->Dispose();
    }
    trainer->Dispose();
    Simulator::Destroy();
    return out;
}

} // namespace

nlohmann::json
CheckmateRunner::Run(const CheckmateRunConfig& userConfig, RunReport& report)
{
    userConfig.Validate();
    CheckmateRunConfig config = userConfig;
    if (config.failRandom)
    {
        // One failure at a random iteration (changes with --RngRun), the same for
        // every scheme of this invocation.
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(3000);
        config.failAt = u->GetInteger(1, config.iterations - 1);
    }
    // The ideal baseline: same job, same fabric, no checkpoints, no failure.
    Baseline base;
    nlohmann::json none = RunMode(config, "none", -1, nullptr, report, &base);
    std::vector<std::string> modes;
    if (config.mode == "all")
    {
        modes = {"checkmate", "checkfreq", "gemini", "none"};
    }
    else
    {
        modes = {config.mode};
    }
    nlohmann::json all = nlohmann::json::object();
    for (const auto& m : modes)
    {
        if (m == "none" && config.failAt < 0)
        {
            none["summary"]["final_model_matches_uninterrupted"] = true;
            all[m] = none;
            continue;
        }
        all[m] = RunMode(config, m, config.failAt, &base, report, nullptr);
    }
    nlohmann::json main = all[modes.front()];
    report.Set("iterations", main["iterations"]);
    report.Set("summary", main["summary"]);
    if (config.mode == "all")
    {
        nlohmann::json summaries = nlohmann::json::object();
        for (const auto& m : modes)
        {
            summaries[m] = all[m]["summary"];
        }
        report.Set("modes", summaries);
        nlohmann::json cmp;
        double cm =
            all["checkmate"]["summary"]["checkpoint_interval_iterations"].is_number()
                ? all["checkmate"]["summary"]["checkpoint_interval_iterations"].get<double>()
                : 0;
        for (const char* b : {"checkfreq", "gemini"})
        {
            double k = all[b]["summary"]["checkpoint_interval_iterations"].get<double>();
            cmp[std::string(b) + "_interval_over_checkmate"] = cm > 0 ? k / cm : 0.0;
        }
        report.Set("comparison", cmp);
        main["modes"] = summaries;
        main["comparison"] = cmp;
    }
    // One row per iteration of the main mode for the CSV/console table.
    for (const auto& row : main["iterations"])
    {
        report.Add(row);
    }
    return main;
}

} // namespace ns3
