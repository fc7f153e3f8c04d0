// SPDX-License-Identifier: GPL-2.0-only
/*
 * UdpMessageTransport: a line-rate message transport over UDP/IPv4.
 *
 * What it models. A message is cut into packets of at most GetMaxPayload()
 * application bytes, each carrying an MlnetTransportHeader. Every rank has one
 * UDP socket. A per-rank "NIC scheduler" attaches each outgoing message to the
 * output device of its route and keeps at most MaxBacklogPackets packets waiting
 * in that device's queue disc + device queue, refilling when a frame starts on
 * the wire, round-robin over the device's active messages. A single message thus
 * leaves at exactly line rate with back-to-back frames, concurrent messages on a
 * NIC share it fairly, and the host queues never overflow however large the
 * message. Loss is repaired by the receiver: when an incomplete message has been
 * silent for RepairTimeout it sends a NACK listing the missing sequence ranges;
 * the sender retransmits them ahead of new data. A whole message is ACKed; a
 * sender without an ACK for SenderTimeout (doubled on each repeat) re-sends the
 * message's last packet as a probe, which also covers a message whose packets
 * were all lost. Real payloads travel as real packet bytes and are reassembled
 * at the receiver; virtual payloads are zero-byte areas (no allocation).
 *
 * What it leaves out. No congestion control (it is meant for lossless or
 * lightly loaded fabrics and for clean alpha-beta validation), no pacing below
 * line rate (RoceMessageTransport adds both through this class's protected hooks),
 * no per-packet processing delay at hosts, no flow-hash awareness at
 * the sender (the output device is the route's device when the message starts).
 * ACK and NACK packets bypass the NIC scheduler (they are small and rare).
 *
 * Data paths. On a fabric built with the "ipv4" data path (the default) packets go
 * through one UDP socket per rank. On a "fast" fabric (FabricHelper::SetDataPath)
 * the same sender and receiver logic sends each packet as a frame with a
 * FastFrameHeader (28 bytes, as IPv4 + UDP) straight to the device FastForwarding
 * picks, and receives frames from it: same bytes on the wire, same queues, same
 * completion times, no socket, IPv4 or traffic-control layer. On a fabric without
 * devices ("none", the flow level's graph) it only says what its packets and flow keys
 * would be, for FluidMessageTransport; Send throws there.
 */
#ifndef MLNET_UDP_MESSAGE_TRANSPORT_H
#define MLNET_UDP_MESSAGE_TRANSPORT_H

#include "ns3/event-id.h"
#include "ns3/fast-forwarding.h"
#include "ns3/ipv4.h"
#include "ns3/message-transport.h"
#include "ns3/mlnet-transport-header.h"
#include "ns3/priority-flow-control.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/socket.h"

#include <deque>
#include <set>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief Line-rate message transport over UDP with receiver-driven loss repair.
 */
class UdpMessageTransport : public MessageTransport
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    UdpMessageTransport();
    ~UdpMessageTransport() override;

    /**
     * \brief Create one UDP socket per rank and hook the NIC scheduler to every
     * point-to-point device of every rank. Call after addresses, queue discs and
     * routing tables are in place.
     */
    void Install(Ptr<Cluster> cluster) override;
    void Send(uint32_t src,
              uint32_t dst,
              uint32_t channel,
              uint32_t tag,
              uint64_t bytes,
              MessageBytes data = nullptr) override;
    /// \return header (29) + UDP (8) + IPv4 (20) + PPP (2) = 59 bytes
    uint32_t GetPerPacketOverhead() const override;
    /// \return MTU - 20 - 8 - 29 (8943 at MTU 9000); valid after Install
    uint32_t GetMaxPayload() const override;
    /**
     * \brief The pair's key: both ranks' addresses, UDP, the transport's Port at both
     * ends (every message and retransmission of a pair is one flow). Valid after Install.
     * \return true when both ranks are in range
     */
    bool GetFlowKey(uint32_t src, uint32_t dst, FlowKey& key) const override;

    /// \return data packets sent, first transmissions and retransmissions
    uint64_t GetPacketsSent() const;
    /// \return data packets sent again (after a NACK or as a probe)
    uint64_t GetRetransmissions() const override;
    /// \return SenderTimeout expiries (probe or give up) + RepairTimeout expiries (NACK or
    /// give up) of silent messages; a timer re-armed because packets arrived is not one
    uint64_t GetTimeouts() const override;
    /// \return wire bytes of re-sent data packets (payload + headers + PPP)
    uint64_t GetBytesResent() const override;
    /// \return probes sent after a SenderTimeout (also counted as retransmissions)
    uint64_t GetProbes() const;
    /// \return NACK packets sent by receivers
    uint64_t GetNacksSent() const;
    /// \return ACK packets sent by receivers
    uint64_t GetAcksSent() const;
    /// \return data packets received twice (ignored)
    uint64_t GetDuplicates() const;
    /**
     * \return give-ups after MaxRetries silent timeouts, by senders and by receivers
     * (one message can count at both ends; GetMessagesGivenUp counts each undelivered
     * message once, when its sender gives up)
     */
    uint64_t GetMessagesAbandoned() const;
    /// \return messages sent but not yet acknowledged
    uint64_t GetMessagesInFlight() const;

    /// Trace signature of per-packet events: src rank, dst rank, message id, sequence.
    using PacketTracedCallback = void (*)(uint32_t, uint32_t, uint32_t, uint32_t);

