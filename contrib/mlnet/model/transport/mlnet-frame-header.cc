// SPDX-License-Identifier: GPL-2.0-only
#include "mlnet-frame-header.h"

#include "ns3/buffer.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFrameHeader");
NS_OBJECT_ENSURE_REGISTERED(MlnetFrameHeader);

TypeId
MlnetFrameHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MlnetFrameHeader")
                            .SetParent<Header>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<MlnetFrameHeader>();
    return tid;
}

TypeId
MlnetFrameHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MlnetFrameHeader::GetSerializedSize() const
{
    return SIZE;
}

void
MlnetFrameHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(src);
    start.WriteHtonU32(channel);
    start.WriteHtonU32(tag);
    start.WriteHtonU32(flags);
    start.WriteHtonU64(bytes);
}

uint32_t
MlnetFrameHeader::Deserialize(Buffer::Iterator start)
{
    src = start.ReadNtohU32();
    channel = start.ReadNtohU32();
    tag = start.ReadNtohU32();
    flags = start.ReadNtohU32();
    bytes = start.ReadNtohU64();
    return SIZE;
}

void
MlnetFrameHeader::Print(std::ostream& os) const
{
    os << "src=" << src << " ch=" << channel << " tag=" << tag << " flags=" << flags
       << " bytes=" << bytes;
}

MlnetFrameHeader
MlnetFrameHeader::FromBytes(const uint8_t* data)
{
    Buffer b;
    b.AddAtStart(SIZE);
    b.Begin().Write(data, SIZE);
    MlnetFrameHeader h;
    h.Deserialize(b.Begin());
    return h;
}

} // namespace ns3
