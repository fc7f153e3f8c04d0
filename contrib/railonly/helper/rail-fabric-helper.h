// SPDX-License-Identifier: GPL-2.0-only
/*
 * RailFabricHelper: what the rail fabrics share — D HB domains of K GPUs, each
 * domain a non-blocking NVSwitch node joined to its K GPUs by links of class
 * "nvlink" (per-GPU rate HbRate per direction, delay HbDelay), one NIC per GPU
 * (GPU r of every domain sits on rail r; NIC links have the common link rate and
 * delay of FabricHelper, default 400 Gbps and 500 ns), switch radix, and the
 * cross-rail forwarding policy installed into the Cluster as a RailRoutePreference.
 * Ranks are GPUs: rank = domain * K + local rank.
 *
 * Subclasses: RailOnlyHelper (rails only, no spine) and RailOptimizedHelper
 * (rail leaves plus spine). HbDomainHelper builds one domain alone.
 *
 * What it leaves out: NVSwitch internals (one output-queued node), NVLink
 * protocol overheads (a point-to-point link with PPP framing), GPU relaying cost
 * (IP forwarding in the GPU node, or FastForwarding's forward on the fast data path,
 * per packet, with the same routes and results).
 */
#ifndef RAILONLY_RAIL_FABRIC_HELPER_H
#define RAILONLY_RAIL_FABRIC_HELPER_H

#include "ns3/fabric-helper.h"
#include "ns3/fabric-registry.h"
#include "ns3/rail-route-preference.h"

#include <map>
#include <vector>

namespace ns3
{

/**
 * \brief Base of the rail fabric helpers: HB domains, NICs, radix, cross-rail policy.
 */
class RailFabricHelper : public FabricHelper
{
public:
    /**
     * \param domains number of HB domains D (>= 1)
     * \param domainSize GPUs per domain K (>= 1); K = number of rails
     */
    RailFabricHelper(uint32_t domains, uint32_t domainSize);
    ~RailFabricHelper() override;

    /// \brief Per-GPU NVLink rate, one direction (default 3600 Gbps = 450 GB/s, DGX H100).
    void SetHbRate(DataRate rate);
    /// \brief GPU-NVSwitch link delay (default 25 ns, SimAI's NVSwitch latency).
    void SetHbDelay(Time delay);
    /// \brief Switch radix k in ports (default 64, a QM9700).
    void SetRadix(uint32_t radix);
    /// \brief Cross-rail forwarding policy (see RailRoutePreference).
    void SetCrossRailPolicy(RailRoutePreference::Policy policy);
    /**
     * \brief Apply a FabricRegistry request's HB-domain settings: radix (if not 0),
     * NVLink rate and delay, cross-rail policy (if given).
     */
    void SetFromRequest(const FabricRequest& request);
    /**
     * \return the HB domains D = ranks / K of a request; throws std::invalid_argument
     * unless its domain size K >= 1 divides its ranks.
     */
    static uint32_t DomainsOf(const FabricRequest& request);

    /// \return D
    uint32_t GetDomains() const;
    /// \return K
    uint32_t GetDomainSize() const;
    /// \return the switch radix
    uint32_t GetRadix() const;
    /// \return the cross-rail policy in use
    RailRoutePreference::Policy GetCrossRailPolicy() const;
    /// \return the HB domain of a rank (rank / K)
    uint32_t GetDomainOf(uint32_t rank) const;
    /// \return the local rank, i.e. the rail, of a rank (rank % K)
    uint32_t GetLocalRank(uint32_t rank) const;
    /// \return the rank of GPU `local` in domain `domain`
    uint32_t GetRank(uint32_t domain, uint32_t local) const;

    /// \return after Install: the rail a switch node serves, or UINT32_MAX (spine, NVSwitch)
    uint32_t GetRailOfSwitch(uint32_t nodeId) const;
    /// \return after Install: the rail of a link, that of its switch end with a rail (a
    /// leaf, or a rail-only spine), or UINT32_MAX when neither end has one (NVLink)
    uint32_t GetRailOfLink(const ClusterLink& link) const;
    /// \return how many switches belong to a rail (its leaves, and a rail-only rail's
    /// spines; 1 where the rail is one switch)
    uint32_t GetNSwitchesOfRail(uint32_t rail) const;
    /// \return after Install: node ids of the NVSwitch of each domain
    const std::vector<uint32_t>& GetNvSwitchIds() const;
    /// \return after Install: switch node ids per tier, tier 0 = the switches GPUs attach to
    const std::vector<std::vector<uint32_t>>& GetSwitchIdsByTier() const;

protected:
    /// Check D, K, rates, radix (throws std::invalid_argument).
    void ValidateRail() const;
    /// Create the cluster, the D*K GPUs (as ranks, in rank order), the NVSwitches and NVLinks.
    Ptr<Cluster> BuildDomains();
    /**
     * Join `leaves` (groups of GPU nodes, one group per leaf switch) with `spines`
     * spine switches, each leaf having one uplink per GPU (full bisection), uplinks
     * dealt round-robin over the spines. spines = 0 makes one switch per group, no
     * uplinks. `rail` labels the new switches (UINT32_MAX for shared ones).
     * \return the leaf switch nodes
     */
    std::vector<Ptr<Node>> BuildLeafSpine(Ptr<Cluster> cluster,
                                          const std::vector<std::vector<Ptr<Node>>>& leaves,
                                          uint32_t spines,
                                          const std::string& downClass,
                                          const std::string& upClass,
                                          uint32_t leafRail,
                                          uint32_t spineRail);
    /// Install the cross-rail policy into the cluster, then FabricHelper::Finish.
    void FinishRail(Ptr<Cluster> cluster, FabricSpec spec);
    /// Clear the per-install bookkeeping.
    void ResetLayout();

    uint32_t m_domains;                                   //!< D
    uint32_t m_domainSize;                                //!< K
    DataRate m_hbRate{"3600Gbps"};                        //!< NVLink rate per GPU
    Time m_hbDelay{NanoSeconds(25)};                      //!< NVLink delay
    uint32_t m_radix{64};                                 //!< switch radix
    RailRoutePreference::Policy m_policy;                 //!< cross-rail policy
    NodeContainer m_gpus;                                 //!< GPUs in rank order
    std::vector<uint32_t> m_nvSwitchIds;                  //!< NVSwitch per domain
    std::map<uint32_t, uint32_t> m_railOfSwitch;          //!< switch node id -> rail
    std::vector<std::vector<uint32_t>> m_switchIdsByTier; //!< tier -> switch ids
};

} // namespace ns3

#endif // RAILONLY_RAIL_FABRIC_HELPER_H