protected:
    void DoDispose() override;

    /// A message being sent (sender side), keyed by (dst, id) in its rank's state.
    struct OutMessage
    {
        uint32_t dst{0};
        uint32_t channel{0};
        uint32_t tag{0};
        uint32_t id{0};
        uint64_t bytes{0};
        MessageBytes data;
        Time sent;
        uint32_t nPackets{0};
        uint32_t nextSeq{0};          //!< next never-sent sequence number
        std::deque<uint32_t> retx;    //!< sequence numbers to send again
        std::vector<bool> retxQueued; //!< seq is in retx (allocated on first NACK)
        uint32_t ifIndex{0};          //!< output device of the route
        bool scheduled{false};        //!< in its device's round-robin list
        EventId timer;                //!< sender timeout (armed when idle)
        Time timeout;                 //!< current sender timeout
        uint32_t retries{0};          //!< probes since the last sign of life
    };

    /// \return the key of message `id` to or from `peer` in a rank's state
    static uint64_t Key(uint32_t peer, uint32_t id);

    // Hooks for transports built on this one (RoceMessageTransport). The defaults
    // keep this transport's behaviour: no pacing, nothing marked, no other packets.

    /**
     * \brief Pacing: the earliest time message `key` of `rank` may hand its next packet
     * to its device. The NIC scheduler serves, round-robin, only messages whose time has
     * come, and wakes at the earliest one when none has.
     * \return that time; the default (0) is always eligible
     */
    virtual Time NextSendTime(uint32_t rank, uint64_t key, const OutMessage& m) const;
    /**
     * \brief A data packet of message `key` was handed to the data path.
     * \param wireBytes its size on the wire (payload + GetPerPacketOverhead())
     * \param retransmission it was sent before
     */
    virtual void OnDataSent(uint32_t rank,
                            uint64_t key,
                            const OutMessage& m,
                            uint32_t wireBytes,
                            bool retransmission);
    /// \brief Message `key` of sender `rank` is done (acknowledged or abandoned).
    virtual void OnMessageEnd(uint32_t rank, uint64_t key);
    /**
     * \brief Fast data path: set the class bits (priority, ECN) of the frame header of
     * a packet of `type` about to be sent. Default: leave them 0 / Not-ECT.
     */
    virtual void SetFrameClass(FastFrameHeader& h, MlnetTransportHeader::PacketType type) const;
    /// \brief Fast data path: a frame addressed to `rank` (default: Dispatch it).
    virtual void HandleFrame(uint32_t rank, Ptr<Packet> p, const FastFrameHeader& h);
    /**
     * \brief A packet of a type this transport does not handle (not DATA, NACK, ACK)
     * arrived at `rank` from `peer`; the default ignores it with a warning.
     */
    virtual void OnOtherPacket(uint32_t rank,
                               uint32_t peer,
                               const MlnetTransportHeader& h,
                               Ptr<Packet> p);
    /// \brief Let the NIC scheduler of a rank's device send what is eligible now.
    void Refill(uint32_t rank, uint32_t ifIndex);
    /// \brief Send a control packet (header `about` with `type`) from `rank` to `peer`.
    void SendControl(uint32_t rank,
                     uint32_t peer,
                     MlnetTransportHeader::PacketType type,
                     const MlnetTransportHeader& about,
                     Ptr<Packet> payload);
    /// \brief A packet (transport header on) from `peer` arrived at `rank`.
    void Dispatch(uint32_t rank, uint32_t peer, Ptr<Packet> p);
    /// \return a rank's node
    Ptr<Node> GetRankNode(uint32_t rank) const;

