// SPDX-License-Identifier: GPL-2.0-only
#include "tcp-message-transport.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTcpMessageTransport");
NS_OBJECT_ENSURE_REGISTERED(TcpMessageTransport);

namespace
{
constexpr uint32_t kTcpHeaderWithTimestamps = 32; // 20 + 10 (timestamps) + 2 padding
constexpr uint32_t kIpv4Header = 20;
constexpr uint32_t kPppHeader = 2;
} // namespace

TypeId
TcpMessageTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpMessageTransport")
            .SetParent<MessageTransport>()
            .SetGroupName("Mlnet")
            .AddConstructor<TcpMessageTransport>()
            .AddAttribute("Port",
                          "TCP port every rank listens on.",
                          UintegerValue(9001),
                          MakeUintegerAccessor(&TcpMessageTransport::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("SocketType",
                          "Congestion control of every socket (a TcpCongestionOps TypeId, "
                          "e.g. ns3::TcpNewReno, ns3::TcpDctcp, ns3::TcpCubic).",
                          TypeIdValue(TcpNewReno::GetTypeId()),
                          MakeTypeIdAccessor(&TcpMessageTransport::m_socketType),
                          MakeTypeIdChecker())
            .AddAttribute("UseEcn",
                          "Negotiate ECN on every socket (TcpDctcp turns it on by itself).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpMessageTransport::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("SegmentSize",
                          "TCP maximum segment size (bytes); 0 = device MTU - 52 (IPv4 20, "
                          "TCP 20, timestamps 12), 8948 at MTU 9000.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TcpMessageTransport::m_segmentSizeAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SndBufSize",
                          "Send buffer of every socket (bytes); keep above 2 x BDP.",
                          UintegerValue(16u << 20),
                          MakeUintegerAccessor(&TcpMessageTransport::m_sndBufSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RcvBufSize",
                          "Receive buffer of every socket (bytes); keep above 2 x BDP.",
                          UintegerValue(16u << 20),
                          MakeUintegerAccessor(&TcpMessageTransport::m_rcvBufSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MinRto",
                          "Minimum retransmission timeout (s).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&TcpMessageTransport::m_minRto),
                          MakeTimeChecker())
            .AddAttribute("ClockGranularity",
                          "Clock granularity of the RTO computation (s).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&TcpMessageTransport::m_clockGranularity),
                          MakeTimeChecker())
            .AddAttribute("InitialCwnd",
                          "Initial congestion window (segments).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&TcpMessageTransport::m_initialCwnd),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DelAckTimeout",
                          "Delayed-ACK timeout (s); ns-3's 200 ms default would outlast "
                          "MinRto and trigger spurious retransmissions of message tails.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&TcpMessageTransport::m_delAckTimeout),
                          MakeTimeChecker())
            .AddTraceSource("ConnectionOpened",
                            "A connection was established: src rank, dst rank.",
                            MakeTraceSourceAccessor(&TcpMessageTransport::m_connectionTrace),
                            "ns3::TcpMessageTransport::ConnectionTracedCallback");
    return tid;
}

TcpMessageTransport::TcpMessageTransport()
{
    NS_LOG_FUNCTION(this);
}

TcpMessageTransport::~TcpMessageTransport() = default;

void
TcpMessageTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    auto quiet = [](Ptr<Socket> s) {
        s->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        s->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        s->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                              MakeNullCallback<void, Ptr<Socket>>());
        s->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                             MakeNullCallback<void, Ptr<Socket>, const Address&>());
    };
    for (auto& kv : m_connections)
    {
        if (kv.second.socket)
        {
            quiet(kv.second.socket);
        }
    }
    for (auto& s : m_listeners)
    {
        quiet(s);
    }
    for (auto& s : m_accepted)
    {
        quiet(s);
    }
    m_connections.clear();
    m_listeners.clear();
    m_accepted.clear();
    m_streams.clear();
    m_highTx.clear();
    MessageTransport::DoDispose();
}

uint32_t
TcpMessageTransport::GetPerPacketOverhead() const
{
    return kTcpHeaderWithTimestamps + kIpv4Header + kPppHeader;
}

uint32_t
TcpMessageTransport::GetMaxPayload() const
{
    if (m_segmentSize == 0)
    {
        throw std::invalid_argument(
            "TcpMessageTransport::GetMaxPayload: the segment size depends on the device MTU; "
            "call Install(cluster) first");
    }
    return m_segmentSize;
}

