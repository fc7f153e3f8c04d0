// SPDX-License-Identifier: GPL-2.0-only
#include "hb-domain-helper.h"

#include <stdexcept>

namespace ns3
{

HbDomainHelper::HbDomainHelper(uint32_t domainSize)
    : RailFabricHelper(1, domainSize)
{
}

Ptr<Cluster>
HbDomainHelper::Install()
{
    ValidateRail();
    if (m_domainSize < 2)
    {
        throw std::invalid_argument("an HB domain needs at least 2 GPUs, got " +
                                    std::to_string(m_domainSize));
    }
    ResetLayout();
    Ptr<Cluster> cluster = BuildDomains();
    FabricSpec spec;
    spec.kind = "hbdomain";
    spec.tiers = 1;
    spec.ranksPerTor = m_domainSize;
    m_rate = m_hbRate; // the spec's link rate is the NVLink rate: every link is one
    FinishRail(cluster, spec);
    return cluster;
}

} // namespace ns3
