// SPDX-License-Identifier: GPL-2.0-only
/*
 * RingAllReduce: the bandwidth-optimal ring all-reduce (reduce-scatter, then
 * all-gather), as NCCL and Baidu's ring-allreduce run it.
 *
 * What it models. The vector of S bytes is split evenly over R rings (each an
 * order of the members, e.g. TopoOpt's TotientPerms permutations); each ring's
 * share is cut into N chunks, and each chunk into Slices slices. Every slice of
 * every chunk travels the ring on its own: 2(N-1) steps, in step t position p
 * sends chunk (p-t-1) mod N to position p+1; the first N-1 steps add the received
 * chunk into the member's own (after gamma x bytes of compute), the last N-1 copy
 * the fully reduced chunks. Each member sends 2(N-1)/N x S bytes.
 *
 * Left out: NCCL's protocol choices (LL/LL128/Simple), channel buffer limits and
 * the on-GPU copy engine; the ring order is taken as given, not discovered.
 */
#ifndef MLNET_RING_ALL_REDUCE_H
#define MLNET_RING_ALL_REDUCE_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Ring all-reduce over one or several rings, with slice pipelining.
 */
class RingAllReduce : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RingAllReduce();
    ~RingAllReduce() override;

    /**
     * \brief Use several rings at once; bytes are split evenly across them.
     * \param orders one order per ring, each a permutation of the member indexes
     * 0..N-1 (validated at Setup). Empty (the default): one ring 0,1,...,N-1.
     */
    void SetRings(const std::vector<std::vector<uint32_t>>& orders);
    /// \return the ring orders in use (after Setup)
    std::vector<std::vector<uint32_t>> GetRings() const;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    void ValidateConfig() const override;
    /// Generated step by step: 2 (N - 1) steps per chain (ring x slice).
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// \return whether step `step` adds what it receives: the first N - 1 steps of a chain (the
    /// reduce-scatter), without generating the receiver's step
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;
    /// Closed form: every (ring, chunk, slice) part is sent, and the last part of an even
    /// split is the shortest, at every level.
    uint64_t ShortestMessageUnits() const override;
    /// Closed form: one message per member, step and chain, 2 (N - 1) steps per chain.
    uint64_t MessageCount() const override;

private:
    std::vector<std::vector<uint32_t>> m_rings;    //!< ring orders (empty: member order)
    std::vector<std::vector<uint32_t>> m_position; //!< [ring][member]: its place in the ring
    uint32_t m_slices{1};                          //!< attribute Slices
};

} // namespace ns3

#endif // MLNET_RING_ALL_REDUCE_H
