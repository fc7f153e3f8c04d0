// SPDX-License-Identifier: GPL-2.0-only
/*
 * FlowHashRoutingHelper: installs FlowHashRouting on nodes through
 * InternetStackHelper::SetRoutingHelper, seeding each node's hash from its node id
 * and the run number (--RngRun), so ECMP choices change with the run and differ
 * between switches.
 */
#ifndef MLNET_FLOW_HASH_ROUTING_HELPER_H
#define MLNET_FLOW_HASH_ROUTING_HELPER_H

#include "ns3/ipv4-routing-helper.h"

namespace ns3
{

/**
 * \brief Creates a FlowHashRouting protocol for each node.
 */
class FlowHashRoutingHelper : public Ipv4RoutingHelper
{
public:
    FlowHashRoutingHelper();
    FlowHashRoutingHelper* Copy() const override;
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;
};

} // namespace ns3

#endif // MLNET_FLOW_HASH_ROUTING_HELPER_H
