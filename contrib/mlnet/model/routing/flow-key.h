// SPDX-License-Identifier: GPL-2.0-only
/*
 * FlowKey: the fields a fabric's flow hash reads from a frame (source and destination
 * address, IP protocol, source and destination port), as a transport fills them for a
 * (src, dst) rank pair.
 *
 * It is what RoutePlanner::FlowPath resolves to the exact links a flow crosses, with
 * the same seeded hash (FlowHashRouting::HashFlow) that FlowHashRouting and
 * FastForwarding apply at every node. Ports are kept in host byte order, as in a
 * FastFrameHeader; RawPorts gives them as the hash reads them. Left out: anything
 * that varies within a flow (per-packet spraying, flowlets, adaptive choices).
 */
#ifndef MLNET_FLOW_KEY_H
#define MLNET_FLOW_KEY_H

#include <cstdint>
#include <cstring>

namespace ns3
{

/**
 * \brief The 5-tuple a flow is hashed on.
 */
struct FlowKey
{
    uint32_t srcAddr{0};  //!< source rank's address (host order, as Ipv4Address::Get)
    uint32_t dstAddr{0};  //!< destination rank's address
    uint8_t protocol{17}; //!< IP protocol number (17 = UDP)
    uint16_t srcPort{0};  //!< source port (host byte order)
    uint16_t dstPort{0};  //!< destination port (host byte order)

    /**
     * \brief A port as FlowHashRouting::RouteInput reads it: the raw 16-bit word of
     * its network-order bytes.
     */
    static uint16_t RawPort(uint16_t port)
    {
        uint8_t bytes[2] = {static_cast<uint8_t>(port >> 8), static_cast<uint8_t>(port)};
        uint16_t raw;
        std::memcpy(&raw, bytes, 2);
        return raw;
    }

    /// \return true if both keys name the same flow
    bool operator==(const FlowKey& o) const
    {
        return srcAddr == o.srcAddr && dstAddr == o.dstAddr && protocol == o.protocol &&
               srcPort == o.srcPort && dstPort == o.dstPort;
    }
};

} // namespace ns3

#endif // MLNET_FLOW_KEY_H
