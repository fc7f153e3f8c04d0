// SPDX-License-Identifier: GPL-2.0-only
/*
 * HeaderBytes: network-byte-order fields into a plain byte array, for the headers every
 * packet writes (FastFrameHeader, MlnetTransportHeader): the header then goes into the
 * ns-3 Buffer in one Buffer::Iterator::Write (one zero-area check and a memcpy) instead
 * of one WriteHtonU32 per field, each of which calls the out-of-line
 * Buffer::Iterator::CheckNoZero under NS3_ASSERT_ENABLE. Reading stays field by field:
 * Buffer's inline ReadNtohU32 has no such check, and its one-call Read(uint8_t*, size)
 * is a loop of ReadU8 in ns-3 3.37 (measured slower). Nothing else: no other orders.
 */
#ifndef MLNET_HEADER_BYTES_H
#define MLNET_HEADER_BYTES_H

#include <cstdint>

namespace ns3
{

/**
 * \brief Big-endian (network order) integers into a byte array.
 */
struct HeaderBytes
{
    /// \brief Write v at b[0..1].
    static void PutU16(uint8_t* b, uint16_t v)
    {
        b[0] = static_cast<uint8_t>(v >> 8);
        b[1] = static_cast<uint8_t>(v);
    }

    /// \brief Write v at b[0..3].
    static void PutU32(uint8_t* b, uint32_t v)
    {
        PutU16(b, static_cast<uint16_t>(v >> 16));
        PutU16(b + 2, static_cast<uint16_t>(v));
    }

    /// \brief Write v at b[0..7].
    static void PutU64(uint8_t* b, uint64_t v)
    {
        PutU32(b, static_cast<uint32_t>(v >> 32));
        PutU32(b + 4, static_cast<uint32_t>(v));
    }
};

} // namespace ns3

#endif // MLNET_HEADER_BYTES_H
