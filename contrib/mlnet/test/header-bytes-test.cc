// SPDX-License-Identifier: GPL-2.0-only
/*
 * The wire bytes of the two per-packet headers, written field by field in network
 * order by hand (RFC 1700 big-endian) and compared with what Serialize puts in the
 * packet (and read back); HeaderBytes writes big-endian.
 */
#include "ns3/fast-frame-header.h"
#include "ns3/header-bytes.h"
#include "ns3/mlnet-transport-header.h"
#include "ns3/packet.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

std::vector<uint8_t>
Bytes(Ptr<Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

TEST(HeaderBytesTest, FastFrameHeaderIsNetworkOrderAndPadded)
{
    FastFrameHeader h;
    h.srcRank = 0x01020304;
    h.dstRank = 0x05060708;
    h.srcAddr = 0x0a000001;
    h.dstAddr = 0x0a0000fe;
    h.srcPort = 0x1234;
    h.dstPort = 0xabcd;
    h.protocol = 17;
    h.priority = 3;
    h.ecn = FastFrameHeader::CE;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    const std::vector<uint8_t> want = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0a, 0x00,
                                       0x00, 0x01, 0x0a, 0x00, 0x00, 0xfe, 0x12, 0x34, 0xab, 0xcd,
                                       17,   3,    3,    0,    0,    0,    0,    0};
    EXPECT_EQ(Bytes(p), want);
    FastFrameHeader g;
    p->RemoveHeader(g);
    EXPECT_EQ(g.srcRank, h.srcRank);
    EXPECT_EQ(g.dstRank, h.dstRank);
    EXPECT_EQ(g.srcAddr, h.srcAddr);
    EXPECT_EQ(g.dstAddr, h.dstAddr);
    EXPECT_EQ(g.srcPort, h.srcPort);
    EXPECT_EQ(g.dstPort, h.dstPort);
    EXPECT_EQ(g.protocol, h.protocol);
    EXPECT_EQ(g.priority, 3u);
    EXPECT_EQ(g.ecn, FastFrameHeader::CE);
    EXPECT_EQ(p->GetSize(), 0u);
}

TEST(HeaderBytesTest, TransportHeaderIsNetworkOrder)
{
    MlnetTransportHeader h;
    h.SetType(MlnetTransportHeader::ACK);
    h.SetChannel(0x11223344);
    h.SetTag(0x55667788);
    h.SetMessageId(0x99aabbcc);
    h.SetSequence(0xddeeff00);
    h.SetPacketCount(0x01020304);
    h.SetMessageBytes(0x0102030405060708ULL);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    std::vector<uint8_t> b = Bytes(p);
    ASSERT_EQ(b.size(), MlnetTransportHeader::SIZE);
    EXPECT_EQ(b[0], MlnetTransportHeader::ACK); // the type byte, no real-payload flag
    const std::vector<uint8_t> fields = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
                                         0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04,
                                         0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
    EXPECT_EQ(std::vector<uint8_t>(b.begin() + 1, b.end()), fields);
    MlnetTransportHeader g;
    p->RemoveHeader(g);
    EXPECT_EQ(g.GetType(), MlnetTransportHeader::ACK);
    EXPECT_EQ(g.GetMessageBytes(), 0x0102030405060708ULL);
    EXPECT_EQ(g.GetSequence(), 0xddeeff00u);
}

TEST(HeaderBytesTest, WritesBigEndian)
{
    uint8_t b[8];
    HeaderBytes::PutU64(b, 0x8001020304050607ULL);
    EXPECT_EQ(std::vector<uint8_t>(b, b + 8),
              (std::vector<uint8_t>{0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07}));
    HeaderBytes::PutU32(b, 0xfffefdfcu);
    EXPECT_EQ(std::vector<uint8_t>(b, b + 4), (std::vector<uint8_t>{0xff, 0xfe, 0xfd, 0xfc}));
    HeaderBytes::PutU16(b, 0x00ff);
    EXPECT_EQ(b[0], 0x00);
    EXPECT_EQ(b[1], 0xff);
}

} // namespace
