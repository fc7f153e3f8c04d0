// SPDX-License-Identifier: GPL-2.0-only
/*
 * FastFrameHeader: the network header of mlnet's fast data path.
 *
 * On a fabric built with DataPath "fast" no node runs IPv4: frames carry this
 * header instead of IPv4 + UDP. It names the source and destination rank (what
 * FastForwarding's table is indexed by) and the flow key that FlowHashRouting
 * hashes on the IPv4 path (addresses, protocol, ports), so both paths make the
 * same ECMP choices. It is padded to exactly IPv4 (20) + UDP (8) = 28 bytes, so
 * every frame has the same size on the wire on both paths and timing is
 * identical. Two bytes of the padding carry what IPv4's TOS byte carries on a real
 * RoCEv2 fabric: the frame's priority (the PFC class, 0..7, as a DSCP-to-priority map
 * would give it) and its ECN codepoint (Not-ECT, ECT(0), CE), which switches mark and
 * receivers echo. Not modelled: TTL, checksums, fragmentation, options.
 */
#ifndef MLNET_FAST_FRAME_HEADER_H
#define MLNET_FAST_FRAME_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Header of fast-path frames (28 bytes = IPv4 + UDP headers, network byte order).
 */
class FastFrameHeader : public Header
{
public:
    /// Serialized size (bytes): what IPv4 (20) + UDP (8) occupy on the IPv4 path.
    static constexpr uint32_t SIZE = 28;
    /// EtherType the fast path sends with (stock PointToPointNetDevice accepts only IPv4/IPv6).
    static constexpr uint16_t PROTOCOL = 0x0800;

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

    uint32_t srcRank{0};  //!< sending rank
    uint32_t dstRank{0};  //!< receiving rank (forwarding table index)
    uint32_t srcAddr{0};  //!< flow key: source rank's address (as on the IPv4 path)
    uint32_t dstAddr{0};  //!< flow key: destination rank's address
    uint16_t srcPort{0};  //!< flow key: source port (host byte order)
    uint16_t dstPort{0};  //!< flow key: destination port (host byte order)
    uint8_t protocol{17}; //!< flow key: IP protocol number it stands for (17 = UDP)
    uint8_t priority{0};  //!< traffic class 0..7 (PFC priority; 7 = control, served first)
    uint8_t ecn{NOT_ECT}; //!< ECN codepoint (NOT_ECT, ECT0, CE), as IPv4's two ECN bits

    /// ECN codepoints (RFC 3168 values).
    static constexpr uint8_t NOT_ECT = 0; //!< not ECN-capable: never marked
    static constexpr uint8_t ECT0 = 2;    //!< ECN-capable transport
    static constexpr uint8_t CE = 3;      //!< congestion experienced (marked by a switch)
    /// Highest priority value (8 classes, as IEEE 802.1Qbb).
    static constexpr uint8_t MAX_PRIORITY = 7;
};

} // namespace ns3

#endif // MLNET_FAST_FRAME_HEADER_H
