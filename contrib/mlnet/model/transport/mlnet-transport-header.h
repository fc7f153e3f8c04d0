// SPDX-License-Identifier: GPL-2.0-only
/*
 * MlnetTransportHeader: the header of every packet of UdpMessageTransport.
 *
 * It names the message a packet belongs to (channel, tag, message id), the
 * packet's place in it (sequence number, packet count, total message bytes) and
 * the packet's role (data, NACK, ACK, or RoceMessageTransport's CNP). A flag says whether a data
 * packet carries the real bytes of its slice or virtual (zero) bytes. NACK packets carry their list
 * of missing sequence ranges as payload (8 bytes per range). The header has a fixed size of 29
 * bytes, so every packet's wire overhead is exactly 29 + 8 (UDP) + 20 (IPv4) + 2 (PPP) = 59 bytes.
 */
#ifndef MLNET_TRANSPORT_HEADER_H
#define MLNET_TRANSPORT_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Header of UdpMessageTransport packets (29 bytes, network byte order).
 */
class MlnetTransportHeader : public Header
{
public:
    /// Role of a packet.
    enum PacketType : uint8_t
    {
        DATA = 0, //!< a slice of a message
        NACK = 1, //!< receiver asks for missing sequence ranges (payload: ranges)
        ACK = 2,  //!< receiver has the whole message
        CNP = 3,  //!< congestion notification (RoceMessageTransport): CE-marked data seen
    };

    /// Serialized size of the header (bytes).
    static constexpr uint32_t SIZE = 29;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// \brief Set the packet's role.
    void SetType(PacketType type);
    /// \return the packet's role
    PacketType GetType() const;
    /// \brief Mark a data packet as carrying real bytes (otherwise virtual).
    void SetRealPayload(bool real);
    /// \return true if the data packet carries real bytes
    bool HasRealPayload() const;
    /// \brief Set the message's channel.
    void SetChannel(uint32_t channel);
    /// \return the message's channel
    uint32_t GetChannel() const;
    /// \brief Set the message's tag.
    void SetTag(uint32_t tag);
    /// \return the message's tag
    uint32_t GetTag() const;
    /// \brief Set the message id (per ordered rank pair, counting from 0).
    void SetMessageId(uint32_t id);
    /// \return the message id
    uint32_t GetMessageId() const;
    /// \brief Set the packet's sequence number within the message.
    void SetSequence(uint32_t seq);
    /// \return the packet's sequence number
    uint32_t GetSequence() const;
    /// \brief Set the number of packets of the message.
    void SetPacketCount(uint32_t count);
    /// \return the number of packets of the message
    uint32_t GetPacketCount() const;
    /// \brief Set the message's total application bytes.
    void SetMessageBytes(uint64_t bytes);
    /// \return the message's total application bytes
    uint64_t GetMessageBytes() const;

private:
    static constexpr uint8_t REAL_FLAG = 0x80; //!< bit of m_type: real payload
    uint8_t m_type{DATA};                      //!< PacketType in the low bits, REAL_FLAG
    uint32_t m_channel{0};                     //!< channel
    uint32_t m_tag{0};                         //!< tag
    uint32_t m_messageId{0};                   //!< message id
    uint32_t m_sequence{0};                    //!< sequence number
    uint32_t m_packetCount{0};                 //!< packets in the message
    uint64_t m_messageBytes{0};                //!< bytes in the message
};

} // namespace ns3

#endif // MLNET_TRANSPORT_HEADER_H
