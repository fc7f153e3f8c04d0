// SPDX-License-Identifier: GPL-2.0-only
#include "flow-hash-routing-helper.h"

#include "ns3/flow-hash-routing.h"
#include "ns3/hash.h"
#include "ns3/node.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/uinteger.h"

namespace ns3
{

FlowHashRoutingHelper::FlowHashRoutingHelper() = default;

FlowHashRoutingHelper*
FlowHashRoutingHelper::Copy() const
{
    return new FlowHashRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
FlowHashRoutingHelper::Create(Ptr<Node> node) const
{
    uint32_t seed = FlowHashRouting::DefaultSeed(node->GetId());
    Ptr<FlowHashRouting> routing = CreateObject<FlowHashRouting>();
    routing->SetAttribute("Seed", UintegerValue(seed));
    return routing;
}

} // namespace ns3
