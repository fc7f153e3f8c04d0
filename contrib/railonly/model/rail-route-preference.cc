// SPDX-License-Identifier: GPL-2.0-only
#include "rail-route-preference.h"

#include "ns3/cluster.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyRailRoutePreference");
NS_OBJECT_ENSURE_REGISTERED(RailRoutePreference);

TypeId
RailRoutePreference::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RailRoutePreference")
            .SetParent<RoutePreference>()
            .SetGroupName("Mlnet")
            .AddConstructor<RailRoutePreference>()
            .AddAttribute("Policy",
                          "Where cross-rail traffic (GPU a:i to b:j, a != b, i != j) crosses the "
                          "HB domain: ForwardAtSource (NVLink to a:j, then rail j), "
                          "ForwardAtDestination (rail i to b:i, then NVLink), or Network (no "
                          "GPU relaying where the switches offer an equally short route).",
                          EnumValue(FORWARD_AT_SOURCE),
                          MakeEnumAccessor(&RailRoutePreference::m_policy),
                          MakeEnumChecker(FORWARD_AT_SOURCE,
                                          "ForwardAtSource",
                                          FORWARD_AT_DESTINATION,
                                          "ForwardAtDestination",
                                          NETWORK,
                                          "Network"))
            .AddAttribute("DomainSize",
                          "GPUs per HB domain K (count); rank = domain * K + local rank.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RailRoutePreference::m_domainSize),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

RailRoutePreference::RailRoutePreference() = default;
RailRoutePreference::~RailRoutePreference() = default;

void
RailRoutePreference::SetPolicy(Policy policy)
{
    m_policy = policy;
}

RailRoutePreference::Policy
RailRoutePreference::GetPolicy() const
{
    return m_policy;
}

void
RailRoutePreference::SetDomainSize(uint32_t k)
{
    if (k == 0)
    {
        throw std::invalid_argument("HB domain size is 0; give the GPUs per domain (e.g. 8)");
    }
    m_domainSize = k;
}

uint32_t
RailRoutePreference::GetDomainSize() const
{
    return m_domainSize;
}

std::string
RailRoutePreference::PolicyName(Policy policy)
{
    switch (policy)
    {
    case FORWARD_AT_SOURCE:
        return "source";
    case FORWARD_AT_DESTINATION:
        return "destination";
    case NETWORK:
        return "network";
    }
    return "?";
}

RailRoutePreference::Policy
RailRoutePreference::ParsePolicy(const std::string& name)
{
    for (Policy p : {FORWARD_AT_SOURCE, FORWARD_AT_DESTINATION, NETWORK})
    {
        if (PolicyName(p) == name)
        {
            return p;
        }
    }
    throw std::invalid_argument("unknown cross-rail policy '" + name +
                                "'; use source, destination or network");
}

uint64_t
RailRoutePreference::Context(const Cluster& cluster, uint32_t nodeId, uint32_t dstRank) const
{
    const uint32_t rank = cluster.GetRankOfNode(nodeId);
    if (rank != UINT32_MAX)
    {
        return rank / m_domainSize == dstRank / m_domainSize ? 1 : 0;
    }
    // A switch keeps or drops each next hop by whether it leads to a GPU other than the
    // destination and by that GPU's domain: the destination matters only where it is a
    // neighbour, the domain everywhere.
    // Kept per (cluster, its link state, destination): a link added since changes them.
    if (m_neighboursIn != &cluster || m_neighboursVersion != cluster.GetLinkStateVersion() ||
        m_neighboursOf != dstRank)
    {
        const uint32_t dstNode = cluster.GetRankNode(dstRank)->GetId();
        m_neighbours.clear();
        cluster.AppendNeighbours(dstNode, m_neighbours);
        m_neighboursIn = &cluster;
        m_neighboursVersion = cluster.GetLinkStateVersion();
        m_neighboursOf = dstRank;
    }
    if (std::find(m_neighbours.begin(), m_neighbours.end(), nodeId) != m_neighbours.end())
    {
        return RoutePreference::Context(cluster, nodeId, dstRank);
    }
    return (uint64_t{2} << 32) | (dstRank / m_domainSize);
}

bool
RailRoutePreference::ContextsRepeat(const Cluster& cluster,
                                    uint32_t previousRank,
                                    uint32_t dstRank,
                                    std::vector<uint32_t>& except) const
{
    except.clear();
    if (previousRank / m_domainSize != dstRank / m_domainSize)
    {
        return false;
    }
    for (uint32_t rank : {previousRank, dstRank})
    {
        cluster.AppendNeighbours(cluster.GetRankNode(rank)->GetId(), except);
    }
    return true;
}

bool
RailRoutePreference::IgnoresDestination(const Cluster& cluster,
                                        uint32_t nodeId,
                                        const std::vector<uint32_t>& candidates) const
{
    if (cluster.GetRankOfNode(nodeId) != UINT32_MAX)
    {
        return false; // a GPU: NVLink or NIC by the destination's domain
    }
    for (uint32_t id : candidates)
    {
        if (cluster.GetRankOfNode(cluster.GetLink(id).Peer(nodeId)) != UINT32_MAX)
        {
            return false; // handing the packet to this GPU depends on the destination
        }
    }
    return true;
}

std::vector<uint32_t>
RailRoutePreference::Select(const Cluster& cluster,
                            uint32_t nodeId,
                            uint32_t dstRank,
                            const std::vector<uint32_t>& candidates) const
{
    const uint32_t k = m_domainSize;
    const uint32_t dstDomain = dstRank / k;
    const uint32_t dstNode = cluster.GetRankNode(dstRank)->GetId();
    std::vector<uint32_t> keep;
    uint32_t rank = cluster.GetRankOfNode(nodeId);
    if (rank != UINT32_MAX)
    {
        // A GPU: inside its domain NVLink always (on a fat-tree whose leaf holds the
        // whole domain, GPU-leaf-GPU ties with GPU-NVSwitch-GPU); leaving it, the
        // NVLink-or-NIC choice of the policy.
        bool wantNvlink = rank / k == dstDomain || m_policy == FORWARD_AT_SOURCE;
        for (uint32_t id : candidates)
        {
            if ((cluster.GetLink(id).linkClass == "nvlink") == wantNvlink)
            {
                keep.push_back(id);
            }
        }
        return keep;
    }
    // A switch: whether to hand the packet to a GPU that is not its destination.
    for (uint32_t id : candidates)
    {
        const uint32_t far = cluster.GetLink(id).Peer(nodeId);
        uint32_t farRank = cluster.GetRankOfNode(far);
        bool relay = farRank != UINT32_MAX && far != dstNode;
        bool relayInDstDomain = relay && farRank / k == dstDomain;
        if (m_policy == FORWARD_AT_DESTINATION ? relayInDstDomain : !relay)
        {
            keep.push_back(id);
        }
    }
    return keep;
}

} // namespace ns3
