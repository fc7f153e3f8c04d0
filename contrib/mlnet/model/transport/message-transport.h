// SPDX-License-Identifier: GPL-2.0-only
/*
 * MessageTransport: delivers messages (byte counts, optionally with real bytes)
 * between ranks of a Cluster. It is the only way collectives put traffic on the
 * network, so every collective runs unchanged over every transport.
 *
 * A message is addressed by (src rank, dst rank) and labelled by a channel (one
 * per collective instance or communicator) and a tag (the step, slice, ... that
 * the owner of the channel chooses). The receiver gets the whole message once
 * its last byte has arrived; a message larger than a packet is split by the
 * transport. Subclasses: UdpMessageTransport (line-rate, sequence numbers,
 * receiver-driven repair) and TcpMessageTransport (one connection per pair).
 */
#ifndef MLNET_MESSAGE_TRANSPORT_H
#define MLNET_MESSAGE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/cluster.h"
#include "ns3/flow-key.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// Real contents of a message, shared (never copied) between sender and receiver.
using MessageBytes = std::shared_ptr<const std::vector<uint8_t>>;

/**
 * \brief A message as delivered to its receiver.
 */
struct Message
{
    uint32_t src{0};     //!< sending rank
    uint32_t dst{0};     //!< receiving rank
    uint32_t channel{0}; //!< owner's channel (e.g. a collective instance)
    uint32_t tag{0};     //!< owner's tag within the channel
    uint64_t bytes{0};   //!< application bytes of the message
    MessageBytes data;   //!< real contents (size == bytes) or null for virtual bytes
    Time sent;           //!< when Send was called
    Time delivered;      //!< when the last byte was delivered
};

/**
 * \brief Base class of message transports between the ranks of a Cluster.
 */
class MessageTransport : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Called at the receiver when a whole message has arrived.
    using ReceiveCallback = Callback<void, const Message&>;

    MessageTransport();
    ~MessageTransport() override;

    /**
     * \brief Bind the transport to a cluster: create sockets/applications on every rank.
     * Must be called once, before any Send.
     */
    virtual void Install(Ptr<Cluster> cluster) = 0;

    /**
     * \brief Send a message from one rank to another, now.
     * \param src sending rank
     * \param dst receiving rank (!= src)
     * \param channel channel of the receiver's handler
     * \param tag tag passed to the handler
     * \param bytes application bytes (> 0)
     * \param data real contents or null; when set, data->size() must equal bytes
     */
    virtual void Send(uint32_t src,
                      uint32_t dst,
                      uint32_t channel,
                      uint32_t tag,
                      uint64_t bytes,
                      MessageBytes data = nullptr) = 0;

    /**
     * \brief Bytes each packet adds above the application payload, on the wire
     * (transport header + L4 + IPv4 + PPP). Used by the analytical twin.
     */
    virtual uint32_t GetPerPacketOverhead() const = 0;
    /// \return the largest application payload carried by one packet (bytes)
    virtual uint32_t GetMaxPayload() const = 0;
    /**
     * \brief The flow key every data packet from rank src to rank dst carries, known
     * ahead of sending (what the fabric's flow hash reads: RoutePlanner::FlowPath
     * resolves the path it takes; the analytical twin loads only those links).
     * \param key filled when the key is known
     * \return false (the default) when the transport does not know it ahead, e.g. TCP,
     * whose ephemeral source ports are chosen at connect time: the twin then splits
     * the pair's bytes evenly over the equal-cost paths
     */
    virtual bool GetFlowKey(uint32_t src, uint32_t dst, FlowKey& key) const;

    /**
     * \brief Register the handler of a channel; every message on it goes there.
     * \param handler receives every message of the channel
     * \param label what the channel carries (a collective's or task's name), reported
     * with each of its messages by the MessageDelivered trace
     * \return the channel number to pass to Send
     */
    uint32_t RegisterChannel(ReceiveCallback handler, const std::string& label = "");
    /// \return the label a channel was registered with ("" when none or unknown)
    const std::string& GetChannelLabel(uint32_t channel) const;
    /// Signature of the MessageDelivered trace: the whole message, its channel's label.
    typedef void (*MessageDeliveredTracedCallback)(const Message& msg, const std::string& label);
    /// \brief Remove a channel's handler (messages arriving later are an error).
    void UnregisterChannel(uint32_t channel);

    /**
     * \brief Per-packet hook of a channel: called for every data packet of the
     * channel's messages just before it is sent (first sends and retransmissions),
     * with the message (src, dst, channel, tag, bytes; no data, no times), the byte
     * offset of the packet's payload in the message, and the packet (payload only,
     * no transport header yet). It may add packet tags; it must not change the
     * payload or its size. Used to label gradient traffic (contrib/checkmate).
     * Transports that do not packetize themselves (TcpMessageTransport) never call
     * it. Added backwards-compatibly: without hooks nothing changes.
     */
    using PacketHook = Callback<void, const Message&, uint64_t, Ptr<Packet>>;
    /// \brief Set (or, with a null callback, remove) the packet hook of a channel.
    void SetPacketHook(uint32_t channel, PacketHook hook);

    /// \return the cluster this transport is installed on
    Ptr<Cluster> GetCluster() const;
    /// \return application bytes handed to Send so far
    uint64_t GetBytesSent() const;
    /// \return application bytes delivered so far
    uint64_t GetBytesDelivered() const;
    /// \return messages delivered so far
    uint64_t GetMessagesDelivered() const;
    /// \return messages handed to Send so far
    uint64_t GetMessagesSent() const;
    /**
     * \return messages the transport gave up on before they were delivered (each
     * counted once; TrafficAccounting reports them as "abandoned")
     */
    uint64_t GetMessagesGivenUp() const;
    /// \return application bytes of the messages counted by GetMessagesGivenUp
    uint64_t GetBytesGivenUp() const;
    /**
     * \return data packets (or segments) sent again to repair a loss; 0 for a
     * transport that never re-sends. Subclasses that repair override it.
     */
    virtual uint64_t GetRetransmissions() const;
    /**
     * \return timeouts that fired and acted (a sender's probe or retransmission timer,
     * a receiver's repair timer); 0 for a transport without timers
     */
    virtual uint64_t GetTimeouts() const;
    /// \return wire bytes (PPP frames) of the packets counted by GetRetransmissions
    virtual uint64_t GetBytesResent() const;

