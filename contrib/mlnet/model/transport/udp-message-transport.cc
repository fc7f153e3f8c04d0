// SPDX-License-Identifier: GPL-2.0-only
#include "udp-message-transport.h"

#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetUdpMessageTransport");
NS_OBJECT_ENSURE_REGISTERED(UdpMessageTransport);

namespace
{
constexpr uint32_t kUdpHeader = 8;
constexpr uint32_t kIpv4Header = 20;
constexpr uint32_t kPppHeader = 2;
constexpr uint32_t kNackRangeBytes = 8; // u32 first sequence + u32 count
} // namespace

TypeId
UdpMessageTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UdpMessageTransport")
            .SetParent<MessageTransport>()
            .SetGroupName("Mlnet")
            .AddConstructor<UdpMessageTransport>()
            .AddAttribute("Port",
                          "UDP port of every rank's socket.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&UdpMessageTransport::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("MaxBacklogPackets",
                          "Packets the NIC scheduler keeps waiting in a device's queue disc "
                          "plus device queue (packets); 1 already gives back-to-back frames.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&UdpMessageTransport::m_maxBacklog),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RepairTimeout",
                          "Silence after which a receiver NACKs the missing packets of an "
                          "incomplete message (s).",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&UdpMessageTransport::m_repairTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("SenderTimeout",
                          "Time without ACK after a message's last packet left before the "
                          "sender probes with the last packet again; doubled on each "
                          "repeat (s).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&UdpMessageTransport::m_senderTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxRetries",
                          "Probes (sender) or NACKs (receiver) without any sign of life "
                          "before a message is abandoned (count).",
                          UintegerValue(16),
                          MakeUintegerAccessor(&UdpMessageTransport::m_maxRetries),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("PacketSent",
                            "A data packet was handed to the socket: src rank, dst rank, "
                            "message id, sequence number.",
                            MakeTraceSourceAccessor(&UdpMessageTransport::m_packetSentTrace),
                            "ns3::UdpMessageTransport::PacketTracedCallback")
            .AddTraceSource("Retransmit",
                            "A data packet was sent again (NACK or probe): src rank, dst rank, "
                            "message id, sequence number.",
                            MakeTraceSourceAccessor(&UdpMessageTransport::m_retransmitTrace),
                            "ns3::UdpMessageTransport::PacketTracedCallback")
            .AddTraceSource("NackSent",
                            "A receiver sent a NACK: src rank (of the message), dst rank "
                            "(the receiver), message id, missing packets listed.",
                            MakeTraceSourceAccessor(&UdpMessageTransport::m_nackTrace),
                            "ns3::UdpMessageTransport::PacketTracedCallback")
            .AddTraceSource("Duplicate",
                            "A receiver got a data packet it already had: src rank, dst rank, "
                            "message id, sequence number.",
                            MakeTraceSourceAccessor(&UdpMessageTransport::m_duplicateTrace),
                            "ns3::UdpMessageTransport::PacketTracedCallback")
            .AddTraceSource("MessageAbandoned",
                            "A message was given up after MaxRetries silent timeouts: src "
                            "rank, dst rank, message id, packets of the message.",
                            MakeTraceSourceAccessor(&UdpMessageTransport::m_abandonTrace),
                            "ns3::UdpMessageTransport::PacketTracedCallback");
    return tid;
}

UdpMessageTransport::UdpMessageTransport()
{
    NS_LOG_FUNCTION(this);
}

UdpMessageTransport::~UdpMessageTransport() = default;

void
UdpMessageTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (uint32_t r = 0; r < m_ranks.size(); ++r)
    {
        RankState& rs = m_ranks[r];
        for (auto& kv : rs.out)
        {
            kv.second.timer.Cancel();
        }
        for (auto& kv : rs.in)
        {
            kv.second.repairTimer.Cancel();
        }
        for (uint32_t i = 0; i < rs.devices.size(); ++i)
        {
            rs.devices[i].wake.Cancel();
            if (rs.devices[i].queue)
            {
                rs.devices[i].device->TraceDisconnectWithoutContext(
                    "PhyTxBegin",
                    MakeCallback(&UdpMessageTransport::OnPhyTxBegin, this).Bind(r, i));
            }
        }
        if (rs.fast)
        {
            rs.fast->SetDeliverCallback(FastForwarding::DeliverCallback());
        }
        if (rs.socket)
        {
            rs.socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
            rs.socket->Close();
        }
    }
    m_ranks.clear();
    m_rankOfAddress.clear();
    MessageTransport::DoDispose();
}

