// SPDX-License-Identifier: GPL-2.0-only
#include "message-transport.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-names.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetMessageTransport");
NS_OBJECT_ENSURE_REGISTERED(MessageTransport);

TypeId
MessageTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MessageTransport")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddTraceSource("Send",
                            "A message was handed to the transport: src rank, dst rank, bytes.",
                            MakeTraceSourceAccessor(&MessageTransport::m_sendTrace),
                            "ns3::MessageTransport::SendTracedCallback")
            .AddTraceSource("Deliver",
                            "A whole message arrived at its receiver.",
                            MakeTraceSourceAccessor(&MessageTransport::m_deliverTrace),
                            "ns3::MessageTransport::DeliverTracedCallback")
            .AddTraceSource("MessageDelivered",
                            "A whole message arrived at its receiver: the message (ranks, "
                            "channel, tag, bytes, sent and delivered times) and the label "
                            "of its channel (the collective or task it belongs to).",
                            MakeTraceSourceAccessor(&MessageTransport::m_messageDeliveredTrace),
                            "ns3::MessageTransport::MessageDeliveredTracedCallback");
    return tid;
}

MessageTransport::MessageTransport() = default;
MessageTransport::~MessageTransport() = default;

void
MessageTransport::DoDispose()
{
    m_channels.clear();
    m_labels.clear();
    m_packetHooks.clear();
    m_cluster = nullptr;
    Object::DoDispose();
}

void
MessageTransport::SetPacketHook(uint32_t channel, PacketHook hook)
{
    if (hook.IsNull())
    {
        m_packetHooks.erase(channel);
    }
    else
    {
        m_packetHooks[channel] = hook;
    }
}

bool
MessageTransport::HasPacketHooks() const
{
    return !m_packetHooks.empty();
}

void
MessageTransport::ApplyPacketHook(const Message& msg, uint64_t offset, Ptr<Packet> packet) const
{
    auto it = m_packetHooks.find(msg.channel);
    if (it != m_packetHooks.end())
    {
        it->second(msg, offset, packet);
    }
}

uint32_t
MessageTransport::RegisterChannel(ReceiveCallback handler, const std::string& label)
{
    m_channels.push_back(handler);
    m_labels.push_back(label);
    return static_cast<uint32_t>(m_channels.size() - 1);
}

const std::string&
MessageTransport::GetChannelLabel(uint32_t channel) const
{
    static const std::string none;
    return channel < m_labels.size() ? m_labels[channel] : none;
}

void
MessageTransport::UnregisterChannel(uint32_t channel)
{
    NS_ASSERT(channel < m_channels.size());
    m_channels[channel] = ReceiveCallback();
}

Ptr<Cluster>
MessageTransport::GetCluster() const
{
    return m_cluster;
}

uint64_t
MessageTransport::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
MessageTransport::GetBytesDelivered() const
{
    return m_bytesDelivered;
}

uint64_t
MessageTransport::GetMessagesDelivered() const
{
    return m_messagesDelivered;
}

uint64_t
MessageTransport::GetMessagesSent() const
{
    return m_messagesSent;
}

uint64_t
MessageTransport::GetMessagesGivenUp() const
{
    return m_messagesGivenUp;
}

uint64_t
MessageTransport::GetBytesGivenUp() const
{
    return m_bytesGivenUp;
}

bool
MessageTransport::GetFlowKey(uint32_t /* src */, uint32_t /* dst */, FlowKey& /* key */) const
{
    return false;
}

uint64_t
MessageTransport::GetRetransmissions() const
{
    return 0;
}

uint64_t
MessageTransport::GetTimeouts() const
{
    return 0;
}

uint64_t
MessageTransport::GetBytesResent() const
{
    return 0;
}

void
MessageTransport::NotifyGiveUp(uint32_t src, uint32_t dst, uint64_t bytes)
{
    NS_LOG_FUNCTION(this << src << dst << bytes);
    ++m_messagesGivenUp;
    m_bytesGivenUp += bytes;
}

void
MessageTransport::NotifySend(uint32_t src, uint32_t dst, uint64_t bytes)
{
    NS_ASSERT_MSG(src != dst, "a rank does not send to itself");
    m_bytesSent += bytes;
    ++m_messagesSent;
    if (!m_announced && m_cluster)
    {
        // On the first message, so monitors attached to the cluster (TraceOptions)
        // connect to this transport's traces before anything is delivered.
        m_announced = true;
        m_cluster->NotifyObjectBound(this);
    }
    m_sendTrace(src, dst, bytes);
}

void
MessageTransport::CheckInstall(const Ptr<Cluster>& cluster)
{
    const std::string who = GetInstanceTypeId().GetName() + "::Install: ";
    if (!cluster)
    {
        throw std::invalid_argument(who + "cluster is null");
    }
    if (m_cluster)
    {
        throw std::invalid_argument(who + "already installed; create one transport per cluster");
    }
    // Fixed for the transport's life: CheckSend reads it on every send.
    m_sendRefused = cluster->GetFabricSpec().dataPath == "none" && SendsFrames();
    // Installed on a whole cluster: reachable as /Names/Transport[-k]/<trace>.
    TraceNames::Register(this, "Transport");
}

void
MessageTransport::CheckSend(uint32_t src,
                            uint32_t dst,
                            uint64_t bytes,
                            const MessageBytes& data) const
{
    // The message's prefix is made only for an error: every send passes here.
    auto who = [this]() { return GetInstanceTypeId().GetName() + "::Send: "; };
    if (!m_cluster)
    {
        throw std::invalid_argument(who() + "call Install(cluster) first");
    }
    uint32_t n = m_cluster->GetNRanks();
    if (src >= n || dst >= n || src == dst)
    {
        throw std::invalid_argument(who() + "bad ranks " + std::to_string(src) + " -> " +
                                    std::to_string(dst) + "; need two different ranks below " +
                                    std::to_string(n));
    }
    if (bytes == 0)
    {
        throw std::invalid_argument(who() + "a message needs at least 1 byte");
    }
    if (data && data->size() != bytes)
    {
        throw std::invalid_argument(who() + "data holds " + std::to_string(data->size()) +
                                    " bytes but bytes = " + std::to_string(bytes) +
                                    "; they must match");
    }
    if (m_sendRefused)
    {
        throw std::invalid_argument(who() +
                                    "the fabric has no devices (data path none, built for the "
                                    "flow level); run at --level=flow, or build it with a data "
                                    "path that has devices (--dataPath=fast or ipv4)");
    }
}

bool
MessageTransport::SendsFrames() const
{
    return true;
}

void
MessageTransport::Deliver(const Message& msg)
{
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.channel << msg.tag << msg.bytes);
    NS_ASSERT_MSG(msg.channel < m_channels.size() && !m_channels[msg.channel].IsNull(),
                  "message on unregistered channel " << msg.channel);
    m_bytesDelivered += msg.bytes;
    ++m_messagesDelivered;
    m_deliverTrace(msg);
    m_messageDeliveredTrace(msg, m_labels[msg.channel]);
    m_channels[msg.channel](msg);
}

void
MessageTransport::DeliverCopy(const Message& msg) const
{
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.channel << msg.tag << msg.bytes);
    NS_ASSERT_MSG(msg.channel < m_channels.size() && !m_channels[msg.channel].IsNull(),
                  "copy on unregistered channel " << msg.channel);
    m_channels[msg.channel](msg);
}

} // namespace ns3
