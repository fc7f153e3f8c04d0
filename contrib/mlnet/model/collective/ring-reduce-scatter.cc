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

std::vector<uint32_t>
RingReduceScatter::ChainLengths(uint32_t /* member */) const
{
    return {static_cast<uint32_t>(m_ranks.size()) - 1};
}

void
RingReduceScatter::BuildStep(uint32_t i, uint32_t /* chain */, uint32_t t, Step& out) const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto chunk = [&](uint32_t k) { return SplitPart({0, GetUnits()}, n, k); };
    const RingChunks k = RingAllReduceStep(i, n, t); // the all-reduce's first n - 1 steps
    out.sends.assign(1, {(i + 1) % n, chunk(k.send)});
    out.recvs.assign(1, {(i + n - 1) % n, chunk(k.recv), k.reduce});
}

bool
RingReduceScatter::ReceiveReduces(uint32_t /* member */,
                                  uint32_t /* chain */,
                                  uint32_t /* step */,
                                  uint32_t /* from */) const
{
    return true;
}

uint64_t
RingReduceScatter::MessageCount() const
{
    return OneSendPerStepCount();
}

} // namespace ns3
