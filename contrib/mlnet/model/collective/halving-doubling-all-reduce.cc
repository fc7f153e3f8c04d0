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

uint32_t
HalvingDoublingAllReduce::Rounds() const
{
    uint32_t log2n = 0;
    while ((2u << log2n) <= m_ranks.size())
    {
        ++log2n;
    }
    return log2n;
}

std::vector<uint32_t>
HalvingDoublingAllReduce::ChainLengths(uint32_t /* member */) const
{
    return {2 * Rounds()};
}

void
HalvingDoublingAllReduce::BuildStep(uint32_t i, uint32_t /* chain */, uint32_t t, Step& out) const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    const uint32_t half = Rounds();
    // Blocks [first, first + count) of the N equal blocks, as one contiguous segment.
    auto range = [&](uint32_t first, uint32_t count) {
        return SplitRange({0, GetUnits()}, n, first, count);
    };
    if (t < half)
    {
        // Reduce-scatter by recursive halving, farthest partner first.
        const uint32_t mask = (n / 2) >> t;
        const uint32_t partner = i ^ mask;
        const uint32_t lo = i & ~(2 * mask - 1);
        const uint32_t keep = (i & mask) ? lo + mask : lo;
        const uint32_t give = (i & mask) ? lo : lo + mask;
        out.sends.assign(1, {partner, range(give, mask)});
        out.recvs.assign(1, {partner, range(keep, mask), true});
        return;
    }
    // All-gather by recursive doubling, nearest partner first.
    const uint32_t mask = 1u << (t - half);
    const uint32_t partner = i ^ mask;
    out.sends.assign(1, {partner, range(i & ~(mask - 1), mask)});
    out.recvs.assign(1, {partner, range(partner & ~(mask - 1), mask), false});
}

bool
HalvingDoublingAllReduce::ReceiveReduces(uint32_t /* member */,
                                         uint32_t /* chain */,
                                         uint32_t step,
                                         uint32_t /* from */) const
{
    return step < Rounds(); // BuildStep's reduce-scatter half
}

uint64_t
HalvingDoublingAllReduce::MessageCount() const
{
    return OneSendPerStepCount();
}

} // namespace ns3
