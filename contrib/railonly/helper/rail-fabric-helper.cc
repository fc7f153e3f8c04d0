// SPDX-License-Identifier: GPL-2.0-only
#include "rail-fabric-helper.h"

#include "ns3/log.h"
#include "ns3/node.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyRailFabricHelper");

RailFabricHelper::RailFabricHelper(uint32_t domains, uint32_t domainSize)
    : m_domains(domains),
      m_domainSize(domainSize),
      m_policy(RailRoutePreference::FORWARD_AT_SOURCE)
{
    // NIC defaults from the reference: 400G ConnectX-7, SimAI's 500 ns NIC latency.
    m_rate = DataRate("400Gbps");
    m_delay = NanoSeconds(500);
}

RailFabricHelper::~RailFabricHelper() = default;

void
RailFabricHelper::SetFromRequest(const FabricRequest& request)
{
    if (request.radix != 0)
    {
        SetRadix(request.radix);
    }
    SetHbRate(request.hbRate);
    SetHbDelay(request.hbDelay);
    if (!request.crossRailPolicy.empty())
    {
        SetCrossRailPolicy(RailRoutePreference::ParsePolicy(request.crossRailPolicy));
    }
}

uint32_t
RailFabricHelper::DomainsOf(const FabricRequest& request)
{
    const uint32_t k = request.domainSize;
    if (k < 1 || request.ranks % k != 0)
    {
        throw std::invalid_argument("fabric " + request.fabric + ": " +
                                    std::to_string(request.ranks) +
                                    " GPUs do not split into HB domains of " + std::to_string(k) +
                                    " GPUs; give a domain size >= 1 that divides the GPU count");
    }
    return request.ranks / k;
}

void
RailFabricHelper::SetHbRate(DataRate rate)
{
    m_hbRate = rate;
}

void
RailFabricHelper::SetHbDelay(Time delay)
{
    m_hbDelay = delay;
}

void
RailFabricHelper::SetRadix(uint32_t radix)
{
    m_radix = radix;
}

void
RailFabricHelper::SetCrossRailPolicy(RailRoutePreference::Policy policy)
{
    m_policy = policy;
}

uint32_t
RailFabricHelper::GetDomains() const
{
    return m_domains;
}

uint32_t
RailFabricHelper::GetDomainSize() const
{
    return m_domainSize;
}

uint32_t
RailFabricHelper::GetRadix() const
{
    return m_radix;
}

RailRoutePreference::Policy
RailFabricHelper::GetCrossRailPolicy() const
{
    return m_policy;
}

uint32_t
RailFabricHelper::GetDomainOf(uint32_t rank) const
{
    return rank / m_domainSize;
}

uint32_t
RailFabricHelper::GetLocalRank(uint32_t rank) const
{
    return rank % m_domainSize;
}

uint32_t
RailFabricHelper::GetRank(uint32_t domain, uint32_t local) const
{
    return domain * m_domainSize + local;
}

uint32_t
RailFabricHelper::GetRailOfSwitch(uint32_t nodeId) const
{
    auto it = m_railOfSwitch.find(nodeId);
    return it == m_railOfSwitch.end() ? UINT32_MAX : it->second;
}

uint32_t
RailFabricHelper::GetRailOfLink(const ClusterLink& link) const
{
    return std::min(GetRailOfSwitch(link.nodeA), GetRailOfSwitch(link.nodeB));
}

uint32_t
RailFabricHelper::GetNSwitchesOfRail(uint32_t rail) const
{
    uint32_t n = 0;
    for (const auto& [node, of] : m_railOfSwitch)
    {
        n += of == rail ? 1 : 0;
    }
    return n;
}

const std::vector<uint32_t>&
RailFabricHelper::GetNvSwitchIds() const
{
    return m_nvSwitchIds;
}

const std::vector<std::vector<uint32_t>>&
RailFabricHelper::GetSwitchIdsByTier() const
{
    return m_switchIdsByTier;
}

void
RailFabricHelper::ValidateRail() const
{
    ValidateCommon();
    if (m_domainSize == 0)
    {
        throw std::invalid_argument(
            "HB domain size is 0; give the GPUs per domain K >= 1 (8 for a DGX H100)");
    }
    if (m_domains == 0)
    {
        throw std::invalid_argument("number of HB domains is 0; give D >= 1");
    }
    if (m_hbRate.GetBitRate() == 0)
    {
        throw std::invalid_argument(
            "HB (NVLink) rate is 0; give a positive per-GPU rate such as 3600Gbps");
    }
    if (m_hbDelay.IsNegative())
    {
        throw std::invalid_argument("HB (NVLink) delay is negative; give a delay >= 0");
    }
    if (m_radix < 2)
    {
        throw std::invalid_argument("switch radix " + std::to_string(m_radix) +
                                    " is too small; give at least 2 ports (64 for a QM9700)");
    }
}

