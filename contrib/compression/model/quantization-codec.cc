// SPDX-License-Identifier: GPL-2.0-only
#include "quantization-codec.h"

#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/ring-all-gather.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionQuantizationCodec");
NS_OBJECT_ENSURE_REGISTERED(QuantizationCodec);

TypeId
QuantizationCodec::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QuantizationCodec")
                            .SetParent<GradientCodec>()
                            .SetGroupName("Compression")
                            .AddConstructor<QuantizationCodec>()
                            .AddAttribute("Bits",
                                          "Bits per coordinate of the quantized input (2, 4 or 8).",
                                          UintegerValue(4),
                                          MakeUintegerAccessor(&QuantizationCodec::m_bits),
                                          MakeUintegerChecker<uint32_t>())
                            .AddAttribute("Stream",
                                          "ns-3 random-variable stream of the stochastic rounding.",
                                          IntegerValue(700),
                                          MakeIntegerAccessor(&QuantizationCodec::m_stream),
                                          MakeIntegerChecker<int64_t>(0));
    return tid;
}

QuantizationCodec::QuantizationCodec() = default;
QuantizationCodec::~QuantizationCodec() = default;

void
QuantizationCodec::DoDispose()
{
    m_rng = nullptr;
    m_grads.clear();
    m_q.clear();
    m_sums.clear();
    GradientCodec::DoDispose();
}

void
QuantizationCodec::Configure(uint64_t coordinates, uint32_t workers)
{
    if (m_bits != 2 && m_bits != 4 && m_bits != 8)
    {
        throw std::invalid_argument("quantization bits must be 2, 4 or 8, got " +
                                    std::to_string(m_bits));
    }
    GradientCodec::Configure(coordinates, workers);
    m_levels = (1u << m_bits) - 1;
    m_lane = PackedRingAllReduce::IntegerLaneFor(static_cast<uint64_t>(workers) * m_levels);
    m_rng = CreateObject<UniformRandomVariable>();
    m_rng->SetStream(m_stream);
    NS_LOG_INFO("quant b=" << m_bits << " on " << workers << " workers: aggregation lanes of "
                           << PackedRingAllReduce::LaneBits(m_lane) << " bits");
}

std::string
QuantizationCodec::GetName() const
{
    return "quant";
}

bool
QuantizationCodec::IsAllReduceCompatible() const
{
    return true;
}

PackedRingAllReduce::LaneFormat
QuantizationCodec::GetLaneFormat() const
{
    return m_lane;
}

Eigen::VectorXf
QuantizationCodec::Quantize(const Eigen::VectorXf& x, double scale)
{
    double step = 2 * scale / m_levels;
    Eigen::VectorXf q(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i)
    {
        double t = (x[i] + scale) / step + m_rng->GetValue();
        q[i] = static_cast<float>(std::clamp(std::floor(t), 0.0, static_cast<double>(m_levels)));
    }
    return q;
}

Eigen::VectorXf
QuantizationCodec::RoundTrip(const Eigen::VectorXf& x)
{
    CheckConfigured();
    double scale = std::max<double>(x.cwiseAbs().maxCoeff(), 1e-30);
    double step = 2 * scale / m_levels;
    Eigen::VectorXf q = Quantize(x, scale);
    return (q.cast<double>().array() * step - scale).cast<float>().matrix();
}

double
QuantizationCodec::GetRoundTripBound(const Eigen::VectorXf& x) const
{
    return 2.0 * std::max<double>(x.cwiseAbs().maxCoeff(), 1e-30) / m_levels;
}

void
QuantizationCodec::Begin(const std::vector<Eigen::VectorXf>& grads)
{
    CheckConfigured();
    NS_ASSERT(grads.size() == m_n);
    m_grads = grads;
    m_q.clear();
}

uint32_t
QuantizationCodec::GetRounds() const
{
    return 2;
}

Ptr<Collective>
QuantizationCodec::MakeRound(uint32_t round,
                             Ptr<MessageTransport> transport,
                             const std::vector<uint32_t>& ranks)
{
    if (round == 0)
    {
        // Shared scale: every worker's max |g|, gathered (one float each).
        Ptr<RingAllGather> ag = CreateObject<RingAllGather>();
        ag->Setup(transport, ranks, 4 * m_n);
        for (uint32_t w = 0; w < m_n; ++w)
        {
            Eigen::VectorXf m(1);
            m[0] = m_grads[w].cwiseAbs().maxCoeff();
            ag->SetInput(w, m);
        }
        return ag;
    }
    NS_ASSERT(round == 1 && m_q.size() == m_n);
    Ptr<PackedRingAllReduce> ar = CreateObject<PackedRingAllReduce>();
    ar->SetLaneFormat(m_lane);
    ar->Setup(transport, ranks, GetRoundBytes()[1]);
    for (uint32_t w = 0; w < m_n; ++w)
    {
        ar->SetInput(w, PackedRingAllReduce::Pack(m_q[w], m_lane));
    }
    return ar;
}

void
QuantizationCodec::EndRound(uint32_t round, Ptr<Collective> collective)
{
    if (round == 0)
    {
        m_scaleOf.assign(m_n, 0);
        m_q.clear();
        for (uint32_t w = 0; w < m_n; ++w)
        {
            m_scaleOf[w] = std::max<double>(collective->GetOutput(w).maxCoeff(), 1e-30);
        }
        for (uint32_t w = 0; w < m_n; ++w)
        {
            m_q.push_back(Quantize(m_grads[w], m_scaleOf[w]));
        }
        return;
    }
    m_sums.clear();
    for (uint32_t w = 0; w < m_n; ++w)
    {
        double scale = m_scaleOf[w];
        double step = 2 * scale / m_levels;
        Eigen::VectorXd sumQ =
            PackedRingAllReduce::Unpack(collective->GetOutput(w), m_lane, m_d).cast<double>();
        m_sums.push_back((sumQ.array() * step - m_n * scale).cast<float>().matrix());
    }
}

Eigen::VectorXf
QuantizationCodec::GetSum(uint32_t worker) const
{
    NS_ASSERT(worker < m_sums.size());
    return m_sums[worker];
}

const Eigen::VectorXf&
QuantizationCodec::GetLevels(uint32_t worker) const
{
    NS_ASSERT(worker < m_q.size());
    return m_q[worker];
}

Eigen::VectorXf
QuantizationCodec::GetDequantized(uint32_t worker) const
{
    NS_ASSERT(worker < m_q.size());
    double step = 2 * m_scaleOf[worker] / m_levels;
    return (m_q[worker].cast<double>().array() * step - m_scaleOf[worker]).cast<float>().matrix();
}

std::vector<uint64_t>
QuantizationCodec::GetRoundBytes() const
{
    uint32_t lanes = PackedRingAllReduce::LanesPerWord(m_lane);
    return {4ull * m_n, 4 * ((m_d + lanes - 1) / lanes)};
}

std::vector<std::string>
QuantizationCodec::GetRoundCollectives() const
{
    return {"allgather", "allreduce"};
}

double
QuantizationCodec::DefaultEncodeBytes() const
{
    return 12;
}

double
QuantizationCodec::DefaultDecodeBytes() const
{
    return 8;
}

} // namespace ns3
