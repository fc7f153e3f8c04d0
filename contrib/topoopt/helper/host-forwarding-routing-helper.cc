// SPDX-License-Identifier: GPL-2.0-only
#include "host-forwarding-routing-helper.h"

#include "ns3/hash.h"
#include "ns3/host-forwarding-routing.h"
#include "ns3/node.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/uinteger.h"

namespace ns3
{

HostForwardingRoutingHelper::HostForwardingRoutingHelper(Time latency, DataRate rate)
    : m_latency(latency),
      m_rate(rate)
{
}

HostForwardingRoutingHelper*
HostForwardingRoutingHelper::Copy() const
{
    return new HostForwardingRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
HostForwardingRoutingHelper::Create(Ptr<Node> node) const
{
    // Same seed as FlowHashRoutingHelper, so ECMP choices match an mlnet fabric's.
    uint64_t key[2] = {node->GetId(),
                       RngSeedManager::GetRun() * 1000003ULL + RngSeedManager::GetSeed()};
    uint32_t seed = Hash32(reinterpret_cast<const char*>(key), sizeof(key));
    Ptr<HostForwardingRouting> routing = CreateObject<HostForwardingRouting>();
    routing->SetAttribute("Seed", UintegerValue(seed));
    routing->SetAttribute("ForwardingLatency", TimeValue(m_latency));
    routing->SetAttribute("ForwardingRate", DataRateValue(m_rate));
    return routing;
}

} // namespace ns3
