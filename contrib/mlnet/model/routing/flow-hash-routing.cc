// SPDX-License-Identifier: GPL-2.0-only
#include "flow-hash-routing.h"

#include "ns3/hash.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/trace-names.h"
#include "ns3/uinteger.h"

#include <cstring>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFlowHashRouting");
NS_OBJECT_ENSURE_REGISTERED(FlowHashRouting);

TypeId
FlowHashRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowHashRouting")
            .SetParent<Ipv4RoutingProtocol>()
            .SetGroupName("Mlnet")
            .AddConstructor<FlowHashRouting>()
            .AddAttribute("Seed",
                          "Per-node seed mixed into the flow hash (set by the helper from the "
                          "node id and the run number, so switches do not polarize).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlowHashRouting::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("NoRoute",
                            "A packet had no route to its destination and was dropped.",
                            MakeTraceSourceAccessor(&FlowHashRouting::m_noRouteTrace),
                            "ns3::FlowHashRouting::NoRouteTracedCallback");
    return tid;
}

FlowHashRouting::FlowHashRouting() = default;
FlowHashRouting::~FlowHashRouting() = default;

void
FlowHashRouting::DoDispose()
{
    m_ipv4 = nullptr;
    m_ranks.reset();
    m_next.Clear();
    m_routeOfInterface.clear();
    Ipv4RoutingProtocol::DoDispose();
}

void
FlowHashRouting::SetTable(std::shared_ptr<const AddressMap> ranks,
                          const std::vector<std::vector<uint32_t>>& next)
{
    SetTable(std::move(ranks), RankTable<uint32_t>(next));
}

void
FlowHashRouting::SetTable(std::shared_ptr<const AddressMap> ranks, RankTable<uint32_t> table)
{
    m_ranks = std::move(ranks);
    m_next.Set(std::move(table));
    m_routeOfInterface.clear(); // gateways may have changed
}

void
FlowHashRouting::DeferTable(std::shared_ptr<const AddressMap> ranks,
                            DeferredRankTable<uint32_t>::Maker make)
{
    m_ranks = std::move(ranks);
    m_next.Defer(std::move(make));
    m_routeOfInterface.clear(); // gateways may have changed
}

bool
FlowHashRouting::IsTableMade() const
{
    return m_next.IsMade();
}

std::vector<uint32_t>
FlowHashRouting::GetInterfaces(uint32_t rank) const
{
    return m_next.Get(rank);
}

uint32_t
FlowHashRouting::SelectInterface(uint32_t rank,
                                 Ipv4Address src,
                                 Ipv4Address dst,
                                 uint8_t protocol,
                                 uint16_t srcPort,
                                 uint16_t dstPort) const
{
    const std::vector<uint32_t>& choices = m_next.Get(rank);
    if (choices.empty())
    {
        return std::numeric_limits<uint32_t>::max();
    }
    if (choices.size() == 1)
    {
        return choices[0];
    }
    uint32_t h = HashFlow(src.Get(), dst.Get(), protocol, srcPort, dstPort, m_seed);
    return choices[h % choices.size()];
}

uint32_t
FlowHashRouting::HashFlow(uint32_t src,
                          uint32_t dst,
                          uint8_t protocol,
                          uint16_t srcPort,
                          uint16_t dstPort,
                          uint32_t seed)
{
    // Murmur3 over the 5-tuple and the node's seed.
    uint8_t key[17];
    std::memcpy(key, &src, 4);
    std::memcpy(key + 4, &dst, 4);
    key[8] = protocol;
    std::memcpy(key + 9, &srcPort, 2);
    std::memcpy(key + 11, &dstPort, 2);
    std::memcpy(key + 13, &seed, 4);
    return Hash32(reinterpret_cast<const char*>(key), sizeof(key));
}

uint32_t
FlowHashRouting::ChoiceIndex(const FlowKey& key, bool local, uint32_t seed, uint32_t nChoices)
{
    NS_ASSERT(nChoices > 0);
    return KeyHash(key, local, seed) % nChoices;
}

uint32_t
FlowHashRouting::KeyHash(const FlowKey& key, bool local, uint32_t seed)
{
    uint16_t sp = local ? 0 : FlowKey::RawPort(key.srcPort);
    uint16_t dp = local ? 0 : FlowKey::RawPort(key.dstPort);
    return HashFlow(key.srcAddr, key.dstAddr, key.protocol, sp, dp, seed);
}

uint32_t
FlowHashRouting::DefaultSeed(uint32_t nodeId)
{
    uint64_t key[2] = {nodeId, RngSeedManager::GetRun() * 1000003ULL + RngSeedManager::GetSeed()};
    return Hash32(reinterpret_cast<const char*>(key), sizeof(key));
}

