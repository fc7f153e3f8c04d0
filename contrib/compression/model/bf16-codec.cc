// SPDX-License-Identifier: GPL-2.0-only
#include "bf16-codec.h"

#include "ns3/log.h"
#include "ns3/string.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionBf16Codec");
NS_OBJECT_ENSURE_REGISTERED(Bf16Codec);

TypeId
Bf16Codec::GetTypeId()
{
    static TypeId tid = TypeId("ns3::Bf16Codec")
                            .SetParent<GradientCodec>()
                            .SetGroupName("Compression")
                            .AddConstructor<Bf16Codec>()
                            .AddAttribute("Format",
                                          "16-bit format on the wire: bf16 | fp16.",
                                          StringValue("bf16"),
                                          MakeStringAccessor(&Bf16Codec::m_format),
                                          MakeStringChecker());
    return tid;
}

Bf16Codec::Bf16Codec() = default;
Bf16Codec::~Bf16Codec() = default;

void
Bf16Codec::DoDispose()
{
    m_words.clear();
    m_sums.clear();
    GradientCodec::DoDispose();
}

PackedRingAllReduce::LaneFormat
Bf16Codec::Lane() const
{
    if (m_format == "bf16")
    {
        return PackedRingAllReduce::BF16;
    }
    if (m_format == "fp16")
    {
        return PackedRingAllReduce::FP16;
    }
    throw std::invalid_argument("unknown 16-bit format '" + m_format + "': use bf16 or fp16");
}

std::string
Bf16Codec::GetName() const
{
    return m_format;
}

bool
Bf16Codec::IsAllReduceCompatible() const
{
    return true;
}

Eigen::VectorXf
Bf16Codec::RoundTrip(const Eigen::VectorXf& x)
{
    return PackedRingAllReduce::Unpack(PackedRingAllReduce::Pack(x, Lane()), Lane(), x.size());
}

double
Bf16Codec::GetRoundTripBound(const Eigen::VectorXf& x) const
{
    double m = x.size() ? x.cwiseAbs().maxCoeff() : 0.0;
    return Lane() == PackedRingAllReduce::BF16 ? std::ldexp(m, -8)
                                               : std::ldexp(m, -11) + std::ldexp(1.0, -25);
}

void
Bf16Codec::Begin(const std::vector<Eigen::VectorXf>& grads)
{
    CheckConfigured();
    NS_ASSERT(grads.size() == m_n);
    m_words.clear();
    for (const auto& g : grads)
    {
        m_words.push_back(PackedRingAllReduce::Pack(g, Lane()));
    }
}

Ptr<Collective>
Bf16Codec::MakeRound(uint32_t round,
                     Ptr<MessageTransport> transport,
                     const std::vector<uint32_t>& ranks)
{
    NS_ASSERT(round == 0);
    Ptr<PackedRingAllReduce> ar = CreateObject<PackedRingAllReduce>();
    ar->SetLaneFormat(Lane());
    ar->Setup(transport, ranks, GetRoundBytes()[0]);
    for (uint32_t w = 0; w < m_n; ++w)
    {
        ar->SetInput(w, m_words[w]);
    }
    return ar;
}

void
Bf16Codec::EndRound(uint32_t /* round */, Ptr<Collective> collective)
{
    m_sums.clear();
    for (uint32_t w = 0; w < m_n; ++w)
    {
        m_sums.push_back(PackedRingAllReduce::Unpack(collective->GetOutput(w), Lane(), m_d));
    }
}

Eigen::VectorXf
Bf16Codec::GetSum(uint32_t worker) const
{
    NS_ASSERT(worker < m_sums.size());
    return m_sums[worker];
}

std::vector<uint64_t>
Bf16Codec::GetRoundBytes() const
{
    return {4 * ((m_d + 1) / 2)};
}

std::vector<std::string>
Bf16Codec::GetRoundCollectives() const
{
    return {"allreduce"};
}

double
Bf16Codec::DefaultEncodeBytes() const
{
    return 4;
}

double
Bf16Codec::DefaultDecodeBytes() const
{
    return 4;
}

} // namespace ns3
