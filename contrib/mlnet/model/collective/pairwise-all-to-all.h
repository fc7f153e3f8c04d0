// SPDX-License-Identifier: GPL-2.0-only
/*
 * PairwiseAllToAll: all-to-all personalized exchange. bytes is what each member
 * sends to each other member.
 *
 * What it models. N-1 steps; in step s member i sends its block for (i+s) mod N
 * to that member and waits for the block from (i-s) mod N before step s+1, so
 * every member has one message in and one out at a time (MPICH's long-message
 * all-to-all). N-1 steps of bytes each.
 * Each member sends (N-1) x bytes.
 *
 * Real payloads: see AllToAll.
 *
 * Left out: Bruck's algorithm for short messages; MoE's uneven splits.
 */
#ifndef MLNET_PAIRWISE_ALL_TO_ALL_H
#define MLNET_PAIRWISE_ALL_TO_ALL_H

#include "ns3/all-to-all.h"

namespace ns3
{

/**
 * \brief All-to-all, pairwise algorithm (see the file comment).
 */
class PairwiseAllToAll : public AllToAll
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PairwiseAllToAll();
    ~PairwiseAllToAll() override;

    std::string GetAlgorithmName() const override;

protected:
    /// Generated step by step: N - 1 steps, one chain.
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
};

} // namespace ns3

#endif // MLNET_PAIRWISE_ALL_TO_ALL_H