Ptr<Ipv4Route>
FlowHashRouting::RouteVia(uint32_t interface) const
{
    if (m_routeOfInterface.size() <= interface)
    {
        m_routeOfInterface.resize(m_ipv4->GetNInterfaces());
    }
    Ptr<Ipv4Route>& route = m_routeOfInterface[interface];
    if (!route)
    {
        // A point-to-point interface's peer is the gateway; the rank's identity
        // (its first interface address) is the source of locally sent packets.
        route = Create<Ipv4Route>();
        route->SetOutputDevice(m_ipv4->GetNetDevice(interface));
        Ipv4InterfaceAddress local = m_ipv4->GetAddress(interface, 0);
        Ipv4Address network = local.GetLocal().CombineMask(local.GetMask());
        // /30 links: the peer is the other usable address of the subnet.
        uint32_t base = network.Get();
        uint32_t peer = (local.GetLocal().Get() == base + 1) ? base + 2 : base + 1;
        route->SetGateway(Ipv4Address(peer));
        route->SetSource(m_ipv4->GetAddress(1, 0).GetLocal());
    }
    return route;
}

Ptr<Ipv4Route>
FlowHashRouting::Lookup(uint32_t rank,
                        const Ipv4Header& header,
                        uint16_t srcPort,
                        uint16_t dstPort) const
{
    uint32_t iface = SelectInterface(rank,
                                     header.GetSource(),
                                     header.GetDestination(),
                                     header.GetProtocol(),
                                     srcPort,
                                     dstPort);
    if (iface == std::numeric_limits<uint32_t>::max())
    {
        return nullptr;
    }
    return RouteVia(iface);
}

Ptr<Ipv4Route>
FlowHashRouting::RouteOutput(Ptr<Packet> p,
                             const Ipv4Header& header,
                             Ptr<NetDevice> oif,
                             Socket::SocketErrno& sockerr)
{
    NS_LOG_FUNCTION(this << header.GetDestination());
    auto it = m_ranks ? m_ranks->find(header.GetDestination().Get()) : AddressMap::const_iterator();
    if (!m_ranks || it == m_ranks->end())
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    // Hash without the source address: it may still be unset (0.0.0.0) at connect time.
    Ipv4Header h = header;
    h.SetSource(m_ipv4->GetAddress(1, 0).GetLocal());
    Ptr<Ipv4Route> route = Lookup(it->second, h, 0, 0);
    sockerr = route ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return route;
}

bool
FlowHashRouting::RouteInput(Ptr<const Packet> p,
                            const Ipv4Header& header,
                            Ptr<const NetDevice> idev,
                            UnicastForwardCallback ucb,
                            MulticastForwardCallback mcb,
                            LocalDeliverCallback lcb,
                            ErrorCallback ecb)
{
    uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    if (m_ipv4->IsDestinationAddress(header.GetDestination(), iif))
    {
        if (!lcb.IsNull())
        {
            lcb(p, header, iif);
            return true;
        }
        return false;
    }
    auto it = m_ranks ? m_ranks->find(header.GetDestination().Get()) : AddressMap::const_iterator();
    if (!m_ranks || it == m_ranks->end())
    {
        m_noRouteTrace(p, header);
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return false;
    }
    uint16_t ports[2] = {0, 0};
    uint8_t proto = header.GetProtocol();
    if ((proto == 6 || proto == 17) && p->GetSize() >= 4)
    {
        p->CopyData(reinterpret_cast<uint8_t*>(ports), 4);
    }
    Ptr<Ipv4Route> route = Lookup(it->second, header, ports[0], ports[1]);
    if (!route)
    {
        m_noRouteTrace(p, header);
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return false;
    }
    ucb(route, p, header);
    return true;
}

void
FlowHashRouting::NotifyInterfaceUp(uint32_t interface)
{
}

void
FlowHashRouting::NotifyInterfaceDown(uint32_t interface)
{
}

void
FlowHashRouting::NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    m_routeOfInterface.clear();
}

void
FlowHashRouting::NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    m_routeOfInterface.clear();
}

void
FlowHashRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
    // A routing protocol is held by the node's Ipv4, not aggregated to the node (ns-3
    // disposes it from Ipv4L3Protocol); it is reached by name: /Names/Routing-<node id>.
    Ptr<Node> node = ipv4 ? ipv4->GetObject<Node>() : nullptr;
    if (node)
    {
        TraceNames::Register(this, "Routing-" + std::to_string(node->GetId()));
    }
}

void
FlowHashRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    std::ostream& os = *stream->GetStream();
    os << "Node " << m_ipv4->GetObject<Node>()->GetId() << " flow-hash table (rank: interfaces)\n";
    for (uint32_t r = 0; r < m_next.Table().GetNRanks(); ++r)
    {
        os << "  " << r << ":";
        for (uint32_t i : m_next.Get(r))
        {
            os << " " << i;
        }
        os << "\n";
    }
}

} // namespace ns3