private:
    /// A message being received, keyed by (src, id).
    struct InMessage
    {
        uint32_t channel{0};
        uint32_t tag{0};
        uint64_t bytes{0};
        uint32_t nPackets{0};
        uint32_t received{0};
        std::vector<bool> got;
        std::shared_ptr<std::vector<uint8_t>> buffer; //!< real bytes, or null
        Time sent;
        Time lastArrival;
        EventId repairTimer;
        uint32_t nacks{0}; //!< NACKs since the last new packet
    };

    /// Message ids already completed from one source (all ids < low, plus done).
    struct Completed
    {
        uint32_t low{0};
        std::set<uint32_t> done;
    };

    /// NIC scheduler state of one device of a rank.
    struct DeviceState
    {
        Ptr<NetDevice> device;
        Ptr<Queue<Packet>> queue;     //!< device queue (null: not point-to-point)
        Ptr<QueueDisc> qdisc;         //!< root queue disc or null
        Ptr<PriorityFlowControl> pfc; //!< fast path with PFC: its egress stage counts too
        std::deque<uint64_t> active;  //!< keys of OutMessages with packets to send
        bool refilling{false};
        EventId wake; //!< pacing: Refill when the earliest paced message may send
        Time wakeAt;  //!< when `wake` fires
    };

    /// Per-rank state.
    struct RankState
    {
        Ptr<Node> node;
        Ptr<Ipv4> ipv4;
        Ptr<Socket> socket;
        Ptr<FastForwarding> fast;         //!< fast data path: the node's forwarding, else null
        std::vector<DeviceState> devices; //!< indexed by device ifindex on the node
        std::unordered_map<uint64_t, OutMessage> out;
        std::unordered_map<uint64_t, InMessage> in;
        std::unordered_map<uint32_t, uint32_t> nextId;     //!< per destination rank
        std::unordered_map<uint32_t, Completed> completed; //!< per source rank
    };

    uint32_t RouteDevice(uint32_t src, uint32_t dst) const;
    uint32_t Backlog(const DeviceState& d) const;
    void OnPhyTxBegin(uint32_t rank, uint32_t ifIndex, Ptr<const Packet> p);
    /// Send packet `seq` of `m`. \return its payload bytes
    uint32_t SendData(uint32_t rank, OutMessage& m, uint32_t seq, bool retransmission);
    void Activate(uint32_t rank, uint64_t key, OutMessage& m);
    void ActivateKey(uint32_t rank, uint64_t key);
    void OnSenderTimeout(uint32_t rank, uint64_t key);
    void HandleRead(uint32_t rank, Ptr<Socket> socket);
    /// Hand a packet (transport header on, of `type`) to the data path, towards `peer`.
    void Transmit(uint32_t rank,
                  uint32_t peer,
                  Ptr<Packet> p,
                  MlnetTransportHeader::PacketType type);
    /// Fast data path: the frame header (flow key) of packets from src to dst.
    FastFrameHeader FrameHeader(uint32_t src, uint32_t dst) const;
    void OnData(uint32_t rank, uint32_t src, const MlnetTransportHeader& h, Ptr<Packet> p);
    void OnNack(uint32_t rank, uint32_t peer, const MlnetTransportHeader& h, Ptr<Packet> p);
    void OnAck(uint32_t rank, uint32_t peer, const MlnetTransportHeader& h);
    void OnRepairTimeout(uint32_t rank, uint64_t key);
    bool IsCompleted(const Completed& c, uint32_t id) const;
    void MarkCompleted(Completed& c, uint32_t id);

    // Attributes
    uint16_t m_port;
    uint32_t m_maxBacklog;
    Time m_repairTimeout;
    Time m_senderTimeout;
    uint32_t m_maxRetries;

    uint32_t m_maxPayload{0};
    bool m_fastPath{false}; //!< the cluster uses the fast data path
    std::vector<RankState> m_ranks;
    std::unordered_map<uint32_t, uint32_t> m_rankOfAddress;

    uint64_t m_packetsSent{0};
    uint64_t m_retransmissions{0};
    uint64_t m_bytesResent{0}; //!< wire bytes of the re-sent data packets
    uint64_t m_timeouts{0};    //!< sender and repair timeouts that fired
    uint64_t m_probes{0};
    uint64_t m_nacksSent{0};
    uint64_t m_acksSent{0};
    uint64_t m_duplicates{0};
    uint64_t m_abandoned{0};

    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_packetSentTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_retransmitTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_nackTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_duplicateTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_abandonTrace;
};

} // namespace ns3

#endif // MLNET_UDP_MESSAGE_TRANSPORT_H
