// SPDX-License-Identifier: GPL-2.0-only
#include "ring-all-reduce.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <numeric>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingAllReduce")
            .SetParent<StepwiseCollective>()
            .SetGroupName("Mlnet")
            .AddConstructor<RingAllReduce>()
            .AddAttribute("Slices",
                          "Pipelining: each chunk is cut into this many slices that travel the "
                          "ring independently (count, >= 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RingAllReduce::m_slices),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

RingAllReduce::RingAllReduce() = default;
RingAllReduce::~RingAllReduce() = default;

void
RingAllReduce::SetRings(const std::vector<std::vector<uint32_t>>& orders)
{
    m_rings = orders;
}

std::vector<std::vector<uint32_t>>
RingAllReduce::GetRings() const
{
    if (!m_rings.empty())
    {
        return m_rings;
    }
    std::vector<uint32_t> order(m_ranks.size());
    std::iota(order.begin(), order.end(), 0);
    return {order};
}

std::string
RingAllReduce::GetCollectiveName() const
{
    return "allreduce";
}

std::string
RingAllReduce::GetAlgorithmName() const
{
    return "ring";
}

void
RingAllReduce::ValidateConfig() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    for (size_t r = 0; r < m_rings.size(); ++r)
    {
        std::vector<bool> seen(n, false);
        bool ok = m_rings[r].size() == n;
        for (uint32_t m : m_rings[r])
        {
            ok = ok && m < n && !seen[m];
            if (m < n)
            {
                seen[m] = true;
            }
        }
        if (!ok)
        {
            throw std::invalid_argument("ring " + std::to_string(r) +
                                        " is not a permutation of the member indexes 0.." +
                                        std::to_string(n - 1) + "; list every member once");
        }
    }
}

StepwiseCollective::Program
RingAllReduce::BuildProgram() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto rings = GetRings();
    uint32_t nRings = static_cast<uint32_t>(rings.size());
    uint32_t slices = m_slices;
    Program p(n, MemberProgram(nRings * slices));
    auto ringShare = Split({0, GetUnits()}, nRings);
    for (uint32_t r = 0; r < nRings; ++r)
    {
        // seg[chunk][slice]
        std::vector<std::vector<Segment>> seg;
        for (const auto& chunk : Split(ringShare[r], n))
        {
            seg.push_back(Split(chunk, slices));
        }
        const auto& order = rings[r];
        for (uint32_t pos = 0; pos < n; ++pos)
        {
            uint32_t me = order[pos];
            uint32_t right = order[(pos + 1) % n];
            uint32_t left = order[(pos + n - 1) % n];
            for (uint32_t l = 0; l < slices; ++l)
            {
                // Chains are slice-major so that step 0 leaves all rings' first
                // slices before any second slice.
                auto& chain = p[me][l * nRings + r];
                chain.resize(2 * (n - 1));
                for (uint32_t t = 0; t < 2 * (n - 1); ++t)
                {
                    uint32_t sendChunk = (pos + 2 * n - t - 1) % n;
                    uint32_t recvChunk = (pos + 2 * n - t - 2) % n;
                    chain[t].sends.push_back({right, seg[sendChunk][l]});
                    chain[t].recvs.push_back({left, seg[recvChunk][l], t < n - 1});
                }
            }
        }
    }
    return p;
}

} // namespace ns3
