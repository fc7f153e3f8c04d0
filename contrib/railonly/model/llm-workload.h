// SPDX-License-Identifier: GPL-2.0-only
/*
 * LlmWorkload: one training iteration of a GPT-style model under Megatron-LM's
 * TP/PP/DP parallelism (and optional MoE expert all-to-all), written as an mlnet
 * IterationGraph for the TrainingDriver (packet level) and IterationGraph::Estimate
 * (analytical twin).
 *
 * What it models, per pipeline stage, data-parallel replica and micro-batch:
 *  - compute from Megatron's FLOP count without recompute: a transformer layer's
 *    forward is 24*b*s*h^2*(1 + s/(6h)) FLOPs split over the t TP ranks, backward
 *    twice that, the logit layer 2*b*s*h*V forward on the last stage; the whole
 *    iteration is 72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)) FLOPs (B = b*m*d), run at
 *    GpuPeakFlops * ComputeEfficiency;
 *  - tensor parallelism: 2 all-reduces of b*s*h elements per layer forward (after
 *    attention and after the MLP) and 2 backward, ring, inside the TP group (one HB
 *    domain when t divides K);
 *  - pipeline parallelism: Megatron's scatter/gather: every TP rank sends b*s*h/t
 *    elements to its peer in the next stage (activations forward, gradients
 *    backward) over its own NIC, then the TP group all-gathers them over NVLink;
 *  - data parallelism: after its last backward micro-batch, each (tp, stage)
 *    all-reduces the gradients of the stage's dense parameters (12h^2 per layer,
 *    attention only (4h^2) in MoE layers, the V*h embedding on the first and last
 *    stage; divided by t), hierarchically: reduce-scatter among the group's members
 *    of one HB domain, ring all-reduce per rail, all-gather in the domain (a plain
 *    ring per rail when t = K);
 *  - MoE (experts > 0; every MoeEvery-th layer): one TP all-reduce after attention,
 *    then a dispatch and a combine all-to-all (forward, and again backward) over the
 *    whole pipeline stage (G = t*d GPUs, expert parallelism across TP and DP), each
 *    GPU sending (b*s/t)*topK*h elements spread evenly over the G members; expert
 *    compute topK times the dense MLP. The all-to-all is two-phase hierarchical when
 *    HierarchicalAllToAll is true (mlnet's direct all-to-all, every pair at once as
 *    NCCL's grouped send/recv; shuffle inside each HB domain: Dg*m bytes to each
 *    domain peer; then an all-to-all per rail: c*m bytes to each rail peer; Dg domains,
 *    c group members per domain, m bytes per GPU pair), else one flat all-to-all.
 * Rail replication (ReplicateRails): when a TP group fills its HB domain (t = K), every
 * pipeline send, every DP all-reduce and every per-rail MoE all-to-all of TP index i
 * runs on rail i alone, and the K rails carry the same traffic shifted by one local
 * index. The graph then holds the rail tasks of TP index 0 only (the TP all-gather of a
 * pipeline hop waits for that one send, the iteration ends with those DP all-reduces)
 * and keeps every HB-domain task; on a fabric whose rails are separate networks with
 * the same routes this is the full iteration's timeline, K times fewer rail messages
 * (proved equal on a small case by the tests; contrib/railonly/doc/railonly.md).
 * Replica replication (ReplicateReplicas): with t = K each DP replica's stages are HB
 * domains of their own and its pipeline sends stay on its GPUs' rail links, so the
 * replicas share no link before the DP all-reduces. The graph then holds DP replica
 * 0's pipeline only (compute, TP collectives, pipeline sends) and every DP all-reduce
 * with all d members, waiting for replica 0's last op of the stage; on one-switch
 * rails this is the full iteration's timeline (tests), combinable with ReplicateRails.
 * Schedule: Megatron's 1F1B per stage (p-s-1 warm-up forwards, then forward and
 * backward in turn, then the remaining backwards); every op of a stage replica waits
 * for its previous op (one stream: TP all-reduces and MoE all-to-alls block it, as
 * in Megatron) and for its input from the neighbouring stage. Bubble: (p-1)/m.
 *
 * What it leaves out: activation recompute, sequence parallelism, the embedding
 * all-reduce between first and last stage, optimizer time, gradient bucketing (the
 * DP all-reduce waits for the whole backward), uneven expert load, interleaved
 * pipeline schedules, memory.
 */