uint32_t
UdpMessageTransport::GetPerPacketOverhead() const
{
    return MlnetTransportHeader::SIZE + kUdpHeader + kIpv4Header + kPppHeader;
}

uint32_t
UdpMessageTransport::GetMaxPayload() const
{
    if (m_maxPayload == 0)
    {
        throw std::invalid_argument(
            "UdpMessageTransport::GetMaxPayload: the payload depends on the device MTU; "
            "call Install(cluster) first");
    }
    return m_maxPayload;
}

uint64_t
UdpMessageTransport::GetPacketsSent() const
{
    return m_packetsSent;
}

uint64_t
UdpMessageTransport::GetRetransmissions() const
{
    return m_retransmissions;
}

uint64_t
UdpMessageTransport::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
UdpMessageTransport::GetBytesResent() const
{
    return m_bytesResent;
}

uint64_t
UdpMessageTransport::GetProbes() const
{
    return m_probes;
}

uint64_t
UdpMessageTransport::GetNacksSent() const
{
    return m_nacksSent;
}

uint64_t
UdpMessageTransport::GetAcksSent() const
{
    return m_acksSent;
}

uint64_t
UdpMessageTransport::GetDuplicates() const
{
    return m_duplicates;
}

uint64_t
UdpMessageTransport::GetMessagesAbandoned() const
{
    return m_abandoned;
}

uint64_t
UdpMessageTransport::GetMessagesInFlight() const
{
    uint64_t n = 0;
    for (const auto& rs : m_ranks)
    {
        n += rs.out.size();
    }
    return n;
}

uint64_t
UdpMessageTransport::Key(uint32_t peer, uint32_t id)
{
    return (static_cast<uint64_t>(peer) << 32) | id;
}

