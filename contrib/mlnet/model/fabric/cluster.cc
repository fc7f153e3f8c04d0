// SPDX-License-Identifier: GPL-2.0-only
#include "cluster.h"

#include "ns3/channel.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/route-preference.h"
#include "ns3/simulator.h"
#include "ns3/trace-names.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetCluster");
NS_OBJECT_ENSURE_REGISTERED(Cluster);

TypeId
Cluster::GetTypeId()
{
    static TypeId tid = TypeId("ns3::Cluster")
                            .SetParent<Object>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<Cluster>()
                            .AddTraceSource("LinkFailed",
                                            "A link was failed: link id.",
                                            MakeTraceSourceAccessor(&Cluster::m_linkFailedTrace),
                                            "ns3::TracedValueCallback::Uint32")
                            .AddTraceSource("Rerouted",
                                            "The routes around a failed link took effect "
                                            "(at its failure, or at ReleaseRoutes): link id.",
                                            MakeTraceSourceAccessor(&Cluster::m_reroutedTrace),
                                            "ns3::TracedValueCallback::Uint32")
                            .AddTraceSource("FramesLost",
                                            "Frames a model without devices lost on a failed "
                                            "link (the flow level): link id, frames.",
                                            MakeTraceSourceAccessor(&Cluster::m_framesLostTrace),
                                            "ns3::Cluster::FramesLostCallback")
                            .AddTraceSource("WorkloadDone",
                                            "The scenario's workload (collective, training "
                                            "iterations) finished; periodic monitors such "
                                            "as FlowMonitor stop the run here.",
                                            MakeTraceSourceAccessor(&Cluster::m_workloadDoneTrace),
                                            "ns3::Cluster::WorkloadDoneCallback")
                            .AddTraceSource("ObjectBound",
                                            "An object working on the cluster started (a "
                                            "transport, collective or training driver); "
                                            "monitors connect to its trace sources here.",
                                            MakeTraceSourceAccessor(&Cluster::m_objectBoundTrace),
                                            "ns3::Cluster::ObjectBoundCallback");
    return tid;
}

Cluster::Cluster() = default;
Cluster::~Cluster() = default;

void
Cluster::NotifyWorkloadDone()
{
    NS_LOG_FUNCTION(this);
    m_workloadDoneTrace();
}

void
Cluster::NotifyObjectBound(Ptr<Object> object)
{
    m_objectBoundTrace(object);
}

void
Cluster::DoDispose()
{
    m_links.clear();
    m_slots.clear();
    m_slotOfDevice.clear();
    m_rankNodes = NodeContainer();
    m_switchNodes = NodeContainer();
    m_routePreference = nullptr;
    m_routeTables.reset();
    Object::DoDispose();
}

uint32_t
Cluster::AddRankNode(Ptr<Node> node)
{
    uint32_t rank = m_rankNodes.GetN();
    m_rankNodes.Add(node);
    m_rankAddress.emplace_back();
    if (node->GetId() >= m_rankOfNode.size())
    {
        m_rankOfNode.resize(node->GetId() + 1, std::numeric_limits<uint32_t>::max());
    }
    m_rankOfNode[node->GetId()] = rank;
    m_routeTables.reset();
    return rank;
}

void
Cluster::AddSwitchNode(Ptr<Node> node)
{
    m_switchNodes.Add(node);
    m_routeTables.reset();
}

uint32_t
Cluster::AddLink(Ptr<PointToPointNetDevice> a,
                 Ptr<PointToPointNetDevice> b,
                 const std::string& linkClass)
{
    ClusterLink link;
    link.id = static_cast<uint32_t>(m_links.size());
    link.linkClass = linkClass;
    link.nodeA = a->GetNode()->GetId();
    link.nodeB = b->GetNode()->GetId();
    link.devA = a;
    link.devB = b;
    m_links.push_back(link);
    ++m_linkStateVersion;
    m_linksOfNode[link.nodeA].push_back(link.id);
    m_linksOfNode[link.nodeB].push_back(link.id);
    BindDevice(a, link.id, true);
    BindDevice(b, link.id, false);
    return link.id;
}