uint32_t
TcpMessageTransport::GetConnections() const
{
    return static_cast<uint32_t>(m_connections.size());
}

uint64_t
TcpMessageTransport::GetRetransmissions() const
{
    return m_retransmissions;
}

uint64_t
TcpMessageTransport::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
TcpMessageTransport::GetBytesResent() const
{
    return m_bytesResent;
}

void
TcpMessageTransport::OnCongState(TcpSocketState::TcpCongState_t from,
                                 TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
    {
        ++m_timeouts;
    }
}

void
TcpMessageTransport::OnSegmentSent(Ptr<const Packet> p,
                                   const TcpHeader& h,
                                   Ptr<const TcpSocketBase> s)
{
    if (p->GetSize() == 0)
    {
        return; // pure ACK, SYN or FIN
    }
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    auto ins = m_highTx.try_emplace(PeekPointer(s), end);
    if (ins.second)
    {
        return;
    }
    if (h.GetSequenceNumber() < ins.first->second)
    {
        ++m_retransmissions;
        m_bytesResent += p->GetSize() + h.GetSerializedSize() + kIpv4Header + kPppHeader;
    }
    ins.first->second = std::max(ins.first->second, end);
}

Ptr<Socket>
TcpMessageTransport::GetSocket(uint32_t src, uint32_t dst) const
{
    auto it = m_connections.find(Key(src, dst));
    return it == m_connections.end() ? nullptr : it->second.socket;
}

uint64_t
TcpMessageTransport::Key(uint32_t src, uint32_t dst)
{
    return (static_cast<uint64_t>(src) << 32) | dst;
}

void
TcpMessageTransport::Install(Ptr<Cluster> cluster)
{
    NS_LOG_FUNCTION(this << cluster);
    CheckInstall(cluster);
    if (!m_socketType.IsChildOf(TcpCongestionOps::GetTypeId()))
    {
        throw std::invalid_argument("TcpMessageTransport: SocketType " + m_socketType.GetName() +
                                    " is not a TCP congestion control (ns3::TcpCongestionOps "
                                    "subclass such as ns3::TcpNewReno or ns3::TcpDctcp)");
    }
    if (cluster->GetFabricSpec().dataPath == "fast")
    {
        throw std::invalid_argument(
            "TcpMessageTransport needs the ipv4 data path, but this fabric was built with the "
            "fast data path (--dataPath=fast), which has no TCP; use the udp transport or "
            "--dataPath=ipv4");
    }
    uint32_t n = cluster->GetNRanks();
    // A fabric without devices (the flow level's graph): the MTU it was built with.
    const bool graph = cluster->GetFabricSpec().dataPath == "none";
    uint32_t mtu = graph ? cluster->GetFabricSpec().mtu : std::numeric_limits<uint32_t>::max();
    for (uint32_t r = 0; !graph && r < n; ++r)
    {
        Ptr<Node> node = cluster->GetRankNode(r);
        if (!node->GetObject<TcpL4Protocol>())
        {
            throw std::invalid_argument("TcpMessageTransport::Install: rank " + std::to_string(r) +
                                        " has no TCP; install the Internet stack first");
        }
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            if (!DynamicCast<LoopbackNetDevice>(node->GetDevice(i)))
            {
                mtu = std::min<uint32_t>(mtu, node->GetDevice(i)->GetMtu());
            }
        }
    }
    uint32_t headers = kIpv4Header + kTcpHeaderWithTimestamps;
    if (n == 0 || mtu == std::numeric_limits<uint32_t>::max() || mtu <= headers)
    {
        throw std::invalid_argument(
            "TcpMessageTransport::Install: the cluster needs ranks with network devices "
            "whose MTU exceeds 52 bytes");
    }
    m_segmentSize = m_segmentSizeAttr == 0 ? mtu - headers : m_segmentSizeAttr;
    if (m_segmentSize > mtu - headers)
    {
        throw std::invalid_argument("TcpMessageTransport: SegmentSize " +
                                    std::to_string(m_segmentSize) + " exceeds MTU " +
                                    std::to_string(mtu) + " - 52; use at most " +
                                    std::to_string(mtu - headers) + " or 0 for automatic");
    }
    m_cluster = cluster;
    if (graph)
    {
        // What FluidMessageTransport asks of it: the segments a message becomes. No
        // listener: nothing to send on (CheckSend refuses).
        return;
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<Socket> s = CreateConfiguredSocket(r);
        if (s->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0 || s->Listen() != 0)
        {
            throw std::invalid_argument("TcpMessageTransport::Install: rank " + std::to_string(r) +
                                        " cannot listen on port " + std::to_string(m_port) +
                                        "; is it in use?");
        }
        s->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                             MakeCallback(&TcpMessageTransport::HandleAccept, this).Bind(r));
        m_listeners.push_back(s);
    }
}

