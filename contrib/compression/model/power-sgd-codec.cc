// SPDX-License-Identifier: GPL-2.0-only
#include "power-sgd-codec.h"

#include "ns3/boolean.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/uinteger.h"

#include <Eigen/QR>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionPowerSgdCodec");
NS_OBJECT_ENSURE_REGISTERED(PowerSgdCodec);

TypeId
PowerSgdCodec::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PowerSgdCodec")
            .SetParent<GradientCodec>()
            .SetGroupName("Compression")
            .AddConstructor<PowerSgdCodec>()
            .AddAttribute("Rank",
                          "Rank r of the approximation (1 <= r <= min(rows, columns)).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&PowerSgdCodec::m_rank),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Rows",
                          "Rows a of the matrix view of the gradient (0: ceil(sqrt(d))).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PowerSgdCodec::m_rows),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ErrorFeedback",
                          "Carry the approximation error over to the next iteration.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PowerSgdCodec::m_feedback),
                          MakeBooleanChecker())
            .AddAttribute("Stream",
                          "ns-3 random-variable stream of the initial Q (shared by workers).",
                          IntegerValue(800),
                          MakeIntegerAccessor(&PowerSgdCodec::m_stream),
                          MakeIntegerChecker<int64_t>(0));
    return tid;
}

PowerSgdCodec::PowerSgdCodec() = default;
PowerSgdCodec::~PowerSgdCodec() = default;

void
PowerSgdCodec::DoDispose()
{
    m_residual.clear();
    m_m.clear();
    m_phat.clear();
    m_sums.clear();
    GradientCodec::DoDispose();
}

void
PowerSgdCodec::Configure(uint64_t coordinates, uint32_t workers)
{
    uint64_t a = m_rows ? m_rows : static_cast<uint64_t>(std::ceil(std::sqrt(coordinates)));
    if (a > coordinates)
    {
        throw std::invalid_argument("PowerSGD Rows (" + std::to_string(a) +
                                    ") exceeds the number of coordinates (" +
                                    std::to_string(coordinates) + ")");
    }
    uint64_t c = (coordinates + a - 1) / a;
    if (m_rank < 1 || m_rank > std::min(a, c))
    {
        throw std::invalid_argument("PowerSGD rank " + std::to_string(m_rank) +
                                    " is larger than the gradient matrix allows (" +
                                    std::to_string(a) + " x " + std::to_string(c) +
                                    ": rank must be in [1, " + std::to_string(std::min(a, c)) +
                                    "]); lower --rank or use a larger model");
    }
    GradientCodec::Configure(coordinates, workers);
    m_a = a;
    m_c = c;
    Ptr<NormalRandomVariable> rng = CreateObject<NormalRandomVariable>();
    rng->SetStream(m_stream);
    m_q.resize(m_c, m_rank);
    for (Eigen::Index j = 0; j < m_q.cols(); ++j)
    {
        for (Eigen::Index i = 0; i < m_q.rows(); ++i)
        {
            m_q(i, j) = static_cast<float>(rng->GetValue());
        }
    }
    m_residual.assign(workers, Eigen::MatrixXf::Zero(m_a, m_c));
}

std::string
PowerSgdCodec::GetName() const
{
    return "powersgd";
}

bool
PowerSgdCodec::IsAllReduceCompatible() const
{
    return true;
}

uint64_t
PowerSgdCodec::GetRowCount() const
{
    return m_a;
}

uint64_t
PowerSgdCodec::GetColumnCount() const
{
    return m_c;
}

Eigen::MatrixXf
PowerSgdCodec::ToMatrix(const Eigen::VectorXf& v) const
{
    Eigen::VectorXf padded = Eigen::VectorXf::Zero(m_a * m_c);
    padded.head(v.size()) = v;
    return Eigen::Map<Eigen::MatrixXf>(padded.data(), m_a, m_c);
}

Eigen::VectorXf
PowerSgdCodec::ToVector(const Eigen::MatrixXf& m) const
{
    return Eigen::Map<const Eigen::VectorXf>(m.data(), m_a * m_c).head(m_d);
}

