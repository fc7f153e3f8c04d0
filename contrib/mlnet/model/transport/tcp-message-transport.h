// SPDX-License-Identifier: GPL-2.0-only
/*
 * TcpMessageTransport: messages over ns-3 TCP sockets, one connection per
 * ordered pair of ranks.
 *
 * What it models. Every rank listens on Port. The first Send from a rank to
 * another opens a connection (src -> dst); later messages on that pair reuse
 * it. Messages are framed in the byte stream: a 24-byte MlnetFrameHeader
 * (src, channel, tag, flags, bytes) then the message bytes, real when data is
 * given, virtual (zero-area, never allocated at the sender) otherwise. The
 * receiver parses the stream, however it is split into segments, and delivers
 * each whole message. Sockets get data-centre settings: segment size MTU - 52
 * (IPv4 20 + TCP 20 + timestamps 12), 16 MiB buffers, 1 ms minimum RTO, 1 us
 * clock granularity, initial window 10, a short delayed-ACK timeout, and any
 * TcpCongestionOps as SocketType (ns3::TcpDctcp needs ECN-marking switches,
 * which the fabric helpers provide as an option).
 *
 * What it leaves out. No connection teardown (connections live for the whole
 * run), no per-message priority: messages on one pair are sent and delivered in
 * Send order (head-of-line blocking is part of the model), and messages to
 * different destinations share the NIC as TCP flows do (through the host's
 * queue disc), not round-robin. The frame header (24 bytes per message) is in
 * the stream but not in GetPerPacketOverhead().
 */
#ifndef MLNET_TCP_MESSAGE_TRANSPORT_H
#define MLNET_TCP_MESSAGE_TRANSPORT_H

#include "ns3/message-transport.h"
#include "ns3/mlnet-frame-header.h"
#include "ns3/socket.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"

#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief Message transport over TCP (or DCTCP), one connection per ordered rank pair.
 */
class TcpMessageTransport : public MessageTransport
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TcpMessageTransport();
    ~TcpMessageTransport() override;

    /**
     * \brief Open a listening socket on every rank (connections open on first Send).
     * Call after addresses and routing tables are in place.
     */
    void Install(Ptr<Cluster> cluster) override;
    void Send(uint32_t src,
              uint32_t dst,
              uint32_t channel,
              uint32_t tag,
              uint64_t bytes,
              MessageBytes data = nullptr) override;
    /// \return TCP header with timestamps (32) + IPv4 (20) + PPP (2) = 54 bytes
    uint32_t GetPerPacketOverhead() const override;
    /// \return the TCP segment size (bytes); valid after Install
    uint32_t GetMaxPayload() const override;

    /// \return connections opened so far
    uint32_t GetConnections() const;
    /// \return TCP data segments sent again (seen on the sockets' Tx trace below the
    /// highest sequence already sent: fast retransmits and timeouts alike)
    uint64_t GetRetransmissions() const override;
    /**
     * \return retransmission timeouts: entries of a sending socket into the Loss state
     * (ns-3's CongState trace; TcpSocketBase enters it only on an RTO). Back-to-back
     * RTOs of one loss episode count once: ns-3 has no per-expiry trace.
     */
    uint64_t GetTimeouts() const override;
    /// \return wire bytes of re-sent segments (payload + TCP + IPv4 headers + PPP)
    uint64_t GetBytesResent() const override;
    /// \return the socket of the connection src -> dst, or null if not open
    Ptr<Socket> GetSocket(uint32_t src, uint32_t dst) const;

protected:
    void DoDispose() override;

private:
    /// A message (frame) waiting to enter a connection's send buffer.
    struct OutFrame
    {
        MlnetFrameHeader header;
        MessageBytes data;
        uint64_t offset{0}; //!< message bytes already handed to the socket
        bool headerSent{false};
    };

    /// Sender side of one connection src -> dst.
    struct Connection
    {
        uint32_t src{0};
        uint32_t dst{0};
        Ptr<Socket> socket;
        bool connected{false};
        std::deque<OutFrame> frames;
        std::deque<Time> sentTimes; //!< Send times of frames not yet delivered
    };

    /// Receiver side: parse state of one accepted socket.
    struct Stream
    {
        uint32_t rank{0}; //!< receiving rank
        uint8_t header[MlnetFrameHeader::SIZE];
        uint32_t headerHave{0};
        bool inBody{false};
        MlnetFrameHeader frame;
        uint64_t have{0};
        std::shared_ptr<std::vector<uint8_t>> buffer;
    };

    static uint64_t Key(uint32_t src, uint32_t dst);
    Ptr<Socket> CreateConfiguredSocket(uint32_t rank);
    void Open(uint64_t key);
    void Pump(uint64_t key);
    void OnConnected(uint64_t key, Ptr<Socket> socket);
    void OnConnectFailed(uint64_t key, Ptr<Socket> socket);
    void OnSendSpace(uint64_t key, Ptr<Socket> socket, uint32_t available);
    void HandleAccept(uint32_t rank, Ptr<Socket> socket, const Address& from);
    void HandleRead(Ptr<Socket> socket);
    /// Tx trace of every socket: counts data segments sent below the high mark.
    void OnSegmentSent(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s);
    /// A socket's congestion state changed: entering Loss is an RTO.
    void OnCongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to);
    void FinishMessage(Stream& s);

    // Attributes
    uint16_t m_port;
    TypeId m_socketType;
    bool m_useEcn;
    uint32_t m_segmentSizeAttr;
    uint32_t m_sndBufSize;
    uint32_t m_rcvBufSize;
    Time m_minRto;
    Time m_clockGranularity;
    uint32_t m_initialCwnd;
    Time m_delAckTimeout;

    uint32_t m_segmentSize{0}; //!< effective segment size
    std::vector<Ptr<Socket>> m_listeners;
    std::map<uint64_t, Connection> m_connections;
    std::unordered_map<Socket*, Stream> m_streams;
    std::vector<Ptr<Socket>> m_accepted;
    std::unordered_map<const TcpSocketBase*, SequenceNumber32> m_highTx; //!< end of data sent
    uint64_t m_retransmissions{0};
    uint64_t m_bytesResent{0}; //!< wire bytes of re-sent segments
    uint64_t m_timeouts{0};    //!< entries into TCP_CA_LOSS (RTOs)

    TracedCallback<uint32_t, uint32_t> m_connectionTrace; //!< src, dst
};

} // namespace ns3

#endif // MLNET_TCP_MESSAGE_TRANSPORT_H
