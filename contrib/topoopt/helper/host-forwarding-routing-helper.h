// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostForwardingRoutingHelper: installs HostForwardingRouting through
 * InternetStackHelper::SetRoutingHelper, with the flow-hash seed derived from the
 * node id and the run number exactly as mlnet's FlowHashRoutingHelper does.
 */
#ifndef TOPOOPT_HOST_FORWARDING_ROUTING_HELPER_H
#define TOPOOPT_HOST_FORWARDING_ROUTING_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/nstime.h"

namespace ns3
{

/**
 * \brief Creates a HostForwardingRouting protocol for each node.
 */
class HostForwardingRoutingHelper : public Ipv4RoutingHelper
{
public:
    /**
     * \param latency per-hop relay latency (0: free)
     * \param rate relay bandwidth cap (0: none)
     */
    HostForwardingRoutingHelper(Time latency = Seconds(0), DataRate rate = DataRate(0));
    HostForwardingRoutingHelper* Copy() const override;
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;

private:
    Time m_latency;
    DataRate m_rate;
};

} // namespace ns3

#endif // TOPOOPT_HOST_FORWARDING_ROUTING_HELPER_H