void
UdpMessageTransport::Install(Ptr<Cluster> cluster)
{
    NS_LOG_FUNCTION(this << cluster);
    CheckInstall(cluster);
    m_cluster = cluster;
    m_fastPath = cluster->GetFabricSpec().dataPath == "fast";
    uint32_t n = cluster->GetNRanks();
    uint32_t fixed = kIpv4Header + kUdpHeader + MlnetTransportHeader::SIZE;
    if (cluster->GetFabricSpec().dataPath == "none")
    {
        // A fabric without devices (the flow level's): what its packets would be, and the
        // flow keys; nothing to send on (CheckSend refuses).
        for (uint32_t r = 0; r < n; ++r)
        {
            m_rankOfAddress[cluster->GetRankAddress(r).Get()] = r;
        }
        const uint32_t mtu = cluster->GetFabricSpec().mtu;
        if (n == 0 || mtu <= fixed)
        {
            throw std::invalid_argument("UdpMessageTransport::Install: the fabric needs ranks "
                                        "and an MTU above " +
                                        std::to_string(fixed) + " bytes");
        }
        m_maxPayload = mtu - fixed;
        return;
    }
    m_ranks.resize(n);
    uint32_t mtu = std::numeric_limits<uint32_t>::max();
    for (uint32_t r = 0; r < n; ++r)
    {
        RankState& rs = m_ranks[r];
        rs.node = cluster->GetRankNode(r);
        rs.ipv4 = rs.node->GetObject<Ipv4>();
        if (!rs.ipv4 && !m_fastPath)
        {
            throw std::invalid_argument("UdpMessageTransport::Install: rank " + std::to_string(r) +
                                        " has no IPv4 stack; install the Internet stack "
                                        "and assign addresses before the transport");
        }
        m_rankOfAddress[cluster->GetRankAddress(r).Get()] = r;
        Ptr<TrafficControlLayer> tc = rs.node->GetObject<TrafficControlLayer>();
        rs.devices.resize(rs.node->GetNDevices());
        for (uint32_t i = 0; i < rs.node->GetNDevices(); ++i)
        {
            DeviceState& d = rs.devices[i];
            d.device = rs.node->GetDevice(i);
            if (DynamicCast<LoopbackNetDevice>(d.device))
            {
                continue;
            }
            mtu = std::min<uint32_t>(mtu, d.device->GetMtu());
            Ptr<PointToPointNetDevice> ppp = DynamicCast<PointToPointNetDevice>(d.device);
            if (!ppp)
            {
                continue; // no scheduler: packets go straight to the device
            }
            d.queue = ppp->GetQueue();
            d.qdisc = tc ? tc->GetRootQueueDiscOnDevice(ppp) : nullptr;
            ppp->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeCallback(&UdpMessageTransport::OnPhyTxBegin, this).Bind(r, i));
        }
        if (m_fastPath)
        {
            rs.fast = rs.node->GetObject<FastForwarding>();
            if (!rs.fast)
            {
                throw std::invalid_argument(
                    "UdpMessageTransport::Install: the cluster says it uses the fast data path "
                    "but rank " +
                    std::to_string(r) +
                    " has no FastForwarding; build the fabric with FabricHelper::SetDataPath");
            }
            rs.fast->SetDeliverCallback(
                MakeCallback(&UdpMessageTransport::HandleFrame, this).Bind(r));
            for (DeviceState& d : rs.devices)
            {
                d.pfc = rs.fast->GetPriorityFlowControl();
            }
            continue;
        }
        rs.socket = Socket::CreateSocket(rs.node, UdpSocketFactory::GetTypeId());
        // Received packets are drained synchronously, but a burst of datagrams at
        // one instant must not hit the default 128 KiB receive buffer.
        rs.socket->SetAttribute("RcvBufSize", UintegerValue(1u << 30));
        if (rs.socket->Bind(InetSocketAddress(cluster->GetRankAddress(r), m_port)) != 0)
        {
            throw std::invalid_argument("UdpMessageTransport::Install: cannot bind rank " +
                                        std::to_string(r) + " to its address and port " +
                                        std::to_string(m_port) +
                                        "; is the port in use or the address unset?");
        }
        rs.socket->SetRecvCallback(MakeCallback(&UdpMessageTransport::HandleRead, this).Bind(r));
    }
    if (n == 0 || mtu == std::numeric_limits<uint32_t>::max() || mtu <= fixed)
    {
        throw std::invalid_argument(
            "UdpMessageTransport::Install: the cluster needs ranks with network devices "
            "whose MTU exceeds " +
            std::to_string(fixed) + " bytes");
    }
    m_maxPayload = mtu - fixed;
    NS_LOG_INFO("MTU " << mtu << " max payload " << m_maxPayload);
}

uint32_t
UdpMessageTransport::RouteDevice(uint32_t src, uint32_t dst) const
{
    const RankState& rs = m_ranks[src];
    if (rs.fast)
    {
        Ptr<NetDevice> dev = rs.fast->SelectDevice(FrameHeader(src, dst), true);
        if (!dev)
        {
            throw std::invalid_argument("UdpMessageTransport::Send: no route from rank " +
                                        std::to_string(src) + " to rank " + std::to_string(dst) +
                                        " on the fast data path; is the fabric connected?");
        }
        return dev->GetIfIndex();
    }
    Ptr<Ipv4RoutingProtocol> routing = rs.ipv4->GetRoutingProtocol();
    Ipv4Header h;
    h.SetSource(m_cluster->GetRankAddress(src));
    h.SetDestination(m_cluster->GetRankAddress(dst));
    h.SetProtocol(17);
    Socket::SocketErrno err;
    Ptr<Ipv4Route> route =
        routing ? routing->RouteOutput(Create<Packet>(), h, nullptr, err) : nullptr;
    if (!route || !route->GetOutputDevice())
    {
        std::ostringstream os;
        os << "UdpMessageTransport::Send: no route from rank " << src << " to rank " << dst << " ("
           << m_cluster->GetRankAddress(dst) << "); populate the routing tables before sending";
        throw std::invalid_argument(os.str());
    }
    return route->GetOutputDevice()->GetIfIndex();
}

