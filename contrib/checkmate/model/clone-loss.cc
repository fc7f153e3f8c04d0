// SPDX-License-Identifier: GPL-2.0-only
#include "clone-loss.h"

#include "ns3/assert.h"

namespace ns3
{

void
CloneLoss::SetStream(int64_t stream)
{
    m_rng = CreateObject<UniformRandomVariable>();
    m_rng->SetStream(stream);
}

void
CloneLoss::Drop(uint32_t iteration, uint32_t index)
{
    m_drops.insert({iteration, index});
}

bool
CloneLoss::NextIsLost(uint32_t iteration, double rate)
{
    if (m_copied.find(iteration) == m_copied.end())
    {
        // A new iteration: the ring's previous one may still be copying, older ones not.
        while (!m_copied.empty() && m_copied.begin()->first + 1 < iteration)
        {
            m_copied.erase(m_copied.begin());
        }
    }
    const uint32_t index = m_copied[iteration]++;
    NS_ASSERT_MSG(rate == 0 || m_rng, "CloneLoss: a loss rate without SetStream");
    const bool drawn = rate > 0 && m_rng->GetValue() < rate;
    return drawn || m_drops.count({iteration, index}) > 0;
}

void
CloneLoss::Dispose()
{
    m_rng = nullptr;
}

} // namespace ns3
