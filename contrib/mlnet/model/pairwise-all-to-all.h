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
 * Real payloads: member i's input holds N blocks of bytes/4 floats (block j goes
 * to member j); its output holds N blocks, block j being what member j sent to
 * it (its own block is copied).
 *
 * Left out: Bruck's algorithm for short messages; MoE's uneven splits.
 */
#ifndef MLNET_PAIRWISE_ALL_TO_ALL_H
#define MLNET_PAIRWISE_ALL_TO_ALL_H

#include "stepwise-collective.h"

namespace ns3
{

/**
 * \brief All-to-all, pairwise algorithm (see the file comment).
 */
class PairwiseAllToAll : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PairwiseAllToAll();
    ~PairwiseAllToAll() override;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    Program BuildProgram() const override;
    uint64_t GetInputLength(uint32_t member) const override;
    Eigen::VectorXf MakeWorkBuffer(uint32_t member) const override;
    void FinishMember(uint32_t member) override;
};

} // namespace ns3

#endif // MLNET_PAIRWISE_ALL_TO_ALL_H
