// SPDX-License-Identifier: GPL-2.0-only
#include "gradient-codec.h"

#include "ns3/double.h"
#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionGradientCodec");
NS_OBJECT_ENSURE_REGISTERED(GradientCodec);

TypeId
GradientCodec::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GradientCodec")
            .SetParent<Object>()
            .SetGroupName("Compression")
            .AddAttribute("DeviceMemoryBandwidth",
                          "Device (GPU HBM) memory bandwidth the codec's traffic runs at "
                          "(bytes/s; default 768e9, an RTX A6000).",
                          DoubleValue(768e9),
                          MakeDoubleAccessor(&GradientCodec::m_memoryBandwidth),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("EncodeBytesPerCoordinate",
                          "Extra device-memory traffic of encoding (bytes per coordinate); "
                          "negative: the scheme's default (see doc/compression.md).",
                          DoubleValue(-1),
                          MakeDoubleAccessor(&GradientCodec::m_encodeBytes),
                          MakeDoubleChecker<double>())
            .AddAttribute("DecodeBytesPerCoordinate",
                          "Extra device-memory traffic of decoding (bytes per coordinate); "
                          "negative: the scheme's default.",
                          DoubleValue(-1),
                          MakeDoubleAccessor(&GradientCodec::m_decodeBytes),
                          MakeDoubleChecker<double>());
    return tid;
}

GradientCodec::GradientCodec() = default;
GradientCodec::~GradientCodec() = default;

void
GradientCodec::DoDispose()
{
    Object::DoDispose();
}

void
GradientCodec::Configure(uint64_t coordinates, uint32_t workers)
{
    if (coordinates == 0)
    {
        throw std::invalid_argument("a gradient codec needs at least one coordinate");
    }
    if (workers < 2)
    {
        throw std::invalid_argument("a gradient codec needs at least 2 workers");
    }
    m_d = coordinates;
    m_n = workers;
}

uint64_t
GradientCodec::GetCoordinates() const
{
    return m_d;
}

uint32_t
GradientCodec::GetWorkers() const
{
    return m_n;
}

void
GradientCodec::CheckConfigured() const
{
    NS_ASSERT_MSG(m_d > 0 && m_n >= 2, "call Configure first");
}

uint32_t
GradientCodec::GetRounds() const
{
    return 1;
}

Time
GradientCodec::GetRoundGap(uint32_t /* round */) const
{
    return Time(0);
}

double
GradientCodec::GetEncodeBytesPerCoordinate() const
{
    return m_encodeBytes < 0 ? DefaultEncodeBytes() : m_encodeBytes;
}

double
GradientCodec::GetDecodeBytesPerCoordinate() const
{
    return m_decodeBytes < 0 ? DefaultDecodeBytes() : m_decodeBytes;
}

double
GradientCodec::GetDeviceMemoryBandwidth() const
{
    return m_memoryBandwidth;
}

Time
GradientCodec::GetEncodeTime() const
{
    return Seconds(m_d * GetEncodeBytesPerCoordinate() / m_memoryBandwidth);
}

Time
GradientCodec::GetDecodeTime() const
{
    return Seconds(m_d * GetDecodeBytesPerCoordinate() / m_memoryBandwidth);
}

uint64_t
GradientCodec::GetBytesOnWire() const
{
    std::vector<uint64_t> bytes = GetRoundBytes();
    std::vector<std::string> kinds = GetRoundCollectives();
    NS_ASSERT(bytes.size() == kinds.size());
    uint64_t total = 0;
    for (size_t r = 0; r < bytes.size(); ++r)
    {
        uint64_t factor = kinds[r] == "allreduce" ? 2 * (m_n - 1) : (m_n - 1);
        total += factor * bytes[r];
    }
    return total;
}

} // namespace ns3
