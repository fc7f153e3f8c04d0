// SPDX-License-Identifier: GPL-2.0-only
#include "gradient-mirror.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/integer.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/udp-header.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateGradientMirror");
NS_OBJECT_ENSURE_REGISTERED(GradientMirror);

TypeId
GradientMirror::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GradientMirror")
            .SetParent<Object>()
            .SetGroupName("Checkmate")
            .AddConstructor<GradientMirror>()
            .AddAttribute(
                "Mode",
                "Which all-gather packets are cloned: ReplicateOnce (step 0: each "
                "chunk once, S bytes per iteration) or ReplicateAll ((N-1) x S).",
                EnumValue(REPLICATE_ONCE),
                MakeEnumAccessor(&GradientMirror::m_mode),
                MakeEnumChecker(REPLICATE_ONCE, "ReplicateOnce", REPLICATE_ALL, "ReplicateAll"))
            .AddAttribute("ShadowPort",
                          "UDP port the shadows receive clones on.",
                          UintegerValue(9100),
                          MakeUintegerAccessor(&GradientMirror::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Job",
                          "Training job whose gradients are mirrored.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GradientMirror::m_job),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LossRate",
                          "Probability that a clone is lost on its way to the shadow "
                          "(drawn per clone; the shadow repairs it from the worker).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&GradientMirror::m_lossRate),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("SourcePort",
                          "UDP source port of the clones (the switch's socket is bound to it; "
                          "the default is the first port ns-3 gives an unbound socket). Part "
                          "of the flow key the fabric hashes the clones' route on.",
                          UintegerValue(49153),
                          MakeUintegerAccessor(&GradientMirror::m_sourcePort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Stream",
                          "First random-variable stream of LossRate draws; the mirror on "
                          "the switch of node id k draws from Stream + k, so losses depend "
                          "only on the fabric, the seed and the run number.",
                          IntegerValue(950),
                          MakeIntegerAccessor(&GradientMirror::m_stream),
                          MakeIntegerChecker<int64_t>(0))
            .AddTraceSource("Mirrored",
                            "A clone left for a shadow: the packet's gradient tag, shadow address.",
                            MakeTraceSourceAccessor(&GradientMirror::m_mirrorTrace),
                            "ns3::GradientMirror::MirrorTracedCallback")
            .AddTraceSource("CloneDropped",
                            "A clone was dropped (DropClone): the packet's gradient tag.",
                            MakeTraceSourceAccessor(&GradientMirror::m_dropTrace),
                            "ns3::GradientMirror::DropTracedCallback");
    return tid;
}

GradientMirror::GradientMirror() = default;
GradientMirror::~GradientMirror() = default;

void
GradientMirror::DoDispose()
{
    // Disposed with its switch node (it is aggregated to it): the node's IPv4 stack,
    // which holds the trace connection, goes away at the same time.
    m_socket = nullptr;
    m_fast = nullptr;
    m_node = nullptr;
    m_loss.Dispose();
    Object::DoDispose();
}

uint32_t
GradientMirror::Install(Ptr<Node> sw, Ptr<Cluster> cluster, const std::vector<uint32_t>& workers)
{
    NS_ASSERT_MSG(!m_node, "installed twice");
    Ptr<Ipv4L3Protocol> ipv4 = sw->GetObject<Ipv4L3Protocol>();
    Ptr<FastForwarding> fast = sw->GetObject<FastForwarding>();
    if (!ipv4 && !fast)
    {
        throw std::invalid_argument("GradientMirror: the switch has neither an IPv4 stack nor "
                                    "FastForwarding (build it with a fabric helper)");
    }
    std::set<uint32_t> attached;
    for (uint32_t id : cluster->GetLinksOfNode(sw->GetId()))
    {
        const ClusterLink& l = cluster->GetLink(id);
        attached.insert(l.Peer(sw->GetId()));
    }
    uint32_t n = 0;
    for (uint32_t w : workers)
    {
        if (attached.count(cluster->GetRankNode(w)->GetId()))
        {
            m_ingress.insert(cluster->GetRankAddress(w).Get());
            ++n;
        }
    }
    m_node = sw;
    m_loss.SetStream(m_stream + sw->GetId());
    if (ipv4)
    {
        m_socket = Socket::CreateSocket(sw, UdpSocketFactory::GetTypeId());
        if (m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_sourcePort)) != 0)
        {
            throw std::invalid_argument("GradientMirror: cannot bind the switch's clone socket to "
                                        "port " +
                                        std::to_string(m_sourcePort) +
                                        "; choose another SourcePort");
        }
        ipv4->TraceConnectWithoutContext("UnicastForward",
                                         MakeCallback(&GradientMirror::OnForward, this));
    }
    else
    {
        m_fast = fast;
        m_address = cluster->GetNodeAddress(sw->GetId());
        fast->TraceConnectWithoutContext("Forward",
                                         MakeCallback(&GradientMirror::OnFastForward, this));
    }
    // The node owns the mirror from now on (the trace holds a plain pointer to it).
    sw->AggregateObject(this);
    return n;
}

