// SPDX-License-Identifier: GPL-2.0-only
#include "all-to-all.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetAllToAll");
NS_OBJECT_ENSURE_REGISTERED(AllToAll);

TypeId
AllToAll::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AllToAll").SetParent<StepwiseCollective>().SetGroupName("Mlnet");
    return tid;
}

AllToAll::AllToAll() = default;
AllToAll::~AllToAll() = default;

std::string
AllToAll::GetCollectiveName() const
{
    return "alltoall";
}

uint64_t
AllToAll::GetInputLength(uint32_t /* member */) const
{
    return m_ranks.size() * (m_bytes / 4);
}

bool
AllToAll::ReceiveReduces(uint32_t /* member */,
                         uint32_t /* chain */,
                         uint32_t /* step */,
                         uint32_t /* from */) const
{
    return false;
}

StepwiseCollective::Segment
AllToAll::SendBlock(uint32_t j) const
{
    return {j * GetUnits(), GetUnits()};
}

StepwiseCollective::Segment
AllToAll::ReceiveBlock(uint32_t j) const
{
    return {(m_ranks.size() + j) * GetUnits(), GetUnits()};
}

Eigen::VectorXf
AllToAll::MakeWorkBuffer(uint32_t member) const
{
    // [ N blocks to send | N blocks received ]; a member's own block is copied across.
    Eigen::Index len = static_cast<Eigen::Index>(m_ranks.size() * GetUnits());
    Eigen::Index block = static_cast<Eigen::Index>(GetUnits());
    Eigen::VectorXf work = Eigen::VectorXf::Zero(2 * len);
    work.head(len) = m_in[member];
    work.segment(len + member * block, block) = m_in[member].segment(member * block, block);
    return work;
}

void
AllToAll::FinishMember(uint32_t member)
{
    if (HasRealPayload())
    {
        Eigen::VectorXf received = m_out[member].tail(m_out[member].size() / 2);
        m_out[member] = received;
    }
}

uint64_t
AllToAll::MessageCount() const
{
    const uint64_t n = m_ranks.size();
    return n < 2 ? 0 : n * (n - 1);
}

} // namespace ns3
