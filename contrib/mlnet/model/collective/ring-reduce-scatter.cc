// SPDX-License-Identifier: GPL-2.0-only
#include "ring-reduce-scatter.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRingReduceScatter");
NS_OBJECT_ENSURE_REGISTERED(RingReduceScatter);

TypeId
RingReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingReduceScatter")
                            .SetParent<StepwiseCollective>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<RingReduceScatter>();
    return tid;
}

RingReduceScatter::RingReduceScatter() = default;
RingReduceScatter::~RingReduceScatter() = default;

std::string
RingReduceScatter::GetCollectiveName() const
{
    return "reducescatter";
}

std::string
RingReduceScatter::GetAlgorithmName() const
{
    return "ring";
}

void
RingReduceScatter::FinishMember(uint32_t member)
{
    if (HasRealPayload())
    {
        auto chunk = Split({0, GetUnits()}, static_cast<uint32_t>(m_ranks.size()))[member];
        Eigen::VectorXf mine = m_out[member].segment(chunk.offset, chunk.length);
        m_out[member] = mine;
    }
}

StepwiseCollective::Program
RingReduceScatter::BuildProgram() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto chunks = Split({0, GetUnits()}, n);
    Program p(n, MemberProgram(1));
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t t = 0; t + 1 < n; ++t)
        {
            Step step;
            step.sends.push_back({(i + 1) % n, chunks[(i + 2 * n - t - 1) % n]});
            step.recvs.push_back({(i + n - 1) % n, chunks[(i + 2 * n - t - 2) % n], true});
            p[i][0].push_back(step);
        }
    }
    return p;
}

} // namespace ns3
