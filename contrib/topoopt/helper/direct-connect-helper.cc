// SPDX-License-Identifier: GPL-2.0-only
#include "direct-connect-helper.h"

#include "ns3/boolean.h"
#include "ns3/direct-connect-fabric.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/fabric-registry.h"
#include "ns3/fast-forwarding.h"
#include "ns3/host-forwarding-routing-helper.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/optical-circuit-switch.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"
#include "ns3/random-regular-topology.h"
#include "ns3/string.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptDirectConnectHelper");

DirectConnectHelper::DirectConnectHelper()
{
    m_ocsFactory.SetTypeId("ns3::OpticalCircuitSwitch");
}

DirectConnectHelper::DirectConnectHelper(const TopologyPlan& plan)
    : DirectConnectHelper()
{
    SetPlan(plan);
}

void
DirectConnectHelper::SetPlan(const TopologyPlan& plan)
{
    m_plan = plan;
    m_hasPlan = true;
}

const TopologyPlan&
DirectConnectHelper::GetPlan() const
{
    return m_plan;
}

void
DirectConnectHelper::SetOcsAttribute(const std::string& name, const AttributeValue& value)
{
    m_ocsFactory.Set(name, value);
}

void
DirectConnectHelper::SetForwardingLatency(Time latency)
{
    m_forwardingLatency = latency;
}

void
DirectConnectHelper::SetForwardingRate(DataRate rate)
{
    m_forwardingRate = rate;
}

void
DirectConnectHelper::SetPortsPerServer(uint32_t ports)
{
    m_portsPerServer = ports;
}

void
DirectConnectHelper::SetRerouteAroundDarkPorts(bool reroute)
{
    m_reroute = reroute;
}

