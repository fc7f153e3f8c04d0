// SPDX-License-Identifier: GPL-2.0-only
/*
 * IdealSwitchHelper: N ranks on one non-blocking output-queued switch. Every rank
 * has one link to the switch ("host-tor"); any permutation runs at line rate.
 * It is the reference fabric of the alpha-beta validation: a ring step crosses
 * two links, so alpha = 2d + one frame's serialization.
 */
#ifndef MLNET_IDEAL_SWITCH_HELPER_H
#define MLNET_IDEAL_SWITCH_HELPER_H

#include "ns3/fabric-helper.h"

namespace ns3
{

/**
 * \brief Builds N ranks attached to one ideal switch.
 */
class IdealSwitchHelper : public FabricHelper
{
public:
    /// \param ranks number of ranks (>= 2)
    explicit IdealSwitchHelper(uint32_t ranks);
    Ptr<Cluster> Install() override;

private:
    uint32_t m_ranks;
};

} // namespace ns3

#endif // MLNET_IDEAL_SWITCH_HELPER_H
