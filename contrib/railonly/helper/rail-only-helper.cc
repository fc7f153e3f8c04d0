// SPDX-License-Identifier: GPL-2.0-only
#include "rail-only-helper.h"

#include "ns3/fabric-registry.h"
#include "ns3/log.h"
#include "ns3/node.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyRailOnlyHelper");

RailOnlyHelper::RailOnlyHelper(uint32_t domains, uint32_t domainSize)
    : RailFabricHelper(domains, domainSize)
{
}

uint32_t
RailOnlyHelper::RailTiers(uint32_t domains, uint32_t radix)
{
    if (domains <= radix)
    {
        return 1;
    }
    uint64_t k = radix;
    return domains <= k * k / 2 ? 2 : 0;
}

Ptr<Cluster>
RailOnlyHelper::Install()
{
    ValidateRail();
    if (m_domains * m_domainSize < 2)
    {
        throw std::invalid_argument("a rail-only fabric needs at least 2 GPUs; got 1 domain of 1");
    }
    const uint32_t k = m_radix;
    const uint32_t tiers = RailTiers(m_domains, k);
    if (tiers == 0)
    {
        std::ostringstream os;
        os << "a rail of " << m_domains << " GPUs does not fit a 2-tier Clos of radix " << k
           << " (at most k^2/2 = " << uint64_t(k) * k / 2
           << "); use a larger radix or fewer domains (3-tier rails are in the cost model only)";
        throw std::invalid_argument(os.str());
    }
    if (tiers == 2 && k % 2 != 0)
    {
        throw std::invalid_argument("radix " + std::to_string(k) +
                                    " is odd; a 2-tier rail splits its ports in half, give an "
                                    "even radix");
    }
    ResetLayout();
    Ptr<Cluster> cluster = BuildDomains();
    for (uint32_t r = 0; r < m_domainSize; ++r)
    {
        std::vector<Ptr<Node>> rail;
        for (uint32_t d = 0; d < m_domains; ++d)
        {
            rail.push_back(m_gpus.Get(GetRank(d, r)));
        }
        std::vector<std::vector<Ptr<Node>>> leaves;
        uint32_t perLeaf = tiers == 1 ? m_domains : k / 2;
        for (uint32_t first = 0; first < m_domains; first += perLeaf)
        {
            uint32_t last = std::min(m_domains, first + perLeaf);
            leaves.emplace_back(rail.begin() + first, rail.begin() + last);
        }
        uint32_t spines = tiers == 1 ? 0 : (m_domains + k - 1) / k;
        BuildLeafSpine(cluster, leaves, spines, "rail", "rail", r, r);
    }
    FabricSpec spec;
    spec.kind = "railonly";
    spec.tiers = tiers;
    spec.ranksPerTor = tiers == 1 ? m_domains : k / 2;
    FinishRail(cluster, spec);
    return cluster;
}

namespace
{
const FabricRegistration g_railOnly(
    "rail-only",
    "HB (NVLink) domains of domainSize GPUs, one rail network per local rank, no spine",
    {"rail"},
    [](const FabricRequest& r) {
        auto h = std::make_shared<RailOnlyHelper>(RailFabricHelper::DomainsOf(r), r.domainSize);
        h->SetFromRequest(r);
        return h;
    });
} // namespace

} // namespace ns3
