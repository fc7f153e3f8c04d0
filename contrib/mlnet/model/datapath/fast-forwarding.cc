// SPDX-License-Identifier: GPL-2.0-only
#include "fast-forwarding.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/load-balancer.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/priority-flow-control.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFastForwarding");
NS_OBJECT_ENSURE_REGISTERED(FastForwarding);

TypeId
FastForwarding::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FastForwarding")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<FastForwarding>()
            .AddAttribute("Seed",
                          "Per-node seed mixed into the flow hash (the fabric helper sets "
                          "FlowHashRouting::DefaultSeed of the node, as on the IPv4 path).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FastForwarding::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("OrderSimultaneousArrivals",
                          "Handle the frames that reach this node at the same instant in "
                          "the order of the devices they came in by (ifIndex), after all of "
                          "them have arrived, instead of in ns-3's event order (the order "
                          "their transmissions were scheduled). The event order depends on "
                          "how a run is split over MPI processes; device order does not, so "
                          "with this on a distributed run gives the same times as one "
                          "process. Off by default: then the fast path matches the IPv4 "
                          "path exactly.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FastForwarding::m_ordered),
                          MakeBooleanChecker())
            .AddAttribute("RelayLatency",
                          "Time a rank node takes to relay one frame for another node (s), "
                          "as HostForwardingRouting's ForwardingLatency; 0: none.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FastForwarding::m_relayLatency),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("RelayRate",
                          "Relay bandwidth cap of a rank node (bit/s of frames with their "
                          "28-byte header, i.e. of IP packets; FIFO), as "
                          "HostForwardingRouting's ForwardingRate; 0: no cap.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&FastForwarding::m_relayRate),
                          MakeDataRateChecker())
            .AddAttribute("LoadBalancer",
                          "How the node picks among a destination's candidate devices "
                          "(LoadBalancer: hash, spray, flowlet, adaptive). Null (the "
                          "default): the seeded flow hash, as FlowHashRouting on the IPv4 "
                          "path. FabricHelper::SetLoadBalancing gives every node one.",
                          PointerValue(),
                          MakePointerAccessor(&FastForwarding::m_loadBalancer),
                          MakePointerChecker<LoadBalancer>())
            .AddTraceSource("Relay",
                            "A rank node relays a frame for another node (on arrival, "
                            "header on): frame, time it waits before it is sent on.",
                            MakeTraceSourceAccessor(&FastForwarding::m_relayTrace),
                            "ns3::FastForwarding::RelayTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped: no route to its rank, or addressed to "
                            "this rank with no transport installed: frame, destination rank.",
                            MakeTraceSourceAccessor(&FastForwarding::m_dropTrace),
                            "ns3::FastForwarding::DropTracedCallback")
            .AddTraceSource("Tx",
                            "The local rank sends a frame (FastFrameHeader on, before the "
                            "route lookup): frame, destination rank.",
                            MakeTraceSourceAccessor(&FastForwarding::m_txTrace),
                            "ns3::FastForwarding::FrameTracedCallback")
            .AddTraceSource("Forward",
                            "A frame for another node is sent on: frame, destination rank.",
                            MakeTraceSourceAccessor(&FastForwarding::m_forwardTrace),
                            "ns3::FastForwarding::FrameTracedCallback")
            .AddTraceSource("Deliver",
                            "A frame addressed to the local rank is handed to its transport "
                            "(header still on): frame, destination rank.",
                            MakeTraceSourceAccessor(&FastForwarding::m_deliverTrace),
                            "ns3::FastForwarding::FrameTracedCallback");
    return tid;
}

FastForwarding::FastForwarding()
    : m_rank(std::numeric_limits<uint32_t>::max()),
      m_dest(Mac48Address::GetBroadcast())
{
}

FastForwarding::~FastForwarding() = default;

void
FastForwarding::DoDispose()
{
    m_next.Clear();
    m_arrivals.clear();
    m_deliver = DeliverCallback();
    m_portDeliver.clear();
    m_pfc = nullptr;
    m_ecnMarker = nullptr;
    m_loadBalancer = nullptr;
    Object::DoDispose();
}

void
FastForwarding::Install(Ptr<Node> node)
{
    NS_LOG_FUNCTION(this << node);
    node->AggregateObject(this);
    node->RegisterProtocolHandler(MakeCallback(&FastForwarding::Receive, this),
                                  FastFrameHeader::PROTOCOL,
                                  nullptr);
}

void
FastForwarding::SetLocalRank(uint32_t rank)
{
    m_rank = rank;
}

uint32_t
FastForwarding::GetLocalRank() const
{
    return m_rank;
}