void
UdpMessageTransport::Send(uint32_t src,
                          uint32_t dst,
                          uint32_t channel,
                          uint32_t tag,
                          uint64_t bytes,
                          MessageBytes data)
{
    NS_LOG_FUNCTION(this << src << dst << channel << tag << bytes);
    CheckSend(src, dst, bytes, data);
    uint64_t packets = (bytes + m_maxPayload - 1) / m_maxPayload;
    if (packets > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("UdpMessageTransport::Send: message of " +
                                    std::to_string(bytes) +
                                    " bytes needs more than 2^32 packets; split it");
    }
    uint32_t ifIndex = RouteDevice(src, dst);
    NotifySend(src, dst, bytes);

    RankState& rs = m_ranks[src];
    uint32_t id = rs.nextId[dst]++;
    uint64_t key = Key(dst, id);
    OutMessage& m = rs.out[key];
    m.dst = dst;
    m.channel = channel;
    m.tag = tag;
    m.id = id;
    m.bytes = bytes;
    m.data = data;
    m.sent = Simulator::Now();
    m.nPackets = static_cast<uint32_t>(packets);
    m.ifIndex = ifIndex;
    m.timeout = m_senderTimeout;
    if (!rs.node->IsInitialized())
    {
        // Before Simulator::Run the nodes' traffic-control layers are not set up
        // yet and cannot take packets: start once the simulation does.
        Simulator::ScheduleNow(&UdpMessageTransport::ActivateKey, this, src, key);
        return;
    }
    Activate(src, key, m);
}

void
UdpMessageTransport::ActivateKey(uint32_t rank, uint64_t key)
{
    auto it = m_ranks[rank].out.find(key);
    if (it != m_ranks[rank].out.end())
    {
        Activate(rank, key, it->second);
    }
}

void
UdpMessageTransport::Activate(uint32_t rank, uint64_t key, OutMessage& m)
{
    if (m.scheduled)
    {
        return;
    }
    m.timer.Cancel();
    m.scheduled = true;
    m_ranks[rank].devices[m.ifIndex].active.push_back(key);
    Refill(rank, m.ifIndex);
}

uint32_t
UdpMessageTransport::Backlog(const DeviceState& d) const
{
    if (!d.queue)
    {
        return 0;
    }
    return d.queue->GetNPackets() + (d.qdisc ? d.qdisc->GetNPackets() : 0) +
           (d.pfc ? d.pfc->GetEgressFrames(d.device) : 0);
}

void
UdpMessageTransport::OnPhyTxBegin(uint32_t rank, uint32_t ifIndex, Ptr<const Packet> p)
{
    if (!m_ranks[rank].devices[ifIndex].active.empty())
    {
        Refill(rank, ifIndex);
    }
}

void
UdpMessageTransport::Refill(uint32_t rank, uint32_t ifIndex)
{
    RankState& rs = m_ranks[rank];
    DeviceState& d = rs.devices[ifIndex];
    // Sending can start a frame synchronously, whose PhyTxBegin calls back here.
    if (d.refilling)
    {
        return;
    }
    d.refilling = true;
    // Without a device queue to watch (not point-to-point) there is no refill
    // trigger: hand everything over at once.
    uint32_t limit = d.queue ? m_maxBacklog : std::numeric_limits<uint32_t>::max();
    Time now = Simulator::Now();
    Time earliest = Time::Max(); // of the paced messages passed over
    size_t passed = 0;           // messages passed over since the last send
    while (!d.active.empty() && Backlog(d) < limit)
    {
        uint64_t key = d.active.front();
        d.active.pop_front();
        auto it = rs.out.find(key);
        if (it == rs.out.end())
        {
            continue; // acknowledged or abandoned while queued
        }
        OutMessage& m = it->second;
        Time at = NextSendTime(rank, key, m);
        if (at > now)
        {
            d.active.push_back(key);
            earliest = std::min(earliest, at);
            if (++passed >= d.active.size())
            {
                break; // none may send now
            }
            continue;
        }
        passed = 0;
        uint32_t seq;
        bool retx;
        if (!m.retx.empty())
        {
            seq = m.retx.front();
            m.retx.pop_front();
            m.retxQueued[seq] = false;
            retx = true;
        }
        else
        {
            NS_ASSERT(m.nextSeq < m.nPackets);
            seq = m.nextSeq++;
            retx = false;
        }
        bool more = !m.retx.empty() || m.nextSeq < m.nPackets;
        if (more)
        {
            d.active.push_back(key);
        }
        else
        {
            m.scheduled = false;
        }
        uint32_t payload = SendData(rank, m, seq, retx);
        OnDataSent(rank, key, m, payload + GetPerPacketOverhead(), retx);
        if (!more)
        {
            m.timer = Simulator::Schedule(m.timeout,
                                          &UdpMessageTransport::OnSenderTimeout,
                                          this,
                                          rank,
                                          key);
        }
    }
    d.refilling = false;
    if (passed > 0 && earliest != Time::Max() && !(d.wake.IsRunning() && d.wakeAt <= earliest))
    {
        d.wake.Cancel();
        d.wakeAt = earliest;
        d.wake =
            Simulator::Schedule(earliest - now, &UdpMessageTransport::Refill, this, rank, ifIndex);
    }
}

