#include "direct-all-to-all.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetDirectAllToAll");
NS_OBJECT_ENSURE_REGISTERED(DirectAllToAll);

TypeId DirectAllToAll::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectAllToAll")
                            .SetParent<StepwiseCollective>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<DirectAllToAll>();
    return tid;
}

DirectAllToAll::DirectAllToAll() = default;
DirectAllToAll::~DirectAllToAll() = default;

std::string DirectAllToAll::GetCollectiveName() const
{
    return "alltoall";
}

std::string DirectAllToAll::GetAlgorithmName() const
{
    return "direct";
}

uint64_t DirectAllToAll::GetInputLength(uint32_t /* member */) const
{
    return m_ranks.size() * (m_bytes / 4);
}

Eigen::VectorXf DirectAllToAll::MakeWorkBuffer(uint32_t member) const
{
    // [ N blocks to send | N blocks received ]: a received block must not
    // overwrite the block still to be sent to the same member.
    Eigen::Index len = static_cast<Eigen::Index>(m_ranks.size() * GetUnits());
    Eigen::Index block = static_cast<Eigen::Index>(GetUnits());
    Eigen::VectorXf work = Eigen::VectorXf::Zero(2 * len);
    work.head(len) = m_in[member];
    work.segment(len + member * block, block) = m_in[member].segment(member * block, block);
    return work;
}

void DirectAllToAll::FinishMember(uint32_t member)
{
    if (HasRealPayload())
    {
        Eigen::VectorXf received = m_out[member].tail(m_out[member].size() / 2);
        m_out[member] = received;
    }
}

StepwiseCollective::Program DirectAllToAll::BuildProgram() const
{
    // Block j of the send half goes to member j; block j of the receive half
    // (offset N blocks) comes from member j.
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    uint64_t units = GetUnits();
    uint64_t received = n * units;
    Program p(n, MemberProgram(1));
    for (uint32_t i = 0; i < n; ++i)
    {
        Step step;
        for (uint32_t s = 1; s < n; ++s)
        {
            uint32_t to = (i + s) % n;
            step.sends.push_back({ to, { to * units, units } });
        }
        for (uint32_t s = 1; s < n; ++s)
        {
            uint32_t from = (i + n - s) % n;
            step.recvs.push_back({ from, { received + from * units, units }, false });
        }
        p[i][0].push_back(step);
    }
    return p;
}

} // namespace ns3
