// SPDX-License-Identifier: GPL-2.0-only
#include "llm-workload.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyLlmWorkload");
NS_OBJECT_ENSURE_REGISTERED(LlmWorkload);

namespace
{

void
RequirePositive(uint64_t value, const std::string& what)
{
    if (value == 0)
    {
        throw std::invalid_argument(what + " is 0; it must be at least 1");
    }
}

uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

Time
Scale(Time t, double factor)
{
    return Seconds(t.GetSeconds() * factor);
}

/// One op of a stage replica in the pipeline schedule.
struct PipelineOp
{
    bool backward; //!< backward (else forward) pass
    uint32_t mb;   //!< micro-batch
};

/// Per stage, Megatron's 1F1B order: p-s-1 warm-up forwards, then one forward and
/// one backward in turn, then the remaining backwards.
std::vector<std::vector<PipelineOp>>
OneFOneBOrder(uint32_t p, uint32_t mb)
{
    std::vector<std::vector<PipelineOp>> order(p);
    for (uint32_t s = 0; s < p; ++s)
    {
        uint32_t warm = std::min(p - s - 1, mb);
        for (uint32_t i = 0; i < warm; ++i)
        {
            order[s].push_back({false, i});
        }
        for (uint32_t i = 0; i + warm < mb; ++i)
        {
            order[s].push_back({false, warm + i});
            order[s].push_back({true, i});
        }
        for (uint32_t i = mb - warm; i < mb; ++i)
        {
            order[s].push_back({true, i});
        }
    }
    return order;
}

} // namespace

/// What the stages of the 1F1B schedule hand each other, per stage and micro-batch.
/// Every op of a stage replica waits for its previous op (one stream; TP all-reduces
/// block it) and for its input from the neighbouring stage; ops are built in an
/// order where inputs exist.
struct LlmWorkload::Pipeline
{
    using PerDp = std::vector<Ids>; //!< tasks per DP replica

    Pipeline(uint32_t p, uint32_t mb, uint32_t d)
        : fwdIn(p, std::vector<PerDp>(mb)),
          bwdIn(p, std::vector<PerDp>(mb)),
          fwdOut(p, std::vector<PerDp>(mb)),
          last(p, PerDp(d))
    {
    }

    std::vector<std::vector<PerDp>> fwdIn;  //!< set by stage s-1
    std::vector<std::vector<PerDp>> bwdIn;  //!< set by stage s+1
    std::vector<std::vector<PerDp>> fwdOut; //!< last stage only
    std::vector<PerDp> last;                //!< previous op's end
};

void
LlmModelConfig::Validate() const
{
    RequirePositive(layers, "model layers");
    RequirePositive(hidden, "hidden size");
    RequirePositive(seqLength, "sequence length");
    RequirePositive(microBatchSize, "micro-batch size");
    RequirePositive(microBatches, "number of micro-batches");
    RequirePositive(vocab, "vocabulary size");
    RequirePositive(bytesPerElement, "bytes per element");
    if (experts > 0)
    {
        RequirePositive(moeEvery, "MoE layer period (moeEvery)");
        if (topK == 0 || topK > experts)
        {
            throw std::invalid_argument("MoE top-k " + std::to_string(topK) +
                                        " must be between 1 and the number of experts (" +
                                        std::to_string(experts) + ")");
        }
    }
}

bool
LlmModelConfig::IsMoe() const
{
    return experts > 0;
}

bool
LlmModelConfig::IsMoeLayer(uint32_t layer) const
{
    return experts > 0 && (layer + 1) % moeEvery == 0;
}

