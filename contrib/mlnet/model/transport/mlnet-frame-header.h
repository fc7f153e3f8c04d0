// SPDX-License-Identifier: GPL-2.0-only
/*
 * MlnetFrameHeader: the frame header that TcpMessageTransport puts in front of
 * every message in a TCP byte stream (src rank, channel, tag, flags, bytes; 24
 * bytes, network byte order). It is an ns-3 Header so that the sender can
 * prepend it to a packet of virtual (zero-area) message bytes without
 * allocating them; the receiver, which sees an unframed byte stream, reads the
 * same 24 bytes back with Deserialize from a plain buffer (FromBytes).
 */
#ifndef MLNET_FRAME_HEADER_H
#define MLNET_FRAME_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Header of one message framed in a TCP stream (24 bytes).
 */
class MlnetFrameHeader : public Header
{
public:
    /// Serialized size (bytes).
    static constexpr uint32_t SIZE = 24;

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

    /**
     * \brief Read a header from SIZE bytes of a stream.
     * \param bytes the serialized header
     * \return the header
     */
    static MlnetFrameHeader FromBytes(const uint8_t* bytes);

    uint32_t src{0};     //!< sending rank
    uint32_t channel{0}; //!< message channel
    uint32_t tag{0};     //!< message tag
    uint32_t flags{0};   //!< REAL_PAYLOAD if real bytes follow
    uint64_t bytes{0};   //!< message bytes that follow the header

    static constexpr uint32_t REAL_PAYLOAD = 1; //!< flag: the message bytes are real
};

} // namespace ns3

#endif // MLNET_FRAME_HEADER_H