Time
UdpMessageTransport::NextSendTime(uint32_t rank, uint64_t key, const OutMessage& m) const
{
    return Time(0);
}

void
UdpMessageTransport::OnDataSent(uint32_t rank,
                                uint64_t key,
                                const OutMessage& m,
                                uint32_t wireBytes,
                                bool retransmission)
{
}

void
UdpMessageTransport::OnMessageEnd(uint32_t rank, uint64_t key)
{
}

void
UdpMessageTransport::SetFrameClass(FastFrameHeader& h, MlnetTransportHeader::PacketType type) const
{
}

void
UdpMessageTransport::OnOtherPacket(uint32_t rank,
                                   uint32_t peer,
                                   const MlnetTransportHeader& h,
                                   Ptr<Packet> p)
{
    NS_LOG_WARN("rank " << rank << " ignores a packet of unknown type");
}

Ptr<Node>
UdpMessageTransport::GetRankNode(uint32_t rank) const
{
    return m_ranks.at(rank).node;
}

uint32_t
UdpMessageTransport::SendData(uint32_t rank, OutMessage& m, uint32_t seq, bool retransmission)
{
    uint64_t offset = static_cast<uint64_t>(seq) * m_maxPayload;
    uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(m_maxPayload, m.bytes - offset));
    Ptr<Packet> p = m.data ? Create<Packet>(m.data->data() + offset, len) : Create<Packet>(len);
    if (HasPacketHooks())
    {
        Message info;
        info.src = rank;
        info.dst = m.dst;
        info.channel = m.channel;
        info.tag = m.tag;
        info.bytes = m.bytes;
        ApplyPacketHook(info, offset, p);
    }
    MlnetTransportHeader h;
    h.SetType(MlnetTransportHeader::DATA);
    h.SetRealPayload(m.data != nullptr);
    h.SetChannel(m.channel);
    h.SetTag(m.tag);
    h.SetMessageId(m.id);
    h.SetSequence(seq);
    h.SetPacketCount(m.nPackets);
    h.SetMessageBytes(m.bytes);
    p->AddHeader(h);
    ++m_packetsSent;
    m_packetSentTrace(rank, m.dst, m.id, seq);
    if (retransmission)
    {
        ++m_retransmissions;
        m_bytesResent += p->GetSize() + kUdpHeader + kIpv4Header + kPppHeader;
        m_retransmitTrace(rank, m.dst, m.id, seq);
    }
    Transmit(rank, m.dst, p, MlnetTransportHeader::DATA);
    return len;
}

bool
UdpMessageTransport::GetFlowKey(uint32_t src, uint32_t dst, FlowKey& key) const
{
    if (!m_cluster || src >= m_cluster->GetNRanks() || dst >= m_cluster->GetNRanks())
    {
        return false;
    }
    key.srcAddr = m_cluster->GetRankAddress(src).Get();
    key.dstAddr = m_cluster->GetRankAddress(dst).Get();
    key.protocol = 17;
    key.srcPort = m_port;
    key.dstPort = m_port;
    return true;
}

FastFrameHeader
UdpMessageTransport::FrameHeader(uint32_t src, uint32_t dst) const
{
    FlowKey key;
    GetFlowKey(src, dst, key);
    FastFrameHeader h;
    h.srcRank = src;
    h.dstRank = dst;
    h.srcAddr = key.srcAddr;
    h.dstAddr = key.dstAddr;
    h.srcPort = key.srcPort;
    h.dstPort = key.dstPort;
    h.protocol = key.protocol;
    return h;
}

