// SPDX-License-Identifier: GPL-2.0-only
#include "traffic-accounting.h"

#include "ns3/fast-forwarding.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/ppp-header.h"
#include "ns3/priority-flow-control.h"
#include "ns3/process-runtime.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTrafficAccounting");
NS_OBJECT_ENSURE_REGISTERED(TrafficAccounting);

namespace
{
constexpr uint64_t kPppHeader = 2; //!< bytes a point-to-point device adds to a frame

const char* const kCauseNames[] = {"queue", "buffer", "failed-link", "phy", "no-route", "other"};

std::vector<TrafficCounts>&
Log()
{
    static std::vector<TrafficCounts> log;
    return log;
}

nlohmann::json
AmountJson(const TrafficCounts::Amount& a, const char* unit)
{
    return {{unit, a.count}, {"bytes", a.bytes}};
}

/// [{where, cause, frames, bytes}, ...]
nlohmann::json
DropsJson(const std::vector<TrafficCounts::Drop>& drops)
{
    nlohmann::json list = nlohmann::json::array();
    for (const TrafficCounts::Drop& d : drops)
    {
        list.push_back({{"where", d.where},
                        {"cause", d.cause},
                        {"frames", d.frames.count},
                        {"bytes", d.frames.bytes}});
    }
    return list;
}
} // namespace

nlohmann::json
TrafficCounts::ToJson() const
{
    const nlohmann::json dropList = DropsJson(drops);
    const nlohmann::json overflowList = DropsJson(fluidOverflows);
    return {{"fabric", fabric},
            {"data_path", dataPath},
            {"transports", transports},
            {"conserved", true},
            {"messages",
             {{"sent", AmountJson(messagesSent, "messages")},
              {"delivered", AmountJson(messagesDelivered, "messages")},
              {"abandoned", AmountJson(messagesAbandoned, "messages")},
              {"in_flight", AmountJson(messagesInFlight, "messages")}}},
            {"frames",
             {{"sent", AmountJson(framesSent, "frames")},
              {"resent", framesResent},
              {"resent_bytes", bytesResent},
              {"mirrored", AmountJson(framesMirrored, "frames")},
              {"forwarded", AmountJson(framesForwarded, "frames")},
              {"delivered", AmountJson(framesDelivered, "frames")},
              {"dropped", AmountJson(framesDropped, "frames")},
              {"in_flight", AmountJson(framesInFlight, "frames")}}},
            {"drops", dropList},
            {"timeouts", timeouts},
            {"max_queue_bytes", maxQueueBytes},
            {"fluid",
             {{"peak_backlog_bytes", fluidPeakBacklogBytes},
              {"overflow", AmountJson(fluidOverflow, "frames")},
              {"overflows", overflowList},
              {"caught_by_failures", AmountJson(fluidCaught, "messages")},
              {"repaired_after_failures", AmountJson(fluidRepaired, "frames")},
              {"repaired_after_drops", AmountJson(fluidDropRepaired, "frames")},
              {"repair_timeouts", fluidRepairTimeouts}}},
            {"ecn_marked", ecnMarked},
            {"pfc",
             {{"pauses_sent", pfcPausesSent},
              {"pauses_received", pfcPausesReceived},
              {"paused_s", pfcPausedSeconds}}}};
}

std::string
TrafficCounts::Summary() const
{
    if (framesDropped.count == 0 && framesResent == 0 && timeouts == 0 && pfcPausesSent == 0 &&
        pfcPausesReceived == 0 && ecnMarked == 0 && fluidOverflow.bytes == 0 &&
        fluidCaught.count == 0 && fluidRepaired.count == 0 && fluidDropRepaired.count == 0)
    {
        return "";
    }
    std::vector<std::string> parts;
    if (fluidCaught.count > 0)
    {
        parts.push_back("fluid: " + std::to_string(fluidCaught.count) +
                        " messages crossed a link as it failed (" +
                        std::to_string(fluidCaught.bytes) + " bytes)");
    }
    if (fluidRepaired.count > 0)
    {
        parts.push_back("fluid: " + std::to_string(fluidRepaired.count) +
                        " frames lost to link failures and re-sent (" +
                        std::to_string(fluidRepaired.bytes) + " bytes), " +
                        std::to_string(fluidRepairTimeouts) + " timeouts");
    }
    if (fluidDropRepaired.count > 0)
    {
        parts.push_back("fluid: " + std::to_string(fluidDropRepaired.count) +
                        " frames dropped at full switch ports and re-sent (" +
                        std::to_string(fluidDropRepaired.bytes) + " bytes)");
    }
    if (fluidOverflow.bytes > 0)
    {
        parts.push_back("fluid overflow " + std::to_string(fluidOverflow.count) + " frames (" +
                        OverflowList() + "), peak backlog " +
                        std::to_string(fluidPeakBacklogBytes) + " bytes");
    }
    if (framesDropped.count > 0)
    {
        parts.push_back("dropped " + std::to_string(framesDropped.count) + " frames (" +
                        DropList() + ")");
    }
    if (framesResent > 0)
    {
        parts.push_back("re-sent " + std::to_string(framesResent) +
                        (bytesResent > 0 ? " (" + std::to_string(bytesResent) + " bytes)" : ""));
    }
    if (timeouts > 0)
    {
        parts.push_back(std::to_string(timeouts) + " timeouts");
    }
    if (pfcPausesSent > 0 || pfcPausesReceived > 0)
    {
        std::ostringstream os;
        os << "PFC pauses " << pfcPausesSent << " sent / " << pfcPausesReceived << " received ("
           << pfcPausedSeconds << " s paused)";
        parts.push_back(os.str());
    }
    if (ecnMarked > 0)
    {
        parts.push_back(std::to_string(ecnMarked) + " ECN-marked");
    }
    if (maxQueueBytes > 0)
    {
        parts.push_back("max queue " + std::to_string(maxQueueBytes) + " bytes");
    }
    std::string line;
    for (const std::string& p : parts)
    {
        line += (line.empty() ? "" : ", ") + p;
    }
    return line;
}

