// SPDX-License-Identifier: GPL-2.0-only
/*
 * HierarchicalAllReduce: the two-level all-reduce NCCL runs across servers (and
 * across HB domains on rail fabrics): reduce-scatter inside each group, all-reduce of
 * each group member's share across the groups, all-gather inside each group.
 *
 * What it models. The N members form M = N / G groups of G consecutive members (a
 * server's GPUs, an HB domain: GroupSize, by default the fabric's HB domain size).
 * The vector of S bytes is cut into G chunks. Member l of group g (member g G + l):
 *
 *   1. ring reduce-scatter in its group, G - 1 steps of S / G bytes: it ends with
 *      chunk l summed over the group;
 *   2. ring all-reduce of chunk l among the M members of local index l (one per
 *      group: on a rail fabric, one rail), 2 (M - 1) steps of S / (G M) bytes;
 *   3. ring all-gather in its group, G - 1 steps of S / G bytes.
 *
 * Each member sends 2 (G - 1) / G S inside its group and 2 (M - 1) / (G M) S across
 * groups; the cross-group traffic is a G-th of a flat ring's, and the G rings of step
 * 2 run side by side on disjoint members. The three phases are one chain per member,
 * run data-driven by StepwiseCollective (a member enters step 2 when its own chunk is
 * reduced, not when its group is), and generated step by step. G = 1 is the flat ring
 * over N members; G = N the ring inside one group.
 *
 * Left out: NCCL's tree and CollNet variants, its choice between flat and
 * hierarchical by size, and any overlap of the phases across slices (one chain per
 * member: a phase starts on a member when its previous phase ended there).
 */
#ifndef MLNET_HIERARCHICAL_ALL_REDUCE_H
#define MLNET_HIERARCHICAL_ALL_REDUCE_H

#include "ns3/stepwise-collective.h"

namespace ns3
{

/**
 * \brief Two-level all-reduce: ring reduce-scatter in each group, ring all-reduce
 * across groups per local index, ring all-gather in each group.
 */
class HierarchicalAllReduce : public StepwiseCollective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HierarchicalAllReduce();
    ~HierarchicalAllReduce() override;

    /// \return G, the members per group in use (after Setup)
    uint32_t GetGroupSize() const;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;

protected:
    void ValidateConfig() const override;
    /// One chain of 2 (G - 1) + 2 (N / G - 1) steps.
    std::vector<uint32_t> ChainLengths(uint32_t member) const override;
    void BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const override;
    /// Closed form: one message per member and step.
    uint64_t MessageCount() const override;
    /// \return whether step `step` adds what it receives: the group's reduce-scatter
    /// (G - 1 steps) and the cross-group ring's first M - 1 steps do, the rest copy
    /// (without generating the step)
    bool ReceiveReduces(uint32_t member,
                        uint32_t chain,
                        uint32_t step,
                        uint32_t from) const override;

private:
    uint32_t m_groupSizeAttr{0}; //!< attribute GroupSize (0: the fabric's domain size)
};

} // namespace ns3

#endif // MLNET_HIERARCHICAL_ALL_REDUCE_H
