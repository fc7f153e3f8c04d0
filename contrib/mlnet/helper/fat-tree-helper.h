// SPDX-License-Identifier: GPL-2.0-only
/*
 * FatTreeHelper: a Clos fabric of 2 or 3 switch tiers built from switches of one
 * radix k, with an oversubscription ratio r at the ToR.
 *
 * A ToR splits its k ports into d = k*r/(1+r) host ports and u = k/(1+r) uplinks.
 * Two tiers: ceil(N/d) ToRs, u spines, every ToR linked once to every spine
 * (needs ToRs <= k). Three tiers: pods of k/2 ToRs and u aggregation switches
 * (each ToR linked to every agg of its pod), aggregation switch j of every pod
 * linked to core group j of k/2 cores (needs pods <= k). Ranks fill ToRs in
 * order, so consecutive ranks share a ToR. Link classes: host-tor, tor-agg,
 * agg-core. Radix 0 picks the smallest even radix that fits. All links share
 * one rate; oversubscription comes from port counts, as in real Clos fabrics.
 */
#ifndef MLNET_FAT_TREE_HELPER_H
#define MLNET_FAT_TREE_HELPER_H

#include "ns3/fabric-helper.h"

namespace ns3
{

/**
 * \brief Builds a 2- or 3-tier fat-tree (Clos) with ToR oversubscription.
 */
class FatTreeHelper : public FabricHelper
{
public:
    /// \param ranks number of ranks (>= 2)
    explicit FatTreeHelper(uint32_t ranks);
    /// \brief Switch tiers: 2 (leaf-spine) or 3 (ToR-agg-core). Default 2.
    void SetTiers(uint32_t tiers);
    /// \brief Switch radix k (ports per switch); 0 = smallest that fits. Default 0.
    void SetRadix(uint32_t radix);
    /// \brief ToR host ports / uplinks ratio (>= 1). Default 1.
    void SetOversubscription(double ratio);
    Ptr<Cluster> Install() override;

    /// \return hosts per ToR for radix k and ratio r (0 if k does not split)
    static uint32_t HostsPerTor(uint32_t radix, double ratio);

private:
    bool Fits(uint32_t radix) const;
    uint32_t m_ranks;
    uint32_t m_tiers{2};
    uint32_t m_radix{0};
    double m_ratio{1.0};
};

} // namespace ns3

#endif // MLNET_FAT_TREE_HELPER_H
