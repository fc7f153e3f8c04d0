// SPDX-License-Identifier: GPL-2.0-only
/*
 * RingAllGather: ring all-gather (MPICH/NCCL). bytes is the size of the gathered
 * result; member i contributes chunk i (bytes/N, split as evenly as possible).
 *
 * What it models. N-1 steps; in step t member p sends chunk (p-t) mod N to p+1
 * and receives chunk (p-t-1) mod N from p-1, forwarding it in the next step.
 * Each member sends (N-1)/N x bytes. The ring is the communicator order (pass
 * the ranks in another order to use another ring).
 *
 * Real payloads: member i's input holds its chunk (bytes/N/4 floats when bytes
 * divides evenly); every output is the full gathered vector.
 *
 * Left out: recursive-doubling and Bruck variants for short messages.
 */
#ifndef MLNET_RING_ALL_GATHER_H
#define MLNET_RING_ALL_GATHER_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Ring all-gather: every member ends with every member's chunk.
 */
class RingAllGather : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RingAllGather();
    ~RingAllGather() override;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    /// Generated step by step: N - 1 steps, one chain.
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    /// Closed form: one message per member and step, N - 1 steps.
    uint64_t MessageCount() const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// \return whether step `step` adds what it receives: none (it copies), without generating the
    /// receiver's step
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;
    uint64_t GetInputLength(uint32_t member) const override;
    Eigen::VectorXf MakeWorkBuffer(uint32_t member) const override;
};

} // namespace ns3

#endif // MLNET_RING_ALL_GATHER_H
