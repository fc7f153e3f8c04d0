// SPDX-License-Identifier: GPL-2.0-only
/*
 * DirectConnectHelper: builds a TopoOpt direct-connect fabric from a TopologyPlan.
 *
 * n servers, each with d NIC ports; port p of every server is cabled to optical
 * plane p (one OpticalCircuitSwitch per plane) whose circuits are the plan's
 * plane p. Every circuit becomes a Cluster link of class "ocs" (parallel circuits
 * between the same pair stay separate links, with their own devices and queues).
 * There is no packet switch: servers relay transit traffic (shortest paths from
 * RoutePlanner, flow-hashed, plus a per-hop relay latency and an optional relay
 * rate cap). The Cluster is an
 * ordinary mlnet Cluster, so transports, collectives, the training driver and the
 * alpha-beta twin run on it unchanged; its DirectConnectFabric
 * (cluster->GetObject<DirectConnectFabric>()) reconfigures planes and keeps the
 * link registry and routes in step.
 *
 * Data paths (FabricHelper::SetDataPath). "ipv4" (the default): every server has
 * an Internet stack whose routing protocol is HostForwardingRouting. "fast": no
 * Internet stack; every server has mlnet's FastForwarding, whose relay stage
 * (RelayLatency, RelayRate) is set to the forwarding latency and rate, so a relayed
 * frame waits exactly what HostForwardingRouting makes it wait; the ports keep the
 * same addresses as flow keys, so flows hash onto the same circuits. The planes
 * work on the point-to-point devices either way, and DirectConnectFabric's route
 * recomputations go into whichever tables the servers have (RoutePlanner::Install):
 * same completion times and link bytes on both paths
 * (contrib/topoopt/test/direct-connect-fast-path-test.cc). "none" (the flow level's
 * graph): every circuit a graph link at its plane's rate and fibre delay, the ports'
 * addresses, no device, OCS port or DirectConnectFabric (the circuits stay as
 * planned); the flow level gives the fast path's results on it.
 *
 * Rates and delays come from FabricHelper's SetLinkRate / SetLinkDelay (they set
 * every plane's DataRate and FibreDelay); other switch attributes (Technology,
 * DarkPortPolicy, ReconfigurationDelay, optics) through SetOcsAttribute.
 *
 * Routing limit: forwarding is by destination (FlowHashRouting), so the plan's
 * per-pair routes are not followed; packets take shortest paths over the live
 * circuits (flow-hashed among equal-cost next hops). A plan whose routes are
 * shortest paths (TopologyFinder's BFS routes, direct ring hops) gets the same hop
 * counts, not necessarily the same paths.
 */
#ifndef TOPOOPT_DIRECT_CONNECT_HELPER_H
#define TOPOOPT_DIRECT_CONNECT_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/fabric-helper.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/topology-plan.h"

namespace ns3
{

/**
 * \brief Builds n servers x d ports over d optical planes from a TopologyPlan.
 */
class DirectConnectHelper : public FabricHelper
{
public:
    DirectConnectHelper();
    /// \param plan the topology to build (validated at Install)
    explicit DirectConnectHelper(const TopologyPlan& plan);

    /// \brief Use this plan.
    void SetPlan(const TopologyPlan& plan);
    /// \return the plan this helper builds
    const TopologyPlan& GetPlan() const;
    /// \brief Set an attribute of every plane's OpticalCircuitSwitch.
    void SetOcsAttribute(const std::string& name, const AttributeValue& value);
    /// \brief Per-hop relay latency of a server (default 0: free, as in the released code).
    void SetForwardingLatency(Time latency);
    /// \brief Relay bandwidth cap of a server (default 0: none).
    void SetForwardingRate(DataRate rate);
    /// \brief NIC ports each server has (default 0: the plan's degree). The plan's degree
    /// must not exceed it.
    void SetPortsPerServer(uint32_t ports);
    /// \brief Recompute routes around ports that go dark (default true).
    void SetRerouteAroundDarkPorts(bool reroute);

    /**
     * \brief Build the fabric.
     * \return the cluster (link class "ocs"), routes installed, with a
     * DirectConnectFabric aggregated (not on the "none" data path)
     * Throws std::invalid_argument for a bad plan or configuration.
     */
    Ptr<Cluster> Install() override;

private:
    /// \return the address of a server's port on a plane (one /30 per port)
    Ipv4Address PortAddress(uint32_t server, uint32_t plane) const;
    /**
     * \brief Build the fabric as a graph (data path "none", the flow level's): a link
     * per circuit at its plane's rate and fibre delay, the ports' addresses; no device.
     * \param cluster the empty cluster
     * \param planes the planes, checked against the plan (their rate and delay)
     * \return the cluster
     */
    Ptr<Cluster> InstallGraph(Ptr<Cluster> cluster,
                              const std::vector<Ptr<OpticalCircuitSwitch>>& planes);

    TopologyPlan m_plan;
    bool m_hasPlan{false};
    ObjectFactory m_ocsFactory;
    Time m_forwardingLatency{0};
    DataRate m_forwardingRate{0};
    uint32_t m_portsPerServer{0};
    bool m_reroute{true};
};

} // namespace ns3

#endif // TOPOOPT_DIRECT_CONNECT_HELPER_H
