// SPDX-License-Identifier: GPL-2.0-only
#include "ring-broadcast.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRingBroadcast");
NS_OBJECT_ENSURE_REGISTERED(RingBroadcast);

TypeId
RingBroadcast::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingBroadcast")
                            .SetParent<StepwiseCollective>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<RingBroadcast>()
                            .AddAttribute("Root",
                                          "Member index (not rank) that holds the data.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&RingBroadcast::m_root),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RingBroadcast::RingBroadcast() = default;
RingBroadcast::~RingBroadcast() = default;

std::string
RingBroadcast::GetCollectiveName() const
{
    return "broadcast";
}

std::string
RingBroadcast::GetAlgorithmName() const
{
    return "ring";
}

void
RingBroadcast::ValidateConfig() const
{
    if (m_root >= m_ranks.size())
    {
        throw std::invalid_argument("broadcast Root " + std::to_string(m_root) +
                                    " is not a member index (the communicator has " +
                                    std::to_string(m_ranks.size()) + " members)");
    }
}

Eigen::VectorXf
RingBroadcast::MakeWorkBuffer(uint32_t member) const
{
    if (member == m_root)
    {
        return m_in[member];
    }
    return Eigen::VectorXf::Zero(static_cast<Eigen::Index>(GetUnits()));
}

StepwiseCollective::Program
RingBroadcast::BuildProgram() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto chunks = Split({0, GetUnits()}, n); // chunk r: relative rank r
    auto range = [&chunks](uint32_t first, uint32_t count) {
        Segment s{chunks[first].offset, 0};
        for (uint32_t c = first; c < first + count; ++c)
        {
            s.length += chunks[c].length;
        }
        return s;
    };
    auto member = [this, n](uint32_t rel) { return (rel + m_root) % n; };
    Program p(n, MemberProgram(1));
    bool powerOfTwo = (n & (n - 1)) == 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        auto& chain = p[member(r)][0];
        if (powerOfTwo)
        {
            for (uint32_t mask = n / 2; mask >= 1; mask /= 2)
            {
                Step step;
                if (r % (2 * mask) == 0)
                {
                    step.sends.push_back({member(r + mask), range(r + mask, mask)});
                }
                else if (r % (2 * mask) == mask)
                {
                    step.recvs.push_back({member(r - mask), range(r, mask), false});
                }
                chain.push_back(step);
            }
        }
        else
        {
            Step step;
            if (r == 0)
            {
                for (uint32_t dst = 1; dst < n; ++dst)
                {
                    step.sends.push_back({member(dst), chunks[dst]});
                }
            }
            else
            {
                step.recvs.push_back({member(0), chunks[r], false});
            }
            chain.push_back(step);
        }
        for (uint32_t t = 0; t + 1 < n; ++t)
        {
            Step step;
            step.sends.push_back({member(r + 1), chunks[(r + n - t) % n]});
            step.recvs.push_back({member(r + n - 1), chunks[(r + 2 * n - t - 1) % n], false});
            chain.push_back(step);
        }
    }
    return p;
}

} // namespace ns3