namespace
{
/// "tor-agg queue 1200, host-tor failed link 34"
std::string
ListDrops(const std::vector<TrafficCounts::Drop>& drops)
{
    std::ostringstream os;
    for (size_t i = 0; i < drops.size(); ++i)
    {
        std::string cause = drops[i].cause;
        std::replace(cause.begin(), cause.end(), '-', ' ');
        os << (i ? ", " : "") << drops[i].where << " " << cause << " " << drops[i].frames.count;
    }
    return os.str();
}
} // namespace

std::string
TrafficCounts::DropList() const
{
    return ListDrops(drops);
}

std::string
TrafficCounts::OverflowList() const
{
    return ListDrops(fluidOverflows);
}

TypeId
TrafficAccounting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrafficAccounting")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<TrafficAccounting>()
            .AddTraceSource("FrameDropped",
                            "A frame was dropped: the frame, where (link class, or host / "
                            "switch for a node's own drops), cause (queue, buffer, "
                            "failed-link, phy, no-route, other).",
                            MakeTraceSourceAccessor(&TrafficAccounting::m_dropTrace),
                            "ns3::TrafficAccounting::FrameDroppedCallback");
    return tid;
}

TrafficAccounting::TrafficAccounting() = default;
TrafficAccounting::~TrafficAccounting() = default;

void
TrafficAccounting::DoDispose()
{
    m_cluster = nullptr;
    m_transports.clear();
    m_devices.clear();
    m_fast.clear();
    m_pfc.clear();
    m_deviceIndex.clear();
    Object::DoDispose();
}

void
TrafficAccounting::Release()
{
    m_transports.clear();
}

Ptr<TrafficAccounting>
TrafficAccounting::Attach(Ptr<Cluster> cluster, Ptr<MessageTransport> transport)
{
    NS_ASSERT(cluster);
    Ptr<TrafficAccounting> accounting = cluster->GetObject<TrafficAccounting>();
    if (!accounting)
    {
        accounting = CreateObject<TrafficAccounting>();
        // A flow-level run moves no frame: its device and node traces are connected only
        // if a transport that sends frames is added.
        accounting->Connect(cluster, DynamicCast<FluidMessageTransport>(transport) == nullptr);
        cluster->AggregateObject(accounting);
        Simulator::ScheduleDestroy(&TrafficAccounting::Release, accounting);
    }
    if (transport)
    {
        accounting->AddTransport(transport);
    }
    return accounting;
}

void
TrafficAccounting::AddTransport(Ptr<MessageTransport> transport)
{
    if (std::find(m_transports.begin(), m_transports.end(), transport) == m_transports.end())
    {
        m_transports.push_back(transport);
    }
    if (!m_framesCounted && !DynamicCast<FluidMessageTransport>(transport))
    {
        ConnectFrames();
    }
}

bool
TrafficAccounting::AreFramesCounted() const
{
    return m_framesCounted;
}

void
TrafficAccounting::OnObjectBound(Ptr<Object> object)
{
    if (Ptr<MessageTransport> t = DynamicCast<MessageTransport>(object))
    {
        AddTransport(t);
    }
}

uint32_t
TrafficAccounting::WhereIndex(const std::string& where) const
{
    auto it = std::find(m_where.begin(), m_where.end(), where);
    NS_ASSERT_MSG(it != m_where.end(), "no drop place " << where);
    return static_cast<uint32_t>(it - m_where.begin());
}

void
TrafficAccounting::Connect(Ptr<Cluster> cluster, bool countFrames)
{
    m_cluster = PeekPointer(cluster);
    // Drop places in an order every process of a distributed run agrees on.
    std::set<std::string> classes;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        classes.insert(l.linkClass);
    }
    m_where.assign(classes.begin(), classes.end());
    m_where.push_back("host");
    m_where.push_back("switch");
    m_drops.assign(m_where.size(), {});
    if (countFrames)
    {
        ConnectFrames();
    }
    cluster->TraceConnectWithoutContext("ObjectBound",
                                        MakeCallback(&TrafficAccounting::OnObjectBound, this));
}