Ptr<Cluster>
DirectConnectHelper::Install()
{
    ValidateCommon();
    if (!m_hasPlan)
    {
        throw std::invalid_argument("DirectConnectHelper: no plan; call SetPlan(plan) first");
    }
    const uint32_t n = m_plan.GetServers();
    const uint32_t d = m_plan.GetDegree();
    if (n < 2)
    {
        throw std::invalid_argument("DirectConnectHelper: the plan has " + std::to_string(n) +
                                    " servers; a fabric needs at least 2");
    }
    if (d == 0)
    {
        throw std::invalid_argument("DirectConnectHelper: the plan has degree 0; give each "
                                    "server at least one port");
    }
    if (m_portsPerServer > 0 && d > m_portsPerServer)
    {
        throw std::invalid_argument(
            "DirectConnectHelper: the plan's degree " + std::to_string(d) + " is larger than the " +
            std::to_string(m_portsPerServer) + " ports per server; use a plan of degree <= " +
            std::to_string(m_portsPerServer) + " or give the servers more ports");
    }
    if (m_forwardingLatency.IsStrictlyNegative())
    {
        throw std::invalid_argument("DirectConnectHelper: negative forwarding latency");
    }
    m_plan.Validate();

    // Planes first: a plan that does not fit the switches fails before anything is built.
    std::vector<Ptr<OpticalCircuitSwitch>> planes;
    for (uint32_t p = 0; p < d; ++p)
    {
        Ptr<OpticalCircuitSwitch> ocs = m_ocsFactory.Create<OpticalCircuitSwitch>();
        ocs->SetAttribute("DataRate", DataRateValue(m_rate));
        ocs->SetAttribute("FibreDelay", TimeValue(m_delay));
        UintegerValue ports;
        ocs->GetAttribute("PortCount", ports);
        if (ports.Get() < n)
        {
            throw std::invalid_argument(
                "DirectConnectHelper: the plan has servers 0.." + std::to_string(n - 1) +
                " but plane " + std::to_string(p) + " has only " + std::to_string(ports.Get()) +
                " ports; raise the OCS PortCount attribute or use a smaller plan");
        }
        ocs->CheckPowerBudget();
        planes.push_back(ocs);
    }

    const bool fast = m_dataPath == "fast";
    Ptr<Cluster> cluster = CreateObject<Cluster>();
    NodeContainer nodes;
    if (m_dataPath == "none")
    {
        return InstallGraph(cluster, planes);
    }
    if (fast)
    {
        // FastForwarding on every server (FabricHelper::CreateNodes), whose relay stage
        // is HostForwardingRouting's relay.
        nodes = CreateNodes(n);
        for (uint32_t s = 0; s < n; ++s)
        {
            Ptr<FastForwarding> ff = nodes.Get(s)->GetObject<FastForwarding>();
            ff->SetAttribute("RelayLatency", TimeValue(m_forwardingLatency));
            ff->SetAttribute("RelayRate", DataRateValue(m_forwardingRate));
        }
    }
    else
    {
        nodes.Create(n);
        InternetStackHelper stack;
        stack.SetIpv6StackInstall(false);
        stack.SetRoutingHelper(HostForwardingRoutingHelper(m_forwardingLatency, m_forwardingRate));
        stack.Install(nodes);
    }
    for (uint32_t s = 0; s < n; ++s)
    {
        cluster->AddRankNode(nodes.Get(s));
    }

    ObjectFactory deviceFactory("ns3::PointToPointNetDevice");
    deviceFactory.Set("Mtu", UintegerValue(m_mtu));
    for (const auto& [name, value] : m_deviceAttributes)
    {
        deviceFactory.Set(name, *value);
    }
    // interfaces[s][p]: the IPv4 interface of a port (0 on the fast path: no IPv4).
    std::vector<std::vector<uint32_t>> interfaces(n, std::vector<uint32_t>(d, 0));
    for (uint32_t s = 0; s < n; ++s)
    {
        Ptr<Node> node = nodes.Get(s);
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        for (uint32_t p = 0; p < d; ++p)
        {
            Ptr<PointToPointNetDevice> dev = deviceFactory.Create<PointToPointNetDevice>();
            dev->SetAddress(Mac48Address::Allocate());
            Ptr<DropTailQueue<Packet>> queue = CreateObject<DropTailQueue<Packet>>();
            queue->SetMaxSize(m_queueSize);
            dev->SetQueue(queue);
            node->AddDevice(dev);
            uint32_t port = planes[p]->AddPort(dev);
            NS_ASSERT(port == s);
            const Ipv4Address address = PortAddress(s, p);
            if (fast)
            {
                // The same addresses, as the flow keys of the ranks (port 0's is the rank's).
                RecordFastAddress(cluster, node->GetId(), address);
                continue;
            }
            uint32_t i = ipv4->AddInterface(dev);
            ipv4->AddAddress(i, Ipv4InterfaceAddress(address, Ipv4Mask("255.255.255.252")));
            ipv4->SetMetric(i, 1);
            ipv4->SetUp(i);
            cluster->AddNodeAddress(node->GetId(), address);
            interfaces[s][p] = i;
        }
    }
    for (uint32_t p = 0; p < d; ++p)
    {
        OpticalCircuitSwitch::Matching m(m_plan.GetCircuits(p).begin(),
                                         m_plan.GetCircuits(p).end());
        planes[p]->SetMatching(m);
    }

    Ptr<DirectConnectFabric> fabric = CreateObject<DirectConnectFabric>();
    fabric->SetAttribute("RerouteAroundDarkPorts", BooleanValue(m_reroute));
    cluster->AggregateObject(fabric);
    fabric->Bind(planes, interfaces);
    fabric->RegisterCircuits();

    FabricSpec spec;
    spec.kind = "direct-connect";
    spec.routing = "ecmp";
    spec.relayLatency = m_forwardingLatency;
    spec.relayRate = m_forwardingRate;
    Finish(cluster, spec);

    // Finish configured the queues of the ports with a circuit; the ports the plan
    // leaves unused get the same, for the circuits a reconfiguration may give them: a
    // host FIFO queue disc, or on the fast path a device queue as deep as queue disc
    // and device queue together (as Finish gives host devices there).
    TrafficControlHelper hostTc;
    hostTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(m_hostQueueSize));
    for (uint32_t p = 0; p < d; ++p)
    {
        for (uint32_t s = 0; s < n; ++s)
        {
            Ptr<PointToPointNetDevice> dev = planes[p]->GetPortDevice(s);
            if (fast)
            {
                if (m_queueSize.GetUnit() == m_hostQueueSize.GetUnit())
                {
                    dev->GetQueue()->SetMaxSize(
                        QueueSize(m_queueSize.GetUnit(),
                                  m_queueSize.GetValue() + m_hostQueueSize.GetValue()));
                }
                continue;
            }
            Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
            if (!tc->GetRootQueueDiscOnDevice(dev))
            {
                hostTc.Install(dev);
            }
        }
    }
    return cluster;
}

