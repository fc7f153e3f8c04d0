// SPDX-License-Identifier: GPL-2.0-only
#include "send-recv.h"

#include "ns3/log.h"

#include <stdexcept>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetSendRecv");
NS_OBJECT_ENSURE_REGISTERED(SendRecv);

TypeId
SendRecv::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SendRecv")
                            .SetParent<StepwiseCollective>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<SendRecv>();
    return tid;
}

SendRecv::SendRecv() = default;
SendRecv::~SendRecv() = default;

void
SendRecv::SetPairs(const std::vector<std::pair<uint32_t, uint32_t>>& pairs)
{
    m_pairs = pairs;
    // Slot 0 of a member's buffer is what it sends; its receives follow in pair order.
    m_slots.assign(pairs.size(), 0);
    std::unordered_map<uint32_t, uint32_t> received; // member -> receives so far
    for (size_t k = 0; k < pairs.size(); ++k)
    {
        m_slots[k] = ++received[pairs[k].second];
    }
}

std::string
SendRecv::GetCollectiveName() const
{
    return "sendrecv";
}

std::string
SendRecv::GetAlgorithmName() const
{
    return "direct";
}

void
SendRecv::ValidateConfig() const
{
    if (m_pairs.empty())
    {
        throw std::invalid_argument("send/recv needs at least one (from, to) pair");
    }
    for (const auto& [from, to] : m_pairs)
    {
        if (from >= m_ranks.size() || to >= m_ranks.size() || from == to)
        {
            throw std::invalid_argument("send/recv pair (" + std::to_string(from) + ", " +
                                        std::to_string(to) +
                                        ") is invalid: give two different member indexes below " +
                                        std::to_string(m_ranks.size()));
        }
    }
}

uint32_t
SendRecv::CountReceives(uint32_t member) const
{
    uint32_t k = 0;
    for (const auto& pr : m_pairs)
    {
        k += pr.second == member ? 1 : 0;
    }
    return k;
}

Eigen::VectorXf
SendRecv::MakeWorkBuffer(uint32_t member) const
{
    // [ what I send | what I receive, one slot per pair to me ]
    Eigen::Index len = static_cast<Eigen::Index>(GetUnits());
    Eigen::VectorXf work = Eigen::VectorXf::Zero(len * (1 + CountReceives(member)));
    work.head(len) = m_in[member];
    return work;
}

void
SendRecv::FinishMember(uint32_t member)
{
    if (HasRealPayload() && CountReceives(member) > 0)
    {
        Eigen::Index len = static_cast<Eigen::Index>(GetUnits());
        Eigen::VectorXf got = m_out[member].tail(m_out[member].size() - len);
        m_out[member] = got;
    }
}

std::vector<uint32_t>
SendRecv::ChainLengths(uint32_t member) const
{
    // One chain per pair, so two messages between the same members stay distinct: one
    // step on its two members, none on the others.
    std::vector<uint32_t> lengths(m_pairs.size(), 0);
    for (size_t k = 0; k < m_pairs.size(); ++k)
    {
        lengths[k] = m_pairs[k].first == member || m_pairs[k].second == member ? 1 : 0;
    }
    return lengths;
}

void
SendRecv::BuildStep(uint32_t member, uint32_t chain, uint32_t /* step */, Step& out) const
{
    const auto [from, to] = m_pairs[chain];
    const uint64_t units = GetUnits();
    out.sends.clear();
    out.recvs.clear();
    if (member == from)
    {
        out.sends.push_back({to, {0, units}});
    }
    if (member == to)
    {
        out.recvs.push_back({from, {m_slots[chain] * units, units}, false});
    }
}

bool
SendRecv::ReceiveReduces(uint32_t /* member */,
                         uint32_t /* chain */,
                         uint32_t /* step */,
                         uint32_t /* from */) const
{
    return false; // a receive is copied into its slot
}

uint64_t
SendRecv::ShortestMessageUnits() const
{
    return GetUnits(); // every message is the whole input
}

uint64_t
SendRecv::MessageCount() const
{
    return m_pairs.size();
}

} // namespace ns3