#ifndef RAILONLY_LLM_WORKLOAD_H
#define RAILONLY_LLM_WORKLOAD_H

#include "ns3/iteration-graph.h"
#include "ns3/megatron-mapper.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief A GPT-style model, its batch and its parallelization (plain data).
 */
struct LlmModelConfig
{
    std::string name{"gpt"};     //!< label for reports
    uint32_t layers{4};          //!< transformer layers l
    uint32_t hidden{1024};       //!< hidden size h
    uint32_t seqLength{512};     //!< sequence length s (tokens)
    uint32_t microBatchSize{1};  //!< micro-batch size b (sequences)
    uint32_t microBatches{4};    //!< micro-batches per iteration m (per DP replica)
    uint32_t vocab{32000};       //!< vocabulary size V
    uint32_t bytesPerElement{2}; //!< bytes per activation / gradient element (BF16: 2)
    uint32_t tp{8};              //!< tensor-parallel degree t
    uint32_t pp{1};              //!< pipeline-parallel degree p
    uint32_t dp{1};              //!< data-parallel degree d
    uint32_t experts{0};         //!< MoE experts per MoE layer (0: dense model)
    uint32_t moeEvery{2};        //!< every moeEvery-th layer is MoE
    uint32_t topK{2};            //!< experts per token

    /// \brief Throw std::invalid_argument naming the first impossible value.
    void Validate() const;
    /// \return true when the model has MoE layers
    bool IsMoe() const;
    /// \return true when layer `layer` (0-based) is an MoE layer
    bool IsMoeLayer(uint32_t layer) const;
};

/**
 * \brief Megatron-style GPT training iteration as an IterationGraph.
 */
class LlmWorkload : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LlmWorkload();
    ~LlmWorkload() override;

    /**
     * \brief Set the model and place it on `gpus` GPUs in HB domains of `domainSize`.
     * Throws std::invalid_argument for an impossible model or placement (see
     * LlmModelConfig::Validate, MegatronMapper::Configure; layers must divide by PP).
     */
    void Setup(const LlmModelConfig& config, uint32_t gpus, uint32_t domainSize);
    /// \return the model
    const LlmModelConfig& GetConfig() const;
    /// \return the rank placement
    Ptr<MegatronMapper> GetMapper() const;

    /// \return the iteration as a task graph (see the file comment)
    IterationGraph BuildGraph() const;
    /**
     * \brief Add one MoE all-to-all over `group` (m bytes per GPU pair) to a graph:
     * two-phase hierarchical when HierarchicalAllToAll is set and the group splits
     * into equal HB-domain parts on the same rails, else one flat all-to-all.
     * \return the tasks whose end is the all-to-all's end
     */
    std::vector<IterationGraph::TaskId> AddAllToAll(
        IterationGraph& graph,
        const std::string& name,
        const std::vector<uint32_t>& group,
        uint64_t bytesPerPair,
        const std::vector<IterationGraph::TaskId>& deps) const;

    // ---- sizes and times (the same numbers the graph uses) ----------------------

    /// \return FLOPs of one iteration over all GPUs: 72*B*s*l*h^2*(1+s/(6h)+V/(12lh)) (dense)
    double GetIterationFlops() const;
    /// \return forward compute of one layer, one micro-batch, one GPU (dense or MoE)
    Time GetLayerForwardTime(uint32_t layer) const;
    /// \return forward compute of the logit layer, one micro-batch, one GPU of the last stage
    Time GetLogitForwardTime() const;
    /// \return bytes of one TP all-reduce: b*s*h*bytes
    uint64_t GetTpAllReduceBytes() const;
    /// \return bytes one TP rank sends to the next stage per micro-batch: b*s*h*bytes/t
    uint64_t GetPpBytesPerRank() const;
    /// \return gradient bytes a GPU of `stage` all-reduces over DP
    uint64_t GetDpBytes(uint32_t stage) const;
    /// \return MoE all-to-all bytes per GPU pair m = (b*s/t)*topK*h*bytes / (t*d)
    uint64_t GetMoeBytesPerPair() const;
    /// \return layers per stage l/p
    uint32_t GetLayersPerStage() const;
    /// \return GpuPeakFlops * ComputeEfficiency (FLOP/s)
    double GetSustainedFlops() const;
    /// \return the HierarchicalAllToAll attribute
    bool IsHierarchicalAllToAll() const;
    /**
     * \brief Rails whose traffic one built rail stands for: t with ReplicateRails, else 1.
     * Throws std::invalid_argument when ReplicateRails is set but the rails do not carry
     * the same traffic (t differs from the domain size, or a flat MoE all-to-all
     * crosses rails).
     */
    uint32_t GetRailReplicas() const;
    /**
     * \brief DP replicas whose pipeline one built replica stands for: d with
     * ReplicateReplicas, else 1. Throws std::invalid_argument when ReplicateReplicas is
     * set but the replicas could interact before the DP all-reduce (t differs from the
     * domain size, or MoE all-to-alls span the replicas).
     */
    uint32_t GetDpReplicas() const;

