// SPDX-License-Identifier: GPL-2.0-only
/*
 * RailRoutePreference: the cross-rail forwarding policy of rail fabrics, as a
 * RoutePreference that mlnet's RoutePlanner applies to its next-hop tables.
 *
 * Ranks are GPUs numbered domain * K + local rank (K = DomainSize). For a packet
 * from GPU (a, i) to GPU (b, j) with a != b and i != j, a spine-less rail-only
 * fabric has exactly two shortest routes, both 4 hops:
 *   ForwardAtSource:      a:i -nvlink-> NVSwitch(a) -nvlink-> a:j -rail j-> b:j
 *   ForwardAtDestination: a:i -rail i-> b:i -nvlink-> NVSwitch(b) -nvlink-> b:j
 * The only choice is made at the source GPU (NVLink or NIC), so the policy keeps
 * the nvlink next hop (source) or the NIC next hop (destination). Traffic along one
 * rail has a single shortest route. Traffic inside a domain keeps NVLink: on rail
 * fabrics it is the only shortest route, and on the NVLink fat-tree (whole domains
 * under one leaf) it ties with GPU-leaf-GPU, which NVLink-connected GPUs never use.
 *
 * On a rail-optimized fabric (rails plus spine) the switched path through the spine
 * ties with these relayed routes wherever the rails have one leaf; Network keeps
 * packets out of GPUs other than their destination (no relaying, as NCCL without
 * PXN), and the two forwarding policies relay as described (at a leaf, Destination
 * prefers the link down to a GPU of the destination domain).
 *
 * What it leaves out: relaying is IP forwarding in the GPU node, store-and-forward
 * per packet (granularity = the MTU), with no copy or kernel cost; the choice is
 * per destination, not per flow or message size.
 */
#ifndef RAILONLY_RAIL_ROUTE_PREFERENCE_H
#define RAILONLY_RAIL_ROUTE_PREFERENCE_H

#include "ns3/route-preference.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Cross-rail forwarding policy (forward at source / at destination / no relay).
 */
class RailRoutePreference : public RoutePreference
{
public:
    /// Where cross-rail traffic crosses the HB domain.
    enum Policy
    {
        FORWARD_AT_SOURCE = 0,      //!< NVLink in the source domain, then the destination rail
        FORWARD_AT_DESTINATION = 1, //!< source rail, then NVLink in the destination domain
        NETWORK = 2                 //!< no GPU relaying where the switches offer a route
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RailRoutePreference();
    ~RailRoutePreference() override;

    /// \brief Set the policy.
    void SetPolicy(Policy policy);
    /// \return the policy
    Policy GetPolicy() const;
    /// \brief Set the HB domain size K (GPUs per domain, > 0).
    void SetDomainSize(uint32_t k);
    /// \return K
    uint32_t GetDomainSize() const;

    /// \return "source", "destination" or "network"
    static std::string PolicyName(Policy policy);
    /// \return the policy named "source", "destination" or "network" (throws otherwise)
    static Policy ParsePolicy(const std::string& name);

    std::vector<uint32_t> Select(const Cluster& cluster,
                                 uint32_t nodeId,
                                 uint32_t dstRank,
                                 const std::vector<uint32_t>& candidates) const override;
    /**
     * \brief At a GPU the answer depends only on whether the destination is in its own
     * HB domain (0 or 1); at a switch on the destination's HB domain, and on the
     * destination itself (the default) only where it is one of the switch's neighbours.
     */
    uint64_t Context(const Cluster& cluster, uint32_t nodeId, uint32_t dstRank) const override;
    /// \return true at a switch none of whose candidates leads to a GPU: no relay
    /// choice, every candidate kept (or none, which keeps every one) for every destination
    bool IgnoresDestination(const Cluster& cluster,
                            uint32_t nodeId,
                            const std::vector<uint32_t>& candidates) const override;
    /// \return true for two destinations of one HB domain, `except` the neighbours of
    /// either (the only nodes whose Context names the destination itself)
    bool ContextsRepeat(const Cluster& cluster,
                        uint32_t previousRank,
                        uint32_t dstRank,
                        std::vector<uint32_t>& except) const override;

private:
    Policy m_policy{FORWARD_AT_SOURCE};
    uint32_t m_domainSize{8};
    /// Context's scratch: the neighbours of the last destination asked about (the
    /// planner asks every node about one destination before the next).
    mutable const Cluster* m_neighboursIn{nullptr};
    mutable uint64_t m_neighboursVersion{0};
    mutable uint32_t m_neighboursOf{UINT32_MAX};
    mutable std::vector<uint32_t> m_neighbours;
};

} // namespace ns3

#endif // RAILONLY_RAIL_ROUTE_PREFERENCE_H
