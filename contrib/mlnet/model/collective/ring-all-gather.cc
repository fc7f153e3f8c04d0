// SPDX-License-Identifier: GPL-2.0-only
#include "ring-all-gather.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRingAllGather");
NS_OBJECT_ENSURE_REGISTERED(RingAllGather);

TypeId
RingAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllGather")
                            .SetParent<StepwiseCollective>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<RingAllGather>();
    return tid;
}

RingAllGather::RingAllGather() = default;
RingAllGather::~RingAllGather() = default;

std::string
RingAllGather::GetCollectiveName() const
{
    return "allgather";
}

std::string
RingAllGather::GetAlgorithmName() const
{
    return "ring";
}

uint64_t
RingAllGather::GetInputLength(uint32_t member) const
{
    return Split({0, GetUnits()}, static_cast<uint32_t>(m_ranks.size()))[member].length;
}

Eigen::VectorXf
RingAllGather::MakeWorkBuffer(uint32_t member) const
{
    auto chunk = Split({0, GetUnits()}, static_cast<uint32_t>(m_ranks.size()))[member];
    Eigen::VectorXf work = Eigen::VectorXf::Zero(static_cast<Eigen::Index>(GetUnits()));
    work.segment(chunk.offset, chunk.length) = m_in[member];
    return work;
}

StepwiseCollective::Program
RingAllGather::BuildProgram() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto chunks = Split({0, GetUnits()}, n);
    Program p(n, MemberProgram(1));
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t t = 0; t + 1 < n; ++t)
        {
            Step step;
            step.sends.push_back({(i + 1) % n, chunks[(i + n - t) % n]});
            step.recvs.push_back({(i + n - 1) % n, chunks[(i + 2 * n - t - 1) % n], false});
            p[i][0].push_back(step);
        }
    }
    return p;
}

} // namespace ns3
