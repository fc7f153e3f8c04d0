// SPDX-License-Identifier: GPL-2.0-only
/*
 * ParallelStrategy: TopoOpt's per-layer parallelization choice for one job on n
 * servers, and the training iteration it implies.
 *
 * What it models. Every layer is either data parallel (replicated on every
 * server, its gradients all-reduced over all n servers in DDP buckets) or, for an
 * embedding-like layer, placed on one server (model parallel): the owner looks up
 * the table for every server's batch (n x the layer's forward time), sends each
 * other server its output (activation bytes), and in backward receives each
 * server's output gradient (the same bytes) and updates the table (n x the
 * backward time). The implied traffic is an all-reduce of the data-parallel bytes
 * and an n x n model-parallel demand matrix; BuildGraph writes the iteration as an
 * mlnet IterationGraph (compute per server, one send per owner/server pair and
 * phase, and each gradient bucket all-reduced over one or several ring orders, the
 * bucket's bytes split evenly among them, as TopoOpt splits an all-reduce over the
 * rings of its topology).
 *
 * What it leaves out: tensor/pipeline parallelism of dense layers, splitting a
 * table over several servers, the reference's per-GPU device placement inside a
 * server (four GPUs are one "big GPU"), memory limits.
 */
#ifndef TOPOOPT_PARALLEL_STRATEGY_H
#define TOPOOPT_PARALLEL_STRATEGY_H

#include "ns3/iteration-graph.h"
#include "ns3/model-profile.h"

#include <Eigen/Dense>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace ns3
{

/**
 * \brief Per-layer placement: data parallel, or an embedding placed on one server.
 */
class ParallelStrategy
{
public:
    /// Placement value of a data-parallel layer.
    static constexpr int32_t DATA_PARALLEL = -1;

    ParallelStrategy();
    /**
     * \brief Every layer data parallel.
     * \param layers number of layers \param servers n
     */
    ParallelStrategy(uint32_t layers, uint32_t servers);

    /**
     * \brief The reference's starting point: data parallel, except embedding layers,
     * which are placed round-robin (k-th embedding on server k mod n).
     */
    static ParallelStrategy Initial(const ModelProfile& profile, uint32_t servers);

    /// \return number of layers
    uint32_t GetNLayers() const;
    /// \return n
    uint32_t GetNServers() const;
    /// \return the placement of a layer (DATA_PARALLEL or a server index)
    int32_t GetPlacement(uint32_t layer) const;
    /**
     * \brief Set a layer's placement. Throws std::invalid_argument for a layer or
     * server out of range.
     */
    void SetPlacement(uint32_t layer, int32_t placement);
    /// \return per layer: true if data parallel
    std::vector<bool> DataParallelMask() const;

    /// \return bytes all-reduced per iteration (data-parallel layers' parameters)
    uint64_t AllReduceBytes(const ModelProfile& profile) const;
    /// \return n x n model-parallel bytes per iteration (forward + backward), row = sender
    Eigen::MatrixXd ModelParallelDemand(const ModelProfile& profile) const;
    /// \return per server: its compute time per iteration (no communication)
    std::vector<Time> ComputeTimes(const ModelProfile& profile) const;

    /**
     * \brief The iteration as an IterationGraph (see the file comment).
     * \param profile the model (same layer count; throws std::invalid_argument if not)
     * \param rings ring orders over all n servers the all-reduce is split over
     *        (each a permutation of 0..n-1; at least one when n > 1)
     * \param sendPhase if not null, receives per task: the send group
     *        (2 * layer + 0 forward / 1 backward) of a send task, or -1
     */
    IterationGraph BuildGraph(const ModelProfile& profile,
                              const std::vector<std::vector<uint32_t>>& rings,
                              std::vector<int64_t>* sendPhase = nullptr) const;

    /// \return {"servers": n, "placements": [{"layer": name, "server": p}, ...]}
    nlohmann::json ToJson(const ModelProfile& profile) const;
    /**
     * \brief Parse ToJson's format (layers by name). Throws std::invalid_argument for
     * an unknown layer, a non-embedding layer placed, or a server out of range.
     */
    static ParallelStrategy FromJson(const nlohmann::json& doc, const ModelProfile& profile);

    bool operator==(const ParallelStrategy& o) const
    {
        return m_servers == o.m_servers && m_placement == o.m_placement;
    }

    bool operator!=(const ParallelStrategy& o) const
    {
        return !(*this == o);
    }

private:
    struct TaskChains; //!< per-rank task chains of a graph being built (parallel-strategy.cc)

    void CheckProfile(const ModelProfile& profile) const;

    // The phases of BuildGraph().

    /// The forward pass: dense layers on every rank, embeddings on their owner,
    /// which sends the looked-up activations to every other rank.
    void AddForward(IterationGraph& g, const ModelProfile& profile, TaskChains& chains) const;
    /// The backward pass in reverse layer order; returns each layer's dense backward tasks.
    std::vector<std::vector<IterationGraph::TaskId>> AddBackward(IterationGraph& g,
                                                                 const ModelProfile& profile,
                                                                 TaskChains& chains) const;
    /// The data-parallel gradient all-reduce per bucket, split over the rings.
    void AddAllReduces(IterationGraph& g,
                       const ModelProfile& profile,
                       const std::vector<std::vector<uint32_t>>& rings,
                       const std::vector<std::vector<IterationGraph::TaskId>>& bwdTask) const;

    uint32_t m_servers{0};
    std::vector<int32_t> m_placement;
};

} // namespace ns3

#endif // TOPOOPT_PARALLEL_STRATEGY_H
