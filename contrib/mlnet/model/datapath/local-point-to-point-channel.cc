// SPDX-License-Identifier: GPL-2.0-only
#include "local-point-to-point-channel.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"

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
                            .AddConstructor<LocalPointToPointChannel>();
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
    // The same event PointToPointChannel schedules, with the frame instead of a copy.
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   txTime + GetDelay(),
                                   &PointToPointNetDevice::Receive,
                                   dst,
                                   ConstCast<Packet>(p));
    return true;
}

} // namespace ns3
