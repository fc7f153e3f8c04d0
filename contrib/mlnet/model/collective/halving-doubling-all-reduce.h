// SPDX-License-Identifier: GPL-2.0-only
/*
 * HalvingDoublingAllReduce: Rabenseifner's all-reduce, recursive-halving
 * reduce-scatter followed by recursive-doubling all-gather (Thakur, Rabenseifner
 * and Gropp, IJHPCA 2005; MPICH's allreduce for long messages).
 *
 * What it models. The vector is cut into N blocks. Reduce-scatter: in step
 * j = 0..lg N - 1 member i exchanges with i XOR N/2^(j+1) half of the blocks it
 * still holds (it keeps the half its own block lies in, sends the other) and adds
 * the half it receives, after gamma x bytes of compute. It then owns block i
 * fully reduced. All-gather: in step j member i exchanges everything it owns with
 * i XOR 2^j. 2 lg N steps; each member sends 2(N-1)/N x S bytes.
 *
 * Left out: the non-power-of-two pre/post step of MPICH (refused instead, with
 * advice to use the ring); the partner distance pattern is fixed (far first).
 */
#ifndef MLNET_HALVING_DOUBLING_ALL_REDUCE_H
#define MLNET_HALVING_DOUBLING_ALL_REDUCE_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Recursive-halving / recursive-doubling all-reduce (power-of-two members only).
 */
class HalvingDoublingAllReduce : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HalvingDoublingAllReduce();
    ~HalvingDoublingAllReduce() override;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    void ValidateConfig() const override;
    /// Generated step by step: 2 log2 N steps, one chain.
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    /// Closed form: one message per member and step, 2 log2 N steps.
    uint64_t MessageCount() const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// \return whether step `step` adds what it receives: the first log2 N (the
    /// reduce-scatter by halving), without generating the receiver's step
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;

private:
    /// \return log2 N: the rounds of each half (reduce-scatter, all-gather)
    uint32_t Rounds() const;
};

} // namespace ns3

#endif // MLNET_HALVING_DOUBLING_ALL_REDUCE_H
