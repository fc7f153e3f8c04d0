// SPDX-License-Identifier: GPL-2.0-only
#include "checkmate-runner.h"

#include "ns3/check-freq-policy.h"
#include "ns3/checkmate-helper.h"
#include "ns3/core-module.h"
#include "ns3/data-parallel-trainer.h"
#include "ns3/data-path-choice.h"
#include "ns3/fabric-options.h"
#include "ns3/fabric-registry.h"
#include "ns3/gemini-policy.h"
#include "ns3/run-health.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"

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

double
CheckmateRunConfig::MirrorLossRate() const
{
    if (!(mirrorLoss >= 0 && mirrorLoss <= 1))
    {
        throw std::invalid_argument("--mirrorLoss=" + std::to_string(mirrorLoss) +
                                    " is not a probability; give a number from 0 to 1, e.g. "
                                    "0.01 (one mirrored packet in a hundred lost)");
    }
    return mirrorLoss;
}

std::string
CheckmateRunConfig::DataPath() const
{
    return DataPathChoice::ResolveFromFlags(dataPath, "udp", traces, level);
}

void
CheckmateRunConfig::Validate() const
{
    MirrorLossRate();
    DataPath();
    if (level == RunLevel::ANALYTIC)
    {
        throw std::invalid_argument("checkmate-recovery has no analytic level; use "
                                    "--level=packet or --level=flow");
    }
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
    Ptr<MessageTransport> transport; //!< udp, or the fluid standing in for it
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
    fabric.dataPath = c.DataPath();
    j.cluster = FabricRegistry::Build(fabric);
    c.traces.Attach(j.cluster);
    j.transport = TransportChoice::Create("udp", c.level);
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

/// One run of the job under one scheme: the scheme's hooks on the trainer, the
/// failure and its recovery, and the measured results. The hooks capture `this`,
/// so the object lives until the simulation is destroyed in Run().
class ModeRun
{
public:
    /// Builds the job; `base` is the baseline run's measurements (null for the baseline).
    ModeRun(const CheckmateRunConfig& c,
            const std::string& mode,
            int64_t failAt,
            const Baseline* base);

    /// Simulates the run; returns its "iterations" and "summary" and fills `measured`.
    nlohmann::json Run(RunReport& report, Baseline* measured);

private:
    /// Checkmate: mirrors on the switch, shadows that commit every iteration.
    void InstallCheckmate();
    /// Records the workers' state after every iteration (checkmate compares it).
    void WatchWorkers();
    /// Compares the workers' and the shadows' state of iteration `it` once both exist.
    void Compare(int64_t it);
    /// CheckFreq: a stalling snapshot every `interval` iterations, then a persist.
    void InstallCheckFreq();
    /// Gemini: checkpoint slices sent to a peer during the next iterations' compute.
    void InstallGemini();
    /// The failure (if any), and the stop callback that ends the job or recovers.
    void InstallFailure();
    /// The trainer stopped: the job is done, or a worker failed and must recover.
    void OnStop(uint32_t next, bool failed);
    /// Restores `cp` and trains again from the iteration after it, `extra` later.
    void Resume(const Checkpoint& cp, Time failedAt, Time extra);
    /// One row per iteration run.
    nlohmann::json IterationRows() const;
    /// The summary of the run (adds to what the scheme's setup wrote).
    void Summarize(const nlohmann::json& iterations, double meanIt, double meanAr);
    /// The checkmate figures: commits, mirrored bytes, shadow agreement and lag.
    void SummarizeCheckmate(const nlohmann::json& iterations, double meanIt);
    /// The failure figures: where the job restored from and what it repeated.
    void SummarizeFailure();
    /// Copies this (baseline) run's measurements into `measured`.
    void Measure(Baseline* measured, double meanIt, double meanAr) const;

    const CheckmateRunConfig& m_c;
    const std::string m_mode;
    const int64_t m_failAt;
    const Baseline* m_base;
    Job m_job;
    Ptr<DataParallelTrainer> m_trainer;
    uint32_t m_n;
    uint64_t m_p;
    uint32_t m_stateVectors;
    uint64_t m_ckptBytes;
    Time m_compute;
    Time m_restart;
    nlohmann::json m_summary;

    // Scheme state.
    CheckmateHelper m_helper;
    Ptr<ShadowCluster> m_shadows;
    std::map<int64_t, Checkpoint> m_workerStates;
    std::map<int64_t, Checkpoint> m_shadowStates;
    std::map<int64_t, bool> m_matches;
    bool m_workersEqual{true};
    uint32_t m_interval{0};
    Checkpoint m_lastCkpt; // periodic schemes: the last usable checkpoint
    std::map<int64_t, std::pair<Checkpoint, Time>> m_pending; // periodic: taken, usable from
    uint32_t m_checkpoints{0};
    double m_stallS{0};
    Ptr<CheckFreqPolicy> m_checkFreq;
    Ptr<GeminiPolicy> m_gemini;
    uint32_t m_geminiChannel{0};
    uint64_t m_geminiBytes{0};

    // Failure and recovery.
    int64_t m_repeated{-1};
    double m_recoveryS{0};
    int64_t m_restoredFrom{-1};
    bool m_restoredMatches{true};
};

ModeRun::ModeRun(const CheckmateRunConfig& c,
                 const std::string& mode,
                 int64_t failAt,
                 const Baseline* base)
    : m_c(c),
      m_mode(mode),
      m_failAt(failAt),
      m_base(base),
      m_job(BuildJob(c)),
      m_trainer(m_job.trainer),
      m_n(c.workers),
      m_p(c.Parameters()),
      m_stateVectors(m_trainer->GetOptimizer(0)->GetStateVectors()),
      m_ckptBytes(4 * m_p * (1 + m_stateVectors)),
      m_compute(ParseTime(c.compute)),
      m_restart(ParseTime(c.restart)),
      m_checkFreq(CreateObject<CheckFreqPolicy>()),
      m_gemini(CreateObject<GeminiPolicy>())
{
    m_summary["mode"] = mode;
    m_lastCkpt.iteration = -1;
    m_lastCkpt.params = m_job.initial;
    m_lastCkpt.state.assign(m_stateVectors, Eigen::VectorXf::Zero(static_cast<Eigen::Index>(m_p)));
}

nlohmann::json
ModeRun::Run(RunReport& report, Baseline* measured)
{
    if (m_mode == "checkmate")
    {
        InstallCheckmate();
    }
    WatchWorkers();
    if (m_mode == "checkfreq")
    {
        InstallCheckFreq();
    }
    if (m_mode == "gemini")
    {
        InstallGemini();
    }
    InstallFailure();

    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(m_job.cluster, m_job.transport);
    m_trainer->Run(0, m_c.iterations);
    Simulator::Run();
    accounting->Close(); // throws when a frame or message is unaccounted for
    const RunHealth health = RunHealth::Measure(m_job.cluster, m_c.level == RunLevel::FLOW);

    // Results.
    const auto& rec = m_trainer->GetRecords();
    nlohmann::json iterations = IterationRows();
    double meanIt = MeanIteration(rec);
    double meanAr = 0;
    for (const auto& r : rec)
    {
        meanAr += (r.reduceEnd - r.computeEnd).GetSeconds();
    }
    meanAr = rec.empty() ? 0 : meanAr / rec.size();
    Summarize(iterations, meanIt, meanAr);
    if (measured)
    {
        Measure(measured, meanIt, meanAr);
    }
    nlohmann::json out;
    out["iterations"] = iterations;
    out["summary"] = m_summary;
    // The run's health; no twin here: twin_gap null, never a warning.
    nlohmann::json annotated;
    health.Annotate(annotated, m_mode, meanIt, 0);
    out["health"] = annotated["health"];
    out["health"]["twin_gap"] = annotated["twin_gap"];

    report.CloseSimulation();
    if (m_shadows)
    {
        m_shadows->Dispose();
    }
    m_trainer->Dispose();
    Simulator::Destroy();
    return out;
}

void
ModeRun::InstallCheckmate()
{
    m_helper.SetMirrorAttribute("Mode",
                                EnumValue(m_c.replicate == "all" ? GradientMirror::REPLICATE_ALL
                                                                 : GradientMirror::REPLICATE_ONCE));
    m_helper.SetShadowAttribute("MemoryBandwidth", DoubleValue(m_c.shadowMemoryBandwidth));
    m_helper.SetMirrorAttribute("LossRate", DoubleValue(m_c.MirrorLossRate()));
    m_shadows = m_helper.Install(m_trainer, m_job.transport, m_job.shadows);
    if (m_c.dropClone >= 0)
    {
        for (const auto& m : m_helper.GetMirrors())
        {
            m->DropClone(static_cast<uint32_t>(m_c.dropClone), 0);
        }
        if (m_helper.GetFluidMirror())
        {
            m_helper.GetFluidMirror()->DropClone(static_cast<uint32_t>(m_c.dropClone), 0);
        }
    }
    m_shadows->TraceConnectWithoutContext("Commit",
                                          Callback<void, uint32_t, Time>([this](uint32_t it, Time) {
                                              Checkpoint cp;
                                              if (m_shadows->GetStateAfter(it, cp))
                                              {
                                                  m_shadowStates[it] = cp;
                                                  Compare(it);
                                              }
                                          }));
}

void
ModeRun::WatchWorkers()
{
    m_trainer->TraceConnectWithoutContext(
        "IterationDone",
        Callback<void, uint32_t, double, double, Time>([this](uint32_t it, double, double, Time) {
            if (m_mode != "checkmate")
            {
                return;
            }
            bool eq = true;
            m_workerStates[it] = WorkerState(m_trainer, it, &eq);
            m_workersEqual = m_workersEqual && eq;
            Compare(it);
        }));
}

void
ModeRun::Compare(int64_t it)
{
    auto w = m_workerStates.find(it);
    auto s = m_shadowStates.find(it);
    if (w != m_workerStates.end() && s != m_shadowStates.end())
    {
        m_matches[it] = SameCheckpoint(w->second, s->second);
        if (!m_matches[it])
        {
            NS_LOG_WARN("iteration " << it << ": shadow differs from the workers (step "
                                     << w->second.step << " vs " << s->second.step << ")");
        }
        m_workerStates.erase(w);
        m_shadowStates.erase(s);
    }
}

void
ModeRun::InstallCheckFreq()
{
    NS_ASSERT(m_base);
    m_interval = m_checkFreq->ChooseInterval(m_ckptBytes, Seconds(m_base->iterationS));
    Time stall = m_checkFreq->GetStall(m_ckptBytes, m_compute);
    double overhead = stall.GetSeconds() / (m_interval * m_base->iterationS);
    m_interval = m_checkFreq->Adapt(m_interval, overhead);
    m_summary["snapshot_s"] = m_checkFreq->GetSnapshotTime(m_ckptBytes).GetSeconds();
    m_summary["persist_s"] = m_checkFreq->GetPersistTime(m_ckptBytes).GetSeconds();
    m_trainer->SetPauseHook(DataParallelTrainer::PauseHook([this, stall](uint32_t it) {
        if ((it + 1) % m_interval != 0)
        {
            return Time(0);
        }
        bool eq = true;
        Checkpoint cp = WorkerState(m_trainer, it, &eq);
        Time usable = Simulator::Now() + m_checkFreq->GetSnapshotTime(m_ckptBytes) +
                      m_checkFreq->GetPersistTime(m_ckptBytes);
        m_pending[it] = {cp, usable};
        ++m_checkpoints;
        m_stallS += stall.GetSeconds();
        return stall;
    }));
}

void
ModeRun::InstallGemini()
{
    NS_ASSERT(m_base);
    Time idle = Seconds(m_base->iterationS - m_base->allReduceS);
    DataRate rate = ParseDataRate(m_c.rate);
    m_interval = m_gemini->ChooseInterval(m_ckptBytes, m_n, rate, idle);
    m_geminiBytes = m_gemini->GetBytesPerWorker(m_ckptBytes, m_n);
    m_summary["idle_s_per_iteration"] = idle.GetSeconds();
    m_geminiChannel =
        m_job.transport->RegisterChannel(MessageTransport::ReceiveCallback([](const Message&) {}));
    uint64_t slice = (m_geminiBytes + m_interval - 1) / m_interval;
    // Iteration it sends slice (it mod k) of the checkpoint taken after the last
    // multiple of k; that checkpoint is complete when its k-th slice arrives.
    m_trainer->SetIterationStartHook(Callback<void, uint32_t>([this, slice](uint32_t it) {
        if (it == 0)
        {
            return;
        }
        for (uint32_t w = 0; w < m_n; ++w)
        {
            m_job.transport->Send(m_job.workers[w],
                                  m_job.workers[(w + 1) % m_n],
                                  m_geminiChannel,
                                  it,
                                  slice);
        }
    }));
    m_trainer->SetPauseHook(DataParallelTrainer::PauseHook([this](uint32_t it) {
        if ((it + 1) % m_interval == 0)
        {
            bool eq = true;
            Checkpoint cp = WorkerState(m_trainer, it, &eq);
            // Sent during the next k iterations' compute phases.
            m_pending[it] = {cp, Time::Max()};
            ++m_checkpoints;
        }
        // A checkpoint taken after iteration c is complete once iteration c+k ran.
        for (auto& kv : m_pending)
        {
            if (kv.second.second == Time::Max() && it >= kv.first + m_interval)
            {
                kv.second.second = Simulator::Now();
            }
        }
        return Time(0);
    }));
}

void
ModeRun::InstallFailure()
{
    if (m_failAt >= 0)
    {
        m_trainer->SetFailure(static_cast<uint32_t>(m_failAt));
    }
    m_trainer->SetStopCallback(DataParallelTrainer::StopCallback(
        [this](uint32_t next, bool failed) { OnStop(next, failed); }));
}

void
ModeRun::OnStop(uint32_t next, bool failed)
{
    if (!failed)
    {
        if (next >= m_c.iterations)
        {
            m_job.cluster->NotifyWorkloadDone();
        }
        return;
    }
    Time failedAt = Simulator::Now();
    if (m_mode == "checkmate")
    {
        Checkpoint expected = m_shadows->GetCheckpoint();
        Time restart = m_restart;
        m_shadows->StreamCheckpoint(ShadowCluster::RecoveredCallback(
            [this, expected, failedAt, restart](const Checkpoint& cp) {
                m_restoredMatches =
                    SameCheckpoint(cp, expected) && cp.iteration == expected.iteration;
                Resume(cp, failedAt, restart);
            }));
        return;
    }
    // Periodic schemes: the newest checkpoint usable at the failure.
    Checkpoint use = m_lastCkpt;
    for (const auto& kv : m_pending)
    {
        if (kv.second.second <= failedAt && kv.first > use.iteration)
        {
            use = kv.second.first;
        }
    }
    m_pending.clear();
    Time load(0);
    if (m_mode == "checkfreq")
    {
        load = m_checkFreq->GetPersistTime(m_ckptBytes); // read back from storage
    }
    else if (m_mode == "gemini")
    {
        load = ParseDataRate(m_c.rate).CalculateBytesTxTime(m_geminiBytes); // from a peer
    }
    Resume(use, failedAt, m_restart + load);
}

void
ModeRun::Resume(const Checkpoint& cp, Time failedAt, Time extra)
{
    m_restoredFrom = cp.iteration;
    m_repeated = m_failAt - (cp.iteration + 1);
    m_recoveryS = (Simulator::Now() - failedAt + extra).GetSeconds();
    m_trainer->Restore(cp.params, cp.step, cp.state);
    Simulator::Schedule(extra, [this, cp]() {
        m_trainer->Run(static_cast<uint32_t>(cp.iteration + 1), m_c.iterations);
    });
}

nlohmann::json
ModeRun::IterationRows() const
{
    nlohmann::json iterations = nlohmann::json::array();
    for (const auto& r : m_trainer->GetRecords())
    {
        nlohmann::json row;
        row["iteration"] = r.iteration;
        row["start_s"] = r.start.GetSeconds();
        row["iteration_s"] = (r.end - r.start).GetSeconds();
        row["allreduce_s"] = (r.reduceEnd - r.computeEnd).GetSeconds();
        row["loss"] = r.loss;
        row["accuracy"] = r.accuracy;
        if (m_mode == "checkmate")
        {
            auto m = m_matches.find(r.iteration);
            row["shadow_matches_workers"] = m != m_matches.end() && m->second && m_workersEqual;
            auto ct = m_shadows->GetCommitTimes().find(r.iteration);
            if (ct != m_shadows->GetCommitTimes().end())
            {
                row["commit_lag_s"] = (ct->second - r.reduceEnd).GetSeconds();
            }
        }
        iterations.push_back(row);
    }
    return iterations;
}

void
ModeRun::Summarize(const nlohmann::json& iterations, double meanIt, double meanAr)
{
    const auto& rec = m_trainer->GetRecords();
    nlohmann::json& summary = m_summary;
    summary["parameters"] = m_p;
    summary["gradient_bytes"] = 4 * m_p;
    summary["checkpoint_bytes"] = m_ckptBytes;
    summary["iterations_run"] = rec.size();
    summary["mean_iteration_s"] = meanIt;
    summary["mean_allreduce_s"] = meanAr;
    summary["final_loss"] = rec.empty() ? 0.0 : rec.back().loss;
    summary["final_accuracy"] = rec.empty() ? 0.0 : rec.back().accuracy;
    summary["throughput_overhead"] = m_base ? Overhead(rec, m_base->total, m_base->count) : 0.0;
    // Goodput: the job's iterations over the simulated time to finish them, failure,
    // recovery and repeated work included.
    double finish = rec.empty() ? 0.0 : rec.back().end.GetSeconds();
    summary["time_to_train_s"] = finish;
    summary["goodput_iterations_per_s"] = finish > 0 ? m_c.iterations / finish : 0.0;
    summary["mirrored_bytes"] = 0;
    summary["repaired_packets"] = 0;
    if (m_mode == "checkmate")
    {
        SummarizeCheckmate(iterations, meanIt);
    }
    else if (m_mode == "checkfreq" || m_mode == "gemini")
    {
        summary["checkpoints"] = m_checkpoints;
        summary["checkpoint_interval_iterations"] = m_interval;
        summary["expected_repeated_iterations_per_failure"] = m_interval / 2.0;
        summary["checkpoint_stall_s"] = m_stallS;
    }
    else
    {
        summary["checkpoints"] = 0;
        summary["checkpoint_interval_iterations"] = nullptr;
        summary["expected_repeated_iterations_per_failure"] =
            static_cast<double>(m_c.iterations) / 2.0;
    }
    SummarizeFailure();
    if (m_base)
    {
        summary["final_model_matches_uninterrupted"] =
            SameBits(m_trainer->GetParameters(0), m_base->finalParams);
    }
}

void
ModeRun::SummarizeCheckmate(const nlohmann::json& iterations, double meanIt)
{
    const auto& rec = m_trainer->GetRecords();
    nlohmann::json& summary = m_summary;
    size_t commits = m_shadows->GetCommitTimes().size();
    summary["checkpoints"] = commits;
    summary["checkpoint_interval_iterations"] =
        commits ? nlohmann::json(static_cast<double>(rec.size()) / commits)
                : nlohmann::json(nullptr);
    summary["mirrored_bytes"] = m_helper.GetMirroredBytes();
    summary["mirrored_bytes_per_iteration"] =
        rec.empty() ? 0.0 : static_cast<double>(m_helper.GetMirroredBytes()) / rec.size();
    // Bandwidth budget: each shadow NIC's ingress as a fraction of its link rate.
    double perShadow = rec.empty() ? 0.0
                                   : static_cast<double>(m_helper.GetMirroredBytes()) / rec.size() /
                                         m_job.shadows.size();
    summary["shadow_ingress_fraction_of_link"] =
        meanIt > 0 ? perShadow / (ParseDataRate(m_c.rate).GetBitRate() / 8.0 * meanIt) : 0.0;
    uint64_t dup = 0;
    for (const auto& sh : m_shadows->GetShadows())
    {
        dup += sh->GetDuplicateBytes();
    }
    summary["shadow_duplicate_bytes"] = dup;
    uint64_t lost = 0;
    for (const auto& m : m_helper.GetMirrors())
    {
        lost += m->GetDroppedPackets();
    }
    if (m_helper.GetFluidMirror())
    {
        lost += m_helper.GetFluidMirror()->GetDroppedPackets();
    }
    summary["mirror_loss_rate"] = m_c.MirrorLossRate();
    summary["mirror_lost_packets"] = lost; // --mirrorLoss draws and the DropClone hook
    summary["repaired_packets"] = m_shadows->GetRepairRanges();
    summary["repaired_bytes"] = m_shadows->GetRepairBytes();
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
    summary["workers_identical"] = m_workersEqual;
    summary["mean_commit_lag_s"] = lags ? lag / lags : 0.0;
    double apply = m_shadows->GetShadows()[0]->GetApplyTime().GetSeconds();
    summary["shadow_apply_s"] = apply;
    summary["shadow_keeps_up"] = apply <= meanIt;
    // Expected loss per failure: the fraction of an iteration during which the
    // newest finished iteration is not committed yet.
    summary["expected_repeated_iterations_per_failure"] =
        meanIt > 0 ? std::max(0.0, lags ? lag / lags : 0.0) / meanIt : 0.0;
}

void
ModeRun::SummarizeFailure()
{
    nlohmann::json& summary = m_summary;
    if (m_failAt >= 0)
    {
        summary["fail_at"] = m_failAt;
        summary["restored_from_iteration"] = m_restoredFrom;
        summary["repeated_iterations_after_failure"] = m_repeated;
        summary["recovery_s"] = m_recoveryS;
        if (m_mode == "checkmate")
        {
            summary["recovery_state_matches_checkpoint"] = m_restoredMatches;
            summary["recovery_bytes_per_worker"] = m_shadows->GetCheckpointBytes();
        }
    }
    else
    {
        summary["repeated_iterations_after_failure"] = nullptr;
    }
}

void
ModeRun::Measure(Baseline* measured, double meanIt, double meanAr) const
{
    const auto& rec = m_trainer->GetRecords();
    measured->iterationS = meanIt;
    measured->count = rec.size();
    measured->total = Time(0);
    for (const auto& r : rec)
    {
        measured->total += r.end - r.start;
    }
    measured->allReduceS = meanAr;
    measured->finalParams = m_trainer->GetParameters(0);
}

/// One run of the job under `mode`; returns its iterations and summary.
nlohmann::json
RunMode(const CheckmateRunConfig& c,
        const std::string& mode,
        int64_t failAt,
        const Baseline* base,
        RunReport& report,
        Baseline* measured)
{
    ModeRun run(c, mode, failAt, base);
    return run.Run(report, measured);
}

} // namespace

nlohmann::json
CheckmateRunner::Run(const CheckmateRunConfig& userConfig, RunReport& report)
{
    userConfig.Validate();
    CheckmateRunConfig config = userConfig;
    report.SetMeta("data_path", config.DataPath());
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
    report.Set("health", main["health"]);
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
