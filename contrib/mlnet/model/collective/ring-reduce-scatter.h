// SPDX-License-Identifier: GPL-2.0-only
/*
 * RingReduceScatter: ring reduce-scatter (MPICH/NCCL). bytes is the size of the
 * full vector every member holds; member i ends with chunk i of the sum.
 *
 * What it models. N-1 steps; in step t member p sends chunk (p-t-1) mod N to p+1
 * and adds chunk (p-t-2) mod N received from p-1 into its own, after gamma x
 * bytes of compute (attribute ReductionTimePerByte); it forwards that sum in the
 * next step. Each member sends (N-1)/N x bytes. The ring is the communicator order.
 *
 * Real payloads: every input is the full vector (bytes/4 floats); member i's
 * output is its reduced chunk i.
 *
 * Left out: recursive-halving and pairwise variants.
 */
#ifndef MLNET_RING_REDUCE_SCATTER_H
#define MLNET_RING_REDUCE_SCATTER_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Ring reduce-scatter: member i ends with the sum of everyone's chunk i.
 */
class RingReduceScatter : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RingReduceScatter();
    ~RingReduceScatter() override;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    /// Generated step by step: N - 1 steps, one chain.
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    /// Closed form: one message per member and step, N - 1 steps.
    uint64_t MessageCount() const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// \return whether step `step` adds what it receives: every step, without generating the
    /// receiver's step
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;
    void FinishMember(uint32_t member) override;
};

} // namespace ns3

#endif // MLNET_RING_REDUCE_SCATTER_H