void
RailFabricHelper::ResetLayout()
{
    m_gpus = NodeContainer();
    m_nvSwitchIds.clear();
    m_railOfSwitch.clear();
    m_switchIdsByTier.clear();
}

Ptr<Cluster>
RailFabricHelper::BuildDomains()
{
    Ptr<Cluster> cluster = CreateObject<Cluster>();
    m_gpus = CreateNodes(m_domains * m_domainSize);
    for (uint32_t r = 0; r < m_gpus.GetN(); ++r)
    {
        cluster->AddRankNode(m_gpus.Get(r));
    }
    // Distributed runs: split by HB domain (its GPUs and NVSwitch together, so NVLink
    // never crosses processes); rail and spine switches are dealt round-robin.
    for (uint32_t d = 0; d < m_domains; ++d)
    {
        for (uint32_t i = 0; i < m_domainSize; ++i)
        {
            Place(m_gpus.Get(GetRank(d, i)), d, m_domains);
        }
    }
    if (m_domainSize < 2)
    {
        return cluster; // a 1-GPU domain has no NVSwitch
    }
    NodeContainer nvs = CreateNodes(m_domains);
    for (uint32_t d = 0; d < m_domains; ++d)
    {
        cluster->AddSwitchNode(nvs.Get(d));
        Place(nvs.Get(d), d, m_domains);
        m_nvSwitchIds.push_back(nvs.Get(d)->GetId());
        for (uint32_t i = 0; i < m_domainSize; ++i)
        {
            Connect(cluster, m_gpus.Get(GetRank(d, i)), nvs.Get(d), "nvlink", m_hbRate, m_hbDelay);
        }
    }
    return cluster;
}

std::vector<Ptr<Node>>
RailFabricHelper::BuildLeafSpine(Ptr<Cluster> cluster,
                                 const std::vector<std::vector<Ptr<Node>>>& leaves,
                                 uint32_t spines,
                                 const std::string& downClass,
                                 const std::string& upClass,
                                 uint32_t leafRail,
                                 uint32_t spineRail)
{
    NodeContainer leafNodes = CreateNodes(leaves.size());
    std::vector<Ptr<Node>> out;
    if (m_switchIdsByTier.size() < (spines ? 2u : 1u))
    {
        m_switchIdsByTier.resize(spines ? 2 : 1);
    }
    for (uint32_t l = 0; l < leaves.size(); ++l)
    {
        Ptr<Node> leaf = leafNodes.Get(l);
        cluster->AddSwitchNode(leaf);
        Spread(leaf);
        m_railOfSwitch[leaf->GetId()] = leafRail;
        m_switchIdsByTier[0].push_back(leaf->GetId());
        out.push_back(leaf);
        for (const auto& gpu : leaves[l])
        {
            Connect(cluster, gpu, leaf, downClass);
        }
    }
    if (spines == 0)
    {
        return out;
    }
    NodeContainer spineNodes = CreateNodes(spines);
    for (uint32_t s = 0; s < spines; ++s)
    {
        cluster->AddSwitchNode(spineNodes.Get(s));
        Spread(spineNodes.Get(s));
        if (spineRail != UINT32_MAX)
        {
            m_railOfSwitch[spineNodes.Get(s)->GetId()] = spineRail;
        }
        m_switchIdsByTier[1].push_back(spineNodes.Get(s)->GetId());
    }
    // One uplink per GPU below a leaf (full bisection), dealt round-robin over the
    // spines so every spine gets at most ceil(uplinks / spines) ports.
    uint32_t next = 0;
    for (uint32_t l = 0; l < leaves.size(); ++l)
    {
        for (uint32_t u = 0; u < leaves[l].size(); ++u)
        {
            Connect(cluster, out[l], spineNodes.Get(next % spines), upClass);
            ++next;
        }
    }
    return out;
}

void
RailFabricHelper::FinishRail(Ptr<Cluster> cluster, FabricSpec spec)
{
    auto preference = CreateObject<RailRoutePreference>();
    preference->SetDomainSize(m_domainSize);
    preference->SetPolicy(m_policy);
    cluster->SetRoutePreference(preference);
    spec.radix = m_radix;
    spec.domainSize = m_domainSize;
    Finish(cluster, spec);
}

} // namespace ns3