void
TrafficAccounting::ConnectFrames()
{
    NS_ASSERT(!m_framesCounted);
    m_framesCounted = true;
    for (const ClusterLink& l : m_cluster->GetLinks())
    {
        ConnectDevice(l.devA, l.id);
        ConnectDevice(l.devB, l.id);
    }
    NodeContainer nodes = m_cluster->GetAllNodes();
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<Node> node = nodes.Get(i);
        ConnectNode(node,
                    m_cluster->GetRankOfNode(node->GetId()) !=
                        std::numeric_limits<uint32_t>::max());
    }
}

void
TrafficAccounting::ConnectDevice(Ptr<PointToPointNetDevice> dev, uint32_t linkId)
{
    auto ins = m_deviceIndex.emplace(PeekPointer(dev), static_cast<uint32_t>(m_devices.size()));
    if (!ins.second)
    {
        m_devices[ins.first->second].linkId = linkId; // a reconnected circuit: its last link
        return;
    }
    uint32_t index = ins.first->second;
    Device d;
    d.device = dev;
    d.linkId = linkId;
    d.atSwitch =
        m_cluster->GetRankOfNode(dev->GetNode()->GetId()) == std::numeric_limits<uint32_t>::max();
    m_devices.push_back(d);
    if (d.atSwitch)
    {
        dev->GetQueue()->TraceConnectWithoutContext(
            "Enqueue",
            MakeCallback(&TrafficAccounting::OnDeviceEnqueue, this).Bind(index));
    }
    uint32_t where = WhereIndex(m_cluster->GetLink(linkId).linkClass);
    dev->TraceConnectWithoutContext("MacTx",
                                    MakeCallback(&TrafficAccounting::OnMacTx, this).Bind(index));
    dev->TraceConnectWithoutContext(
        "MacTxDrop",
        MakeCallback(&TrafficAccounting::OnDeviceDrop, this).Bind(where, QUEUE, MAC_TX_DROP));
    dev->TraceConnectWithoutContext(
        "PhyTxBegin",
        MakeCallback(&TrafficAccounting::OnFrame, this).Bind(PHY_TX_BEGIN));
    dev->TraceConnectWithoutContext(
        "PhyTxDrop",
        MakeCallback(&TrafficAccounting::OnDeviceDrop, this).Bind(where, PHY, PHY_TX_DROP));
    dev->TraceConnectWithoutContext(
        "PhyRxEnd",
        MakeCallback(&TrafficAccounting::OnFrame, this).Bind(PHY_RX_END));
    dev->TraceConnectWithoutContext("PhyRxDrop",
                                    MakeCallback(&TrafficAccounting::OnPhyRxDrop, this)
                                        .Bind(static_cast<const NetDevice*>(PeekPointer(dev))));
}

void
TrafficAccounting::ConnectNode(Ptr<Node> node, bool isRank)
{
    uint32_t where = WhereIndex(isRank ? "host" : "switch");
    Ptr<Ipv4L3Protocol> ipv4 = node->GetObject<Ipv4L3Protocol>();
    if (ipv4)
    {
        ipv4->TraceConnectWithoutContext(
            "SendOutgoing",
            MakeCallback(&TrafficAccounting::OnIpv4, this).Bind(isRank ? SENT_HOST : SENT_SWITCH));
        ipv4->TraceConnectWithoutContext(
            "UnicastForward",
            MakeCallback(&TrafficAccounting::OnIpv4, this).Bind(FORWARDED));
        ipv4->TraceConnectWithoutContext(
            "LocalDeliver",
            MakeCallback(&TrafficAccounting::OnIpv4, this).Bind(DELIVERED));
        ipv4->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(&TrafficAccounting::OnIpv4Drop, this).Bind(where));
        ipv4->TraceConnectWithoutContext("Tx", MakeCallback(&TrafficAccounting::OnIpv4Tx, this));
    }
    Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        auto it = m_deviceIndex.find(PeekPointer(node->GetDevice(i)));
        if (it == m_deviceIndex.end())
        {
            continue;
        }
        Device& d = m_devices[it->second];
        d.ipv4 = ipv4 != nullptr;
        d.qdisc = tc ? tc->GetRootQueueDiscOnDevice(d.device) : nullptr;
        if (d.qdisc)
        {
            d.qdisc->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&TrafficAccounting::OnQueueDiscDrop, this).Bind(it->second));
            if (d.atSwitch)
            {
                d.qdisc->TraceConnectWithoutContext(
                    "Enqueue",
                    MakeCallback(&TrafficAccounting::OnQueueDiscEnqueue, this).Bind(it->second));
            }
        }
    }
    if (Ptr<FastForwarding> fast = node->GetObject<FastForwarding>())
    {
        fast->TraceConnectWithoutContext(
            "Tx",
            MakeCallback(&TrafficAccounting::OnFast, this).Bind(isRank ? SENT_HOST : SENT_SWITCH));
        fast->TraceConnectWithoutContext(
            "Forward",
            MakeCallback(&TrafficAccounting::OnFast, this).Bind(FORWARDED));
        fast->TraceConnectWithoutContext(
            "Deliver",
            MakeCallback(&TrafficAccounting::OnFast, this).Bind(DELIVERED));
        fast->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(&TrafficAccounting::OnFastDrop, this).Bind(where));
        m_fast.push_back(fast);
    }
    if (Ptr<PriorityFlowControl> pfc = node->GetObject<PriorityFlowControl>())
    {
        pfc->TraceConnectWithoutContext(
            "BufferDrop",
            MakeCallback(&TrafficAccounting::OnBufferDrop, this).Bind(where));
        pfc->TraceConnectWithoutContext(
            "PauseSent",
            MakeCallback(&TrafficAccounting::OnPause, this).Bind(PAUSE_SENT));
        pfc->TraceConnectWithoutContext(
            "PauseReceived",
            MakeCallback(&TrafficAccounting::OnPause, this).Bind(PAUSE_RECEIVED));
        m_pfc.push_back(pfc);
    }
}

