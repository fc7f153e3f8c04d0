// SPDX-License-Identifier: GPL-2.0-only
#include "fast-frame-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFastFrameHeader");
NS_OBJECT_ENSURE_REGISTERED(FastFrameHeader);

namespace
{
constexpr uint32_t kPadding = FastFrameHeader::SIZE - (4 * 4 + 2 * 2 + 1);
} // namespace

TypeId
FastFrameHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FastFrameHeader")
                            .SetParent<Header>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<FastFrameHeader>();
    return tid;
}

TypeId
FastFrameHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FastFrameHeader::GetSerializedSize() const
{
    return SIZE;
}

void
FastFrameHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(srcRank);
    start.WriteHtonU32(dstRank);
    start.WriteHtonU32(srcAddr);
    start.WriteHtonU32(dstAddr);
    start.WriteHtonU16(srcPort);
    start.WriteHtonU16(dstPort);
    start.WriteU8(protocol);
    start.WriteU8(0, kPadding);
}

uint32_t
FastFrameHeader::Deserialize(Buffer::Iterator start)
{
    srcRank = start.ReadNtohU32();
    dstRank = start.ReadNtohU32();
    srcAddr = start.ReadNtohU32();
    dstAddr = start.ReadNtohU32();
    srcPort = start.ReadNtohU16();
    dstPort = start.ReadNtohU16();
    protocol = start.ReadU8();
    start.Next(kPadding);
    return SIZE;
}

void
FastFrameHeader::Print(std::ostream& os) const
{
    os << "rank " << srcRank << " -> " << dstRank << " proto " << +protocol << " ports " << srcPort
       << "/" << dstPort;
}

} // namespace ns3
