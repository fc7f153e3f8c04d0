// SPDX-License-Identifier: GPL-2.0-only
#include "direct-all-to-all.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetDirectAllToAll");
NS_OBJECT_ENSURE_REGISTERED(DirectAllToAll);

TypeId
DirectAllToAll::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectAllToAll")
                            .SetParent<AllToAll>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<DirectAllToAll>();
    return tid;
}

DirectAllToAll::DirectAllToAll() = default;
DirectAllToAll::~DirectAllToAll() = default;

std::string
DirectAllToAll::GetAlgorithmName() const
{
    return "direct";
}

StepwiseCollective::Program
DirectAllToAll::BuildProgram() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    Program p(n, MemberProgram(1));
    for (uint32_t i = 0; i < n; ++i)
    {
        Step step;
        for (uint32_t s = 1; s < n; ++s)
        {
            uint32_t to = (i + s) % n;
            step.sends.push_back({to, SendBlock(to)});
        }
        for (uint32_t s = 1; s < n; ++s)
        {
            uint32_t from = (i + n - s) % n;
            step.recvs.push_back({from, ReceiveBlock(from), false});
        }
        p[i][0].push_back(step);
    }
    return p;
}

} // namespace ns3