void
UdpMessageTransport::Transmit(uint32_t rank,
                              uint32_t peer,
                              Ptr<Packet> p,
                              MlnetTransportHeader::PacketType type)
{
    RankState& rs = m_ranks[rank];
    if (rs.fast)
    {
        FastFrameHeader h = FrameHeader(rank, peer);
        SetFrameClass(h, type);
        if (!rs.fast->Send(p, h))
        {
            NS_LOG_WARN("rank " << rank << " has no route to rank " << peer);
        }
        return;
    }
    if (rs.socket->SendTo(p, 0, InetSocketAddress(m_cluster->GetRankAddress(peer), m_port)) < 0)
    {
        NS_LOG_WARN("rank " << rank << " could not send a packet to rank " << peer
                            << " (socket error " << rs.socket->GetErrno() << ")");
    }
}

void
UdpMessageTransport::HandleFrame(uint32_t rank, Ptr<Packet> p, const FastFrameHeader& h)
{
    Dispatch(rank, h.srcRank, p);
}

void
UdpMessageTransport::OnSenderTimeout(uint32_t rank, uint64_t key)
{
    RankState& rs = m_ranks[rank];
    auto it = rs.out.find(key);
    if (it == rs.out.end())
    {
        return;
    }
    OutMessage& m = it->second;
    ++m_timeouts;
    if (m.retries >= m_maxRetries)
    {
        NS_LOG_WARN("rank " << rank << " abandons message " << m.id << " to rank " << m.dst);
        ++m_abandoned;
        m_abandonTrace(rank, m.dst, m.id, m.nPackets);
        // Lost for good unless the receiver completed it and only the ACKs were lost.
        // (A receiver in another MPI process is not visible here: counted as lost.)
        const auto& completed = m_ranks[m.dst].completed;
        auto done = completed.find(rank);
        if (done == completed.end() || !IsCompleted(done->second, m.id))
        {
            NotifyGiveUp(rank, m.dst, m.bytes);
        }
        rs.out.erase(it);
        OnMessageEnd(rank, key);
        return;
    }
    ++m.retries;
    ++m_probes;
    m.timeout = m.timeout * 2;
    uint32_t last = m.nPackets - 1;
    if (m.retxQueued.empty())
    {
        m.retxQueued.assign(m.nPackets, false);
    }
    if (!m.retxQueued[last])
    {
        m.retxQueued[last] = true;
        m.retx.push_back(last);
    }
    NS_LOG_INFO("rank " << rank << " probes message " << m.id << " to rank " << m.dst);
    Activate(rank, key, m);
}

void
UdpMessageTransport::HandleRead(uint32_t rank, Ptr<Socket> socket)
{
    Address from;
    Ptr<Packet> p;
    while ((p = socket->RecvFrom(from)))
    {
        Ipv4Address a = InetSocketAddress::ConvertFrom(from).GetIpv4();
        auto it = m_rankOfAddress.find(a.Get());
        if (it == m_rankOfAddress.end())
        {
            NS_LOG_WARN("rank " << rank << " ignores a packet from unknown address " << a);
            continue;
        }
        Dispatch(rank, it->second, p);
    }
}

void
UdpMessageTransport::Dispatch(uint32_t rank, uint32_t peer, Ptr<Packet> p)
{
    MlnetTransportHeader h;
    p->RemoveHeader(h);
    switch (h.GetType())
    {
    case MlnetTransportHeader::DATA:
        OnData(rank, peer, h, p);
        break;
    case MlnetTransportHeader::NACK:
        OnNack(rank, peer, h, p);
        break;
    case MlnetTransportHeader::ACK:
        OnAck(rank, peer, h);
        break;
    default:
        OnOtherPacket(rank, peer, h, p);
    }
}

bool
UdpMessageTransport::IsCompleted(const Completed& c, uint32_t id) const
{
    return id < c.low || c.done.count(id) != 0;
}

void
UdpMessageTransport::MarkCompleted(Completed& c, uint32_t id)
{
    c.done.insert(id);
    while (!c.done.empty() && *c.done.begin() == c.low)
    {
        c.done.erase(c.done.begin());
        ++c.low;
    }
}

