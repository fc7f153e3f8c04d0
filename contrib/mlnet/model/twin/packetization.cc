// SPDX-License-Identifier: GPL-2.0-only
/*
 * Packetization: see packetization.h for what is modelled and what is left out.
 */
#include "packetization.h"

#include "ns3/message-transport.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

Packetization::Packetization() = default;

Packetization::Packetization(uint32_t maxPayload, uint32_t overhead)
    : m_maxPayload(maxPayload),
      m_overhead(overhead)
{
    if (maxPayload == 0)
    {
        throw std::invalid_argument("Packetization: the payload per packet is 0 bytes; give "
                                    "at least 1 (the transport's GetMaxPayload)");
    }
}

Packetization::Packetization(Ptr<const MessageTransport> transport)
{
    if (!transport)
    {
        throw std::invalid_argument("Packetization: the transport is null; install the "
                                    "transport before reading its packetization");
    }
    *this = Packetization(transport->GetMaxPayload(), transport->GetPerPacketOverhead());
}

uint32_t
Packetization::GetMaxPayload() const
{
    return m_maxPayload;
}

uint32_t
Packetization::GetPerPacketOverhead() const
{
    return m_overhead;
}

uint64_t
Packetization::Ceil(uint64_t bytes, uint32_t payload)
{
    return (bytes + payload - 1) / payload;
}

double
Packetization::Ceil(double bytes, uint32_t payload)
{
    return std::ceil(bytes / payload);
}

template <typename Bytes>
Bytes
Packetization::Wire(Bytes bytes) const
{
    return bytes + Ceil(bytes, m_maxPayload) * m_overhead;
}

template <typename Bytes>
Bytes
Packetization::FirstFrame(Bytes bytes) const
{
    return std::min<Bytes>(bytes, m_maxPayload) + m_overhead;
}

uint64_t
Packetization::GetPacketCount(uint64_t bytes) const
{
    return Ceil(bytes, m_maxPayload);
}

uint64_t
Packetization::GetWireBytes(uint64_t bytes) const
{
    return Wire(bytes);
}

uint64_t
Packetization::GetFirstFrameBytes(uint64_t bytes) const
{
    if (bytes == 0)
    {
        return 0;
    }
    return FirstFrame(bytes);
}

double
Packetization::GetFluidPacketCount(double bytes) const
{
    return Ceil(bytes, m_maxPayload);
}

double
Packetization::GetFluidWireBytes(double bytes) const
{
    return Wire(bytes);
}

double
Packetization::GetFluidFirstFrameBytes(double bytes) const
{
    return FirstFrame(bytes);
}

} // namespace ns3