Ipv4Address
DirectConnectHelper::PortAddress(uint32_t server, uint32_t plane) const
{
    // One /30 per server port (10.0.0.0/8): the port owns .1. The peer of a circuit
    // changes with reconfiguration; point-to-point devices ignore link-layer
    // destinations, so addresses need not follow circuits.
    const uint64_t subnet = uint64_t(server) * m_plan.GetDegree() + plane;
    if (subnet >= (1u << 22))
    {
        throw std::invalid_argument("DirectConnectHelper: too many ports for 10.0.0.0/8 "
                                    "addressing (4M max)");
    }
    return Ipv4Address((10u << 24) + static_cast<uint32_t>(subnet) * 4 + 1);
}

Ptr<Cluster>
DirectConnectHelper::InstallGraph(Ptr<Cluster> cluster,
                                  const std::vector<Ptr<OpticalCircuitSwitch>>& planes)
{
    // The flow level's graph (data path "none"): each circuit of the plan a link at its
    // plane's rate and fibre delay, in the order the fast path registers them (plane by
    // plane, by lower port), and the ports' addresses as the fast path records them. No
    // device, OCS port or DirectConnectFabric: circuits do not move at the flow level.
    const uint32_t n = m_plan.GetServers();
    const uint32_t d = m_plan.GetDegree();
    NodeContainer nodes = CreateNodes(n);
    for (uint32_t s = 0; s < n; ++s)
    {
        cluster->AddRankNode(nodes.Get(s));
        for (uint32_t p = 0; p < d; ++p)
        {
            RecordFastAddress(cluster, nodes.Get(s)->GetId(), PortAddress(s, p));
        }
    }
    for (uint32_t p = 0; p < d; ++p)
    {
        DataRateValue rate;
        planes[p]->GetAttribute("DataRate", rate);
        TimeValue delay;
        planes[p]->GetAttribute("FibreDelay", delay);
        OpticalCircuitSwitch::Matching circuits;
        for (const auto& [a, b] : m_plan.GetCircuits(p))
        {
            circuits.emplace_back(std::min(a, b), std::max(a, b));
        }
        std::sort(circuits.begin(), circuits.end());
        for (const auto& [lo, hi] : circuits)
        {
            cluster->AddGraphLink(nodes.Get(lo)->GetId(),
                                  nodes.Get(hi)->GetId(),
                                  "ocs",
                                  rate.Get(),
                                  delay.Get());
        }
    }
    FabricSpec spec;
    spec.kind = "direct-connect";
    spec.routing = "ecmp";
    spec.relayLatency = m_forwardingLatency;
    spec.relayRate = m_forwardingRate;
    Finish(cluster, spec);
    return cluster;
}

namespace
{

/// A direct-connect helper over `plan`, with the request's optical and forwarding settings.
std::shared_ptr<FabricHelper>
DirectConnect(const FabricRequest& r, const TopologyPlan& plan)
{
    auto h = std::make_shared<DirectConnectHelper>(plan);
    h->SetForwardingLatency(r.forwardingLatency);
    if (r.portsPerServer > 0)
    {
        h->SetPortsPerServer(r.portsPerServer);
    }
    for (const auto& [name, value] : r.opticalAttributes)
    {
        h->SetOcsAttribute(name, StringValue(value));
    }
    return h;
}

const FabricRegistration g_topoopt(
    "topoopt",
    "TopoOpt direct-connect planes (patch panel or OCS) over a TopologyPlan, host forwarding",
    {},
    [](const FabricRequest& r) {
        const TopologyPlan* plan = std::any_cast<TopologyPlan>(&r.plan);
        if (!plan)
        {
            throw std::invalid_argument("the topoopt fabric needs a TopologyPlan (from "
                                        "TopoOptSearch, TopologyFinder or a plan file)");
        }
        return DirectConnect(r, *plan);
    });

const FabricRegistration g_expander("expander",
                                    "random regular direct-connect graph of the request's "
                                    "degree (RandomRegularTopology), host forwarding",
                                    {},
                                    [](const FabricRequest& r) {
                                        Ptr<RandomRegularTopology> rr =
                                            CreateObject<RandomRegularTopology>();
                                        rr->SetAttribute("Degree", UintegerValue(r.degree));
                                        rr->AssignStreams(r.stream);
                                        return DirectConnect(r, rr->Build(r.ranks));
                                    });

} // namespace

} // namespace ns3