void
FastForwarding::SetTable(const std::vector<std::vector<Ptr<NetDevice>>>& next)
{
    m_next.Set(RankTable<Ptr<NetDevice>>(next));
}

void
FastForwarding::SetTable(RankTable<Ptr<NetDevice>> table)
{
    m_next.Set(std::move(table));
}

void
FastForwarding::DeferTable(DeferredRankTable<Ptr<NetDevice>>::Maker make)
{
    m_next.Defer(std::move(make));
}

bool
FastForwarding::IsTableMade() const
{
    return m_next.IsMade();
}

const RankTable<Ptr<NetDevice>>&
FastForwarding::GetTable() const
{
    return m_next.Table();
}

const std::vector<Ptr<NetDevice>>&
FastForwarding::GetDevices(uint32_t rank) const
{
    return m_next.Get(rank);
}

Ptr<NetDevice>
FastForwarding::SelectDevice(const FastFrameHeader& h, bool local) const
{
    const std::vector<Ptr<NetDevice>>& choices = m_next.Get(h.dstRank);
    switch (choices.size())
    {
    case 0:
        return nullptr;
    case 1:
        return choices[0];
    default: {
        FlowKey key{h.srcAddr, h.dstAddr, h.protocol, h.srcPort, h.dstPort};
        if (m_loadBalancer)
        {
            // A rank's own frames too: a host with several devices towards the
            // destination spreads them by the same policy as a switch.
            return m_loadBalancer->Select(choices,
                                          FlowHashRouting::KeyHash(key, local, m_seed),
                                          *this);
        }
        return choices[FlowHashRouting::ChoiceIndex(key, local, m_seed, choices.size())];
    }
    }
}

bool
FastForwarding::Send(Ptr<Packet> p, const FastFrameHeader& h)
{
    Ptr<NetDevice> out = SelectDevice(h, true);
    p->AddHeader(h);
    if (!m_txTrace.IsEmpty())
    {
        m_txTrace(p, h.dstRank);
    }
    if (!out)
    {
        m_dropTrace(p, h.dstRank);
        return false;
    }
    Output(p, out, PriorityFlowControl::LOCAL, h.priority);
    return true;
}

void
FastForwarding::Output(Ptr<Packet> packet, Ptr<NetDevice> out, uint32_t inIf, uint8_t priority)
{
    if (m_pfc)
    {
        m_pfc->Output(packet, out, inIf, priority);
        return;
    }
    out->Send(packet, m_dest, FastFrameHeader::PROTOCOL);
}

void
FastForwarding::SetPriorityFlowControl(Ptr<PriorityFlowControl> pfc)
{
    m_pfc = pfc;
}

Ptr<PriorityFlowControl>
FastForwarding::GetPriorityFlowControl() const
{
    return m_pfc;
}

void
FastForwarding::SetDeliverCallback(DeliverCallback cb)
{
    m_deliver = cb;
}

void
FastForwarding::SetPortDeliverCallback(uint16_t dstPort, DeliverCallback cb)
{
    auto it = std::find_if(m_portDeliver.begin(), m_portDeliver.end(), [dstPort](const auto& e) {
        return e.first == dstPort;
    });
    if (it != m_portDeliver.end())
    {
        m_portDeliver.erase(it);
    }
    if (!cb.IsNull())
    {
        m_portDeliver.emplace_back(dstPort, cb);
    }
}

uint64_t
FastForwarding::GetQueuedBytes(Ptr<NetDevice> out) const
{
    uint64_t stage = m_pfc ? m_pfc->GetEgressBytes(out) : 0;
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(out);
    if (!p2p || !p2p->GetQueue())
    {
        return stage;
    }
    return stage + p2p->GetQueue()->GetNBytes();
}

void
FastForwarding::SetEcnMarker(Ptr<EcnMarker> marker)
{
    m_ecnMarker = marker;
}

Ptr<EcnMarker>
FastForwarding::GetEcnMarker() const
{
    return m_ecnMarker;
}

uint64_t
FastForwarding::GetFramesForwarded() const
{
    return m_forwarded;
}

uint32_t
FastForwarding::GetPendingFrames() const
{
    return static_cast<uint32_t>(m_arrivals.size()) + m_relayFrames +
           (m_pfc ? m_pfc->GetEgressFrames() : 0);
}

uint64_t
FastForwarding::GetPendingBytes() const
{
    uint64_t bytes = m_relayBytes + (m_pfc ? m_pfc->GetEgressBytes() : 0);
    for (const auto& [ifIndex, packet] : m_arrivals)
    {
        bytes += packet->GetSize();
    }
    return bytes;
}

