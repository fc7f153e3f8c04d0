// SPDX-License-Identifier: GPL-2.0-only
#include "direct-connect-fabric.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/route-planner.h"
#include "ns3/trace-names.h"
#include "ns3/traffic-accounting.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptDirectConnectFabric");
NS_OBJECT_ENSURE_REGISTERED(DirectConnectFabric);

TypeId
DirectConnectFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DirectConnectFabric")
            .SetParent<Object>()
            .SetGroupName("Topoopt")
            .AddConstructor<DirectConnectFabric>()
            .AddAttribute("RerouteAroundDarkPorts",
                          "When ports go dark, recompute routes over the remaining live "
                          "circuits (if they still connect every server); otherwise traffic "
                          "routed into a dark port meets the plane's DarkPortPolicy.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&DirectConnectFabric::m_reroute),
                          MakeBooleanChecker())
            .AddTraceSource("RoutesInstalled",
                            "Routes were recomputed and installed after a plane's "
                            "reconfiguration started or ended: (plane).",
                            MakeTraceSourceAccessor(&DirectConnectFabric::m_routesInstalledTrace),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

DirectConnectFabric::DirectConnectFabric() = default;
DirectConnectFabric::~DirectConnectFabric() = default;

void
DirectConnectFabric::DoDispose()
{
    m_planes.clear();
    Object::DoDispose();
}

void
DirectConnectFabric::Bind(const std::vector<Ptr<OpticalCircuitSwitch>>& planes,
                          const std::vector<std::vector<uint32_t>>& interfaces)
{
    NS_ASSERT_MSG(GetObject<Cluster>(), "aggregate the fabric to its cluster first");
    m_planes = planes;
    for (const auto& plane : planes)
    {
        TraceNames::Register(plane, "OpticalCircuitSwitch");
    }
    m_interfaces = interfaces;
    m_linkOfPort.assign(planes.size(), std::vector<int64_t>(interfaces.size(), -1));
    for (uint32_t p = 0; p < planes.size(); ++p)
    {
        planes[p]->TraceConnectWithoutContext(
            "ReconfigurationStart",
            MakeCallback(&DirectConnectFabric::OnStart, this).Bind(p));
        planes[p]->TraceConnectWithoutContext(
            "ReconfigurationEnd",
            MakeCallback(&DirectConnectFabric::OnEnd, this).Bind(p));
    }
}

void
DirectConnectFabric::RegisterCircuits()
{
    for (uint32_t p = 0; p < m_planes.size(); ++p)
    {
        for (const auto& [a, b] : m_planes[p]->GetMatching())
        {
            Register(p, a, b);
        }
    }
}

void
DirectConnectFabric::Register(uint32_t plane, uint32_t a, uint32_t b)
{
    Ptr<Cluster> cluster = GetObject<Cluster>();
    auto key = std::make_tuple(plane, std::min(a, b), std::max(a, b));
    auto it = m_linkOfCircuit.find(key);
    uint32_t id;
    if (it != m_linkOfCircuit.end())
    {
        id = it->second;
        cluster->ReattachLink(id);
    }
    else
    {
        uint32_t lo = std::min(a, b);
        uint32_t hi = std::max(a, b);
        id = cluster->AddLink(m_planes[plane]->GetPortDevice(lo),
                              m_planes[plane]->GetPortDevice(hi),
                              "ocs");
        cluster->SetLinkInterfaces(id, m_interfaces[lo][plane], m_interfaces[hi][plane]);
        m_linkOfCircuit[key] = id;
    }
    m_linkOfPort[plane][a] = id;
    m_linkOfPort[plane][b] = id;
}

uint32_t
DirectConnectFabric::GetNPlanes() const
{
    return static_cast<uint32_t>(m_planes.size());
}

uint32_t
DirectConnectFabric::GetNServers() const
{
    return static_cast<uint32_t>(m_interfaces.size());
}

Ptr<OpticalCircuitSwitch>
DirectConnectFabric::GetPlane(uint32_t plane) const
{
    if (plane >= m_planes.size())
    {
        throw std::invalid_argument("DirectConnectFabric: plane " + std::to_string(plane) +
                                    " does not exist; the fabric has " +
                                    std::to_string(m_planes.size()) + " planes");
    }
    return m_planes[plane];
}

int64_t
DirectConnectFabric::GetLinkOfPort(uint32_t plane, uint32_t server) const
{
    NS_ASSERT(plane < m_linkOfPort.size() && server < m_linkOfPort[plane].size());
    return m_linkOfPort[plane][server];
}

uint32_t
DirectConnectFabric::GetRouteInstalls() const
{
    return m_routeInstalls;
}

void
DirectConnectFabric::CheckPlane(uint32_t plane,
                                const OpticalCircuitSwitch::Matching& matching) const
{
    GetPlane(plane);
    for (const auto& [a, b] : matching)
    {
        for (uint32_t s : {a, b})
        {
            if (s >= GetNServers())
            {
                throw std::invalid_argument("DirectConnectFabric: server " + std::to_string(s) +
                                            " is out of range; the fabric has servers 0.." +
                                            std::to_string(GetNServers() - 1));
            }
        }
    }
}

void
DirectConnectFabric::AccountLostFrames()
{
    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(GetObject<Cluster>());
    for (const Ptr<OpticalCircuitSwitch>& plane : m_planes)
    {
        // The switch holds the callback: a raw pointer back to it, not a cycle.
        OpticalCircuitSwitch* sw = PeekPointer(plane);
        plane->TraceConnectWithoutContext(
            "LostInFlight",
            Callback<void, Ptr<const Packet>, uint32_t>(
                [accounting, sw](Ptr<const Packet> frame, uint32_t port) {
                    accounting->CountLostOnWire(sw->GetPortDevice(port), frame);
                }));
    }
}

void
DirectConnectFabric::Reconfigure(uint32_t plane, const OpticalCircuitSwitch::Matching& matching)
{
    CheckPlane(plane, matching);
    m_planes[plane]->Reconfigure(matching);
}

void
DirectConnectFabric::ReconfigurePartial(uint32_t plane,
                                        const OpticalCircuitSwitch::Matching& matching)
{
    CheckPlane(plane, matching);
    m_planes[plane]->ReconfigurePartial(matching);
}

void
DirectConnectFabric::ApplyPlan(const TopologyPlan& plan)
{
    if (plan.GetServers() != GetNServers() || plan.GetDegree() != GetNPlanes())
    {
        throw std::invalid_argument(
            "DirectConnectFabric::ApplyPlan: the plan has " + std::to_string(plan.GetServers()) +
            " servers of degree " + std::to_string(plan.GetDegree()) + ", the fabric " +
            std::to_string(GetNServers()) + " of degree " + std::to_string(GetNPlanes()));
    }
    for (uint32_t p = 0; p < GetNPlanes(); ++p)
    {
        OpticalCircuitSwitch::Matching m(plan.GetCircuits(p).begin(), plan.GetCircuits(p).end());
        m_planes[p]->Reconfigure(m);
    }
}

bool
DirectConnectFabric::AllReachable(Ptr<Cluster> cluster) const
{
    RoutePlanner planner(cluster);
    planner.Compute();
    for (uint32_t a = 0; a < cluster->GetNRanks(); ++a)
    {
        for (uint32_t b = 0; b < cluster->GetNRanks(); ++b)
        {
            if (a != b && planner.Hops(a, b) == UINT32_MAX)
            {
                return false;
            }
        }
    }
    return true;
}

void
DirectConnectFabric::OnStart(uint32_t plane, uint32_t id, const std::vector<uint32_t>& ports)
{
    Ptr<Cluster> cluster = GetObject<Cluster>();
    for (uint32_t s : ports)
    {
        int64_t link = m_linkOfPort[plane][s];
        if (link >= 0)
        {
            cluster->DetachLink(static_cast<uint32_t>(link));
            m_linkOfPort[plane][s] = -1;
        }
    }
    if (!m_reroute)
    {
        return;
    }
    if (AllReachable(cluster))
    {
        RoutePlanner(cluster).Install();
        ++m_routeInstalls;
        m_routesInstalledTrace(plane);
    }
    else
    {
        NS_LOG_INFO("plane " << plane << " reconfiguration " << id
                             << ": live circuits do not connect every server; routes kept");
    }
}

void
DirectConnectFabric::OnEnd(uint32_t plane, uint32_t id, const std::vector<uint32_t>& ports)
{
    for (uint32_t s : ports)
    {
        int64_t q = m_planes[plane]->GetPeer(s);
        if (q > static_cast<int64_t>(s))
        {
            Register(plane, s, static_cast<uint32_t>(q));
        }
    }
    Ptr<Cluster> cluster = GetObject<Cluster>();
    RoutePlanner(cluster).Install();
    ++m_routeInstalls;
    m_routesInstalledTrace(plane);
    NS_LOG_INFO("plane " << plane << " reconfiguration " << id << ": routes reinstalled");
}

} // namespace ns3