void
UdpMessageTransport::OnData(uint32_t rank,
                            uint32_t src,
                            const MlnetTransportHeader& h,
                            Ptr<Packet> p)
{
    RankState& rs = m_ranks[rank];
    uint32_t id = h.GetMessageId();
    uint32_t seq = h.GetSequence();
    Completed& done = rs.completed[src];
    if (IsCompleted(done, id))
    {
        // Our ACK may have been lost: the sender is probing. Acknowledge again.
        ++m_duplicates;
        m_duplicateTrace(src, rank, id, seq);
        SendControl(rank, src, MlnetTransportHeader::ACK, h, nullptr);
        return;
    }
    uint64_t key = Key(src, id);
    auto ins = rs.in.try_emplace(key);
    InMessage& m = ins.first->second;
    if (ins.second)
    {
        m.channel = h.GetChannel();
        m.tag = h.GetTag();
        m.bytes = h.GetMessageBytes();
        m.nPackets = h.GetPacketCount();
        m.got.assign(m.nPackets, false);
        if (h.HasRealPayload())
        {
            m.buffer = std::make_shared<std::vector<uint8_t>>(m.bytes);
        }
        const auto& senderOut = m_ranks[src].out;
        auto so = senderOut.find(Key(rank, id));
        m.sent = so != senderOut.end() ? so->second.sent : Simulator::Now();
    }
    NS_ASSERT_MSG(seq < m.nPackets, "sequence number beyond the message");
    if (m.got[seq])
    {
        ++m_duplicates;
        m_duplicateTrace(src, rank, id, seq);
        return;
    }
    m.got[seq] = true;
    ++m.received;
    m.nacks = 0;
    m.lastArrival = Simulator::Now();
    if (m.buffer)
    {
        uint64_t offset = static_cast<uint64_t>(seq) * m_maxPayload;
        NS_ASSERT(offset + p->GetSize() <= m.buffer->size());
        p->CopyData(m.buffer->data() + offset, p->GetSize());
    }
    if (m.received < m.nPackets)
    {
        if (!m.repairTimer.IsRunning())
        {
            m.repairTimer = Simulator::Schedule(m_repairTimeout,
                                                &UdpMessageTransport::OnRepairTimeout,
                                                this,
                                                rank,
                                                key);
        }
        return;
    }
    Simulator::Remove(m.repairTimer); // complete: removed, not left for the clock to reach
    Message msg;
    msg.src = src;
    msg.dst = rank;
    msg.channel = m.channel;
    msg.tag = m.tag;
    msg.bytes = m.bytes;
    msg.data = m.buffer;
    msg.sent = m.sent;
    msg.delivered = Simulator::Now();
    rs.in.erase(ins.first);
    MarkCompleted(done, id);
    SendControl(rank, src, MlnetTransportHeader::ACK, h, nullptr);
    Deliver(msg);
}

void
UdpMessageTransport::OnRepairTimeout(uint32_t rank, uint64_t key)
{
    RankState& rs = m_ranks[rank];
    auto it = rs.in.find(key);
    if (it == rs.in.end())
    {
        return;
    }
    InMessage& m = it->second;
    uint32_t src = static_cast<uint32_t>(key >> 32);
    uint32_t id = static_cast<uint32_t>(key);
    Time idle = Simulator::Now() - m.lastArrival;
    if (idle < m_repairTimeout)
    {
        m.repairTimer = Simulator::Schedule(m_repairTimeout - idle,
                                            &UdpMessageTransport::OnRepairTimeout,
                                            this,
                                            rank,
                                            key);
        return;
    }
    ++m_timeouts;
    if (m.nacks >= m_maxRetries)
    {
        NS_LOG_WARN("rank " << rank << " abandons incomplete message " << id << " from rank "
                            << src);
        ++m_abandoned;
        m_abandonTrace(src, rank, id, m.nPackets);
        rs.in.erase(it);
        return;
    }
    // Missing ranges, as many as fit in one packet.
    uint32_t maxRanges = m_maxPayload / kNackRangeBytes;
    std::vector<uint8_t> payload;
    uint32_t ranges = 0;
    uint32_t missing = 0;
    for (uint32_t s = 0; s < m.nPackets && ranges < maxRanges;)
    {
        if (m.got[s])
        {
            ++s;
            continue;
        }
        uint32_t start = s;
        while (s < m.nPackets && !m.got[s])
        {
            ++s;
        }
        uint32_t count = s - start;
        for (uint32_t v : {start, count})
        {
            payload.push_back(static_cast<uint8_t>(v >> 24));
            payload.push_back(static_cast<uint8_t>(v >> 16));
            payload.push_back(static_cast<uint8_t>(v >> 8));
            payload.push_back(static_cast<uint8_t>(v));
        }
        ++ranges;
        missing += count;
    }
    MlnetTransportHeader about;
    about.SetChannel(m.channel);
    about.SetTag(m.tag);
    about.SetMessageId(id);
    about.SetPacketCount(m.nPackets);
    about.SetMessageBytes(m.bytes);
    ++m.nacks;
    m.lastArrival = Simulator::Now(); // next NACK after another silent RepairTimeout
    ++m_nacksSent;
    m_nackTrace(src, rank, id, missing);
    NS_LOG_INFO("rank " << rank << " NACKs " << missing << " packets in " << ranges
                        << " ranges of message " << id << " from rank " << src);
    SendControl(rank,
                src,
                MlnetTransportHeader::NACK,
                about,
                Create<Packet>(payload.data(), payload.size()));
    m.repairTimer = Simulator::Schedule(m_repairTimeout,
                                        &UdpMessageTransport::OnRepairTimeout,
                                        this,
                                        rank,
                                        key);
}

