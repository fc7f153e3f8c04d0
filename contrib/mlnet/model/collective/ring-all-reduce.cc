// SPDX-License-Identifier: GPL-2.0-only
#include "ring-all-reduce.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <limits>
#include <numeric>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingAllReduce")
            .SetParent<StepwiseCollective>()
            .SetGroupName("Mlnet")
            .AddConstructor<RingAllReduce>()
            .AddAttribute("Slices",
                          "Pipelining: each chunk is cut into this many slices that travel the "
                          "ring independently (count, >= 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RingAllReduce::m_slices),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

RingAllReduce::RingAllReduce() = default;
RingAllReduce::~RingAllReduce() = default;

void
RingAllReduce::SetRings(const std::vector<std::vector<uint32_t>>& orders)
{
    m_rings = orders;
    // Each member's place in each ring (members outside 0..size-1 are refused at Setup).
    m_position.assign(orders.size(), {});
    for (size_t r = 0; r < orders.size(); ++r)
    {
        m_position[r].assign(orders[r].size(), 0);
        for (uint32_t pos = 0; pos < orders[r].size(); ++pos)
        {
            if (orders[r][pos] < orders[r].size())
            {
                m_position[r][orders[r][pos]] = pos;
            }
        }
    }
}

std::vector<std::vector<uint32_t>>
RingAllReduce::GetRings() const
{
    if (!m_rings.empty())
    {
        return m_rings;
    }
    std::vector<uint32_t> order(m_ranks.size());
    std::iota(order.begin(), order.end(), 0);
    return {order};
}

std::string
RingAllReduce::GetCollectiveName() const
{
    return "allreduce";
}

std::string
RingAllReduce::GetAlgorithmName() const
{
    return "ring";
}

void
RingAllReduce::ValidateConfig() const
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    for (size_t r = 0; r < m_rings.size(); ++r)
    {
        std::vector<bool> seen(n, false);
        bool ok = m_rings[r].size() == n;
        for (uint32_t m : m_rings[r])
        {
            ok = ok && m < n && !seen[m];
            if (m < n)
            {
                seen[m] = true;
            }
        }
        if (!ok)
        {
            throw std::invalid_argument("ring " + std::to_string(r) +
                                        " is not a permutation of the member indexes 0.." +
                                        std::to_string(n - 1) + "; list every member once");
        }
    }
}

std::vector<uint32_t>
RingAllReduce::ChainLengths(uint32_t /* member */) const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    const size_t rings = m_rings.empty() ? 1 : m_rings.size();
    return std::vector<uint32_t>(rings * m_slices, 2 * (n - 1));
}

void
RingAllReduce::BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    const uint32_t nRings = m_rings.empty() ? 1 : static_cast<uint32_t>(m_rings.size());
    // Chains are slice-major, so step 0 sends every ring's first slice before any
    // second slice.
    const uint32_t r = chain % nRings;
    const uint32_t slice = chain / nRings;
    auto at = [&](uint32_t pos) { return m_rings.empty() ? pos : m_rings[r][pos]; };
    const uint32_t pos = m_rings.empty() ? member : m_position[r][member];
    const Segment ringShare = SplitPart({0, GetUnits()}, nRings, r);
    auto slicedChunk = [&](uint32_t chunk) {
        return SplitPart(SplitPart(ringShare, n, chunk), m_slices, slice);
    };
    // Reduce-scatter for N - 1 steps (received chunks are added), then all-gather.
    const RingChunks k = RingAllReduceStep(pos, n, step);
    out.sends.assign(1, {at((pos + 1) % n), slicedChunk(k.send)});
    out.recvs.assign(1, {at((pos + n - 1) % n), slicedChunk(k.recv), k.reduce});
}

uint64_t
RingAllReduce::ShortestMessageUnits() const
{
    const uint32_t n = static_cast<uint32_t>(m_ranks.size());
    if (n < 2)
    {
        return std::numeric_limits<uint64_t>::max(); // no step, no message
    }
    const uint32_t nRings = m_rings.empty() ? 1 : static_cast<uint32_t>(m_rings.size());
    const Segment ring = SplitPart({0, GetUnits()}, nRings, nRings - 1);
    const Segment chunk = SplitPart(ring, n, n - 1);
    return SplitPart(chunk, m_slices, m_slices - 1).length;
}

bool
RingAllReduce::ReceiveReduces(uint32_t /* member */,
                              uint32_t /* chain */,
                              uint32_t step,
                              uint32_t /* from */) const
{
    return step + 1 < static_cast<uint32_t>(m_ranks.size()); // RingAllReduceStep's reduce
}

uint64_t
RingAllReduce::MessageCount() const
{
    return OneSendPerStepCount();
}

} // namespace ns3
