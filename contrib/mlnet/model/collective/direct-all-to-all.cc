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

std::vector<uint32_t>
DirectAllToAll::ChainLengths(uint32_t /* member */) const
{
    return {1};
}

void
DirectAllToAll::BuildStep(uint32_t member,
                          uint32_t /* chain */,
                          uint32_t /* step */,
                          Step& out) const
{
    // One step: send to every other member, nearest ahead first; receive from every
    // other, nearest behind first.
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    out.sends.clear();
    out.recvs.clear();
    out.sends.reserve(n - 1);
    out.recvs.reserve(n - 1);
    for (uint32_t s = 1; s < n; ++s)
    {
        const uint32_t to = (member + s) % n;
        out.sends.push_back({to, SendBlock(to)});
    }
    for (uint32_t s = 1; s < n; ++s)
    {
        const uint32_t from = (member + n - s) % n;
        out.recvs.push_back({from, ReceiveBlock(from), false});
    }
}

uint64_t
DirectAllToAll::ShortestMessageUnits() const
{
    return GetUnits(); // Setup refuses fewer than 2 members
}

} // namespace ns3
