// SPDX-License-Identifier: GPL-2.0-only
#include "packed-ring-all-reduce.h"

#include "ns3/log.h"

#include <Eigen/Core>
#include <cmath>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionPackedRingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(PackedRingAllReduce);

TypeId
PackedRingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PackedRingAllReduce")
                            .SetParent<RingAllReduce>()
                            .SetGroupName("Compression")
                            .AddConstructor<PackedRingAllReduce>();
    return tid;
}

PackedRingAllReduce::PackedRingAllReduce() = default;
PackedRingAllReduce::~PackedRingAllReduce() = default;

void
PackedRingAllReduce::SetLaneFormat(LaneFormat format)
{
    m_format = format;
}

PackedRingAllReduce::LaneFormat
PackedRingAllReduce::GetLaneFormat() const
{
    return m_format;
}

uint32_t
PackedRingAllReduce::LaneBits(LaneFormat format)
{
    switch (format)
    {
    case BF16:
    case FP16:
    case UINT16:
        return 16;
    case UINT4:
        return 4;
    case UINT8:
        return 8;
    case UINT32:
        return 32;
    }
    return 32;
}

uint32_t
PackedRingAllReduce::LanesPerWord(LaneFormat format)
{
    return 32 / LaneBits(format);
}

PackedRingAllReduce::LaneFormat
PackedRingAllReduce::IntegerLaneFor(uint64_t maxValue)
{
    if (maxValue < (1u << 4))
    {
        return UINT4;
    }
    if (maxValue < (1u << 8))
    {
        return UINT8;
    }
    if (maxValue < (1u << 16))
    {
        return UINT16;
    }
    NS_ASSERT_MSG(maxValue <= 0xffffffffull, "integer sum does not fit 32 bits");
    return UINT32;
}

uint32_t
PackedRingAllReduce::Bits(float word)
{
    uint32_t b;
    std::memcpy(&b, &word, 4);
    return b;
}

float
PackedRingAllReduce::FromBits(uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

namespace
{

uint32_t
EncodeLane(float v, PackedRingAllReduce::LaneFormat format)
{
    switch (format)
    {
    case PackedRingAllReduce::BF16:
        return Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(v));
    case PackedRingAllReduce::FP16:
        return Eigen::numext::bit_cast<uint16_t>(Eigen::half(v));
    default:
        NS_ASSERT_MSG(v >= 0 && v == std::floor(v), "integer lane value " << v);
        return static_cast<uint32_t>(v);
    }
}

float
DecodeLane(uint32_t bits, PackedRingAllReduce::LaneFormat format)
{
    switch (format)
    {
    case PackedRingAllReduce::BF16:
        return static_cast<float>(
            Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<uint16_t>(bits)));
    case PackedRingAllReduce::FP16:
        return static_cast<float>(
            Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(bits)));
    default:
        return static_cast<float>(bits);
    }
}

} // namespace

Eigen::VectorXf
PackedRingAllReduce::Pack(const Eigen::VectorXf& values, LaneFormat format)
{
    uint32_t lanes = LanesPerWord(format);
    uint32_t bits = LaneBits(format);
    uint32_t mask = bits == 32 ? 0xffffffffu : ((1u << bits) - 1);
    Eigen::Index words = (values.size() + lanes - 1) / lanes;
    Eigen::VectorXf out(words);
    for (Eigen::Index w = 0; w < words; ++w)
    {
        uint32_t word = 0;
        for (uint32_t l = 0; l < lanes; ++l)
        {
            Eigen::Index i = w * lanes + l;
            if (i < values.size())
            {
                uint32_t lane = EncodeLane(values[i], format);
                NS_ASSERT_MSG((lane & ~mask) == 0, "value " << values[i] << " overflows its lane");
                word |= (lane & mask) << (l * bits);
            }
        }
        out[w] = FromBits(word);
    }
    return out;
}

Eigen::VectorXf
PackedRingAllReduce::Unpack(const Eigen::VectorXf& words, LaneFormat format, uint64_t count)
{
    uint32_t lanes = LanesPerWord(format);
    uint32_t bits = LaneBits(format);
    uint32_t mask = bits == 32 ? 0xffffffffu : ((1u << bits) - 1);
    NS_ASSERT(count <= static_cast<uint64_t>(words.size()) * lanes);
    Eigen::VectorXf out(count);
    for (uint64_t i = 0; i < count; ++i)
    {
        uint32_t word = Bits(words[i / lanes]);
        out[i] = DecodeLane((word >> ((i % lanes) * bits)) & mask, format);
    }
    return out;
}

void
PackedRingAllReduce::ReduceSegment(Eigen::Ref<Eigen::VectorXf> dst, const float* src) const
{
    uint32_t lanes = LanesPerWord(m_format);
    uint32_t bits = LaneBits(m_format);
    uint32_t mask = bits == 32 ? 0xffffffffu : ((1u << bits) - 1);
    bool isFloat = m_format == BF16 || m_format == FP16;
    for (Eigen::Index w = 0; w < dst.size(); ++w)
    {
        uint32_t a = Bits(dst[w]);
        uint32_t b;
        std::memcpy(&b, src + w, 4);
        uint32_t out = 0;
        for (uint32_t l = 0; l < lanes; ++l)
        {
            uint32_t la = (a >> (l * bits)) & mask;
            uint32_t lb = (b >> (l * bits)) & mask;
            uint32_t sum;
            if (isFloat)
            {
                sum = EncodeLane(DecodeLane(la, m_format) + DecodeLane(lb, m_format), m_format);
            }
            else
            {
                uint64_t s = static_cast<uint64_t>(la) + lb;
                NS_ASSERT_MSG(s <= mask, "integer lane overflow: choose a wider lane");
                sum = static_cast<uint32_t>(s);
            }
            out |= (sum & mask) << (l * bits);
        }
        dst[w] = FromBits(out);
    }
}

std::string
PackedRingAllReduce::GetAlgorithmName() const
{
    static const char* names[] =
        {"ring-bf16", "ring-fp16", "ring-u4", "ring-u8", "ring-u16", "ring-u32"};
    return names[m_format];
}

} // namespace ns3
