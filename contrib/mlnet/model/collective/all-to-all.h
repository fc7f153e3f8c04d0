// SPDX-License-Identifier: GPL-2.0-only
/*
 * AllToAll: what every all-to-all algorithm shares — the personalized exchange's
 * sizes and buffers. bytes is what each member sends to each other member.
 *
 * Real payloads: member i's input holds N blocks of bytes/4 floats (block j goes
 * to member j); its output holds N blocks, block j being what member j sent to
 * it (its own block is copied). The work buffer keeps the blocks to send and the
 * blocks received apart, so a received block never overwrites one still to be
 * sent. Subclasses (PairwiseAllToAll, DirectAllToAll) only say in which order
 * the blocks travel.
 */
#ifndef MLNET_ALL_TO_ALL_H
#define MLNET_ALL_TO_ALL_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Base of the all-to-all algorithms (see the file comment).
 */
class AllToAll : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AllToAll();
    ~AllToAll() override;

    std::string GetCollectiveName() const override;

protected:
    uint64_t GetInputLength(uint32_t member) const override;
    Eigen::VectorXf MakeWorkBuffer(uint32_t member) const override;
    void FinishMember(uint32_t member) override;
    /// \return false: an all-to-all copies every block it receives
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;

    /// Closed form: every member sends one block to every other, N (N - 1) messages.
    uint64_t MessageCount() const override;

    /// Where block `j` to send sits in the work buffer (float units).
    Segment SendBlock(uint32_t j) const;
    /// Where the block received from member `j` goes in the work buffer.
    Segment ReceiveBlock(uint32_t j) const;
};

} // namespace ns3

#endif // MLNET_ALL_TO_ALL_H