protected:
    void DoDispose() override;

private:
    using Ids = std::vector<IterationGraph::TaskId>; //!< tasks
    struct Pipeline; //!< the 1F1B schedule's hand-offs between stages (llm-workload.cc)

    Time FlopsToTime(double flops) const;
    /// The DP replicas whose pipelines the graph holds: 1 with ReplicateReplicas, else d.
    uint32_t BuiltReplicas() const;
    /// Throw std::invalid_argument unless t = K (replicating `group`s needs it: then
    /// `because`).
    void RequireTpFillsDomain(const std::string& group, const std::string& because) const;

    // The phases of BuildGraph() and the pieces they are built of.

    /// The ranks of the TP group of (dp, stage).
    std::vector<uint32_t> TpGroup(uint32_t dp, uint32_t stage) const;
    /// One compute phase on every GPU of a TP group, then (t > 1, reduce) an all-reduce.
    Ids AddComputeThenReduce(IterationGraph& g,
                             const std::string& name,
                             uint32_t dp,
                             uint32_t stage,
                             Time dur,
                             const Ids& deps,
                             bool reduce) const;
    /// Pipeline hop: scatter (each TP rank sends its slice), gather (TP all-gather).
    Ids AddPipelineHop(IterationGraph& g,
                       const std::string& name,
                       uint32_t dp,
                       uint32_t from,
                       uint32_t to,
                       const Ids& deps) const;
    /// One layer of one micro-batch on one stage, every DP replica (MoE couples them);
    /// frontier[dp] holds the tasks the layer waits for; returns the new frontier.
    std::vector<Ids> AddLayer(IterationGraph& g,
                              const std::string& name,
                              uint32_t layer,
                              uint32_t stage,
                              double scale,
                              bool backward,
                              std::vector<Ids> frontier) const;
    /// AddLayer for an MoE layer of forward time `full` (already scaled).
    std::vector<Ids> AddMoeLayer(IterationGraph& g,
                                 const std::string& name,
                                 uint32_t stage,
                                 Time full,
                                 bool backward,
                                 std::vector<Ids> frontier) const;
    /// Every stage's forwards and backwards in 1F1B order; returns each stage
    /// replica's last op.
    std::vector<std::vector<Ids>> AddPipeline(IterationGraph& g) const;
    /// The forward of micro-batch `micro` on stage s, then its hand-off (or the logits).
    std::vector<Ids> AddForwardOp(IterationGraph& g,
                                  Pipeline& pl,
                                  uint32_t s,
                                  uint32_t micro,
                                  const std::string& tag,
                                  std::vector<Ids> f) const;
    /// The backward of micro-batch `micro` on stage s, then its hand-off to stage s-1.
    std::vector<Ids> AddBackwardOp(IterationGraph& g,
                                   Pipeline& pl,
                                   uint32_t s,
                                   uint32_t micro,
                                   const std::string& tag,
                                   std::vector<Ids> f) const;
    /// The DP gradient all-reduces per (tp, stage), after the stage's last backward.
    void AddDpAllReduces(IterationGraph& g, const std::vector<std::vector<Ids>>& last) const;
    /// One DP all-reduce: hierarchical over equal HB-domain parts, else a flat ring.
    void AddDpAllReduce(IterationGraph& g,
                        const std::string& tag,
                        const std::vector<uint32_t>& grp,
                        uint64_t bytes,
                        const Ids& deps) const;

    LlmModelConfig m_config;
    Ptr<MegatronMapper> m_mapper;
    double m_peakFlops{989e12};
    double m_efficiency{0.5};
    bool m_hierarchicalA2a{true};
    bool m_replicateRails{false};
    bool m_replicateReplicas{false};
    bool m_setup{false};

    TracedCallback<uint32_t> m_graphBuiltTrace; //!< tasks of a built graph
};

} // namespace ns3

#endif // RAILONLY_LLM_WORKLOAD_H
