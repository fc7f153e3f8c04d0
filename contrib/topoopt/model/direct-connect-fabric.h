// SPDX-License-Identifier: GPL-2.0-only
/*
 * DirectConnectFabric: the live state of a TopoOpt direct-connect fabric built by
 * DirectConnectHelper, aggregated to its Cluster
 * (cluster->GetObject<DirectConnectFabric>()).
 *
 * What it models. It owns the d optical planes (OpticalCircuitSwitch, port i of
 * plane p = NIC port p of server i) and keeps mlnet's view of the fabric in step
 * with the optics: every circuit is a Cluster link of class "ocs" between the two
 * server ports; when a plane reconfigures, the links of the ports that go dark are
 * detached (Cluster::DetachLink) and, with RerouteAroundDarkPorts, the routes are
 * recomputed over the remaining circuits if they still connect every server; when
 * the new circuits come up they are registered (a circuit seen before gets its old
 * link back, Cluster::ReattachLink, so its counters continue) and the routes are
 * recomputed and reinstalled (RoutePlanner::Install: into HostForwardingRouting on
 * the IPv4 data path, into FastForwarding's tables on the fast one).
 *
 * What it leaves out: routes follow shortest paths over the live circuits
 * (FlowHashRouting by destination), not the plan's per-pair routes; an
 * AlphaBetaModel bound to the cluster must be told (Refresh()) after a
 * reconfiguration.
 */
#ifndef TOPOOPT_DIRECT_CONNECT_FABRIC_H
#define TOPOOPT_DIRECT_CONNECT_FABRIC_H

#include "ns3/cluster.h"
#include "ns3/object.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/topology-plan.h"

#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \brief The planes of a direct-connect fabric and the Cluster links that follow them.
 */
class DirectConnectFabric : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    DirectConnectFabric();
    ~DirectConnectFabric() override;

    /**
     * \brief Set up (done by DirectConnectHelper, after aggregation to the cluster).
     * \param planes one switch per plane, port i = server i
     * \param interfaces interfaces[server][plane] = IPv4 interface index of that port
     * (all 0 on the fast data path, which has no IPv4 interfaces)
     */
    void Bind(const std::vector<Ptr<OpticalCircuitSwitch>>& planes,
              const std::vector<std::vector<uint32_t>>& interfaces);
    /// \brief Register the live circuits of every plane as Cluster links (done once).
    void RegisterCircuits();

    /// \return number of planes d
    uint32_t GetNPlanes() const;
    /// \return number of servers n
    uint32_t GetNServers() const;
    /// \return one plane's switch
    Ptr<OpticalCircuitSwitch> GetPlane(uint32_t plane) const;
    /// \return the Cluster link of a server port's live circuit, or -1
    int64_t GetLinkOfPort(uint32_t plane, uint32_t server) const;
    /// \return how many times routes were recomputed and installed
    uint32_t GetRouteInstalls() const;

    /**
     * \brief Count the frames the planes lose on their fibres (circuits torn down under
     * them: OpticalCircuitSwitch's LostInFlight, which no device trace sees) in the
     * cluster's TrafficAccounting, attaching it. Call once per run, before it starts.
     */
    void AccountLostFrames();

    /**
     * \brief Reconfigure one plane to a new full matching of servers.
     * Throws std::invalid_argument for a bad plane or server index.
     */
    void Reconfigure(uint32_t plane, const OpticalCircuitSwitch::Matching& matching);
    /// \brief Reconfigure only the named servers' ports of one plane (see ReconfigurePartial).
    void ReconfigurePartial(uint32_t plane, const OpticalCircuitSwitch::Matching& matching);
    /**
     * \brief Move every plane to a new plan's circuits (planes that do not change stay
     * live). Throws std::invalid_argument if the plan's size or degree differs.
     */
    void ApplyPlan(const TopologyPlan& plan);

protected:
    void DoDispose() override;

private:
    void CheckPlane(uint32_t plane, const OpticalCircuitSwitch::Matching& matching) const;
    void OnStart(uint32_t plane, uint32_t id, const std::vector<uint32_t>& ports);
    void OnEnd(uint32_t plane, uint32_t id, const std::vector<uint32_t>& ports);
    void Register(uint32_t plane, uint32_t a, uint32_t b);
    bool AllReachable(Ptr<Cluster> cluster) const;

    bool m_reroute{true}; //!< attribute RerouteAroundDarkPorts
    std::vector<Ptr<OpticalCircuitSwitch>> m_planes;
    std::vector<std::vector<uint32_t>> m_interfaces; //!< [server][plane]
    std::vector<std::vector<int64_t>> m_linkOfPort;  //!< [plane][server]
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> m_linkOfCircuit; //!< (p, a<b)
    uint32_t m_routeInstalls{0};
    TracedCallback<uint32_t> m_routesInstalledTrace; //!< (plane that triggered it)
};

} // namespace ns3

#endif // TOPOOPT_DIRECT_CONNECT_FABRIC_H