void
GradientMirror::SetShard(uint64_t first, uint64_t length, uint32_t rank, Ipv4Address shadow)
{
    m_shards[first] = {first + length, Shadow{rank, shadow}};
}

void
GradientMirror::DropClone(uint32_t iteration, uint32_t index)
{
    m_loss.Drop(iteration, index);
}

void
GradientMirror::OnForward(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t)
{
    Mirror(header.GetSource().Get(), packet, UdpHeader().GetSerializedSize());
}

void
GradientMirror::OnFastForward(Ptr<const Packet> frame, uint32_t)
{
    FastFrameHeader h;
    frame->PeekHeader(h);
    Mirror(h.srcAddr, frame, FastFrameHeader::SIZE);
}

void
GradientMirror::Mirror(uint32_t source, Ptr<const Packet> packet, uint32_t headerBytes)
{
    if (!m_ingress.count(source))
    {
        return; // mirrored where it entered the fabric, not at every hop
    }
    GradientTag tag;
    if (!packet->PeekPacketTag(tag) || !Selects(m_mode, m_job, tag))
    {
        return;
    }
    auto it = m_shards.upper_bound(tag.offset);
    NS_ASSERT_MSG(it != m_shards.begin(), "no shadow owns byte " << tag.offset);
    --it;
    NS_ASSERT_MSG(tag.offset + tag.length <= it->second.first,
                  "packet [" << tag.offset << ", " << tag.offset + tag.length
                             << ") straddles a shard boundary");
    const Shadow shadow = it->second.second;
    m_bytes += tag.length;
    ++m_packets;
    if (m_loss.NextIsLost(tag.iteration, m_lossRate))
    {
        ++m_dropped;
        m_dropTrace(tag);
        return;
    }
    // Clone: the message payload (transport header + gradient bytes) without the
    // network headers, and the tag; the switch sends it with headers of its own.
    std::vector<uint8_t> bytes(packet->GetSize());
    packet->CopyData(bytes.data(), bytes.size());
    NS_ASSERT(bytes.size() >= headerBytes);
    Ptr<Packet> clone = Create<Packet>(bytes.data() + headerBytes, bytes.size() - headerBytes);
    clone->AddPacketTag(tag);
    m_mirrorTrace(tag, shadow.address);
    if (m_socket)
    {
        m_socket->SendTo(clone, 0, InetSocketAddress(shadow.address, m_port));
        return;
    }
    FastFrameHeader h;
    h.srcRank = UINT32_MAX; // a switch hosts no rank
    h.dstRank = shadow.rank;
    h.srcAddr = m_address.Get();
    h.dstAddr = shadow.address.Get();
    h.srcPort = m_sourcePort;
    h.dstPort = m_port;
    h.protocol = 17;
    m_fast->Send(clone, h);
}

bool
GradientMirror::Selects(Mode mode, uint32_t job, const GradientTag& tag)
{
    return tag.job == job && tag.phase == GradientTag::ALL_GATHER &&
           (mode == REPLICATE_ALL || tag.step == 0);
}

uint64_t
GradientMirror::GetMirroredBytes() const
{
    return m_bytes;
}

uint64_t
GradientMirror::GetMirroredPackets() const
{
    return m_packets;
}

uint64_t
GradientMirror::GetDroppedPackets() const
{
    return m_dropped;
}

} // namespace ns3