uint32_t
Cluster::AddGraphLink(uint32_t nodeA,
                      uint32_t nodeB,
                      const std::string& linkClass,
                      DataRate rate,
                      Time delay)
{
    NS_ASSERT_MSG(rate.GetBitRate() > 0, "a graph link without a rate");
    ClusterLink link;
    link.id = static_cast<uint32_t>(m_links.size());
    link.linkClass = linkClass;
    link.nodeA = nodeA;
    link.nodeB = nodeB;
    link.rate = rate;
    link.delay = delay;
    m_links.push_back(link);
    ++m_linkStateVersion;
    m_linksOfNode[nodeA].push_back(link.id);
    m_linksOfNode[nodeB].push_back(link.id);
    return link.id;
}

void
Cluster::SetLinkBuffers(uint32_t linkId, double bufferA, double bufferB)
{
    ClusterLink& l = m_links.at(linkId);
    NS_ASSERT_MSG(!l.devA, "a link with devices: its queues say what they hold");
    l.bufferA = bufferA;
    l.bufferB = bufferB;
}

double
Cluster::QueueBytes(QueueSize size, uint32_t mtu)
{
    const double n = static_cast<double>(size.GetValue());
    return size.GetUnit() == QueueSizeUnit::BYTES ? n : n * (mtu + PppHeader().GetSerializedSize());
}

DataRate
Cluster::GetLinkRate(uint32_t linkId, bool aToB) const
{
    const ClusterLink& l = m_links.at(linkId);
    Ptr<PointToPointNetDevice> dev = aToB ? l.devA : l.devB;
    if (!dev)
    {
        return l.rate;
    }
    DataRateValue rate;
    dev->GetAttribute("DataRate", rate);
    return rate.Get();
}

Time
Cluster::GetLinkDelay(uint32_t linkId) const
{
    const ClusterLink& l = m_links.at(linkId);
    if (!l.devA)
    {
        return l.delay;
    }
    TimeValue delay;
    l.devA->GetChannel()->GetAttribute("Delay", delay);
    return delay.Get();
}

void
Cluster::BindDevice(Ptr<PointToPointNetDevice> dev, uint32_t linkId, bool aToB)
{
    auto it = m_slotOfDevice.find(PeekPointer(dev));
    if (it != m_slotOfDevice.end())
    {
        m_slots[it->second] = DeviceSlot{linkId, aToB, true};
        return;
    }
    uint32_t slot = static_cast<uint32_t>(m_slots.size());
    m_slots.push_back(DeviceSlot{linkId, aToB, true});
    m_slotOfDevice[PeekPointer(dev)] = slot;
    // PhyTxBegin sees the whole PPP frame as it starts on the wire.
    dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Cluster::CountTx, this).Bind(slot));
}

void
Cluster::CountTx(uint32_t slot, Ptr<const Packet> p)
{
    const DeviceSlot& s = m_slots[slot];
    if (!s.counting)
    {
        return;
    }
    ClusterLink& l = m_links[s.linkId];
    if (s.aToB)
    {
        l.bytesAtoB += p->GetSize();
        ++l.packetsAtoB;
    }
    else
    {
        l.bytesBtoA += p->GetSize();
        ++l.packetsBtoA;
    }
}

void
Cluster::SetLinkInterfaces(uint32_t linkId, uint32_t ifA, uint32_t ifB)
{
    NS_ASSERT(linkId < m_links.size());
    m_links[linkId].ifA = ifA;
    m_links[linkId].ifB = ifB;
}

void
Cluster::SetRankAddress(uint32_t rank, Ipv4Address address)
{
    NS_ASSERT(rank < m_rankAddress.size());
    m_rankAddress[rank] = address;
}

void
Cluster::AddNodeAddress(uint32_t nodeId, Ipv4Address address)
{
    m_nodeOfAddress[address.Get()] = nodeId;
    m_firstAddressOfNode.emplace(nodeId, address); // keeps the first
}

uint32_t
Cluster::GetNRanks() const
{
    return m_rankNodes.GetN();
}

Ptr<Node>
Cluster::GetRankNode(uint32_t rank) const
{
    NS_ASSERT_MSG(rank < m_rankNodes.GetN(), "rank " << rank << " out of range");
    return m_rankNodes.Get(rank);
}

