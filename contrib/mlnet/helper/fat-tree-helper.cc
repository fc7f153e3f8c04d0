// SPDX-License-Identifier: GPL-2.0-only
#include "fat-tree-helper.h"

#include "ns3/fabric-registry.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

FatTreeHelper::FatTreeHelper(uint32_t ranks)
    : m_ranks(ranks)
{
}

void
FatTreeHelper::SetTiers(uint32_t tiers)
{
    m_tiers = tiers;
}

void
FatTreeHelper::SetRadix(uint32_t radix)
{
    m_radix = radix;
}

void
FatTreeHelper::SetOversubscription(double ratio)
{
    m_ratio = ratio;
}

uint32_t
FatTreeHelper::HostsPerTor(uint32_t radix, double ratio)
{
    double up = radix / (1.0 + ratio);
    uint32_t u = static_cast<uint32_t>(std::lround(up));
    if (u == 0 || u >= radix || std::fabs(up - u) > 1e-9)
    {
        return 0;
    }
    uint32_t d = radix - u;
    return std::fabs(d - ratio * u) < 1e-9 ? d : 0;
}

bool
FatTreeHelper::Fits(uint32_t k) const
{
    uint32_t d = HostsPerTor(k, m_ratio);
    if (d == 0)
    {
        return false;
    }
    uint32_t tors = (m_ranks + d - 1) / d;
    if (m_tiers == 2)
    {
        return tors <= k;
    }
    if (k % 2 != 0)
    {
        return false;
    }
    uint32_t pods = (tors + k / 2 - 1) / (k / 2);
    return pods <= k;
}

Ptr<Cluster>
FatTreeHelper::Install()
{
    ValidateCommon();
    if (m_ranks < 2)
    {
        throw std::invalid_argument("a fat-tree needs at least 2 ranks, got " +
                                    std::to_string(m_ranks));
    }
    if (m_tiers != 2 && m_tiers != 3)
    {
        throw std::invalid_argument("fat-tree tiers must be 2 or 3, got " +
                                    std::to_string(m_tiers));
    }
    if (!(m_ratio >= 1.0))
    {
        throw std::invalid_argument("oversubscription must be >= 1 (1 = non-blocking)");
    }
    uint32_t k = m_radix;
    if (k == 0)
    {
        for (k = 2; k <= 1024 && !Fits(k); ++k)
        {
        }
        if (k > 1024)
        {
            std::ostringstream os;
            os << "no radix up to 1024 builds a " << m_tiers << "-tier fat-tree of " << m_ranks
               << " ranks at oversubscription " << m_ratio;
            throw std::invalid_argument(os.str());
        }
    }
    else if (HostsPerTor(k, m_ratio) == 0)
    {
        std::ostringstream os;
        os << "radix " << k << " does not split into host ports and uplinks at oversubscription "
           << m_ratio << "; (1 + ratio) must divide the radix";
        throw std::invalid_argument(os.str());
    }
    else if (!Fits(k))
    {
        std::ostringstream os;
        os << m_ranks << " ranks do not fit a " << m_tiers << "-tier fat-tree of radix " << k
           << "; use a larger radix, 3 tiers, or radix 0 to choose one";
        throw std::invalid_argument(os.str());
    }
    uint32_t d = HostsPerTor(k, m_ratio);
    uint32_t u = k - d;
    uint32_t tors = (m_ranks + d - 1) / d;

    // Distributed runs: a 2-tier tree is split by leaf (a ToR and its hosts), a 3-tier
    // tree by pod; spines and cores are dealt round-robin, so every cut link is a
    // ToR-spine or an aggregation-core link.
    const uint32_t torsPerPod = k / 2;
    const uint32_t pods = (tors + torsPerPod - 1) / torsPerPod;
    auto groupOfTor = [&](uint32_t t) { return m_tiers == 2 ? t : t / torsPerPod; };
    const uint32_t groups = m_tiers == 2 ? tors : pods;

    Ptr<Cluster> cluster = CreateObject<Cluster>();
    NodeContainer hosts = CreateNodes(m_ranks);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        cluster->AddRankNode(hosts.Get(r));
        Place(hosts.Get(r), groupOfTor(r / d), groups);
    }
    NodeContainer torNodes = CreateNodes(tors);
    for (uint32_t t = 0; t < tors; ++t)
    {
        cluster->AddSwitchNode(torNodes.Get(t));
        Place(torNodes.Get(t), groupOfTor(t), groups);
    }
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        Connect(cluster, hosts.Get(r), torNodes.Get(r / d), "host-tor");
    }
    if (m_tiers == 2)
    {
        NodeContainer spines = CreateNodes(u);
        for (uint32_t s = 0; s < u; ++s)
        {
            cluster->AddSwitchNode(spines.Get(s));
            Spread(spines.Get(s));
        }
        for (uint32_t t = 0; t < tors; ++t)
        {
            for (uint32_t s = 0; s < u; ++s)
            {
                Connect(cluster, torNodes.Get(t), spines.Get(s), "tor-agg");
            }
        }
    }
    else
    {
        NodeContainer aggs = CreateNodes(pods * u);
        NodeContainer cores = CreateNodes(u * (k / 2));
        for (uint32_t i = 0; i < aggs.GetN(); ++i)
        {
            cluster->AddSwitchNode(aggs.Get(i));
            Place(aggs.Get(i), i / u, pods);
        }
        for (uint32_t i = 0; i < cores.GetN(); ++i)
        {
            cluster->AddSwitchNode(cores.Get(i));
            Spread(cores.Get(i));
        }
        for (uint32_t t = 0; t < tors; ++t)
        {
            uint32_t pod = t / torsPerPod;
            for (uint32_t j = 0; j < u; ++j)
            {
                Connect(cluster, torNodes.Get(t), aggs.Get(pod * u + j), "tor-agg");
            }
        }
        for (uint32_t pod = 0; pod < pods; ++pod)
        {
            for (uint32_t j = 0; j < u; ++j)
            {
                for (uint32_t c = 0; c < k / 2; ++c)
                {
                    Connect(cluster, aggs.Get(pod * u + j), cores.Get(j * (k / 2) + c), "agg-core");
                }
            }
        }
    }
    FabricSpec spec;
    spec.kind = "fattree";
    spec.tiers = m_tiers;
    spec.radix = k;
    spec.ranksPerTor = d;
    spec.oversubscription = m_ratio;
    Finish(cluster, spec);
    return cluster;
}

namespace
{
const FabricRegistration g_fatTree("fattree",
                                   "2- or 3-tier fat-tree (Clos), flow-hash ECMP",
                                   {"tor-agg", "agg-core"},
                                   [](const FabricRequest& r) {
                                       auto h = std::make_shared<FatTreeHelper>(r.ranks);
                                       h->SetTiers(r.tiers);
                                       h->SetRadix(r.radix);
                                       h->SetOversubscription(r.oversubscription);
                                       return h;
                                   });
} // namespace

} // namespace ns3