protected:
    void DoDispose() override;
    /// Subclasses call this when a message is complete at its receiver.
    void Deliver(const Message& msg);
    /**
     * Subclasses call this when a copy of a message, made in the fabric (not sent by a
     * rank: FluidMessageTransport::SendCopy), is complete at its receiver: it goes to
     * its channel's handler, and is not counted as delivered or traced.
     */
    void DeliverCopy(const Message& msg) const;
    /// Subclasses call this from Send for accounting and tracing.
    void NotifySend(uint32_t src, uint32_t dst, uint64_t bytes);
    /**
     * Subclasses call this once per message they give up on without having delivered
     * it (accounting: the message is "abandoned", see GetMessagesGivenUp).
     */
    void NotifyGiveUp(uint32_t src, uint32_t dst, uint64_t bytes);
    /// \return true when some channel has a packet hook (cheap test per packet)
    bool HasPacketHooks() const;
    /// Subclasses call this for every data packet they build (see PacketHook).
    void ApplyPacketHook(const Message& msg, uint64_t offset, Ptr<Packet> packet) const;
    /**
     * Subclasses call this first in Install: throws std::invalid_argument, naming the
     * transport, when the cluster is null or the transport is already installed. It
     * notes whether Send is refused (SendsFrames on a fabric without devices).
     */
    void CheckInstall(const Ptr<Cluster>& cluster);
    /**
     * Subclasses call this first in Send: throws std::invalid_argument, naming the
     * transport, when it is not installed, the ranks are out of range or equal, the
     * message is empty, real data does not match bytes, or the transport sends frames
     * (SendsFrames) on a fabric built without devices (data path "none").
     */
    void CheckSend(uint32_t src, uint32_t dst, uint64_t bytes, const MessageBytes& data) const;
    /**
     * \return true (the default) for a transport whose Send puts frames on the fabric's
     * devices; the fluid, which only asks a packet transport what its frames would be,
     * returns false and runs on a fabric without devices
     */
    virtual bool SendsFrames() const;

    Ptr<Cluster> m_cluster; //!< set by Install

private:
    std::vector<ReceiveCallback> m_channels;
    std::vector<std::string> m_labels; //!< by channel
    bool m_announced{false};           //!< told the cluster (Cluster::NotifyObjectBound)
    bool m_sendRefused{false};         //!< frames on a fabric without devices (CheckInstall)
    std::unordered_map<uint32_t, PacketHook> m_packetHooks; //!< channel -> hook
    uint64_t m_bytesSent{0};
    uint64_t m_bytesDelivered{0};
    uint64_t m_messagesDelivered{0};
    uint64_t m_messagesSent{0};
    uint64_t m_messagesGivenUp{0};
    uint64_t m_bytesGivenUp{0};
    TracedCallback<uint32_t, uint32_t, uint64_t> m_sendTrace;                   //!< src, dst, bytes
    TracedCallback<const Message&> m_deliverTrace;                              //!< whole message
    TracedCallback<const Message&, const std::string&> m_messageDeliveredTrace; //!< + label
};

} // namespace ns3

#endif // MLNET_MESSAGE_TRANSPORT_H
