// SPDX-License-Identifier: GPL-2.0-only
#include "rail-optimized-helper.h"

#include "ns3/fabric-registry.h"
#include "ns3/log.h"
#include "ns3/node.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyRailOptimizedHelper");

RailOptimizedHelper::RailOptimizedHelper(uint32_t domains, uint32_t domainSize)
    : RailFabricHelper(domains, domainSize)
{
    m_policy = RailRoutePreference::NETWORK;
}

void
RailOptimizedHelper::SetRailAligned(bool aligned)
{
    m_railAligned = aligned;
}

Ptr<Cluster>
RailOptimizedHelper::Install()
{
    ValidateRail();
    const uint32_t n = m_domains * m_domainSize;
    const uint32_t k = m_radix;
    if (n < 2)
    {
        throw std::invalid_argument("a rail-optimized fabric needs at least 2 GPUs");
    }
    if (k % 2 != 0)
    {
        throw std::invalid_argument("radix " + std::to_string(k) +
                                    " is odd; a leaf splits its ports in half (GPUs and "
                                    "uplinks), give an even radix");
    }
    const uint32_t half = k / 2;
    // Leaves: per rail, chunks of k/2 GPUs of that rail; or chunks of consecutive ranks.
    std::vector<std::vector<uint32_t>> leafRanks;
    std::vector<uint32_t> leafRail;
    if (m_railAligned)
    {
        for (uint32_t r = 0; r < m_domainSize; ++r)
        {
            for (uint32_t first = 0; first < m_domains; first += half)
            {
                std::vector<uint32_t> ranks;
                for (uint32_t d = first; d < std::min(m_domains, first + half); ++d)
                {
                    ranks.push_back(GetRank(d, r));
                }
                leafRanks.push_back(ranks);
                leafRail.push_back(r);
            }
        }
    }
    else
    {
        for (uint32_t first = 0; first < n; first += half)
        {
            std::vector<uint32_t> ranks;
            for (uint32_t g = first; g < std::min(n, first + half); ++g)
            {
                ranks.push_back(g);
            }
            leafRanks.push_back(ranks);
            leafRail.push_back(UINT32_MAX);
        }
    }
    if (leafRanks.size() > k)
    {
        std::ostringstream os;
        os << n << " GPUs need " << leafRanks.size() << " leaves of " << half
           << " GPUs, more than a spine of radix " << k
           << " can join in two tiers; use a larger radix or fewer GPUs (3 tiers are in the "
              "cost model only)";
        throw std::invalid_argument(os.str());
    }
    ResetLayout();
    Ptr<Cluster> cluster = BuildDomains();
    const uint32_t spines = (n + k - 1) / k;
    // Build the leaves one by one (so each keeps its rail label), then the spine.
    std::vector<Ptr<Node>> leaves;
    for (uint32_t l = 0; l < leafRanks.size(); ++l)
    {
        std::vector<Ptr<Node>> gpus;
        for (uint32_t g : leafRanks[l])
        {
            gpus.push_back(m_gpus.Get(g));
        }
        auto made = BuildLeafSpine(cluster, {gpus}, 0, "rail", "", leafRail[l], UINT32_MAX);
        leaves.push_back(made[0]);
    }
    NodeContainer spineNodes = CreateNodes(spines);
    m_switchIdsByTier.resize(2);
    for (uint32_t s = 0; s < spines; ++s)
    {
        cluster->AddSwitchNode(spineNodes.Get(s));
        Spread(spineNodes.Get(s));
        m_switchIdsByTier[1].push_back(spineNodes.Get(s)->GetId());
    }
    uint32_t next = 0;
    for (uint32_t l = 0; l < leaves.size(); ++l)
    {
        for (uint32_t u = 0; u < leafRanks[l].size(); ++u)
        {
            Connect(cluster, leaves[l], spineNodes.Get(next % spines), "spine");
            ++next;
        }
    }
    FabricSpec spec;
    spec.kind = m_railAligned ? "railoptimized" : "fattree-hb";
    spec.tiers = 2;
    spec.ranksPerTor = std::min(m_railAligned ? m_domains : n, half);
    FinishRail(cluster, spec);
    return cluster;
}

namespace
{
/// A rail-optimized (rail-aligned leaves) or plain (NVLink fat-tree) Clos over HB domains.
std::shared_ptr<FabricHelper>
BuildClosOverDomains(const FabricRequest& r, bool railAligned)
{
    auto h = std::make_shared<RailOptimizedHelper>(RailFabricHelper::DomainsOf(r), r.domainSize);
    h->SetRailAligned(railAligned);
    h->SetFromRequest(r);
    return h;
}

const FabricRegistration g_railOptimized(
    "rail-optimized",
    "HB domains with rail-aligned leaves and a spine above them (full bisection)",
    {"rail", "spine"},
    [](const FabricRequest& r) { return BuildClosOverDomains(r, true); });
const FabricRegistration g_nvlinkFatTree(
    "nvlink-fattree",
    "HB domains on a plain fat-tree (leaves not rail-aligned) with a spine",
    {"rail", "spine"},
    [](const FabricRequest& r) { return BuildClosOverDomains(r, false); });
} // namespace

} // namespace ns3
