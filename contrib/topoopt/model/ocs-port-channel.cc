// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-port-channel.h"

#include "ns3/log.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/point-to-point-net-device.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptOcsPortChannel");
NS_OBJECT_ENSURE_REGISTERED(OcsPortChannel);

TypeId
OcsPortChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OcsPortChannel")
                            .SetParent<PointToPointChannel>()
                            .SetGroupName("Topoopt")
                            .AddConstructor<OcsPortChannel>();
    return tid;
}

OcsPortChannel::OcsPortChannel() = default;
OcsPortChannel::~OcsPortChannel() = default;

void
OcsPortChannel::DoDispose()
{
    m_switch = nullptr;
    PointToPointChannel::DoDispose();
}

void
OcsPortChannel::SetSwitch(Ptr<OpticalCircuitSwitch> ocs, uint32_t port)
{
    m_switch = ocs;
    m_port = port;
}

uint32_t
OcsPortChannel::GetPort() const
{
    return m_port;
}

bool
OcsPortChannel::TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime)
{
    NS_LOG_FUNCTION(this << p << src << txTime);
    if (!m_switch)
    {
        return false; // disposed
    }
    return m_switch->Transmit(m_port, p, txTime);
}

std::size_t
OcsPortChannel::GetNDevices() const
{
    return 2;
}

Ptr<NetDevice>
OcsPortChannel::GetDevice(std::size_t i) const
{
    Ptr<PointToPointNetDevice> own = GetPointToPointDevice(0);
    if (i == 0 || !m_switch)
    {
        return own;
    }
    Ptr<PointToPointNetDevice> peer = m_switch->GetPeerDevice(m_port);
    return peer ? peer : own;
}

} // namespace ns3
