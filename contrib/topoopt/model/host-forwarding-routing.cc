// SPDX-License-Identifier: GPL-2.0-only
#include "host-forwarding-routing.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptHostForwardingRouting");
NS_OBJECT_ENSURE_REGISTERED(HostForwardingRouting);

TypeId
HostForwardingRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostForwardingRouting")
            .SetParent<FlowHashRouting>()
            .SetGroupName("Topoopt")
            .AddConstructor<HostForwardingRouting>()
            .AddAttribute("ForwardingLatency",
                          "Time a server takes to relay one transit packet (s); 0: free.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostForwardingRouting::m_latency),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ForwardingRate",
                          "Relay bandwidth cap of the server (bit/s of IP packets, FIFO); "
                          "0: no cap.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&HostForwardingRouting::m_rate),
                          MakeDataRateChecker())
            .AddTraceSource("Relay",
                            "A transit packet was relayed: (packet, time it waited).",
                            MakeTraceSourceAccessor(&HostForwardingRouting::m_relayTrace),
                            "ns3::HostForwardingRouting::RelayTracedCallback");
    return tid;
}

HostForwardingRouting::HostForwardingRouting() = default;
HostForwardingRouting::~HostForwardingRouting() = default;

void
HostForwardingRouting::DoDispose()
{
    m_forward.Nullify();
    m_relay.Nullify();
    FlowHashRouting::DoDispose();
}

bool
HostForwardingRouting::RouteInput(Ptr<const Packet> p,
                                  const Ipv4Header& header,
                                  Ptr<const NetDevice> idev,
                                  UnicastForwardCallback ucb,
                                  MulticastForwardCallback mcb,
                                  LocalDeliverCallback lcb,
                                  ErrorCallback ecb)
{
    // The stack passes the same forward callback every time: wrap it once.
    if (m_relay.IsNull() || !m_forward.IsEqual(ucb))
    {
        m_forward = ucb;
        m_relay = MakeCallback(&HostForwardingRouting::Relay, this).Bind(ucb);
    }
    return FlowHashRouting::RouteInput(p, header, idev, m_relay, mcb, lcb, ecb);
}

void
HostForwardingRouting::Relay(UnicastForwardCallback ucb,
                             Ptr<Ipv4Route> route,
                             Ptr<const Packet> p,
                             const Ipv4Header& header)
{
    ++m_relayed;
    if (m_latency.IsZero() && m_rate.GetBitRate() == 0)
    {
        m_relayTrace(p, Time(0));
        ucb(route, p, header);
        return;
    }
    Time now = Simulator::Now();
    Time ready = now;
    if (m_rate.GetBitRate() > 0)
    {
        Time start = std::max(now, m_engineFreeAt);
        m_engineFreeAt =
            start + m_rate.CalculateBytesTxTime(p->GetSize() + header.GetSerializedSize());
        ready = m_engineFreeAt;
    }
    Time wait = ready - now + m_latency;
    m_relayTrace(p, wait);
    Simulator::Schedule(wait, &HostForwardingRouting::Forward, this, ucb, route, p, header);
}

void
HostForwardingRouting::Forward(UnicastForwardCallback ucb,
                               Ptr<Ipv4Route> route,
                               Ptr<const Packet> p,
                               Ipv4Header header)
{
    ucb(route, p, header);
}

uint64_t
HostForwardingRouting::GetRelayedPackets() const
{
    return m_relayed;
}

} // namespace ns3
