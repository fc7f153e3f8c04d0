// SPDX-License-Identifier: GPL-2.0-only
#include "halving-doubling-all-reduce.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetHalvingDoublingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingAllReduce);

TypeId
HalvingDoublingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingAllReduce")
                            .SetParent<StepwiseCollective>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<HalvingDoublingAllReduce>();
    return tid;
}

HalvingDoublingAllReduce::HalvingDoublingAllReduce() = default;
HalvingDoublingAllReduce::~HalvingDoublingAllReduce() = default;

std::string
HalvingDoublingAllReduce::GetCollectiveName() const
{
    return "allreduce";
}

std::string
HalvingDoublingAllReduce::GetAlgorithmName() const
{
    return "hd";
}

void
HalvingDoublingAllReduce::ValidateConfig() const
{
    size_t n = m_ranks.size();
    if ((n & (n - 1)) != 0)
    {
        throw std::invalid_argument("halving-doubling needs a power-of-two number of ranks, got " +
                                    std::to_string(n) + "; use --algorithm=ring");
    }
}

StepwiseCollective::Program
HalvingDoublingAllReduce::BuildProgram() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto blocks = Split({0, GetUnits()}, n);
    // Blocks [first, first + count) as one contiguous segment.
    auto range = [&blocks](uint32_t first, uint32_t count) {
        Segment s{blocks[first].offset, 0};
        for (uint32_t b = first; b < first + count; ++b)
        {
            s.length += blocks[b].length;
        }
        return s;
    };
    Program p(n, MemberProgram(1));
    for (uint32_t i = 0; i < n; ++i)
    {
        auto& chain = p[i][0];
        // Reduce-scatter by recursive halving, farthest partner first.
        for (uint32_t mask = n / 2; mask >= 1; mask /= 2)
        {
            uint32_t partner = i ^ mask;
            uint32_t lo = i & ~(2 * mask - 1);
            uint32_t keep = (i & mask) ? lo + mask : lo;
            uint32_t give = (i & mask) ? lo : lo + mask;
            Step step;
            step.sends.push_back({partner, range(give, mask)});
            step.recvs.push_back({partner, range(keep, mask), true});
            chain.push_back(step);
        }
        // All-gather by recursive doubling, nearest partner first.
        for (uint32_t mask = 1; mask < n; mask *= 2)
        {
            uint32_t partner = i ^ mask;
            Step step;
            step.sends.push_back({partner, range(i & ~(mask - 1), mask)});
            step.recvs.push_back({partner, range(partner & ~(mask - 1), mask), false});
            chain.push_back(step);
        }
    }
    return p;
}

} // namespace ns3
