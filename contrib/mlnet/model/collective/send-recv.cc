// SPDX-License-Identifier: GPL-2.0-only
#include "send-recv.h"

#include "ns3/log.h"

#include <stdexcept>

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

StepwiseCollective::Program
SendRecv::BuildProgram() const
{
    // One chain per pair, so two messages between the same members stay distinct.
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    uint64_t units = GetUnits();
    Program p(n, MemberProgram(m_pairs.size()));
    std::vector<uint32_t> slot(n, 1);
    for (size_t k = 0; k < m_pairs.size(); ++k)
    {
        auto [from, to] = m_pairs[k];
        Step send;
        send.sends.push_back({to, {0, units}});
        p[from][k].push_back(send);
        Step recv;
        recv.recvs.push_back({from, {slot[to]++ * units, units}, false});
        p[to][k].push_back(recv);
    }
    return p;
}

} // namespace ns3