bool
TrafficAccounting::IsPause(Ptr<const Packet> p) const
{
    const uint32_t size = p->GetSize();
    if (m_pfc.empty() || (size != PriorityFlowControl::PAUSE_WIRE_BYTES &&
                          size != PriorityFlowControl::PAUSE_WIRE_BYTES - kPppHeader))
    {
        return false;
    }
    Ptr<Packet> copy = p->Copy();
    if (size == PriorityFlowControl::PAUSE_WIRE_BYTES)
    {
        PppHeader ppp;
        copy->RemoveHeader(ppp);
    }
    FastFrameHeader h;
    copy->PeekHeader(h);
    return h.protocol == PriorityFlowControl::PAUSE_PROTOCOL;
}

void
TrafficAccounting::OnBufferDrop(uint32_t where, Ptr<const Packet> p, Ptr<NetDevice>)
{
    CountDrop(where, BUFFER, p, p->GetSize() + kPppHeader);
}

void
TrafficAccounting::OnPause(Counter c, Ptr<NetDevice>, uint8_t, uint16_t)
{
    Count(c, PriorityFlowControl::PAUSE_WIRE_BYTES);
}

void
TrafficAccounting::Count(Counter c, uint64_t bytes)
{
    ++m_counters[2 * c];
    m_counters[2 * c + 1] += bytes;
}

void
TrafficAccounting::CountDrop(uint32_t where, Cause cause, Ptr<const Packet> p, uint64_t bytes)
{
    ++m_drops[where][2 * cause];
    m_drops[where][2 * cause + 1] += bytes;
    m_dropTrace(p, m_where[where], kCauseNames[cause]);
}

void
TrafficAccounting::OnFrame(Counter c, Ptr<const Packet> p)
{
    Count(c, p->GetSize());
}

void
TrafficAccounting::OnMacTx(uint32_t device, Ptr<const Packet> p)
{
    Count(MAC_TX, p->GetSize());
    ++m_devices[device].macTx[0];
    m_devices[device].macTx[1] += p->GetSize();
}

void
TrafficAccounting::OnIpv4Tx(Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t iface)
{
    auto it = m_deviceIndex.find(PeekPointer(ipv4->GetNetDevice(iface)));
    if (it != m_deviceIndex.end())
    {
        ++m_devices[it->second].toTc[0];
        m_devices[it->second].toTc[1] += p->GetSize() + kPppHeader;
    }
}

void
TrafficAccounting::OnDeviceDrop(uint32_t where, Cause cause, Counter c, Ptr<const Packet> p)
{
    Count(c, p->GetSize());
    if (IsPause(p))
    {
        Count(PAUSE_DROPPED, PriorityFlowControl::PAUSE_WIRE_BYTES);
        return;
    }
    CountDrop(where, cause, p, p->GetSize());
}

void
TrafficAccounting::OnPhyRxDrop(const NetDevice* dev, Ptr<const Packet> p)
{
    uint32_t linkId = m_devices[m_deviceIndex.at(dev)].linkId;
    const ClusterLink& l = m_cluster->GetLink(linkId);
    Count(PHY_RX_DROP, p->GetSize());
    if (IsPause(p))
    {
        Count(PAUSE_DROPPED, PriorityFlowControl::PAUSE_WIRE_BYTES);
        return;
    }
    // FailLink's receive error model drops everything that reaches a failed link,
    // frames already on the wire when it failed included.
    CountDrop(WhereIndex(l.linkClass),
              l.failed && !l.detached ? FAILED_LINK : PHY,
              p,
              p->GetSize());
}

void
TrafficAccounting::CountLostOnWire(Ptr<NetDevice> sender, Ptr<const Packet> frame)
{
    uint32_t linkId = m_devices[m_deviceIndex.at(PeekPointer(sender))].linkId;
    // Off the wire as a PHY loss after PhyTxBegin, like a channel refusing it.
    Count(PHY_TX_DROP, frame->GetSize());
    if (IsPause(frame))
    {
        Count(PAUSE_DROPPED, PriorityFlowControl::PAUSE_WIRE_BYTES);
        return;
    }
    CountDrop(WhereIndex(m_cluster->GetLink(linkId).linkClass), PHY, frame, frame->GetSize());
}

