// SPDX-License-Identifier: GPL-2.0-only
#include "ring-broadcast.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRingBroadcast");
NS_OBJECT_ENSURE_REGISTERED(RingBroadcast);

TypeId
RingBroadcast::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingBroadcast")
                            .SetParent<StepwiseCollective>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<RingBroadcast>()
                            .AddAttribute("Root",
                                          "Member index (not rank) that holds the data.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&RingBroadcast::m_root),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RingBroadcast::RingBroadcast() = default;
RingBroadcast::~RingBroadcast() = default;

std::string
RingBroadcast::GetCollectiveName() const
{
    return "broadcast";
}

std::string
RingBroadcast::GetAlgorithmName() const
{
    return "ring";
}

void
RingBroadcast::ValidateConfig() const
{
    if (m_root >= m_ranks.size())
    {
        throw std::invalid_argument("broadcast Root " + std::to_string(m_root) +
                                    " is not a member index (the communicator has " +
                                    std::to_string(m_ranks.size()) + " members)");
    }
}

Eigen::VectorXf
RingBroadcast::MakeWorkBuffer(uint32_t member) const
{
    if (member == m_root)
    {
        return m_in[member];
    }
    return Eigen::VectorXf::Zero(static_cast<Eigen::Index>(GetUnits()));
}

std::vector<uint32_t>
RingBroadcast::ChainLengths(uint32_t /* member */) const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    uint32_t scatter = 1; // one direct scatter step unless N is a power of two
    if ((n & (n - 1)) == 0)
    {
        scatter = 0;
        for (uint32_t mask = n / 2; mask >= 1; mask /= 2)
        {
            ++scatter;
        }
    }
    return {scatter + n - 1};
}

void
RingBroadcast::BuildStep(uint32_t m, uint32_t /* chain */, uint32_t t, Step& out) const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    auto chunk = [&](uint32_t k) { return SplitPart({0, GetUnits()}, n, k); }; // relative rank k
    // Blocks [first, first + count) of the N equal blocks, as one contiguous segment.
    auto range = [&](uint32_t first, uint32_t count) {
        return SplitRange({0, GetUnits()}, n, first, count);
    };
    auto member = [this, n](uint32_t rel) { return (rel + m_root) % n; };
    const uint32_t r = (m + n - m_root % n) % n; // m's rank relative to the root
    const uint32_t scatter = ChainLengths(m)[0] - (n - 1);
    out.sends.clear();
    out.recvs.clear();
    if (t < scatter && (n & (n - 1)) == 0)
    {
        // Scatter by recursive halving from the root: step t halves blocks of 2 mask.
        const uint32_t mask = (n / 2) >> t;
        if (r % (2 * mask) == 0)
        {
            out.sends.push_back({member(r + mask), range(r + mask, mask)});
        }
        else if (r % (2 * mask) == mask)
        {
            out.recvs.push_back({member(r - mask), range(r, mask), false});
        }
        return;
    }
    if (t < scatter)
    {
        // N not a power of two: the root sends every other member its chunk at once.
        if (r == 0)
        {
            for (uint32_t dst = 1; dst < n; ++dst)
            {
                out.sends.push_back({member(dst), chunk(dst)});
            }
        }
        else
        {
            out.recvs.push_back({member(0), chunk(r), false});
        }
        return;
    }
    // Then a ring all-gather of the chunks.
    const RingChunks k = RingAllReduceStep(r, n, n - 1 + t - scatter);
    out.sends.push_back({member(r + 1), chunk(k.send)});
    out.recvs.push_back({member(r + n - 1), chunk(k.recv), k.reduce});
}

uint64_t
RingBroadcast::MessageCount() const
{
    const uint64_t n = m_ranks.size();
    return n < 2 ? 0 : (n - 1) + n * (n - 1);
}

bool
RingBroadcast::ReceiveReduces(uint32_t /* member */,
                              uint32_t /* chain */,
                              uint32_t /* step */,
                              uint32_t /* from */) const
{
    return false;
}

} // namespace ns3
