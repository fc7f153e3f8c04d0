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

StepwiseCollective::Program
PairwiseAllToAll::BuildProgram() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    Program p(n, MemberProgram(1));
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t s = 1; s < n; ++s)
        {
            Step step;
            uint32_t to = (i + s) % n;
            uint32_t from = (i + n - s) % n;
            step.sends.push_back({to, SendBlock(to)});
            step.recvs.push_back({from, ReceiveBlock(from), false});
            p[i][0].push_back(step);
        }
    }
    return p;
}

} // namespace ns3