Ptr<Socket>
TcpMessageTransport::CreateConfiguredSocket(uint32_t rank)
{
    Ptr<TcpL4Protocol> tcp = m_cluster->GetRankNode(rank)->GetObject<TcpL4Protocol>();
    Ptr<Socket> s = tcp->CreateSocket(m_socketType);
    s->SetAttribute("SegmentSize", UintegerValue(m_segmentSize));
    s->SetAttribute("SndBufSize", UintegerValue(m_sndBufSize));
    s->SetAttribute("RcvBufSize", UintegerValue(m_rcvBufSize));
    s->SetAttribute("InitialCwnd", UintegerValue(m_initialCwnd));
    s->SetAttribute("MinRto", TimeValue(m_minRto));
    s->SetAttribute("ClockGranularity", TimeValue(m_clockGranularity));
    s->SetAttribute("DelAckTimeout", TimeValue(m_delAckTimeout));
    if (m_useEcn)
    {
        s->SetAttribute("UseEcn", EnumValue(TcpSocketState::On));
    }
    // Accepted sockets are forks of the listener and inherit the connection.
    s->TraceConnectWithoutContext("Tx", MakeCallback(&TcpMessageTransport::OnSegmentSent, this));
    s->TraceConnectWithoutContext("CongState",
                                  MakeCallback(&TcpMessageTransport::OnCongState, this));
    return s;
}

void
TcpMessageTransport::Send(uint32_t src,
                          uint32_t dst,
                          uint32_t channel,
                          uint32_t tag,
                          uint64_t bytes,
                          MessageBytes data)
{
    NS_LOG_FUNCTION(this << src << dst << channel << tag << bytes);
    CheckSend(src, dst, bytes, data);
    NotifySend(src, dst, bytes);
    uint64_t key = Key(src, dst);
    auto ins = m_connections.try_emplace(key);
    Connection& c = ins.first->second;
    OutFrame f;
    f.header.src = src;
    f.header.channel = channel;
    f.header.tag = tag;
    f.header.flags = data ? MlnetFrameHeader::REAL_PAYLOAD : 0;
    f.header.bytes = bytes;
    f.data = data;
    c.frames.push_back(f);
    c.sentTimes.push_back(Simulator::Now());
    if (ins.second)
    {
        c.src = src;
        c.dst = dst;
        if (m_cluster->GetRankNode(src)->IsInitialized())
        {
            Open(key);
        }
        else
        {
            // Before Simulator::Run the traffic-control layer cannot send the SYN yet.
            Simulator::ScheduleNow(&TcpMessageTransport::Open, this, key);
        }
        return;
    }
    Pump(key);
}

void
TcpMessageTransport::Open(uint64_t key)
{
    auto it = m_connections.find(key);
    if (it == m_connections.end())
    {
        return;
    }
    Connection& c = it->second;
    c.socket = CreateConfiguredSocket(c.src);
    c.socket->Bind(InetSocketAddress(m_cluster->GetRankAddress(c.src), 0));
    c.socket->SetConnectCallback(
        MakeCallback(&TcpMessageTransport::OnConnected, this).Bind(key),
        MakeCallback(&TcpMessageTransport::OnConnectFailed, this).Bind(key));
    c.socket->SetSendCallback(MakeCallback(&TcpMessageTransport::OnSendSpace, this).Bind(key));
    c.socket->Connect(InetSocketAddress(m_cluster->GetRankAddress(c.dst), m_port));
}

void
TcpMessageTransport::OnConnected(uint64_t key, Ptr<Socket> socket)
{
    Connection& c = m_connections.at(key);
    NS_LOG_INFO("connection " << c.src << " -> " << c.dst << " established");
    c.connected = true;
    m_connectionTrace(c.src, c.dst);
    Pump(key);
}

void
TcpMessageTransport::OnConnectFailed(uint64_t key, Ptr<Socket> socket)
{
    const Connection& c = m_connections.at(key);
    NS_LOG_ERROR("connection " << c.src << " -> " << c.dst << " failed; its " << c.frames.size()
                               << " queued messages are lost");
}