void
TrafficAccounting::OnIpv4(Counter c, const Ipv4Header& h, Ptr<const Packet> p, uint32_t)
{
    Count(c, p->GetSize() + h.GetSerializedSize() + kPppHeader);
}

void
TrafficAccounting::OnIpv4Drop(uint32_t where,
                              const Ipv4Header& h,
                              Ptr<const Packet> p,
                              Ipv4L3Protocol::DropReason reason,
                              Ptr<Ipv4>,
                              uint32_t)
{
    Cause cause = reason == Ipv4L3Protocol::DROP_NO_ROUTE ||
                          reason == Ipv4L3Protocol::DROP_ROUTE_ERROR ||
                          reason == Ipv4L3Protocol::DROP_TTL_EXPIRED
                      ? NO_ROUTE
                      : OTHER;
    CountDrop(where, cause, p, p->GetSize() + h.GetSerializedSize() + kPppHeader);
}

void
TrafficAccounting::OnQueueDiscDrop(uint32_t device, Ptr<const QueueDiscItem> item)
{
    Device& d = m_devices[device];
    ++d.qdiscDropped[0];
    d.qdiscDropped[1] += item->GetSize() + kPppHeader;
    CountDrop(WhereIndex(m_cluster->GetLink(d.linkId).linkClass),
              QUEUE,
              item->GetPacket(),
              item->GetSize() + kPppHeader);
}

void
TrafficAccounting::OnFast(Counter c, Ptr<const Packet> p, uint32_t)
{
    Count(c, p->GetSize() + kPppHeader);
}

void
TrafficAccounting::OnFastDrop(uint32_t where, Ptr<const Packet> p, uint32_t)
{
    CountDrop(where, NO_ROUTE, p, p->GetSize() + kPppHeader);
}

void
TrafficAccounting::SampleQueue(uint32_t device)
{
    const Device& d = m_devices[device];
    uint64_t bytes = d.device->GetQueue()->GetNBytes();
    if (d.qdisc)
    {
        bytes += d.qdisc->GetNBytes() + kPppHeader * d.qdisc->GetNPackets();
    }
    m_maxQueueBytes = std::max(m_maxQueueBytes, bytes);
}

void
TrafficAccounting::OnDeviceEnqueue(uint32_t device, Ptr<const Packet>)
{
    SampleQueue(device);
}

void
TrafficAccounting::OnQueueDiscEnqueue(uint32_t device, Ptr<const QueueDiscItem>)
{
    SampleQueue(device);
}

namespace
{
/// Layout of the measured values after the counters and the drop table.
enum Measured
{
    QDISC_FRAMES,
    QDISC_BYTES,
    DEVQ_FRAMES,
    DEVQ_BYTES,
    PENDING_FRAMES,
    PENDING_BYTES,
    MSG_SENT,
    MSG_SENT_BYTES,
    MSG_DELIVERED,
    MSG_DELIVERED_BYTES,
    MSG_ABANDONED,
    MSG_ABANDONED_BYTES,
    RESENT,
    ECN_MARKED, //!< frames switches marked CE (EcnMarker)
    RESENT_BYTES,
    TIMEOUTS,
    MAX_QUEUE, //!< merged over processes by their maximum, not their sum
    TC_EXCESS, //!< frames + bytes that reached devices without IPv4 handing them down
    PAUSED_NS, //!< PFC paused time (ns), summed over nodes, ports and priorities
    N_MEASURED
};
} // namespace

std::vector<uint64_t>
TrafficAccounting::Flatten() const
{
    std::vector<uint64_t> flat(m_counters.begin(), m_counters.end());
    std::vector<std::array<uint64_t, 2 * N_CAUSES>> drops = m_drops;
    std::array<uint64_t, N_MEASURED> m{};
    for (const Device& d : m_devices)
    {
        uint64_t queued[2] = {0, 0};
        if (d.qdisc)
        {
            queued[0] = d.qdisc->GetNPackets();
            queued[1] = d.qdisc->GetNBytes() + kPppHeader * d.qdisc->GetNPackets();
        }
        m[QDISC_FRAMES] += queued[0];
        m[QDISC_BYTES] += queued[1];
        Ptr<Queue<Packet>> q = d.device->GetQueue();
        m[DEVQ_FRAMES] += q->GetNPackets();
        m[DEVQ_BYTES] += q->GetNBytes();
        if (!d.ipv4)
        {
            continue;
        }
        // ns-3's traffic-control layer drops a packet without any trace when the device
        // has no queue disc and its queue is full (stopped): what IPv4 handed to traffic
        // control and did not reach the device, its queue disc's drops or its queue.
        for (int unit = 0; unit < 2; ++unit)
        {
            uint64_t accounted = d.macTx[unit] + d.qdiscDropped[unit] + queued[unit];
            if (d.toTc[unit] < accounted)
            {
                m[TC_EXCESS] += accounted - d.toTc[unit]; // more out than in: Check reports
                continue;
            }
            drops[WhereIndex(m_cluster->GetLink(d.linkId).linkClass)][2 * QUEUE + unit] +=
                d.toTc[unit] - accounted;
        }
    }
    for (const auto& row : drops)
    {
        flat.insert(flat.end(), row.begin(), row.end());
    }
    for (const Ptr<FastForwarding>& f : m_fast)
    {
        m[PENDING_FRAMES] += f->GetPendingFrames();
        m[PENDING_BYTES] += f->GetPendingBytes() + kPppHeader * f->GetPendingFrames();
        if (Ptr<EcnMarker> marker = f->GetEcnMarker())
        {
            m[ECN_MARKED] += marker->GetMarks();
        }
    }
    for (const Ptr<PriorityFlowControl>& pfc : m_pfc)
    {
        m[PAUSED_NS] += static_cast<uint64_t>(pfc->GetPausedSeconds() * 1e9 + 0.5);
    }
    for (const Ptr<MessageTransport>& t : m_transports)
    {
        m[MSG_SENT] += t->GetMessagesSent();
        m[MSG_SENT_BYTES] += t->GetBytesSent();
        m[MSG_DELIVERED] += t->GetMessagesDelivered();
        m[MSG_DELIVERED_BYTES] += t->GetBytesDelivered();
        m[MSG_ABANDONED] += t->GetMessagesGivenUp();
        m[MSG_ABANDONED_BYTES] += t->GetBytesGivenUp();
        m[RESENT] += t->GetRetransmissions();
        m[RESENT_BYTES] += t->GetBytesResent();
        m[TIMEOUTS] += t->GetTimeouts();
    }
    m[MAX_QUEUE] = MaxQueueBytes();
    flat.insert(flat.end(), m.begin(), m.end());
    return flat;
}

