// SPDX-License-Identifier: GPL-2.0-only
#include "compression-cost-model.h"

#include "ns3/collective-closed-forms.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/top-k-codec.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionCompressionCostModel");
NS_OBJECT_ENSURE_REGISTERED(CompressionCostModel);

TypeId
CompressionCostModel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CompressionCostModel")
                            .SetParent<Object>()
                            .SetGroupName("Compression")
                            .AddConstructor<CompressionCostModel>()
                            .AddAttribute("Alpha",
                                          "Per-step latency of a collective step (s).",
                                          DoubleValue(2e-6),
                                          MakeDoubleAccessor(&CompressionCostModel::m_alpha),
                                          MakeDoubleChecker<double>(0))
                            .AddAttribute("Beta",
                                          "Transfer time per application byte (s/byte).",
                                          DoubleValue(8e-11),
                                          MakeDoubleAccessor(&CompressionCostModel::m_beta),
                                          MakeDoubleChecker<double>(0));
    return tid;
}

CompressionCostModel::CompressionCostModel() = default;
CompressionCostModel::~CompressionCostModel() = default;

void
CompressionCostModel::DoDispose()
{
    Object::DoDispose();
}

void
CompressionCostModel::FromLink(DataRate rate, Time delay, uint32_t maxPayload, uint32_t overhead)
{
    double r = static_cast<double>(rate.GetBitRate());
    m_rate = r;
    m_delay = delay.GetSeconds();
    m_payload = maxPayload;
    m_overhead = overhead;
    m_alpha = 2 * delay.GetSeconds() + (maxPayload + overhead) * 8.0 / r;
    m_beta = 8.0 * (maxPayload + overhead) / (static_cast<double>(maxPayload) * r);
}

double
CompressionCostModel::AlphaFor(double bytes, uint32_t n) const
{
    if (m_rate <= 0)
    {
        return m_alpha;
    }
    double m = std::ceil(bytes / n);
    return 2 * m_delay + (std::min<double>(m, m_payload) + m_overhead) * 8.0 / m_rate;
}

double
CompressionCostModel::GetAlpha() const
{
    return m_alpha;
}

double
CompressionCostModel::GetBeta() const
{
    return m_beta;
}

double
CompressionCostModel::CommunicationTime(Ptr<const GradientCodec> codec) const
{
    std::vector<uint64_t> bytes = codec->GetRoundBytes();
    std::vector<std::string> kinds = codec->GetRoundCollectives();
    uint32_t n = codec->GetWorkers();
    double t = 0;
    for (size_t r = 0; r < bytes.size(); ++r)
    {
        double alpha = AlphaFor(bytes[r], n);
        t += kinds[r] == "allreduce"
                 ? CollectiveClosedForms::RingAllReduceTime(n, bytes[r], alpha, m_beta, 0)
                 : CollectiveClosedForms::RingAllGatherTime(n, bytes[r], alpha, m_beta);
    }
    return t;
}

double
CompressionCostModel::ExchangeTime(Ptr<const GradientCodec> codec) const
{
    double t = codec->GetEncodeTime().GetSeconds() + codec->GetDecodeTime().GetSeconds() +
               CommunicationTime(codec);
    for (uint32_t r = 0; r + 1 < codec->GetRounds(); ++r)
    {
        t += codec->GetRoundGap(r).GetSeconds();
    }
    return t;
}

double
CompressionCostModel::TopKBreakEvenDensityBeta(uint32_t n, uint32_t valueBits, uint32_t indexBits)
{
    return 32.0 / (n * static_cast<double>(valueBits + indexBits));
}

double
CompressionCostModel::TopKBreakEvenDensity(Ptr<const GradientCodec> topk,
                                           Ptr<const GradientCodec> baseline) const
{
    Ptr<const TopKCodec> t = DynamicCast<const TopKCodec>(topk);
    NS_ASSERT_MSG(t, "not a TopKCodec");
    uint32_t n = t->GetWorkers();
    double d = static_cast<double>(t->GetCoordinates());
    double bitsPerEntry = 16.0 + t->GetIndexBits();
    double codecTopK = t->GetEncodeTime().GetSeconds() + t->GetDecodeTime().GetSeconds();
    // Baseline exchange time minus TopK's density-independent terms, over TopK's
    // time per unit density: all-gather of N k entries, each member receives N-1 chunks.
    // (the all-gather's alpha taken with full first frames: large messages at the crossing)
    double fixed = ExchangeTime(baseline) - codecTopK - (n - 1) * AlphaFor(1e18, 1);
    double perDensity = (n - 1) * d * bitsPerEntry / 8.0 * m_beta;
    return fixed / perDensity;
}

double
CompressionCostModel::QuantBreakEvenRatio(uint32_t n,
                                          uint32_t laneBits,
                                          double extraMemoryBytesPerCoordinate)
{
    double saved = 2.0 * (n - 1) / n * (16.0 - laneBits) / 8.0;
    if (saved <= 0)
    {
        return std::numeric_limits<double>::infinity();
    }
    return extraMemoryBytesPerCoordinate / saved;
}

} // namespace ns3
