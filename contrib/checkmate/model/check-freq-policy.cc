// SPDX-License-Identifier: GPL-2.0-only
#include "check-freq-policy.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateCheckFreqPolicy");
NS_OBJECT_ENSURE_REGISTERED(CheckFreqPolicy);

TypeId
CheckFreqPolicy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CheckFreqPolicy")
            .SetParent<Object>()
            .SetGroupName("Checkmate")
            .AddConstructor<CheckFreqPolicy>()
            .AddAttribute("SnapshotBandwidth",
                          "GPU -> CPU copy bandwidth of the snapshot phase (bytes/s).",
                          DoubleValue(12e9),
                          MakeDoubleAccessor(&CheckFreqPolicy::m_snapshotBw),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("PersistBandwidth",
                          "Write bandwidth of the persist phase (bytes/s); CheckFreq "
                          "estimates 515 MB/s.",
                          DoubleValue(515e6),
                          MakeDoubleAccessor(&CheckFreqPolicy::m_persistBw),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("MaxOverhead",
                          "Adaptive mode: overhead fraction above which the interval grows "
                          "by 2 iterations.",
                          DoubleValue(0.05),
                          MakeDoubleAccessor(&CheckFreqPolicy::m_maxOverhead),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Adaptive",
                          "Apply the adaptive rule.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CheckFreqPolicy::m_adaptive),
                          MakeBooleanChecker());
    return tid;
}

CheckFreqPolicy::CheckFreqPolicy() = default;
CheckFreqPolicy::~CheckFreqPolicy() = default;

uint32_t
CheckFreqPolicy::Interval(double iteration, double snapshot, double full)
{
    if (!(iteration > 0))
    {
        throw std::invalid_argument("CheckFreq needs a positive mean iteration time");
    }
    double k = std::ceil((full - snapshot) / iteration);
    return k < 1 ? 1 : static_cast<uint32_t>(k);
}

Time
CheckFreqPolicy::GetSnapshotTime(uint64_t bytes) const
{
    return Seconds(bytes / m_snapshotBw);
}

Time
CheckFreqPolicy::GetPersistTime(uint64_t bytes) const
{
    return Seconds(bytes / m_persistBw);
}

uint32_t
CheckFreqPolicy::ChooseInterval(uint64_t bytes, Time iteration) const
{
    double tc = GetSnapshotTime(bytes).GetSeconds();
    double tf = tc + GetPersistTime(bytes).GetSeconds();
    return Interval(iteration.GetSeconds(), tc, tf);
}

uint32_t
CheckFreqPolicy::Adapt(uint32_t interval, double overhead) const
{
    return m_adaptive && overhead > m_maxOverhead ? interval + 2 : interval;
}

Time
CheckFreqPolicy::GetStall(uint64_t bytes, Time compute) const
{
    Time tc = GetSnapshotTime(bytes);
    return tc > compute ? tc - compute : Time(0);
}

bool
CheckFreqPolicy::IsAdaptive() const
{
    return m_adaptive;
}

} // namespace ns3
