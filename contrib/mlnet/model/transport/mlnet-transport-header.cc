// SPDX-License-Identifier: GPL-2.0-only
#include "mlnet-transport-header.h"

#include "ns3/header-bytes.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTransportHeader");
NS_OBJECT_ENSURE_REGISTERED(MlnetTransportHeader);

TypeId
MlnetTransportHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MlnetTransportHeader")
                            .SetParent<Header>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<MlnetTransportHeader>();
    return tid;
}

TypeId
MlnetTransportHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MlnetTransportHeader::GetSerializedSize() const
{
    return SIZE;
}

void
MlnetTransportHeader::Serialize(Buffer::Iterator start) const
{
    // One Write of the whole header (HeaderBytes): every packet carries one.
    uint8_t b[SIZE];
    b[0] = m_type;
    HeaderBytes::PutU32(b + 1, m_channel);
    HeaderBytes::PutU32(b + 5, m_tag);
    HeaderBytes::PutU32(b + 9, m_messageId);
    HeaderBytes::PutU32(b + 13, m_sequence);
    HeaderBytes::PutU32(b + 17, m_packetCount);
    HeaderBytes::PutU64(b + 21, m_messageBytes);
    static_assert(SIZE == 29, "type, five 32-bit fields, one 64-bit field");
    start.Write(b, SIZE);
}

uint32_t
MlnetTransportHeader::Deserialize(Buffer::Iterator start)
{
    // Field by field: Buffer's inline reads are cheap (see HeaderBytes).
    m_type = start.ReadU8();
    m_channel = start.ReadNtohU32();
    m_tag = start.ReadNtohU32();
    m_messageId = start.ReadNtohU32();
    m_sequence = start.ReadNtohU32();
    m_packetCount = start.ReadNtohU32();
    m_messageBytes = start.ReadNtohU64();
    return SIZE;
}

void
MlnetTransportHeader::Print(std::ostream& os) const
{
    static const char* names[] = {"data", "nack", "ack", "cnp"};
    os << names[GetType() & 3] << (HasRealPayload() ? " real" : "") << " ch=" << m_channel
       << " tag=" << m_tag << " id=" << m_messageId << " seq=" << m_sequence << "/" << m_packetCount
       << " bytes=" << m_messageBytes;
}

void
MlnetTransportHeader::SetType(PacketType type)
{
    m_type = (m_type & REAL_FLAG) | static_cast<uint8_t>(type);
}

MlnetTransportHeader::PacketType
MlnetTransportHeader::GetType() const
{
    return static_cast<PacketType>(m_type & ~REAL_FLAG);
}

void
MlnetTransportHeader::SetRealPayload(bool real)
{
    m_type = real ? (m_type | REAL_FLAG) : (m_type & ~REAL_FLAG);
}

bool
MlnetTransportHeader::HasRealPayload() const
{
    return (m_type & REAL_FLAG) != 0;
}

void
MlnetTransportHeader::SetChannel(uint32_t channel)
{
    m_channel = channel;
}

uint32_t
MlnetTransportHeader::GetChannel() const
{
    return m_channel;
}

void
MlnetTransportHeader::SetTag(uint32_t tag)
{
    m_tag = tag;
}

uint32_t
MlnetTransportHeader::GetTag() const
{
    return m_tag;
}

void
MlnetTransportHeader::SetMessageId(uint32_t id)
{
    m_messageId = id;
}

uint32_t
MlnetTransportHeader::GetMessageId() const
{
    return m_messageId;
}

void
MlnetTransportHeader::SetSequence(uint32_t seq)
{
    m_sequence = seq;
}

uint32_t
MlnetTransportHeader::GetSequence() const
{
    return m_sequence;
}

void
MlnetTransportHeader::SetPacketCount(uint32_t count)
{
    m_packetCount = count;
}

uint32_t
MlnetTransportHeader::GetPacketCount() const
{
    return m_packetCount;
}

void
MlnetTransportHeader::SetMessageBytes(uint64_t bytes)
{
    m_messageBytes = bytes;
}

uint64_t
MlnetTransportHeader::GetMessageBytes() const
{
    return m_messageBytes;
}

} // namespace ns3