TrafficCounts
TrafficAccounting::GetCounts() const
{
    return Build(Flatten());
}

uint64_t
TrafficAccounting::MaxQueueBytes() const
{
    uint64_t max = m_maxQueueBytes;
    for (const Ptr<PriorityFlowControl>& pfc : m_pfc)
    {
        max = std::max(max, pfc->GetMaxQueueBytes());
    }
    return max;
}

TrafficCounts
TrafficAccounting::Build(const std::vector<uint64_t>& flat) const
{
    auto counter = [&flat](Counter c) {
        return TrafficCounts::Amount{flat[2 * c], flat[2 * c + 1]};
    };
    const size_t dropsAt = 2 * N_COUNTERS;
    const size_t measuredAt = dropsAt + m_where.size() * 2 * N_CAUSES;
    auto measured = [&flat, measuredAt](int m) { return flat[measuredAt + m]; };

    TrafficCounts c;
    c.fabric = m_cluster->GetFabricSpec().kind;
    c.dataPath = m_cluster->GetFabricSpec().dataPath;
    for (const Ptr<MessageTransport>& t : m_transports)
    {
        std::string name = t->GetInstanceTypeId().GetName();
        if (name.rfind("ns3::", 0) == 0)
        {
            name = name.substr(5);
        }
        c.transports += (c.transports.empty() ? "" : ",") + name;
    }
    c.messagesSent = {measured(MSG_SENT), measured(MSG_SENT_BYTES)};
    c.messagesDelivered = {measured(MSG_DELIVERED), measured(MSG_DELIVERED_BYTES)};
    c.messagesAbandoned = {measured(MSG_ABANDONED), measured(MSG_ABANDONED_BYTES)};
    // Unsigned wrap-around here is a violation Check reports.
    c.messagesInFlight = {
        c.messagesSent.count - c.messagesDelivered.count - c.messagesAbandoned.count,
        c.messagesSent.bytes - c.messagesDelivered.bytes - c.messagesAbandoned.bytes};

    c.framesSent = counter(SENT_HOST);
    c.framesResent = measured(RESENT);
    c.ecnMarked = measured(ECN_MARKED);
    c.bytesResent = measured(RESENT_BYTES);
    c.timeouts = measured(TIMEOUTS);
    c.maxQueueBytes = measured(MAX_QUEUE);
    c.framesMirrored = counter(SENT_SWITCH);
    c.framesForwarded = counter(FORWARDED);
    c.framesDelivered = counter(DELIVERED);
    for (size_t w = 0; w < m_where.size(); ++w)
    {
        for (int cause = 0; cause < N_CAUSES; ++cause)
        {
            size_t at = dropsAt + w * 2 * N_CAUSES + 2 * cause;
            if (flat[at] == 0)
            {
                continue;
            }
            c.drops.push_back({m_where[w], kCauseNames[cause], {flat[at], flat[at + 1]}});
            c.framesDropped.count += flat[at];
            c.framesDropped.bytes += flat[at + 1];
        }
    }
    std::stable_sort(c.drops.begin(), c.drops.end(), [](const auto& a, const auto& b) {
        return a.frames.count > b.frames.count;
    });
    // In flight: queued (queue discs, device queues, held by the fast path) and on the
    // wire (transmissions started less those that arrived or were lost at a PHY).
    auto wire = [&](int unit) {
        return flat[2 * PHY_TX_BEGIN + unit] - flat[2 * PHY_TX_DROP + unit] -
               flat[2 * PHY_RX_END + unit] - flat[2 * PHY_RX_DROP + unit];
    };
    // PAUSE frames queued, on the wire or about to be handled are not data in flight.
    auto pauses = [&](int unit) {
        return flat[2 * PAUSE_SENT + unit] - flat[2 * PAUSE_RECEIVED + unit] -
               flat[2 * PAUSE_DROPPED + unit];
    };
    c.framesInFlight = {measured(QDISC_FRAMES) + measured(DEVQ_FRAMES) + measured(PENDING_FRAMES) +
                            wire(0) - pauses(0),
                        measured(QDISC_BYTES) + measured(DEVQ_BYTES) + measured(PENDING_BYTES) +
                            wire(1) - pauses(1)};
    c.pfcPausesSent = flat[2 * PAUSE_SENT];
    c.pfcPausesReceived = flat[2 * PAUSE_RECEIVED];
    c.pfcPausedSeconds = static_cast<double>(measured(PAUSED_NS)) * 1e-9;
    for (const Ptr<MessageTransport>& t : m_transports)
    {
        if (Ptr<FluidMessageTransport> fluid = DynamicCast<FluidMessageTransport>(t))
        {
            AddFluidQueues(fluid, c);
            const FluidMessageTransport::FailureCatch caught = fluid->GetCaughtByFailures();
            c.fluidCaught.count += caught.messages;
            c.fluidCaught.bytes += caught.wireBytes;
            c.fluidRepaired.count += caught.repaired.lostPackets;
            c.fluidRepaired.bytes += caught.repaired.resentWireBytes;
            c.fluidRepairTimeouts += caught.repaired.timeouts;
            const FluidMessageTransport::Repairs dropped = fluid->GetDropRepairs();
            c.fluidDropRepaired.count += dropped.lostPackets;
            c.fluidDropRepaired.bytes += dropped.resentWireBytes;
            c.fluidRepairTimeouts += dropped.timeouts;
        }
    }
    return c;
}

