// SPDX-License-Identifier: GPL-2.0-only
#include "megatron-mapper.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <map>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyMegatronMapper");
NS_OBJECT_ENSURE_REGISTERED(MegatronMapper);

TypeId
MegatronMapper::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MegatronMapper")
                            .SetParent<Object>()
                            .SetGroupName("Railonly")
                            .AddConstructor<MegatronMapper>();
    return tid;
}

MegatronMapper::MegatronMapper() = default;
MegatronMapper::~MegatronMapper() = default;

void
MegatronMapper::Configure(uint32_t gpus, uint32_t domainSize, uint32_t tp, uint32_t pp, uint32_t dp)
{
    if (tp == 0 || pp == 0 || dp == 0)
    {
        throw std::invalid_argument(
            "parallel degrees must be at least 1 (got TP=" + std::to_string(tp) +
            ", PP=" + std::to_string(pp) + ", DP=" + std::to_string(dp) + ")");
    }
    if (domainSize == 0)
    {
        throw std::invalid_argument("HB domain size is 0; give the GPUs per domain (e.g. 8)");
    }
    if (domainSize % tp != 0)
    {
        throw std::invalid_argument("TP=" + std::to_string(tp) +
                                    " does not divide the HB domain size " +
                                    std::to_string(domainSize) +
                                    ": tensor parallelism must stay inside an HB domain; "
                                    "choose TP among the divisors of the domain size");
    }
    if (uint64_t(tp) * pp * dp != gpus)
    {
        throw std::invalid_argument("TP*PP*DP = " + std::to_string(tp) + "*" + std::to_string(pp) +
                                    "*" + std::to_string(dp) + " = " +
                                    std::to_string(uint64_t(tp) * pp * dp) +
                                    " does not match the cluster's " + std::to_string(gpus) +
                                    " GPUs; choose degrees whose product is the number of GPUs");
    }
    m_tp = tp;
    m_pp = pp;
    m_dp = dp;
    m_domainSize = domainSize;
    m_configured = true;
    NS_LOG_INFO("TP=" << tp << " PP=" << pp << " DP=" << dp << " on " << gpus
                      << " GPUs, K=" << domainSize);
}

uint32_t
MegatronMapper::GetRank(uint32_t tp, uint32_t dp, uint32_t pp) const
{
    NS_ASSERT(m_configured && tp < m_tp && dp < m_dp && pp < m_pp);
    return tp + m_tp * (dp + m_dp * pp);
}

uint32_t
MegatronMapper::GetTpIndex(uint32_t rank) const
{
    return rank % m_tp;
}

uint32_t
MegatronMapper::GetDpIndex(uint32_t rank) const
{
    return (rank / m_tp) % m_dp;
}

uint32_t
MegatronMapper::GetStage(uint32_t rank) const
{
    return rank / (m_tp * m_dp);
}

std::vector<std::vector<uint32_t>>
MegatronMapper::GroupsAlong(uint32_t axis) const
{
    // Axes: 0 = tp, 1 = dp, 2 = pp. A group varies `axis` only; groups are ordered by
    // the other two axes, the slower one outermost.
    const uint32_t size[3] = {m_tp, m_dp, m_pp};
    const uint32_t inner = axis == 0 ? 1 : 0;
    const uint32_t outer = axis == 2 ? 1 : 2;
    std::vector<std::vector<uint32_t>> groups;
    uint32_t idx[3] = {0, 0, 0};
    for (idx[outer] = 0; idx[outer] < size[outer]; ++idx[outer])
    {
        for (idx[inner] = 0; idx[inner] < size[inner]; ++idx[inner])
        {
            std::vector<uint32_t> g;
            for (idx[axis] = 0; idx[axis] < size[axis]; ++idx[axis])
            {
                g.push_back(GetRank(idx[0], idx[1], idx[2]));
            }
            groups.push_back(g);
        }
    }
    return groups;
}

std::vector<std::vector<uint32_t>>
MegatronMapper::GetTpGroups() const
{
    return GroupsAlong(0);
}

std::vector<std::vector<uint32_t>>
MegatronMapper::GetDpGroups() const
{
    return GroupsAlong(1);
}

std::vector<std::vector<uint32_t>>
MegatronMapper::GetPpGroups() const
{
    return GroupsAlong(2);
}

std::vector<uint32_t>
MegatronMapper::GetStageRanks(uint32_t stage) const
{
    NS_ASSERT(stage < m_pp);
    std::vector<uint32_t> ranks;
    for (uint32_t r = stage * m_tp * m_dp; r < (stage + 1) * m_tp * m_dp; ++r)
    {
        ranks.push_back(r);
    }
    return ranks;
}

bool
MegatronMapper::IsRailAligned() const
{
    const uint32_t k = m_domainSize;
    // PP: every stage boundary stays in a domain or on a rail.
    for (const auto& g : GetPpGroups())
    {
        for (uint32_t i = 0; i + 1 < g.size(); ++i)
        {
            if (g[i] / k != g[i + 1] / k && g[i] % k != g[i + 1] % k)
            {
                return false;
            }
        }
    }
    // DP: the hierarchical all-reduce needs equal parts per domain whose i-th members
    // share a rail (reduce-scatter in the domain, all-reduce along each rail).
    for (const auto& g : GetDpGroups())
    {
        std::map<uint32_t, std::vector<uint32_t>> byDomain;
        for (uint32_t r : g)
        {
            byDomain[r / k].push_back(r);
        }
        const auto& first = byDomain.begin()->second;
        for (const auto& [domain, members] : byDomain)
        {
            if (members.size() != first.size())
            {
                return false;
            }
            for (uint32_t i = 0; i < members.size(); ++i)
            {
                if (members[i] % k != first[i] % k)
                {
                    return false;
                }
            }
        }
    }
    return true;
}

uint32_t
MegatronMapper::GetTp() const
{
    return m_tp;
}

uint32_t
MegatronMapper::GetPp() const
{
    return m_pp;
}

uint32_t
MegatronMapper::GetDp() const
{
    return m_dp;
}

uint32_t
MegatronMapper::GetDomainSize() const
{
    return m_domainSize;
}

uint32_t
MegatronMapper::GetNGpus() const
{
    return m_tp * m_pp * m_dp;
}

} // namespace ns3
