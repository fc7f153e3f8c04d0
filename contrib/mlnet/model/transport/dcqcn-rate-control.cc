// SPDX-License-Identifier: GPL-2.0-only
#include "dcqcn-rate-control.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
/// A rate this close below the target (bit/s) is the target.
constexpr double kSnapBitRate = 1.0;
} // namespace

DcqcnRateControl::DcqcnRateControl(const Parameters& p)
    : m_p(p),
      m_rate(p.lineRate),
      m_target(p.lineRate),
      m_alpha(p.initialAlpha)
{
    if (!(p.lineRate > 0) || !(p.minRate > 0) || p.minRate > p.lineRate)
    {
        throw std::invalid_argument("DCQCN: need 0 < MinRate (" + std::to_string(p.minRate) +
                                    " bit/s) <= line rate (" + std::to_string(p.lineRate) +
                                    " bit/s); lower MinRate");
    }
    if (!(p.g > 0 && p.g <= 1) || !(p.initialAlpha >= 0 && p.initialAlpha <= 1))
    {
        throw std::invalid_argument("DCQCN: the alpha gain G must be in (0, 1] and the initial "
                                    "alpha in [0, 1]");
    }
    if (p.rateAi < 0 || p.rateHai < 0 || p.byteCounter == 0)
    {
        throw std::invalid_argument("DCQCN: RateAi and RateHai must be >= 0 and ByteCounter "
                                    "positive");
    }
}

void
DcqcnRateControl::OnCnp()
{
    m_target = m_rate;
    m_rate = std::max(m_p.minRate, m_rate * (1 - m_alpha / 2));
    m_alpha = (1 - m_p.g) * m_alpha + m_p.g;
    m_timerStages = 0;
    m_byteStages = 0;
    m_bytes = 0;
}

void
DcqcnRateControl::OnAlphaTimer()
{
    m_alpha = (1 - m_p.g) * m_alpha;
}

void
DcqcnRateControl::OnRateTimer()
{
    ++m_timerStages;
    Increase();
}

uint32_t
DcqcnRateControl::OnBytesSent(uint64_t bytes)
{
    m_bytes += bytes;
    uint32_t stages = 0;
    while (m_bytes >= m_p.byteCounter)
    {
        m_bytes -= m_p.byteCounter;
        ++m_byteStages;
        ++stages;
        Increase();
    }
    return stages;
}

void
DcqcnRateControl::Increase()
{
    uint32_t f = m_p.fastRecoverySteps;
    uint32_t hi = std::max(m_timerStages, m_byteStages);
    uint32_t lo = std::min(m_timerStages, m_byteStages);
    if (hi <= f)
    {
        // fast recovery (the first F stages of either counter): Rt stays
    }
    else if (lo > f)
    {
        m_target += (lo - f) * m_p.rateHai;
    }
    else
    {
        m_target += m_p.rateAi;
    }
    m_target = std::min(m_target, m_p.lineRate);
    m_rate = std::min(m_p.lineRate, (m_target + m_rate) / 2);
    if (m_target - m_rate < kSnapBitRate)
    {
        m_rate = m_target; // halving would never close the last bit/s exactly
    }
}

double
DcqcnRateControl::GetRate() const
{
    return m_rate;
}

double
DcqcnRateControl::GetTargetRate() const
{
    return m_target;
}

double
DcqcnRateControl::GetAlpha() const
{
    return m_alpha;
}

uint32_t
DcqcnRateControl::GetTimerStages() const
{
    return m_timerStages;
}

uint32_t
DcqcnRateControl::GetByteStages() const
{
    return m_byteStages;
}

bool
DcqcnRateControl::IsAtLineRate() const
{
    return m_rate >= m_p.lineRate && m_target >= m_p.lineRate;
}

const DcqcnRateControl::Parameters&
DcqcnRateControl::GetParameters() const
{
    return m_p;
}

} // namespace ns3
