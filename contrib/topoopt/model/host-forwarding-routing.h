// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostForwardingRouting: mlnet's flow-hash routing on a server that also relays
 * transit traffic, as TopoOpt's hosts do (there is no packet switch in a
 * direct-connect fabric; the prototype relays with tc flower/pedit/mirred rules).
 *
 * What it models. Packets for the server itself are delivered as before.
 * A transit packet waits ForwardingLatency (the relay's per-hop cost), and,
 * when ForwardingRate is set, passes a FIFO relay engine of that rate (the
 * server's forwarding bandwidth cap, in IP bytes), before it is handed to the
 * output port. Both zero reproduce the released TopoOpt simulator, where
 * forwarding is free.
 *
 * What it leaves out: CPU/NIC contention between relayed and own traffic
 * beyond the shared engine, a bound on the relay queue (unbounded FIFO), and
 * per-path routing: the next hop depends on the destination only, as
 * FlowHashRouting decides it.
 */
#ifndef TOPOOPT_HOST_FORWARDING_ROUTING_H
#define TOPOOPT_HOST_FORWARDING_ROUTING_H

#include "ns3/data-rate.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/nstime.h"

namespace ns3
{

/**
 * \brief Flow-hash routing with a per-hop relay latency and an optional relay rate cap.
 */
class HostForwardingRouting : public FlowHashRouting
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    HostForwardingRouting();
    ~HostForwardingRouting() override;

    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;

    /// \return transit packets relayed so far
    uint64_t GetRelayedPackets() const;

protected:
    void DoDispose() override;

private:
    void Relay(UnicastForwardCallback ucb,
               Ptr<Ipv4Route> route,
               Ptr<const Packet> p,
               const Ipv4Header& header);
    void Forward(UnicastForwardCallback ucb,
                 Ptr<Ipv4Route> route,
                 Ptr<const Packet> p,
                 Ipv4Header header);

    Time m_latency{0};      //!< attribute ForwardingLatency
    DataRate m_rate{0};     //!< attribute ForwardingRate (0: no cap)
    Time m_engineFreeAt{0}; //!< when the relay engine finishes its backlog
    uint64_t m_relayed{0};
    UnicastForwardCallback m_forward; //!< the stack's forward callback (last seen)
    UnicastForwardCallback m_relay;   //!< it, wrapped by Relay

    TracedCallback<Ptr<const Packet>, Time> m_relayTrace; //!< (packet, wait before sending)
};

} // namespace ns3

#endif // TOPOOPT_HOST_FORWARDING_ROUTING_H
