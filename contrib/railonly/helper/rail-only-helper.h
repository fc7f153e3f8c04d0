// SPDX-License-Identifier: GPL-2.0-only
/*
 * RailOnlyHelper: the Rail-only fabric of Wang, Ghobadi et al. (HOTI'24).
 *
 * D HB domains of K GPUs (see RailFabricHelper). GPU r of every domain has its
 * own NIC on rail r. Each of the K rails is an independent full-bisection network
 * of the D GPUs that share a local rank: one switch when D <= radix k, otherwise a
 * two-tier Clos (leaves of k/2 GPUs with one uplink per GPU, ceil(D/k) rail spines;
 * D <= k^2/2). Every switch link is of class "rail"; there is no spine and no path
 * between rails in the network: cross-rail traffic crosses an HB domain, where the
 * cross-rail policy says (default ForwardAtSource).
 *
 * What it leaves out: three-tier rails (D > k^2/2 throws; the cost model covers
 * them), oversubscribed rails, and failures (later).
 */
#ifndef RAILONLY_RAIL_ONLY_HELPER_H
#define RAILONLY_RAIL_ONLY_HELPER_H

#include "ns3/rail-fabric-helper.h"

namespace ns3
{

/**
 * \brief Builds a rail-only fabric: HB domains plus K independent rails, no spine.
 */
class RailOnlyHelper : public RailFabricHelper
{
public:
    /**
     * \param domains number of HB domains D
     * \param domainSize GPUs per domain K (= number of rails)
     */
    RailOnlyHelper(uint32_t domains, uint32_t domainSize);
    Ptr<Cluster> Install() override;

    /// \return switch tiers inside one rail (1 or 2) for D GPUs per rail at radix k (0: > 2)
    static uint32_t RailTiers(uint32_t domains, uint32_t radix);
};

} // namespace ns3

#endif // RAILONLY_RAIL_ONLY_HELPER_H
