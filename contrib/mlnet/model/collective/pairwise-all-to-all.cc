// SPDX-License-Identifier: GPL-2.0-only
#include "pairwise-all-to-all.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetPairwiseAllToAll");
NS_OBJECT_ENSURE_REGISTERED(PairwiseAllToAll);

TypeId
PairwiseAllToAll::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PairwiseAllToAll")
                            .SetParent<AllToAll>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<PairwiseAllToAll>();
    return tid;
}

PairwiseAllToAll::PairwiseAllToAll() = default;
PairwiseAllToAll::~PairwiseAllToAll() = default;

std::string
PairwiseAllToAll::GetAlgorithmName() const
{
    return "pairwise";
}

std::vector<uint32_t>
PairwiseAllToAll::ChainLengths(uint32_t /* member */) const
{
    return {static_cast<uint32_t>(m_ranks.size()) - 1};
}

void
PairwiseAllToAll::BuildStep(uint32_t member, uint32_t /* chain */, uint32_t step, Step& out) const
{
    // Step s (from 0) sends to the member s + 1 ahead, receives from the one s + 1 behind.
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    const uint32_t to = (member + step + 1) % n;
    const uint32_t from = (member + n - step - 1) % n;
    out.sends.assign(1, {to, SendBlock(to)});
    out.recvs.assign(1, {from, ReceiveBlock(from), false});
}

} // namespace ns3