void
TrafficAccounting::AddFluidQueues(Ptr<FluidMessageTransport> fluid, TrafficCounts& c) const
{
    // Overflow bytes by link class and by who transmits (a switch, or a rank that
    // forwards), in the order they first appear; frames are counted from the bytes.
    const uint32_t none = std::numeric_limits<uint32_t>::max();
    std::vector<std::pair<TrafficCounts::Drop, double>> byPlace;
    double peak = 0;
    for (const ClusterLink& l : m_cluster->GetLinks())
    {
        for (uint32_t key : {2 * l.id, 2 * l.id + 1})
        {
            const FluidTransfers::LinkQueue q = fluid->GetLinkQueue(key);
            peak = std::max(peak, q.peakBacklog);
            if (q.overflow <= 0)
            {
                continue;
            }
            const uint32_t sender = key % 2 == 0 ? l.nodeA : l.nodeB;
            // A switch port of a transport that drops there dropped its overflow (and
            // the transport repaired it); one that holds back (PFC) did not.
            const std::string cause = m_cluster->GetRankOfNode(sender) != none
                                          ? TrafficCounts::RANK_BUFFER
                                      : fluid->GetDropsAtFullPorts() ? TrafficCounts::SWITCH_DROP
                                                                     : TrafficCounts::SWITCH_BUFFER;
            auto it = std::find_if(byPlace.begin(), byPlace.end(), [&](const auto& e) {
                return e.first.where == l.linkClass && e.first.cause == cause;
            });
            if (it == byPlace.end())
            {
                byPlace.push_back({{l.linkClass, cause, {}}, 0.0});
                it = byPlace.end() - 1;
            }
            it->second += q.overflow;
        }
    }
    c.fluidPeakBacklogBytes =
        std::max(c.fluidPeakBacklogBytes, static_cast<uint64_t>(std::llround(peak)));
    const double frame = fluid->GetFrameWireBytes();
    for (auto& [place, bytes] : byPlace)
    {
        place.frames = {static_cast<uint64_t>(std::llround(bytes / frame)),
                        static_cast<uint64_t>(std::llround(bytes))};
        if (place.frames.bytes == 0)
        {
            continue;
        }
        const TrafficCounts::Amount a = place.frames;
        c.fluidOverflows.push_back(place);
        c.fluidOverflow.count += a.count;
        c.fluidOverflow.bytes += a.bytes;
    }
    std::stable_sort(c.fluidOverflows.begin(),
                     c.fluidOverflows.end(),
                     [](const auto& a, const auto& b) { return a.frames.bytes > b.frames.bytes; });
}