uint32_t
Cluster::GetRankOfNode(uint32_t nodeId) const
{
    return nodeId < m_rankOfNode.size() ? m_rankOfNode[nodeId]
                                        : std::numeric_limits<uint32_t>::max();
}

Ipv4Address
Cluster::GetRankAddress(uint32_t rank) const
{
    NS_ASSERT_MSG(rank < m_rankAddress.size(), "rank " << rank << " out of range");
    return m_rankAddress[rank];
}

uint32_t
Cluster::GetNodeOfAddress(Ipv4Address address) const
{
    auto it = m_nodeOfAddress.find(address.Get());
    return it == m_nodeOfAddress.end() ? std::numeric_limits<uint32_t>::max() : it->second;
}

Ipv4Address
Cluster::GetNodeAddress(uint32_t nodeId) const
{
    auto it = m_firstAddressOfNode.find(nodeId);
    return it == m_firstAddressOfNode.end() ? Ipv4Address::GetAny() : it->second;
}

const NodeContainer&
Cluster::GetRankNodes() const
{
    return m_rankNodes;
}

const NodeContainer&
Cluster::GetSwitchNodes() const
{
    return m_switchNodes;
}

NodeContainer
Cluster::GetAllNodes() const
{
    return NodeContainer(m_rankNodes, m_switchNodes);
}

const std::vector<ClusterLink>&
Cluster::GetLinks() const
{
    return m_links;
}

const ClusterLink&
Cluster::GetLink(uint32_t id) const
{
    NS_ASSERT(id < m_links.size());
    return m_links[id];
}

const std::vector<uint32_t>&
Cluster::GetLinksOfNode(uint32_t nodeId) const
{
    static const std::vector<uint32_t> none;
    auto it = m_linksOfNode.find(nodeId);
    return it == m_linksOfNode.end() ? none : it->second;
}

void
Cluster::AppendNeighbours(uint32_t nodeId, std::vector<uint32_t>& out) const
{
    auto it = m_linksOfNode.find(nodeId);
    if (it == m_linksOfNode.end())
    {
        return;
    }
    for (uint32_t id : it->second)
    {
        out.push_back(m_links[id].Peer(nodeId));
    }
}

DataRate
Cluster::GetInjectionRate(uint32_t rank) const
{
    uint64_t bps = 0;
    for (uint32_t id : GetLinksOfNode(GetRankNode(rank)->GetId()))
    {
        const ClusterLink& l = m_links[id];
        if (!l.failed)
        {
            bps += GetLinkRate(id, true).GetBitRate();
        }
    }
    return DataRate(bps);
}

void
Cluster::SetFabricSpec(const FabricSpec& spec)
{
    m_spec = spec;
    m_routeTables.reset();
    // The fabric is built: the cluster (and what is aggregated to it) gets its Config path.
    TraceNames::Register(this, "Cluster");
}

const FabricSpec&
Cluster::GetFabricSpec() const
{
    return m_spec;
}

void
Cluster::SetRoutePreference(Ptr<RoutePreference> preference)
{
    m_routePreference = preference;
    m_routeTables.reset();
}

void
Cluster::SetRouteTables(std::shared_ptr<const RouteTables> tables)
{
    m_routeTables = std::move(tables);
    m_routeTablesVersion = m_linkStateVersion;
}

std::shared_ptr<const RouteTables>
Cluster::GetRouteTables() const
{
    return m_routeTablesVersion == m_linkStateVersion ? m_routeTables : nullptr;
}

Ptr<RoutePreference>
Cluster::GetRoutePreference() const
{
    return m_routePreference;
}

uint64_t
Cluster::GetLinkStateVersion() const
{
    return m_linkStateVersion;
}

void
Cluster::NotifyFramesLost(uint32_t linkId, uint64_t frames)
{
    m_framesLostTrace(linkId, frames);
}

void
Cluster::HoldRoutes()
{
    if (!m_routesHeld)
    {
        m_routesHeld = true;
        m_routedVersion = m_linkStateVersion;
    }
}

