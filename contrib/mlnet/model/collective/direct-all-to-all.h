// SPDX-License-Identifier: GPL-2.0-only
/*
 * DirectAllToAll: all-to-all personalized exchange. bytes is what each member
 * sends to each other member.
 *
 * What it models. Every member hands all N-1 messages to the transport at
 * once, in the order (i+1), (i+2), ... mod N, and finishes when the N-1 messages
 * for it have arrived: one step; the network (and the sender NIC queue) decides
 * the interleaving.
 * Each member sends (N-1) x bytes.
 *
 * Real payloads: see AllToAll.
 *
 * Left out: Bruck's algorithm for short messages; MoE's uneven splits.
 */
#ifndef MLNET_DIRECT_ALL_TO_ALL_H
#define MLNET_DIRECT_ALL_TO_ALL_H

#include "ns3/all-to-all.h"

namespace ns3
{

/**
 * \brief All-to-all, direct algorithm (see the file comment).
 */
class DirectAllToAll : public AllToAll
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DirectAllToAll();
    ~DirectAllToAll() override;

    std::string GetAlgorithmName() const override;

protected:
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// \return one block: every message carries one
    uint64_t ShortestMessageUnits() const override;
};

} // namespace ns3

#endif // MLNET_DIRECT_ALL_TO_ALL_H
