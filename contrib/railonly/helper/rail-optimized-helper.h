// SPDX-License-Identifier: GPL-2.0-only
/*
 * RailOptimizedHelper: the rail-optimized baseline (NVIDIA DGX SuperPOD style).
 *
 * D HB domains of K GPUs (see RailFabricHelper); GPU r of every domain has its own
 * NIC on a leaf of rail r (leaves of k/2 GPUs, so min(D, k/2) GPUs of one rail per
 * leaf), and a spine layer joins every leaf: one uplink per GPU (full bisection),
 * dealt round-robin over ceil(N/k) spines (N = D*K), at most k leaves (two tiers).
 * GPU-leaf links are class "rail", leaf-spine links "spine". The default
 * cross-rail policy is Network (no GPU relaying: cross-rail traffic crosses the
 * spine, as NCCL without PXN).
 *
 * SetRailAligned(false) fills leaves with GPUs in rank order instead (whole HB
 * domains under one leaf): a plain two-tier fat-tree with NVLink domains, the
 * reference "any-to-any" design. mlnet's FatTreeHelper remains the fat-tree of
 * hosts without NVLink.
 *
 * What it leaves out: three tiers (more than k leaves throws; the cost model
 * covers them), oversubscription, and multiple spine planes.
 */
#ifndef RAILONLY_RAIL_OPTIMIZED_HELPER_H
#define RAILONLY_RAIL_OPTIMIZED_HELPER_H

#include "ns3/rail-fabric-helper.h"

namespace ns3
{

/**
 * \brief Builds a rail-optimized fabric: HB domains, rail leaves, a full-bisection spine.
 */
class RailOptimizedHelper : public RailFabricHelper
{
public:
    /**
     * \param domains number of HB domains D
     * \param domainSize GPUs per domain K (= number of rails)
     */
    RailOptimizedHelper(uint32_t domains, uint32_t domainSize);
    /// \brief Leaves hold GPUs of one rail (true, default) or consecutive ranks (false).
    void SetRailAligned(bool aligned);
    Ptr<Cluster> Install() override;

private:
    bool m_railAligned{true};
};

} // namespace ns3

#endif // RAILONLY_RAIL_OPTIMIZED_HELPER_H
