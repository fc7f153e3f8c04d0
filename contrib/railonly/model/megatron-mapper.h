// SPDX-License-Identifier: GPL-2.0-only
/*
 * MegatronMapper: Megatron-LM's placement of tensor- (TP), pipeline- (PP) and
 * data-parallel (DP) ranks on the GPUs of a rail fabric.
 *
 * What it models. Megatron numbers a GPU by (tp, dp, pp) with TP varying fastest and
 * PP slowest (its default order "tp-dp-pp"):
 *
 *   rank = tp + t * (dp + d * pp),   0 <= tp < t, 0 <= dp < d, 0 <= pp < p.
 *
 * Cluster ranks are GPUs numbered domain * K + local rank (K GPUs per HB domain), so
 * with t dividing K a TP group is t consecutive GPUs of one domain (NVLink only),
 * and with t = K every DP and PP peer of GPU (a, r) is some GPU (b, r): the same rail.
 * IsRailAligned() checks the general case.
 *
 * What it leaves out: context and expert parallelism as separate dimensions (the LLM
 * workload spans expert all-to-all over a whole pipeline stage), virtual pipeline
 * stages (interleaving), and non-default rank orders.
 */
#ifndef RAILONLY_MEGATRON_MAPPER_H
#define RAILONLY_MEGATRON_MAPPER_H

#include "ns3/object.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief TP/PP/DP rank placement, TP fastest-varying (Megatron-LM order tp-dp-pp).
 */
class MegatronMapper : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    MegatronMapper();
    ~MegatronMapper() override;

    /**
     * \brief Place t * p * d ranks on `gpus` GPUs in HB domains of `domainSize`.
     * Throws std::invalid_argument when a degree is 0, t does not divide the HB
     * domain size, or t * p * d != gpus (the message says which value to change).
     */
    void Configure(uint32_t gpus, uint32_t domainSize, uint32_t tp, uint32_t pp, uint32_t dp);

    /// \return the GPU of (tp, dp, pp): tp + t * (dp + d * pp)
    uint32_t GetRank(uint32_t tp, uint32_t dp, uint32_t pp) const;
    /// \return the TP index of a GPU
    uint32_t GetTpIndex(uint32_t rank) const;
    /// \return the DP index of a GPU
    uint32_t GetDpIndex(uint32_t rank) const;
    /// \return the pipeline stage of a GPU
    uint32_t GetStage(uint32_t rank) const;

    /// \return the TP groups, one per (dp, pp), in order of (pp, dp); members by tp
    std::vector<std::vector<uint32_t>> GetTpGroups() const;
    /// \return the DP groups, one per (tp, pp), in order of (pp, tp); members by dp
    std::vector<std::vector<uint32_t>> GetDpGroups() const;
    /// \return the pipelines, one per (tp, dp), in order of (dp, tp); members by stage
    std::vector<std::vector<uint32_t>> GetPpGroups() const;
    /// \return every GPU of one pipeline stage, in rank order
    std::vector<uint32_t> GetStageRanks(uint32_t stage) const;

    /**
     * \return true when no DP or PP byte needs a path between rails: every pipeline
     * boundary stays in one HB domain or on one rail (same local rank), and every DP
     * group splits into equal parts per domain whose i-th members share a rail (so
     * the hierarchical all-reduce is domain reduce-scatter, rail all-reduce, domain
     * all-gather)
     */
    bool IsRailAligned() const;

    /// \return t
    uint32_t GetTp() const;
    /// \return p
    uint32_t GetPp() const;
    /// \return d
    uint32_t GetDp() const;
    /// \return K
    uint32_t GetDomainSize() const;
    /// \return t * p * d
    uint32_t GetNGpus() const;

private:
    /// \return the groups of ranks that differ only along axis (0 tp, 1 dp, 2 pp)
    std::vector<std::vector<uint32_t>> GroupsAlong(uint32_t axis) const;
    uint32_t m_tp{1};
    uint32_t m_pp{1};
    uint32_t m_dp{1};
    uint32_t m_domainSize{1};
    bool m_configured{false};
};

} // namespace ns3

#endif // RAILONLY_MEGATRON_MAPPER_H