Eigen::MatrixXf
PowerSgdCodec::Orthonormalize(const Eigen::MatrixXf& p) const
{
    Eigen::HouseholderQR<Eigen::MatrixXf> qr(p);
    return qr.householderQ() * Eigen::MatrixXf::Identity(p.rows(), p.cols());
}

Eigen::VectorXf
PowerSgdCodec::RoundTrip(const Eigen::VectorXf& x)
{
    CheckConfigured();
    Eigen::MatrixXf m = ToMatrix(x);
    Eigen::MatrixXf phat = Orthonormalize(m * m_q);
    return ToVector(phat * (m.transpose() * phat).transpose());
}

double
PowerSgdCodec::GetRoundTripBound(const Eigen::VectorXf& x) const
{
    double f = x.norm();
    return m_rank == std::min(m_a, m_c) ? 1e-4 * f + 1e-30 : f * (1 + 1e-5) + 1e-30;
}

void
PowerSgdCodec::Begin(const std::vector<Eigen::VectorXf>& grads)
{
    CheckConfigured();
    NS_ASSERT(grads.size() == m_n);
    m_m.clear();
    for (uint32_t w = 0; w < m_n; ++w)
    {
        Eigen::MatrixXf m = ToMatrix(grads[w]);
        if (m_feedback)
        {
            m += m_residual[w];
        }
        m_m.push_back(std::move(m));
    }
}

uint32_t
PowerSgdCodec::GetRounds() const
{
    return 2;
}

Ptr<Collective>
PowerSgdCodec::MakeRound(uint32_t round,
                         Ptr<MessageTransport> transport,
                         const std::vector<uint32_t>& ranks)
{
    Ptr<RingAllReduce> ar = CreateObject<RingAllReduce>();
    ar->Setup(transport, ranks, GetRoundBytes()[round]);
    for (uint32_t w = 0; w < m_n; ++w)
    {
        Eigen::MatrixXf part = round == 0 ? Eigen::MatrixXf(m_m[w] * m_q)
                                          : Eigen::MatrixXf(m_m[w].transpose() * m_phat[w]);
        ar->SetInput(w, Eigen::Map<const Eigen::VectorXf>(part.data(), part.size()));
    }
    return ar;
}

void
PowerSgdCodec::EndRound(uint32_t round, Ptr<Collective> collective)
{
    if (round == 0)
    {
        m_phat.clear();
        for (uint32_t w = 0; w < m_n; ++w)
        {
            Eigen::VectorXf p = collective->GetOutput(w);
            m_phat.push_back(Orthonormalize(Eigen::Map<Eigen::MatrixXf>(p.data(), m_a, m_rank)));
        }
        return;
    }
    m_sums.clear();
    for (uint32_t w = 0; w < m_n; ++w)
    {
        Eigen::VectorXf q = collective->GetOutput(w);
        Eigen::Map<Eigen::MatrixXf> qsum(q.data(), m_c, m_rank);
        m_sums.push_back(ToVector(m_phat[w] * qsum.transpose()));
        if (m_feedback)
        {
            m_residual[w] = m_m[w] - m_phat[w] * (m_m[w].transpose() * m_phat[w]).transpose();
        }
        if (w == 0)
        {
            m_q = qsum; // warm start: every worker holds the same reduced Q
        }
    }
}

Eigen::VectorXf
PowerSgdCodec::GetSum(uint32_t worker) const
{
    NS_ASSERT(worker < m_sums.size());
    return m_sums[worker];
}

Time
PowerSgdCodec::GetRoundGap(uint32_t round) const
{
    return round == 0 ? Seconds(4.0 * m_d / GetDeviceMemoryBandwidth()) : Time(0);
}

std::vector<uint64_t>
PowerSgdCodec::GetRoundBytes() const
{
    return {4 * m_a * m_rank, 4 * m_c * m_rank};
}

std::vector<std::string>
PowerSgdCodec::GetRoundCollectives() const
{
    return {"allreduce", "allreduce"};
}

double
PowerSgdCodec::DefaultEncodeBytes() const
{
    return 16;
}

double
PowerSgdCodec::DefaultDecodeBytes() const
{
    return 12;
}

} // namespace ns3