TypeId
LlmWorkload::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LlmWorkload")
            .SetParent<Object>()
            .SetGroupName("Railonly")
            .AddConstructor<LlmWorkload>()
            .AddAttribute("GpuPeakFlops",
                          "peak dense BF16 throughput of one GPU (FLOP/s); default H100 SXM",
                          DoubleValue(989e12),
                          MakeDoubleAccessor(&LlmWorkload::m_peakFlops),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("ComputeEfficiency",
                          "fraction of the peak a GPU sustains (model FLOPs utilization, 0..1]",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&LlmWorkload::m_efficiency),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("HierarchicalAllToAll",
                          "MoE all-to-all in two phases (HB-domain shuffle, then per rail) "
                          "instead of one flat all-to-all (bool)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LlmWorkload::m_hierarchicalA2a),
                          MakeBooleanChecker())
            .AddAttribute("ReplicateRails",
                          "build the rail tasks (pipeline sends, DP all-reduces, per-rail MoE "
                          "all-to-alls) of TP index 0 only, standing for all t rails; needs "
                          "t = domain size and, with MoE, the hierarchical all-to-all (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LlmWorkload::m_replicateRails),
                          MakeBooleanChecker())
            .AddAttribute("ReplicateReplicas",
                          "build the pipeline of DP replica 0 only (its compute, TP "
                          "collectives and pipeline sends), standing for all d replicas; "
                          "the DP all-reduces keep every member and wait for replica 0; "
                          "needs t = domain size and a dense model (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LlmWorkload::m_replicateReplicas),
                          MakeBooleanChecker())
            .AddTraceSource("GraphBuilt",
                            "an iteration graph was built: number of tasks",
                            MakeTraceSourceAccessor(&LlmWorkload::m_graphBuiltTrace),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

LlmWorkload::LlmWorkload()
    : m_mapper(CreateObject<MegatronMapper>())
{
}

LlmWorkload::~LlmWorkload() = default;

void
LlmWorkload::DoDispose()
{
    m_mapper = nullptr;
    Object::DoDispose();
}

void
LlmWorkload::Setup(const LlmModelConfig& config, uint32_t gpus, uint32_t domainSize)
{
    config.Validate();
    m_mapper->Configure(gpus, domainSize, config.tp, config.pp, config.dp);
    if (config.layers % config.pp != 0)
    {
        throw std::invalid_argument("PP=" + std::to_string(config.pp) + " does not divide the " +
                                    std::to_string(config.layers) +
                                    " layers; every pipeline stage needs the same number");
    }
    m_config = config;
    m_setup = true;
}

const LlmModelConfig&
LlmWorkload::GetConfig() const
{
    return m_config;
}

Ptr<MegatronMapper>
LlmWorkload::GetMapper() const
{
    return m_mapper;
}

double
LlmWorkload::GetSustainedFlops() const
{
    return m_peakFlops * m_efficiency;
}

bool
LlmWorkload::IsHierarchicalAllToAll() const
{
    return m_hierarchicalA2a;
}

void
LlmWorkload::RequireTpFillsDomain(const std::string& group, const std::string& because) const
{
    const uint32_t k = m_mapper->GetDomainSize();
    if (m_config.tp != k)
    {
        throw std::invalid_argument(group + " replication needs TP=" + std::to_string(m_config.tp) +
                                    " equal to the HB-domain size " + std::to_string(k) +
                                    " (then " + because + "); give --tp=" + std::to_string(k) +
                                    " or simulate every " + group);
    }
}

uint32_t
LlmWorkload::GetRailReplicas() const
{
    if (!m_replicateRails)
    {
        return 1;
    }
    RequireTpFillsDomain("rail", "every pipeline and data-parallel group lies on one rail");
    if (m_config.IsMoe() && !m_hierarchicalA2a)
    {
        throw std::invalid_argument("rail replication with a flat MoE all-to-all: its traffic "
                                    "crosses rails; use the hierarchical all-to-all or simulate "
                                    "every rail");
    }
    return m_config.tp;
}

uint32_t
LlmWorkload::GetDpReplicas() const
{
    if (!m_replicateReplicas)
    {
        return 1;
    }
    RequireTpFillsDomain("replica", "each replica's stages are HB domains of their own");
    if (m_config.IsMoe())
    {
        throw std::invalid_argument("replica replication with MoE layers: their all-to-alls "
                                    "couple the DP replicas; simulate every replica");
    }
    return m_config.dp;
}

Time
LlmWorkload::FlopsToTime(double flops) const
{
    return Seconds(flops / GetSustainedFlops());
}

double
LlmWorkload::GetIterationFlops() const
{
    const auto& c = m_config;
    double bigB = double(c.microBatchSize) * c.microBatches * c.dp;
    double s = c.seqLength;
    double l = c.layers;
    double h = c.hidden;
    return 72.0 * bigB * s * l * h * h * (1.0 + s / (6.0 * h) + c.vocab / (12.0 * l * h));
}

Time
LlmWorkload::GetLayerForwardTime(uint32_t layer) const
{
    const auto& c = m_config;
    double b = c.microBatchSize;
    double s = c.seqLength;
    double h = c.hidden;
    // 24bsh^2 + 4bs^2h: attention 8bsh^2 + 4bs^2h, MLP 16bsh^2 (topK experts in MoE).
    double mlp = 16.0 * b * s * h * h * (c.IsMoeLayer(layer) ? c.topK : 1);
    double attention = 8.0 * b * s * h * h + 4.0 * b * s * s * h;
    return FlopsToTime((attention + mlp) / c.tp);
}

Time
LlmWorkload::GetLogitForwardTime() const
{
    const auto& c = m_config;
    return FlopsToTime(2.0 * c.microBatchSize * c.seqLength * double(c.hidden) * c.vocab / c.tp);
}

uint64_t
LlmWorkload::GetTpAllReduceBytes() const
{
    const auto& c = m_config;
    return uint64_t(c.microBatchSize) * c.seqLength * c.hidden * c.bytesPerElement;
}

uint64_t
LlmWorkload::GetPpBytesPerRank() const
{
    return CeilDiv(GetTpAllReduceBytes(), m_config.tp);
}

uint64_t
LlmWorkload::GetDpBytes(uint32_t stage) const
{
    const auto& c = m_config;
    double h = c.hidden;
    double params = 0;
    uint32_t lps = GetLayersPerStage();
    for (uint32_t l = stage * lps; l < (stage + 1) * lps; ++l)
    {
        params += (c.IsMoeLayer(l) ? 4.0 : 12.0) * h * h;
    }
    if (stage == 0 || stage == c.pp - 1)
    {
        params += double(c.vocab) * h;
    }
    return uint64_t(params / c.tp) * c.bytesPerElement;
}

uint64_t
LlmWorkload::GetMoeBytesPerPair() const
{
    const auto& c = m_config;
    uint64_t perGpu =
        uint64_t(c.microBatchSize) * c.seqLength * c.topK * c.hidden * c.bytesPerElement / c.tp;
    return std::max<uint64_t>(1, perGpu / (uint64_t(c.tp) * c.dp));
}

uint32_t
LlmWorkload::GetLayersPerStage() const
{
    return m_config.layers / m_config.pp;
}

std::vector<IterationGraph::TaskId>
LlmWorkload::AddAllToAll(IterationGraph& graph,
                         const std::string& name,
                         const std::vector<uint32_t>& group,
                         uint64_t m,
                         const std::vector<IterationGraph::TaskId>& deps) const
{
    const uint32_t k = m_mapper->GetDomainSize();
    // Split the group by HB domain; two phases need equal parts on the same rails.
    std::map<uint32_t, std::vector<uint32_t>> byDomain;
    for (uint32_t r : group)
    {
        byDomain[r / k].push_back(r);
    }
    bool split = m_hierarchicalA2a && byDomain.size() > 1;
    const auto& first = byDomain.begin()->second;
    const uint32_t c = first.size();
    for (const auto& [domain, members] : byDomain)
    {
        if (members.size() != c)
        {
            split = false;
            break;
        }
        for (uint32_t i = 0; i < c; ++i)
        {
            split = split && members[i] % k == first[i] % k;
        }
    }
    if (!split || c == 1)
    {
        return {graph.AddCollective(name, "alltoall", "direct", group, m, deps)};
    }
    const uint32_t domains = byDomain.size();
    // Phase 1: inside each domain, GPU a:i hands GPU a:j everything bound for rail j.
    std::vector<IterationGraph::TaskId> shuffle;
    for (const auto& [domain, members] : byDomain)
    {
        shuffle.push_back(graph.AddCollective(name + "-hb",
                                              "alltoall",
                                              "direct",
                                              members,
                                              uint64_t(domains) * m,
                                              deps));
    }
    // Phase 2: per rail, GPU a:j sends domain b's c blocks to b:j (one rail standing
    // for all when they are replicated).
    std::vector<IterationGraph::TaskId> ends;
    const uint32_t rails = m_replicateRails ? 1 : c; // BuildGraph checked the replication
    for (uint32_t i = 0; i < rails; ++i)
    {
        std::vector<uint32_t> rail;
        for (const auto& [domain, members] : byDomain)
        {
            rail.push_back(members[i]);
        }
        ends.push_back(graph.AddCollective(name + "-rail",
                                           "alltoall",
                                           "direct",
                                           rail,
                                           uint64_t(c) * m,
                                           shuffle));
    }
    return ends;
}

IterationGraph
LlmWorkload::BuildGraph() const
{
    if (!m_setup)
    {
        throw std::invalid_argument("LlmWorkload::BuildGraph before Setup: give the model first");
    }
    GetRailReplicas(); // throws when the rails cannot be replicated
    GetDpReplicas();   // or the replicas
    IterationGraph g;
    const std::vector<std::vector<Ids>> last = AddPipeline(g);
    AddDpAllReduces(g, last);
    m_graphBuiltTrace(g.GetNTasks());
    NS_LOG_INFO("LLM iteration graph: " << g.GetNTasks() << " tasks");
    return g;
}

uint32_t
LlmWorkload::BuiltReplicas() const
{
    // BuildGraph checked once that the replicas can be replicated (GetDpReplicas).
    return m_replicateReplicas ? 1 : m_config.dp;
}

std::vector<uint32_t>
LlmWorkload::TpGroup(uint32_t dp, uint32_t stage) const
{
    std::vector<uint32_t> ranks;
    for (uint32_t i = 0; i < m_config.tp; ++i)
    {
        ranks.push_back(m_mapper->GetRank(i, dp, stage));
    }
    return ranks;
}

LlmWorkload::Ids
LlmWorkload::AddComputeThenReduce(IterationGraph& g,
                                  const std::string& name,
                                  uint32_t dp,
                                  uint32_t stage,
                                  Time dur,
                                  const Ids& deps,
                                  bool reduce) const
{
    Ids computes;
    for (uint32_t r : TpGroup(dp, stage))
    {
        computes.push_back(g.AddCompute(name, r, dur, deps));
    }
    if (!reduce || m_config.tp == 1)
    {
        return computes;
    }
    return Ids{g.AddCollective(name + "-tp-ar",
                               "allreduce",
                               "ring",
                               TpGroup(dp, stage),
                               GetTpAllReduceBytes(),
                               computes)};
}

LlmWorkload::Ids
LlmWorkload::AddPipelineHop(IterationGraph& g,
                            const std::string& name,
                            uint32_t dp,
                            uint32_t from,
                            uint32_t to,
                            const Ids& deps) const
{
    const uint32_t t = m_config.tp;
    // One send per TP rank, each over its own rail (TP index 0's alone when replicated).
    const uint32_t rails = t / GetRailReplicas();
    Ids sends;
    for (uint32_t i = 0; i < rails; ++i)
    {
        sends.push_back(g.AddSend(name,
                                  m_mapper->GetRank(i, dp, from),
                                  m_mapper->GetRank(i, dp, to),
                                  GetPpBytesPerRank(),
                                  deps));
    }
    if (t == 1)
    {
        return sends;
    }
    return Ids{g.AddCollective(name + "-ag",
                               "allgather",
                               "ring",
                               TpGroup(dp, to),
                               GetPpBytesPerRank() * t,
                               sends)};
}

std::vector<LlmWorkload::Ids>
LlmWorkload::AddLayer(IterationGraph& g,
                      const std::string& name,
                      uint32_t l,
                      uint32_t stage,
                      double scale,
                      bool backward,
                      std::vector<Ids> frontier) const
{
    const uint32_t d = BuiltReplicas();
    Time full = Scale(GetLayerForwardTime(l), scale);
    if (m_config.IsMoeLayer(l))
    {
        return AddMoeLayer(g, name, stage, full, backward, frontier);
    }
    for (uint32_t dp = 0; dp < d; ++dp)
    {
        Ids a = AddComputeThenReduce(g,
                                     name + "-attn",
                                     dp,
                                     stage,
                                     Scale(full, 1.0 / 3),
                                     frontier[dp],
                                     true);
        frontier[dp] =
            AddComputeThenReduce(g, name + "-mlp", dp, stage, Scale(full, 2.0 / 3), a, true);
    }
    return frontier;
}

std::vector<LlmWorkload::Ids>
LlmWorkload::AddMoeLayer(IterationGraph& g,
                         const std::string& name,
                         uint32_t stage,
                         Time full,
                         bool backward,
                         std::vector<Ids> frontier) const
{
    const auto& c = m_config;
    const uint32_t d = c.dp;
    // MoE: attention (+TP all-reduce), dispatch all-to-all, experts, combine all-to-all.
    double attnShare = (8.0 * c.hidden + 4.0 * c.seqLength) /
                       (8.0 * c.hidden + 4.0 * c.seqLength + 16.0 * c.hidden * c.topK);
    Ids all;
    for (uint32_t dp = 0; dp < d; ++dp)
    {
        Ids a = AddComputeThenReduce(g,
                                     name + "-attn",
                                     dp,
                                     stage,
                                     Scale(full, attnShare),
                                     frontier[dp],
                                     true);
        all.insert(all.end(), a.begin(), a.end());
    }
    auto stageRanks = m_mapper->GetStageRanks(stage);
    Ids dispatch = AddAllToAll(g,
                               name + (backward ? "-a2a-grad" : "-a2a-dispatch"),
                               stageRanks,
                               GetMoeBytesPerPair(),
                               all);
    Ids experts;
    for (uint32_t dp = 0; dp < d; ++dp)
    {
        Ids e = AddComputeThenReduce(g,
                                     name + "-experts",
                                     dp,
                                     stage,
                                     Scale(full, 1 - attnShare),
                                     dispatch,
                                     false);
        experts.insert(experts.end(), e.begin(), e.end());
    }
    Ids combine = AddAllToAll(g,
                              name + (backward ? "-a2a-grad2" : "-a2a-combine"),
                              stageRanks,
                              GetMoeBytesPerPair(),
                              experts);
    for (uint32_t dp = 0; dp < d; ++dp)
    {
        frontier[dp] = combine;
    }
    return frontier;
}

std::vector<std::vector<LlmWorkload::Ids>>
LlmWorkload::AddPipeline(IterationGraph& g) const
{
    const uint32_t p = m_config.pp;
    const uint32_t d = BuiltReplicas();
    const uint32_t mb = m_config.microBatches;
    const std::vector<std::vector<PipelineOp>> order = OneFOneBOrder(p, mb);
    Pipeline pl(p, mb, d);
    std::vector<uint32_t> next(p, 0);
    uint32_t remaining = p * 2 * mb;
    while (remaining > 0)
    {
        bool progress = false;
        for (uint32_t s = 0; s < p; ++s)
        {
            if (next[s] == order[s].size())
            {
                continue;
            }
            const PipelineOp op = order[s][next[s]];
            const std::vector<Pipeline::PerDp>& inputs =
                op.backward ? (s + 1 == p ? pl.fwdOut[s] : pl.bwdIn[s]) : pl.fwdIn[s];
            bool needsInput = op.backward ? true : s > 0;
            if (needsInput && inputs[op.mb].empty())
            {
                continue;
            }
            std::vector<Ids> f(d);
            for (uint32_t dp = 0; dp < d; ++dp)
            {
                f[dp] = pl.last[s][dp];
                if (needsInput)
                {
                    f[dp].insert(f[dp].end(), inputs[op.mb][dp].begin(), inputs[op.mb][dp].end());
                }
            }
            std::string tag = "s" + std::to_string(s) + "-mb" + std::to_string(op.mb);
            if (!op.backward)
            {
                f = AddForwardOp(g, pl, s, op.mb, tag, f);
            }
            else
            {
                f = AddBackwardOp(g, pl, s, op.mb, tag, f);
            }
            pl.last[s] = f;
            ++next[s];
            --remaining;
            progress = true;
        }
        NS_ASSERT_MSG(progress, "1F1B schedule deadlocked");
    }
    return pl.last;
}

std::vector<LlmWorkload::Ids>
LlmWorkload::AddForwardOp(IterationGraph& g,
                          Pipeline& pl,
                          uint32_t s,
                          uint32_t micro,
                          const std::string& tag,
                          std::vector<Ids> f) const
{
    const uint32_t p = m_config.pp;
    const uint32_t d = BuiltReplicas();
    const uint32_t lps = GetLayersPerStage();
    for (uint32_t l = s * lps; l < (s + 1) * lps; ++l)
    {
        f = AddLayer(g, "fwd-" + tag + "-l" + std::to_string(l), l, s, 1.0, false, f);
    }
    for (uint32_t dp = 0; dp < d; ++dp)
    {
        if (s + 1 < p)
        {
            pl.fwdIn[s + 1][micro].resize(d);
            pl.fwdIn[s + 1][micro][dp] =
                AddPipelineHop(g, "act-" + tag + "-dp" + std::to_string(dp), dp, s, s + 1, f[dp]);
        }
        else
        {
            // Logits forward and backward: the backward pass starts here.
            f[dp] = AddComputeThenReduce(g,
                                         "logits-" + tag,
                                         dp,
                                         s,
                                         Scale(GetLogitForwardTime(), 3.0),
                                         f[dp],
                                         false);
        }
    }
    if (s + 1 == p)
    {
        pl.fwdOut[s][micro] = f;
    }
    return f;
}

std::vector<LlmWorkload::Ids>
LlmWorkload::AddBackwardOp(IterationGraph& g,
                           Pipeline& pl,
                           uint32_t s,
                           uint32_t micro,
                           const std::string& tag,
                           std::vector<Ids> f) const
{
    const uint32_t d = BuiltReplicas();
    const uint32_t lps = GetLayersPerStage();
    for (uint32_t l = (s + 1) * lps; l-- > s * lps;)
    {
        f = AddLayer(g, "bwd-" + tag + "-l" + std::to_string(l), l, s, 2.0, true, f);
    }
    for (uint32_t dp = 0; dp < d && s > 0; ++dp)
    {
        pl.bwdIn[s - 1][micro].resize(d);
        pl.bwdIn[s - 1][micro][dp] =
            AddPipelineHop(g, "grad-" + tag + "-dp" + std::to_string(dp), dp, s, s - 1, f[dp]);
    }
    return f;
}

void
LlmWorkload::AddDpAllReduces(IterationGraph& g, const std::vector<std::vector<Ids>>& last) const
{
    const uint32_t t = m_config.tp;
    const uint32_t p = m_config.pp;
    const uint32_t d = m_config.dp;
    // Data-parallel gradient all-reduce per (tp, stage), after the stage's last backward.
    for (uint32_t s = 0; s < p && d > 1; ++s)
    {
        Ids deps; // the built replicas' last ops (replica 0's stands for every replica's)
        for (const Ids& replica : last[s])
        {
            deps.insert(deps.end(), replica.begin(), replica.end());
        }
        const uint64_t bytes = GetDpBytes(s);
        for (uint32_t i = 0; i < t / GetRailReplicas(); ++i)
        {
            std::vector<uint32_t> grp;
            for (uint32_t dp = 0; dp < d; ++dp)
            {
                grp.push_back(m_mapper->GetRank(i, dp, s));
            }
            std::string tag = "dp-ar-s" + std::to_string(s) + "-tp" + std::to_string(i);
            AddDpAllReduce(g, tag, grp, bytes, deps);
        }
    }
}

void
LlmWorkload::AddDpAllReduce(IterationGraph& g,
                            const std::string& tag,
                            const std::vector<uint32_t>& grp,
                            uint64_t bytes,
                            const Ids& deps) const
{
    const uint32_t k = m_mapper->GetDomainSize();
    // Members of one HB domain: consecutive in grp (ranks grow with dp).
    std::map<uint32_t, std::vector<uint32_t>> byDomain;
    for (uint32_t r : grp)
    {
        byDomain[r / k].push_back(r);
    }
    uint32_t cnt = byDomain.begin()->second.size();
    bool uniform = true;
    for (const auto& [dom, mem] : byDomain)
    {
        uniform = uniform && mem.size() == cnt;
    }
    if (cnt == 1 || byDomain.size() == 1 || !uniform)
    {
        g.AddCollective(tag, "allreduce", "ring", grp, bytes, deps);
        return;
    }
    // Hierarchical: reduce-scatter in the domain, all-reduce per rail, all-gather.
    uint64_t padded = CeilDiv(bytes, cnt) * cnt;
    Ids rs;
    for (const auto& [dom, mem] : byDomain)
    {
        rs.push_back(g.AddCollective(tag + "-hb-rs", "reducescatter", "ring", mem, padded, deps));
    }
    Ids ar;
    for (uint32_t j = 0; j < cnt; ++j)
    {
        std::vector<uint32_t> rail;
        for (const auto& [dom, mem] : byDomain)
        {
            rail.push_back(mem[j]);
        }
        ar.push_back(
            g.AddCollective(tag + "-rail-ar", "allreduce", "ring", rail, padded / cnt, rs));
    }
    for (const auto& [dom, mem] : byDomain)
    {
        g.AddCollective(tag + "-hb-ag", "allgather", "ring", mem, padded, ar);
    }
}

} // namespace ns3
