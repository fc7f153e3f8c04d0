// SPDX-License-Identifier: GPL-2.0-only
/*
 * RingBroadcast: broadcast of a long message by scatter + ring all-gather
 * (van de Geijn; Thakur, Rabenseifner and Gropp 2005; MPICH's
 * bcast_scatter_ring_allgather). Algorithm name "ring" (what scripts pass as
 * --algorithm=ring).
 *
 * What it models. The root's vector is cut into N chunks, chunk r for the member
 * at relative rank r = (i - root) mod N. Scatter: with a power-of-two N, a
 * binomial tree of lg N steps (in step j every holder of 2m chunks, m = N/2^(j+1),
 * sends the upper m to relative rank + m), else one step in which the root sends
 * chunk r to every relative rank r in turn (linear scatter). Then a ring
 * all-gather of N-1 steps in relative-rank order, the root included. Cost
 * (lg N + N - 1) alpha + 2 (N-1)/N S beta for a power of two.
 *
 * Real payloads: the root's input is replicated to every output; the other
 * members' inputs only give the size (as MPI's receive buffers do).
 *
 * Left out: the binomial-tree broadcast for short messages, MPICH's binomial
 * scatter for non-power-of-two sizes (the linear scatter is used instead).
 */
#ifndef MLNET_RING_BROADCAST_H
#define MLNET_RING_BROADCAST_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Broadcast by binomial (or linear) scatter and ring all-gather.
 */
class RingBroadcast : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RingBroadcast();
    ~RingBroadcast() override;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    void ValidateConfig() const override;
    /// Generated step by step: the scatter (log2 N steps, or one), then N - 1 ring steps.
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// Closed form: the scatter sends N - 1 messages (every member but the root gets its
    /// chunks once), the ring all-gather one per member and step.
    uint64_t MessageCount() const override;
    /// \return false: a broadcast copies what it receives, without generating the step
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;
    Eigen::VectorXf MakeWorkBuffer(uint32_t member) const override;

private:
    uint32_t m_root{0}; //!< attribute Root (member index)
};

} // namespace ns3

#endif // MLNET_RING_BROADCAST_H