void
Cluster::ReleaseRoutes()
{
    m_routesHeld = false;
    std::vector<uint32_t> rerouted;
    for (ClusterLink& l : m_links)
    {
        if (l.failed && l.reroutedAt == Time::Max())
        {
            l.reroutedAt = Simulator::Now();
            rerouted.push_back(l.id);
        }
    }
    for (uint32_t id : rerouted)
    {
        m_reroutedTrace(id);
    }
}

uint64_t
Cluster::GetRoutedLinkStateVersion() const
{
    return m_routesHeld ? m_routedVersion : m_linkStateVersion;
}

void
Cluster::FailLink(uint32_t linkId)
{
    NS_ASSERT(linkId < m_links.size());
    ClusterLink& l = m_links[linkId];
    if (l.failed)
    {
        return;
    }
    l.failed = true;
    l.failedAt = Simulator::Now();
    l.reroutedAt = m_routesHeld ? Time::Max() : l.failedAt;
    ++m_linkStateVersion;
    for (auto dev : {l.devA, l.devB})
    {
        if (!dev)
        {
            continue; // a graph link: nothing is sent on it
        }
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(1.0);
        dev->SetReceiveErrorModel(em);
    }
    m_linkFailedTrace(linkId);
    if (!m_routesHeld)
    {
        m_reroutedTrace(linkId);
    }
}

void
Cluster::DetachLink(uint32_t linkId)
{
    NS_ASSERT(linkId < m_links.size());
    ClusterLink& l = m_links[linkId];
    if (l.failed)
    {
        return;
    }
    l.failed = true;
    l.detached = true;
    ++m_linkStateVersion;
    for (auto dev : {l.devA, l.devB})
    {
        if (!dev)
        {
            continue; // a graph link: no frames to stop counting
        }
        DeviceSlot& s = m_slots[m_slotOfDevice.at(PeekPointer(dev))];
        if (s.linkId == linkId)
        {
            s.counting = false;
        }
    }
}

void
Cluster::ReattachLink(uint32_t linkId)
{
    NS_ASSERT(linkId < m_links.size());
    ClusterLink& l = m_links[linkId];
    if (l.failed && !l.detached)
    {
        throw std::invalid_argument("link " + std::to_string(linkId) +
                                    " was failed by FailLink and cannot be reattached");
    }
    l.failed = false;
    l.detached = false;
    ++m_linkStateVersion;
    if (l.devA && l.devB)
    {
        BindDevice(l.devA, linkId, true);
        BindDevice(l.devB, linkId, false);
    }
}

std::map<std::string, uint64_t>
Cluster::GetBytesByLinkClass() const
{
    std::map<std::string, uint64_t> out;
    for (const auto& l : m_links)
    {
        out[l.linkClass] += l.bytesAtoB + l.bytesBtoA;
    }
    return out;
}

uint64_t
Cluster::GetTotalLinkBytes() const
{
    uint64_t total = 0;
    for (const auto& l : m_links)
    {
        total += l.bytesAtoB + l.bytesBtoA;
    }
    return total;
}

void
Cluster::ResetCounters()
{
    for (auto& l : m_links)
    {
        l.bytesAtoB = l.bytesBtoA = l.packetsAtoB = l.packetsBtoA = 0;
    }
}

void
Cluster::SetLinkCounters(uint32_t linkId,
                         uint64_t bytesAtoB,
                         uint64_t bytesBtoA,
                         uint64_t packetsAtoB,
                         uint64_t packetsBtoA)
{
    NS_ASSERT_MSG(linkId < m_links.size(), "no link " << linkId);
    ClusterLink& l = m_links[linkId];
    l.bytesAtoB = bytesAtoB;
    l.bytesBtoA = bytesBtoA;
    l.packetsAtoB = packetsAtoB;
    l.packetsBtoA = packetsBtoA;
}

void
Cluster::AddLinkTraffic(uint32_t linkId, bool aToB, uint64_t bytes, uint64_t packets)
{
    NS_ASSERT_MSG(linkId < m_links.size(), "no link " << linkId);
    ClusterLink& l = m_links[linkId];
    (aToB ? l.bytesAtoB : l.bytesBtoA) += bytes;
    (aToB ? l.packetsAtoB : l.packetsBtoA) += packets;
}

} // namespace ns3