void
TcpMessageTransport::OnSendSpace(uint64_t key, Ptr<Socket> socket, uint32_t available)
{
    Pump(key);
}

void
TcpMessageTransport::Pump(uint64_t key)
{
    Connection& c = m_connections.at(key);
    if (!c.connected)
    {
        return;
    }
    while (!c.frames.empty())
    {
        OutFrame& f = c.frames.front();
        uint32_t avail = c.socket->GetTxAvailable();
        // The header leaves together with the first message bytes, so that it never
        // becomes a tiny segment of its own.
        uint32_t need = f.headerSent ? 1 : MlnetFrameHeader::SIZE + 1;
        if (avail < need)
        {
            break;
        }
        uint32_t room = f.headerSent ? avail : avail - MlnetFrameHeader::SIZE;
        uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(room, f.header.bytes - f.offset));
        Ptr<Packet> p =
            f.data ? Create<Packet>(f.data->data() + f.offset, len) : Create<Packet>(len);
        if (!f.headerSent)
        {
            p->AddHeader(f.header);
        }
        if (c.socket->Send(p) < 0)
        {
            NS_LOG_WARN("connection " << c.src << " -> " << c.dst << " refused " << p->GetSize()
                                      << " bytes (errno " << c.socket->GetErrno() << ")");
            break;
        }
        f.headerSent = true;
        f.offset += len;
        if (f.offset == f.header.bytes)
        {
            c.frames.pop_front();
        }
    }
}

void
TcpMessageTransport::HandleAccept(uint32_t rank, Ptr<Socket> socket, const Address& from)
{
    NS_LOG_INFO("rank " << rank << " accepted a connection from "
                        << InetSocketAddress::ConvertFrom(from).GetIpv4());
    Stream& s = m_streams[PeekPointer(socket)];
    s.rank = rank;
    m_accepted.push_back(socket);
    socket->SetRecvCallback(MakeCallback(&TcpMessageTransport::HandleRead, this));
}

void
TcpMessageTransport::HandleRead(Ptr<Socket> socket)
{
    auto it = m_streams.find(PeekPointer(socket));
    NS_ASSERT_MSG(it != m_streams.end(), "data on a socket that was not accepted");
    Stream& s = it->second;
    Ptr<Packet> p;
    while ((p = socket->Recv()))
    {
        uint32_t n = p->GetSize();
        uint32_t pos = 0;
        while (pos < n)
        {
            if (!s.inBody)
            {
                uint32_t k = std::min(MlnetFrameHeader::SIZE - s.headerHave, n - pos);
                p->CreateFragment(pos, k)->CopyData(s.header + s.headerHave, k);
                pos += k;
                s.headerHave += k;
                if (s.headerHave == MlnetFrameHeader::SIZE)
                {
                    s.frame = MlnetFrameHeader::FromBytes(s.header);
                    s.headerHave = 0;
                    s.inBody = true;
                    s.have = 0;
                    if (s.frame.flags & MlnetFrameHeader::REAL_PAYLOAD)
                    {
                        s.buffer = std::make_shared<std::vector<uint8_t>>(s.frame.bytes);
                    }
                }
                continue;
            }
            uint32_t k = static_cast<uint32_t>(std::min<uint64_t>(s.frame.bytes - s.have, n - pos));
            if (s.buffer)
            {
                p->CreateFragment(pos, k)->CopyData(s.buffer->data() + s.have, k);
            }
            pos += k;
            s.have += k;
            if (s.have == s.frame.bytes)
            {
                FinishMessage(s);
            }
        }
    }
}

void
TcpMessageTransport::FinishMessage(Stream& s)
{
    Message msg;
    msg.src = s.frame.src;
    msg.dst = s.rank;
    msg.channel = s.frame.channel;
    msg.tag = s.frame.tag;
    msg.bytes = s.frame.bytes;
    msg.data = s.buffer;
    msg.delivered = Simulator::Now();
    auto c = m_connections.find(Key(msg.src, msg.dst));
    NS_ASSERT_MSG(c != m_connections.end() && !c->second.sentTimes.empty(),
                  "a message arrived on a connection nobody sent on");
    msg.sent = c->second.sentTimes.front();
    c->second.sentTimes.pop_front();
    s.inBody = false;
    s.buffer = nullptr;
    s.have = 0;
    Deliver(msg);
}

} // namespace ns3