void
TrafficAccounting::Check(const TrafficCounts& c, const std::vector<uint64_t>& flat)
{
    std::ostringstream why;
    auto signedOf = [](uint64_t v) { return static_cast<int64_t>(v); };
    // Messages: in flight is what is left, and what is left cannot be negative.
    if (signedOf(c.messagesInFlight.count) < 0 || signedOf(c.messagesInFlight.bytes) < 0)
    {
        why << "messages: " << c.messagesSent.count << " sent (" << c.messagesSent.bytes
            << " bytes) < " << c.messagesDelivered.count << " delivered ("
            << c.messagesDelivered.bytes << " bytes) + " << c.messagesAbandoned.count
            << " abandoned (" << c.messagesAbandoned.bytes << " bytes); ";
    }
    // Frames on the wire: every arrival or PHY loss had a transmission.
    for (int unit = 0; unit < 2; ++unit)
    {
        uint64_t in = flat[2 * PHY_TX_DROP + unit] + flat[2 * PHY_RX_END + unit] +
                      flat[2 * PHY_RX_DROP + unit];
        if (in > flat[2 * PHY_TX_BEGIN + unit])
        {
            why << "wire " << (unit ? "bytes" : "frames") << ": " << flat[2 * PHY_TX_BEGIN + unit]
                << " started < " << in << " arrived or lost; ";
        }
    }
    // Devices: a frame handed to a device is dropped by its queue, transmitted or queued.
    const size_t measuredAt = flat.size() - N_MEASURED;
    for (int unit = 0; unit < 2; ++unit)
    {
        uint64_t out = flat[2 * MAC_TX_DROP + unit] + flat[2 * PHY_TX_BEGIN + unit] +
                       flat[measuredAt + DEVQ_FRAMES + unit];
        if (flat[2 * MAC_TX + unit] != out)
        {
            why << "devices (" << (unit ? "bytes" : "frames") << "): " << flat[2 * MAC_TX + unit]
                << " handed to devices != " << flat[2 * MAC_TX_DROP + unit] << " dropped + "
                << flat[2 * PHY_TX_BEGIN + unit] << " transmitted + "
                << flat[measuredAt + DEVQ_FRAMES + unit] << " queued; ";
        }
    }
    // PAUSE frames: link-level, balanced on their own (in flight cannot be negative).
    if (flat[2 * PAUSE_RECEIVED] + flat[2 * PAUSE_DROPPED] > flat[2 * PAUSE_SENT])
    {
        why << "PAUSE frames: " << flat[2 * PAUSE_SENT] << " sent < " << flat[2 * PAUSE_RECEIVED]
            << " received + " << flat[2 * PAUSE_DROPPED] << " lost; ";
    }
    if (flat[measuredAt + TC_EXCESS] != 0)
    {
        why << "traffic control: devices on IPv4 nodes sent " << flat[measuredAt + TC_EXCESS]
            << " frames and bytes more than IPv4 handed down; ";
    }
    // Frames end to end.
    auto balance = [&why](const char* unit,
                          uint64_t sent,
                          uint64_t mirrored,
                          uint64_t delivered,
                          uint64_t dropped,
                          uint64_t inFlight) {
        if (sent + mirrored != delivered + dropped + inFlight)
        {
            why << "frames (" << unit << "): " << sent << " sent by hosts + " << mirrored
                << " mirrored != " << delivered << " delivered + " << dropped << " dropped + "
                << static_cast<int64_t>(inFlight) << " in flight; ";
        }
    };
    balance("frames",
            c.framesSent.count,
            c.framesMirrored.count,
            c.framesDelivered.count,
            c.framesDropped.count,
            c.framesInFlight.count);
    balance("wire bytes",
            c.framesSent.bytes,
            c.framesMirrored.bytes,
            c.framesDelivered.bytes,
            c.framesDropped.bytes,
            c.framesInFlight.bytes);
    std::string text = why.str();
    if (!text.empty())
    {
        text.resize(text.size() - 2);
        throw std::logic_error("traffic is not conserved on the " + c.fabric + " fabric (" +
                               c.dataPath + " data path, " + c.transports + "): " + text);
    }
}

TrafficCounts
TrafficAccounting::Close()
{
    NS_LOG_FUNCTION(this);
    std::vector<uint64_t> local = Flatten();
    std::vector<uint64_t> flat = ProcessRuntime::SumAll(local);
    const size_t maxQueueAt = flat.size() - N_MEASURED + MAX_QUEUE;
    flat[maxQueueAt] = static_cast<uint64_t>(
        ProcessRuntime::MaxAll({static_cast<int64_t>(local[maxQueueAt])}).front());
    TrafficCounts c = Build(flat);
    Check(c, flat);
    if (m_logEntry < 0)
    {
        m_logEntry = static_cast<int64_t>(Log().size());
        Log().push_back(c);
    }
    else
    {
        Log()[m_logEntry] = c;
    }
    return c;
}

bool
TrafficAccounting::IsClosed() const
{
    return m_logEntry >= 0;
}

TrafficCounts
TrafficAccounting::GetClosedCounts() const
{
    if (m_logEntry < 0)
    {
        throw std::logic_error("TrafficAccounting::GetClosedCounts before Close: close the "
                               "accounting after Simulator::Run first");
    }
    return Log()[m_logEntry];
}

std::size_t
TrafficAccounting::LogCount()
{
    return Log().size();
}

std::vector<TrafficCounts>
TrafficAccounting::LogSince(std::size_t first)
{
    const auto& log = Log();
    return first >= log.size() ? std::vector<TrafficCounts>()
                               : std::vector<TrafficCounts>(log.begin() + first, log.end());
}

} // namespace ns3
