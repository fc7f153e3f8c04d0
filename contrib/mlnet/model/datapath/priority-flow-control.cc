// SPDX-License-Identifier: GPL-2.0-only
#include "priority-flow-control.h"

#include "ns3/channel.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetPriorityFlowControl");
NS_OBJECT_ENSURE_REGISTERED(PriorityFlowControl);

namespace
{
constexpr uint32_t kPppHeader = 2; //!< bytes a point-to-point device adds
constexpr uint16_t kMaxQuanta = 65535;
} // namespace

TypeId
PriorityFlowControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PriorityFlowControl")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<PriorityFlowControl>()
            .AddAttribute("BufferSize",
                          "Shared packet buffer of the node (bytes, wire sizes). Default "
                          "16 MiB: the class of a 32x100G switch ASIC (Broadcom Tomahawk, "
                          "16 MB).",
                          UintegerValue(16u << 20),
                          MakeUintegerAccessor(&PriorityFlowControl::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("XoffThreshold",
                          "Static XOFF threshold of an ingress port-priority (bytes); 0 "
                          "(default): the dynamic threshold XoffAlpha x free buffer.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PriorityFlowControl::m_xoffStatic),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("XoffAlpha",
                          "alpha of the dynamic XOFF threshold alpha x (BufferSize - "
                          "headroom of all ports - buffered bytes); 1/8 as HPCC's switch MMU.",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&PriorityFlowControl::m_alpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("XonOffset",
                          "A paused ingress port-priority resumes (XON) when its bytes fall "
                          "below XOFF - XonOffset, or reach 0 (bytes); default two 9000-byte "
                          "frames.",
                          UintegerValue(18004),
                          MakeUintegerAccessor(&PriorityFlowControl::m_xonOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Headroom",
                          "Buffer kept per ingress port for what arrives after a PAUSE left "
                          "(bytes); 0 (default): 2 x link delay x rate + 2 MTU frames of that "
                          "port.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PriorityFlowControl::m_headroomAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("DeadlockTimeout",
                          "A cycle of paused ports none of which sent a frame for this long "
                          "is a PFC deadlock: the run ends with an error.",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&PriorityFlowControl::m_deadlockTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("PauseSent",
                            "A PAUSE left by a device: device, priority, quanta (0 = XON).",
                            MakeTraceSourceAccessor(&PriorityFlowControl::m_pauseSentTrace),
                            "ns3::PriorityFlowControl::PauseTracedCallback")
            .AddTraceSource("PauseReceived",
                            "A PAUSE arrived on a device: device, priority, quanta.",
                            MakeTraceSourceAccessor(&PriorityFlowControl::m_pauseReceivedTrace),
                            "ns3::PriorityFlowControl::PauseTracedCallback")
            .AddTraceSource("Resume",
                            "A paused egress priority is served again: device, priority, "
                            "time it was paused.",
                            MakeTraceSourceAccessor(&PriorityFlowControl::m_resumeTrace),
                            "ns3::PriorityFlowControl::ResumeTracedCallback")
            .AddTraceSource("BufferDrop",
                            "A frame found the buffer full: frame, ingress device.",
                            MakeTraceSourceAccessor(&PriorityFlowControl::m_bufferDropTrace),
                            "ns3::PriorityFlowControl::DropTracedCallback")
            .AddTraceSource("Deadlock",
                            "A cycle of paused, stalled ports was found: its description.",
                            MakeTraceSourceAccessor(&PriorityFlowControl::m_deadlockTrace),
                            "ns3::PriorityFlowControl::DeadlockTracedCallback");
    return tid;
}

PriorityFlowControl::PriorityFlowControl() = default;
PriorityFlowControl::~PriorityFlowControl() = default;

void
PriorityFlowControl::DoDispose()
{
    for (Port& port : m_ports)
    {
        for (uint8_t p = 0; p < 8; ++p)
        {
            port.resume[p].Cancel();
            port.refresh[p].Cancel();
        }
    }
    m_watchdog.Cancel();
    m_ports.clear();
    m_node = nullptr;
    Object::DoDispose();
}

void
PriorityFlowControl::Install(Ptr<Node> node)
{
    m_node = PeekPointer(node);
    m_headroomReserve = 0;
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        m_headroomReserve += GetPort(i).headroom;
    }
}

Time
PriorityFlowControl::PauseDuration(uint16_t quanta, DataRate rate)
{
    // One quantum is 512 bit times at the link rate (IEEE 802.3 Annex 31B).
    return rate.CalculateBytesTxTime(static_cast<uint64_t>(quanta) * 512 / 8);
}

PriorityFlowControl::Port&
PriorityFlowControl::GetPort(uint32_t ifIndex)
{
    if (ifIndex >= m_ports.size())
    {
        m_ports.resize(ifIndex + 1);
    }
    Port& port = m_ports[ifIndex];
    if (!port.device)
    {
        port.device = m_node->GetDevice(ifIndex);
        port.p2p = DynamicCast<PointToPointNetDevice>(port.device);
        if (port.p2p && port.p2p->GetQueue())
        {
            DataRateValue rate;
            port.p2p->GetAttribute("DataRate", rate);
            port.rate = rate.Get();
            Time delay{0};
            if (Ptr<Channel> ch = port.p2p->GetChannel())
            {
                TimeValue d;
                if (ch->GetAttributeFailSafe("Delay", d))
                {
                    delay = d.Get();
                }
            }
            uint64_t mtuFrame = port.p2p->GetMtu() + kPppHeader;
            port.headroom =
                m_headroomAttr
                    ? m_headroomAttr
                    : static_cast<uint64_t>(2 * delay.GetSeconds() * port.rate.GetBitRate() / 8) +
                          2 * mtuFrame;
            port.p2p->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeCallback(&PriorityFlowControl::OnPhyTxBegin, this).Bind(ifIndex));
        }
        else
        {
            port.p2p = nullptr;
        }
    }
    return port;
}

const PriorityFlowControl::Port*
PriorityFlowControl::FindPort(Ptr<NetDevice> device) const
{
    uint32_t i = device->GetIfIndex();
    return i < m_ports.size() && m_ports[i].device == device ? &m_ports[i] : nullptr;
}

uint64_t
PriorityFlowControl::GetXoff() const
{
    if (m_xoffStatic)
    {
        return m_xoffStatic;
    }
    uint64_t taken = m_headroomReserve + m_used;
    uint64_t free = m_bufferSize > taken ? m_bufferSize - taken : 0;
    return static_cast<uint64_t>(m_alpha * static_cast<double>(free));
}

uint64_t
PriorityFlowControl::GetHeadroom(Ptr<NetDevice> device) const
{
    const Port* port = FindPort(device);
    return port ? port->headroom : 0;
}

bool
PriorityFlowControl::Admit(uint32_t inIf, Ptr<const Packet> frame, uint8_t priority)
{
    uint32_t bytes = frame->GetSize() + kPppHeader;
    priority = std::min<uint8_t>(priority, FastFrameHeader::MAX_PRIORITY);
    Port& port = GetPort(inIf);
    if (m_used + bytes > m_bufferSize)
    {
        ++m_bufferDrops;
        NS_LOG_WARN("buffer full (" << m_used << " of " << m_bufferSize << " bytes): drop");
        m_bufferDropTrace(frame, port.device);
        return false;
    }
    m_used += bytes;
    port.ingress[priority] += bytes;
    if (!port.xoff[priority] && port.p2p && priority < FastFrameHeader::MAX_PRIORITY &&
        port.ingress[priority] > GetXoff())
    {
        port.xoff[priority] = true;
        SendPause(inIf, priority, kMaxQuanta);
    }
    return true;
}

void
PriorityFlowControl::Release(uint32_t inIf, uint8_t priority, uint32_t charge)
{
    if (inIf == LOCAL || charge == 0)
    {
        return;
    }
    Port& port = m_ports[inIf];
    m_used -= charge;
    port.ingress[priority] -= charge;
    if (port.xoff[priority] &&
        (port.ingress[priority] == 0 || port.ingress[priority] + m_xonOffset < GetXoff()))
    {
        port.xoff[priority] = false;
        port.refresh[priority].Cancel();
        SendPause(inIf, priority, 0);
    }
}

void
PriorityFlowControl::SendPause(uint32_t inIf, uint8_t priority, uint16_t quanta)
{
    Port& port = m_ports[inIf];
    FastFrameHeader h;
    h.protocol = PAUSE_PROTOCOL;
    h.priority = priority;
    h.srcPort = quanta;
    h.srcRank = std::numeric_limits<uint32_t>::max();
    h.dstRank = std::numeric_limits<uint32_t>::max();
    Ptr<Packet> p = Create<Packet>(PAUSE_WIRE_BYTES - kPppHeader - FastFrameHeader::SIZE);
    p->AddHeader(h);
    ++m_pausesSent;
    m_pauseSentTrace(port.device, priority, quanta);
    port.handed.push_back({PeekPointer(p), LOCAL, priority, 0, true});
    if (!port.device->Send(p, Mac48Address::GetBroadcast(), FastFrameHeader::PROTOCOL))
    {
        port.handed.pop_back();
    }
    if (quanta > 0)
    {
        // Refreshed before it expires while the port-priority stays above XON.
        port.refresh[priority] = Simulator::Schedule(PauseDuration(quanta, port.rate) / 2,
                                                     &PriorityFlowControl::Refresh,
                                                     this,
                                                     inIf,
                                                     priority);
    }
}

void
PriorityFlowControl::Refresh(uint32_t inIf, uint8_t priority)
{
    if (m_ports[inIf].xoff[priority])
    {
        SendPause(inIf, priority, kMaxQuanta);
    }
}

void
PriorityFlowControl::ReceivePause(uint32_t inIf, const FastFrameHeader& h)
{
    Port& port = GetPort(inIf);
    uint8_t prio = std::min<uint8_t>(h.priority, FastFrameHeader::MAX_PRIORITY);
    uint16_t quanta = h.srcPort;
    ++m_pausesReceived;
    m_pauseReceivedTrace(port.device, prio, quanta);
    if (!port.p2p || prio == FastFrameHeader::MAX_PRIORITY)
    {
        return; // control traffic is never paused
    }
    port.resume[prio].Cancel();
    if (quanta == 0)
    {
        Resume(inIf, prio);
        return;
    }
    if (!port.paused[prio])
    {
        port.paused[prio] = true;
        port.pausedSince[prio] = Simulator::Now();
        ++m_pausedNow;
        ArmWatchdog();
    }
    port.resume[prio] = Simulator::Schedule(PauseDuration(quanta, port.rate),
                                            &PriorityFlowControl::Resume,
                                            this,
                                            inIf,
                                            prio);
}

void
PriorityFlowControl::Resume(uint32_t ifIndex, uint8_t priority)
{
    Port& port = m_ports[ifIndex];
    if (!port.paused[priority])
    {
        return;
    }
    port.paused[priority] = false;
    --m_pausedNow;
    Time paused = Simulator::Now() - port.pausedSince[priority];
    m_pausedTotal += paused;
    m_resumeTrace(port.device, priority, paused);
    Feed(port);
}

void
PriorityFlowControl::Output(Ptr<Packet> frame, Ptr<NetDevice> out, uint32_t inIf, uint8_t priority)
{
    priority = std::min<uint8_t>(priority, FastFrameHeader::MAX_PRIORITY);
    Port& port = GetPort(out->GetIfIndex());
    uint32_t charge = inIf == LOCAL ? 0 : frame->GetSize() + kPppHeader;
    if (!port.p2p)
    {
        // Not point-to-point (no PhyTxBegin to refill from): straight to the device.
        Release(inIf, priority, charge);
        out->Send(frame, Mac48Address::GetBroadcast(), FastFrameHeader::PROTOCOL);
        return;
    }
    auto& q = port.queues[priority];
    if (!q)
    {
        q = std::make_unique<std::deque<Entry>>();
    }
    // The backlog this frame finds ahead of it for the device.
    m_maxQueue = std::max(m_maxQueue, port.bytes + port.p2p->GetQueue()->GetNBytes());
    q->push_back({frame, inIf, charge});
    port.bytes += frame->GetSize();
    ++port.frames;
    m_egressBytes += frame->GetSize();
    ++m_frames;
    Feed(port);
}

void
PriorityFlowControl::Feed(Port& port)
{
    // Sending can start a frame at once, whose PhyTxBegin calls back here.
    if (port.feeding)
    {
        return;
    }
    port.feeding = true;
    Ptr<Queue<Packet>> devq = port.p2p->GetQueue();
    while (port.frames > 0 && devq->GetNPackets() == 0)
    {
        int prio = FastFrameHeader::MAX_PRIORITY;
        for (; prio >= 0; --prio)
        {
            if (port.queues[prio] && !port.queues[prio]->empty() && !port.paused[prio])
            {
                break;
            }
        }
        if (prio < 0)
        {
            break;
        }
        Entry e = std::move(port.queues[prio]->front());
        port.queues[prio]->pop_front();
        port.bytes -= e.frame->GetSize();
        --port.frames;
        m_egressBytes -= e.frame->GetSize();
        --m_frames;
        port.handed.push_back(
            {PeekPointer(e.frame), e.inIf, static_cast<uint8_t>(prio), e.charge, false});
        if (!port.device->Send(e.frame, Mac48Address::GetBroadcast(), FastFrameHeader::PROTOCOL))
        {
            port.handed.pop_back(); // the device queue dropped it (counted there)
            Release(e.inIf, static_cast<uint8_t>(prio), e.charge);
        }
    }
    port.feeding = false;
}

void
PriorityFlowControl::OnPhyTxBegin(uint32_t ifIndex, Ptr<const Packet> p)
{
    Port& port = m_ports[ifIndex];
    if (!port.handed.empty() && port.handed.front().frame == PeekPointer(p))
    {
        Handed h = port.handed.front();
        port.handed.pop_front();
        if (!h.pause)
        {
            port.lastTx = Simulator::Now(); // what the deadlock watchdog reads
        }
        Release(h.inIf, h.priority, h.charge);
    }
    if (port.frames > 0)
    {
        Feed(port);
    }
}

bool
PriorityFlowControl::Holds(const Port& port, uint32_t inIf)
{
    for (uint8_t p = 0; p < FastFrameHeader::MAX_PRIORITY; ++p)
    {
        if (!port.paused[p] || !port.queues[p])
        {
            continue;
        }
        for (const Entry& e : *port.queues[p])
        {
            if (e.inIf == inIf)
            {
                return true;
            }
        }
    }
    return false;
}

bool
PriorityFlowControl::Stalled(const Port& port) const
{
    if (!port.p2p || Simulator::Now() - port.lastTx < m_deadlockTimeout)
    {
        return false;
    }
    for (uint8_t p = 0; p < FastFrameHeader::MAX_PRIORITY; ++p)
    {
        if (port.paused[p] && port.queues[p] && !port.queues[p]->empty())
        {
            return true;
        }
    }
    return false;
}

void
PriorityFlowControl::ArmWatchdog()
{
    if (!m_watchdog.IsRunning())
    {
        m_watchdog = Simulator::Schedule(m_deadlockTimeout, &PriorityFlowControl::Watchdog, this);
    }
}

void
PriorityFlowControl::Watchdog()
{
    if (m_pausedNow == 0)
    {
        return; // disarmed until the next pause
    }

    // Depth-first walk of the wait-for graph of ports: a stalled port waits for the
    // stalled ports of its downstream node that hold frames charged to the ingress it
    // feeds (those frames must leave before that ingress falls to XON).
    struct Step
    {
        const PriorityFlowControl* node;
        const Port* port;

        bool operator<(const Step& o) const
        {
            return node != o.node ? node < o.node : port < o.port;
        }

        bool operator==(const Step& o) const
        {
            return node == o.node && port == o.port;
        }
    };

    std::vector<Step> path;
    std::set<Step> done;
    Step closing{nullptr, nullptr}; //!< the port the cycle closes on
    std::function<bool(const Step&)> visit;
    visit = [&](const Step& at) -> bool {
        if (std::find(path.begin(), path.end(), at) != path.end())
        {
            closing = at;
            return true;
        }
        if (done.count(at))
        {
            return false;
        }
        path.push_back(at);
        Ptr<Channel> ch = at.port->p2p->GetChannel();
        Ptr<NetDevice> peer;
        for (std::size_t d = 0; ch && d < ch->GetNDevices(); ++d)
        {
            if (ch->GetDevice(d) != at.port->device)
            {
                peer = ch->GetDevice(d);
            }
        }
        Ptr<PriorityFlowControl> next =
            peer ? peer->GetNode()->GetObject<PriorityFlowControl>() : nullptr;
        if (next)
        {
            const uint32_t ingress = peer->GetIfIndex();
            for (const Port& q : next->m_ports)
            {
                if (q.device && next->Stalled(q) && Holds(q, ingress) &&
                    visit({PeekPointer(next), &q}))
                {
                    return true;
                }
            }
        }
        path.pop_back();
        done.insert(at);
        return false;
    };
    bool found = false;
    for (const Port& port : m_ports)
    {
        if (port.device && Stalled(port) && visit({this, &port}))
        {
            found = true;
            break;
        }
    }
    if (found)
    {
        // Keep only the cycle: from the port it closed on.
        path.erase(path.begin(), std::find(path.begin(), path.end(), closing));
        std::ostringstream os;
        os << "PFC deadlock: cycle of paused ports";
        for (const Step& s : path)
        {
            os << " node " << s.node->m_node->GetId() << " dev " << s.port->device->GetIfIndex()
               << " (priorities";
            for (uint8_t p = 0; p < FastFrameHeader::MAX_PRIORITY; ++p)
            {
                if (s.port->paused[p])
                {
                    os << " " << unsigned(p);
                }
            }
            os << ") ->";
        }
        os << " node " << path.front().node->m_node->GetId() << ", none sent a frame for "
           << m_deadlockTimeout.As(Time::MS) << " at t=" << Simulator::Now().As(Time::MS)
           << "; break the cyclic buffer dependency (routes that do not turn the same way "
              "round a ring, e.g. dimension-order routing with a dateline, or a larger "
              "buffer/lower load), or run without --pfc";
        m_deadlockTrace(os.str());
        throw std::runtime_error(os.str());
    }
    m_watchdog = Simulator::Schedule(m_deadlockTimeout, &PriorityFlowControl::Watchdog, this);
}

uint64_t
PriorityFlowControl::GetEgressBytes(Ptr<NetDevice> out) const
{
    const Port* port = FindPort(out);
    return port ? port->bytes : 0;
}

uint32_t
PriorityFlowControl::GetEgressFrames(Ptr<NetDevice> out) const
{
    const Port* port = FindPort(out);
    return port ? port->frames : 0;
}

uint32_t
PriorityFlowControl::GetEgressFrames() const
{
    return m_frames;
}

uint64_t
PriorityFlowControl::GetEgressBytes() const
{
    return m_egressBytes;
}

uint64_t
PriorityFlowControl::GetBufferedBytes() const
{
    return m_used;
}

uint64_t
PriorityFlowControl::GetPausesSent() const
{
    return m_pausesSent;
}

uint64_t
PriorityFlowControl::GetPausesReceived() const
{
    return m_pausesReceived;
}

double
PriorityFlowControl::GetPausedSeconds() const
{
    Time total = m_pausedTotal;
    for (const Port& port : m_ports)
    {
        for (uint8_t p = 0; p < 8; ++p)
        {
            if (port.paused[p])
            {
                total += Simulator::Now() - port.pausedSince[p];
            }
        }
    }
    return total.GetSeconds();
}

uint64_t
PriorityFlowControl::GetMaxQueueBytes() const
{
    return m_maxQueue;
}

uint64_t
PriorityFlowControl::GetBufferDrops() const
{
    return m_bufferDrops;
}

} // namespace ns3