void
FastForwarding::Receive(Ptr<NetDevice> device,
                        Ptr<const Packet> p,
                        uint16_t protocol,
                        const Address& from,
                        const Address& to,
                        NetDevice::PacketType type)
{
    // Nothing else holds the frame (ns-3's channel hands each hop a copy; a
    // LocalPointToPointChannel the sender's frame once the sender is done with it):
    // forward it as is rather than copying it again, as IPv4 would.
    Ptr<Packet> packet = ConstCast<Packet>(p);
    if (!m_ordered)
    {
        Handle(packet, device->GetIfIndex());
        return;
    }
    // Every frame arriving now was scheduled before now (a transmission takes time),
    // so an event scheduled now runs after all of them: handle them there, by device.
    if (m_arrivals.empty())
    {
        Simulator::ScheduleNow(&FastForwarding::HandleArrivals, this);
    }
    m_arrivals.emplace_back(device->GetIfIndex(), packet);
}

void
FastForwarding::HandleArrivals()
{
    std::vector<std::pair<uint32_t, Ptr<Packet>>> batch;
    batch.swap(m_arrivals);
    // One device delivers at most one frame per instant: the order is total.
    std::stable_sort(batch.begin(), batch.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    for (auto& [ifIndex, packet] : batch)
    {
        Handle(packet, ifIndex);
    }
}

void
FastForwarding::Handle(Ptr<Packet> packet, uint32_t inIf)
{
    // The header is read once per hop; where the frame ends it is dropped by size
    // (already read), not deserialised a second time. Traces are skipped when nothing
    // listens (their arguments cost a reference count each).
    FastFrameHeader h;
    packet->PeekHeader(h);
    if (h.protocol == PriorityFlowControl::PAUSE_PROTOCOL && m_pfc)
    {
        m_pfc->ReceivePause(inIf, h); // link-level: consumed here
        return;
    }
    if (h.dstRank == m_rank)
    {
        const DeliverCallback* deliver = &m_deliver;
        for (const auto& [port, cb] : m_portDeliver)
        {
            deliver = port == h.dstPort ? &cb : deliver;
        }
        if (deliver->IsNull())
        {
            m_dropTrace(packet, h.dstRank);
            return;
        }
        if (!m_deliverTrace.IsEmpty())
        {
            m_deliverTrace(packet, h.dstRank);
        }
        packet->RemoveAtStart(FastFrameHeader::SIZE);
        (*deliver)(packet, h);
        return;
    }
    Ptr<NetDevice> out = SelectDevice(h, false);
    if (!out)
    {
        NS_LOG_WARN("node drops a frame to rank " << h.dstRank << ": no route");
        m_dropTrace(packet, h.dstRank);
        return;
    }
    if (m_pfc && !m_pfc->Admit(inIf, packet, h.priority))
    {
        return; // buffer full: PriorityFlowControl's BufferDrop counts it
    }
    ++m_forwarded;
    if (m_rank != std::numeric_limits<uint32_t>::max())
    {
        Time wait = Relay(packet);
        if (wait.IsStrictlyPositive())
        {
            ++m_relayFrames;
            m_relayBytes += packet->GetSize();
            Simulator::Schedule(wait,
                                &FastForwarding::SendRelayed,
                                this,
                                packet,
                                out,
                                h.dstRank,
                                inIf);
            return;
        }
    }
    if (m_ecnMarker && h.ecn == FastFrameHeader::ECT0 &&
        m_ecnMarker->ShouldMark(GetQueuedBytes(out)))
    {
        packet->RemoveHeader(h);
        h.ecn = FastFrameHeader::CE;
        packet->AddHeader(h);
    }
    if (!m_forwardTrace.IsEmpty())
    {
        m_forwardTrace(packet, h.dstRank);
    }
    Output(packet, out, inIf, h.priority);
}

Time
FastForwarding::Relay(Ptr<const Packet> packet)
{
    // HostForwardingRouting::Relay on the fast path: the same wait for the same bytes
    // (the frame with its header is the IPv4 packet's size).
    Time wait = m_relayLatency;
    if (m_relayRate.GetBitRate() > 0)
    {
        Time now = Simulator::Now();
        m_relayFreeAt =
            std::max(now, m_relayFreeAt) + m_relayRate.CalculateBytesTxTime(packet->GetSize());
        wait += m_relayFreeAt - now;
    }
    m_relayTrace(packet, wait);
    return wait;
}

void
FastForwarding::SendRelayed(Ptr<Packet> packet, Ptr<NetDevice> out, uint32_t dstRank, uint32_t inIf)
{
    --m_relayFrames;
    m_relayBytes -= packet->GetSize();
    m_forwardTrace(packet, dstRank);
    FastFrameHeader h;
    if (m_pfc)
    {
        packet->PeekHeader(h);
    }
    Output(packet, out, inIf, h.priority);
}

} // namespace ns3
