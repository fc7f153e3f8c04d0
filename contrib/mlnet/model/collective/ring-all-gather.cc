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

std::vector<uint32_t>
RingAllGather::ChainLengths(uint32_t /* member */) const
{
    return {static_cast<uint32_t>(m_ranks.size()) - 1};
}

void
RingAllGather::BuildStep(uint32_t i, uint32_t /* chain */, uint32_t t, Step& out) const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto chunk = [&](uint32_t k) { return SplitPart({0, GetUnits()}, n, k); };
    const RingChunks k = RingAllReduceStep(i, n, n - 1 + t); // the all-reduce's last n - 1
    out.sends.assign(1, {(i + 1) % n, chunk(k.send)});
    out.recvs.assign(1, {(i + n - 1) % n, chunk(k.recv), k.reduce});
}

bool
RingAllGather::ReceiveReduces(uint32_t /* member */,
                              uint32_t /* chain */,
                              uint32_t /* step */,
                              uint32_t /* from */) const
{
    return false;
}

uint64_t
RingAllGather::MessageCount() const
{
    return OneSendPerStepCount();
}

} // namespace ns3
