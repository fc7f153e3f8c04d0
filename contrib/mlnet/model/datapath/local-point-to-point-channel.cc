// SPDX-License-Identifier: GPL-2.0-only
#include "local-point-to-point-channel.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetLocalPointToPointChannel");
NS_OBJECT_ENSURE_REGISTERED(LocalPointToPointChannel);

TypeId
LocalPointToPointChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LocalPointToPointChannel")
                            .SetParent<PointToPointChannel>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<LocalPointToPointChannel>()
                            .AddAttribute("Jitter",
                                          "Largest random extra delay of a frame (uniform "
                                          "in [0, Jitter]; frames keep their order): breaks "
                                          "the lockstep of equal-rate senders. 0: none",
                                          TimeValue(Time(0)),
                                          MakeTimeAccessor(&LocalPointToPointChannel::m_jitter),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

LocalPointToPointChannel::LocalPointToPointChannel() = default;
LocalPointToPointChannel::~LocalPointToPointChannel() = default;

bool
LocalPointToPointChannel::TransmitStart(Ptr<const Packet> p,
                                        Ptr<PointToPointNetDevice> src,
                                        Time txTime)
{
    NS_LOG_FUNCTION(this << p << src << txTime);
    NS_ASSERT_MSG(IsInitialized(), "both ends must be attached before a frame is sent");
    uint32_t wire = src == GetSource(0) ? 0 : 1;
    Ptr<PointToPointNetDevice> dst = GetDestination(wire);
    // The same event PointToPointChannel schedules, with the frame instead of a copy
    // (later by its jitter, not before the frame before it).
    Time delay = txTime + GetDelay();
    if (m_jitter.IsStrictlyPositive())
    {
        if (!m_jitterRv)
        {
            m_jitterRv = CreateObject<UniformRandomVariable>();
        }
        const Time now = Simulator::Now();
        const Time arrival = std::max(
            now + delay +
                TimeStep(static_cast<int64_t>(
                    m_jitterRv->GetValue(0, static_cast<double>(m_jitter.GetTimeStep()) + 1))),
            m_lastArrival[wire]);
        m_lastArrival[wire] = arrival;
        delay = arrival - now;
    }
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   delay,
                                   &PointToPointNetDevice::Receive,
                                   dst,
                                   ConstCast<Packet>(p));
    return true;
}

Time
LocalPointToPointChannel::GetJitter() const
{
    return m_jitter;
}

int64_t
LocalPointToPointChannel::AssignStreams(int64_t stream)
{
    if (!m_jitterRv)
    {
        m_jitterRv = CreateObject<UniformRandomVariable>();
    }
    m_jitterRv->SetStream(stream);
    return 1;
}

void
LocalPointToPointChannel::DoDispose()
{
    m_jitterRv = nullptr;
    PointToPointChannel::DoDispose();
}

} // namespace ns3
