// SPDX-License-Identifier: GPL-2.0-only
/*
 * SendRecv: point-to-point messages between members, all sent at once. bytes is
 * the size of each message. Default: member 0 sends to member 1; SetPairs gives
 * any list of (from, to) member pairs (e.g. pipeline-parallel activations).
 *
 * What it models. Each pair is one message handed to the transport at Start; a
 * member that receives is done when all its messages have arrived, a member that
 * only sends (or does nothing) is done at once. Each pair is a chain of one step,
 * generated when its members reach it (ChainLengths, BuildStep): no program is
 * written down.
 *
 * Real payloads: every input is bytes/4 floats (what the member sends); a member
 * that receives k messages outputs their concatenation in pair order, the others
 * output their input.
 *
 * Left out: rendezvous handshakes and receiver-side buffer posting.
 */
#ifndef MLNET_SEND_RECV_H
#define MLNET_SEND_RECV_H

#include "ns3/stepwise-collective.h"

#include <utility>

namespace ns3
{

/**
 * \brief Point-to-point send/receive of one message per (from, to) pair.
 */
class SendRecv : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    SendRecv();
    ~SendRecv() override;

    /**
     * \brief Set the messages: one per (from, to) pair of member indexes.
     * Default: {(0, 1)}. Validated at Setup.
     */
    void SetPairs(const std::vector<std::pair<uint32_t, uint32_t>>& pairs);

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    void ValidateConfig() const override;
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;
    uint64_t ShortestMessageUnits() const override;
    /// Closed form: one message per pair.
    uint64_t MessageCount() const override;
    Eigen::VectorXf MakeWorkBuffer(uint32_t member) const override;
    void FinishMember(uint32_t member) override;

private:
    uint32_t CountReceives(uint32_t member) const;

    std::vector<std::pair<uint32_t, uint32_t>> m_pairs{{0, 1}}; //!< (from, to) members
    std::vector<uint32_t> m_slots{1}; //!< by pair: its slot in the receiver's buffer
};

} // namespace ns3

#endif // MLNET_SEND_RECV_H