void
UdpMessageTransport::SendControl(uint32_t rank,
                                 uint32_t peer,
                                 MlnetTransportHeader::PacketType type,
                                 const MlnetTransportHeader& about,
                                 Ptr<Packet> payload)
{
    MlnetTransportHeader h = about;
    h.SetType(type);
    h.SetRealPayload(false);
    Ptr<Packet> p = payload ? payload : Create<Packet>();
    p->AddHeader(h);
    if (type == MlnetTransportHeader::ACK)
    {
        ++m_acksSent;
    }
    Transmit(rank, peer, p, type);
}

void
UdpMessageTransport::OnNack(uint32_t rank,
                            uint32_t peer,
                            const MlnetTransportHeader& h,
                            Ptr<Packet> p)
{
    RankState& rs = m_ranks[rank];
    uint64_t key = Key(peer, h.GetMessageId());
    auto it = rs.out.find(key);
    if (it == rs.out.end())
    {
        return; // already acknowledged or abandoned
    }
    OutMessage& m = it->second;
    std::vector<uint8_t> buf(p->GetSize());
    p->CopyData(buf.data(), buf.size());
    if (m.retxQueued.empty())
    {
        m.retxQueued.assign(m.nPackets, false);
    }
    auto readU32 = [&buf](size_t at) {
        return (static_cast<uint32_t>(buf[at]) << 24) | (static_cast<uint32_t>(buf[at + 1]) << 16) |
               (static_cast<uint32_t>(buf[at + 2]) << 8) | static_cast<uint32_t>(buf[at + 3]);
    };
    for (size_t at = 0; at + kNackRangeBytes <= buf.size(); at += kNackRangeBytes)
    {
        uint32_t start = readU32(at);
        uint32_t end = std::min<uint64_t>(static_cast<uint64_t>(start) + readU32(at + 4),
                                          m.nextSeq); // never-sent packets are not lost
        for (uint32_t s = start; s < end; ++s)
        {
            if (!m.retxQueued[s])
            {
                m.retxQueued[s] = true;
                m.retx.push_back(s);
            }
        }
    }
    // The receiver is alive: restart the probe schedule.
    m.retries = 0;
    m.timeout = m_senderTimeout;
    if (!m.retx.empty())
    {
        Activate(rank, key, m);
    }
}

void
UdpMessageTransport::OnAck(uint32_t rank, uint32_t peer, const MlnetTransportHeader& h)
{
    RankState& rs = m_ranks[rank];
    auto it = rs.out.find(Key(peer, h.GetMessageId()));
    if (it == rs.out.end())
    {
        return; // a repeated ACK
    }
    // Removed, not cancelled: ns-3 advances its clock to a cancelled event, so a
    // cancelled probe timer would end the run SenderTimeout after its last ACK.
    Simulator::Remove(it->second.timer);
    uint64_t key = it->first;
    rs.out.erase(it); // a key left in a device list is skipped by Refill
    OnMessageEnd(rank, key);
}

} // namespace ns3
