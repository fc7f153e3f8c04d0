// SPDX-License-Identifier: GPL-2.0-only
#include "ideal-switch-helper.h"

#include "ns3/fabric-registry.h"

#include <stdexcept>

namespace ns3
{

IdealSwitchHelper::IdealSwitchHelper(uint32_t ranks)
    : m_ranks(ranks)
{
}

Ptr<Cluster>
IdealSwitchHelper::Install()
{
    ValidateCommon();
    if (m_ranks < 2)
    {
        throw std::invalid_argument("an ideal switch needs at least 2 ranks, got " +
                                    std::to_string(m_ranks));
    }
    Ptr<Cluster> cluster = CreateObject<Cluster>();
    NodeContainer hosts = CreateNodes(m_ranks);
    NodeContainer sw = CreateNodes(1);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        cluster->AddRankNode(hosts.Get(r));
        Place(hosts.Get(r), r, m_ranks); // distributed runs: hosts in blocks, the switch on 0
    }
    cluster->AddSwitchNode(sw.Get(0));
    Spread(sw.Get(0));
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        Connect(cluster, hosts.Get(r), sw.Get(0), "host-tor");
    }
    FabricSpec spec;
    spec.kind = "ideal";
    spec.tiers = 1;
    spec.radix = m_ranks;
    spec.ranksPerTor = m_ranks;
    Finish(cluster, spec);
    return cluster;
}

namespace
{
const FabricRegistration g_ideal("ideal",
                                 "one non-blocking switch, every rank one link to it",
                                 {},
                                 [](const FabricRequest& r) {
                                     return std::make_shared<IdealSwitchHelper>(r.ranks);
                                 });
} // namespace

} // namespace ns3
