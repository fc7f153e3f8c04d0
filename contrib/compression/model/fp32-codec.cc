// SPDX-License-Identifier: GPL-2.0-only
#include "fp32-codec.h"

#include "ns3/log.h"
#include "ns3/ring-all-reduce.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionFp32Codec");
NS_OBJECT_ENSURE_REGISTERED(Fp32Codec);

TypeId
Fp32Codec::GetTypeId()
{
    static TypeId tid = TypeId("ns3::Fp32Codec")
                            .SetParent<GradientCodec>()
                            .SetGroupName("Compression")
                            .AddConstructor<Fp32Codec>();
    return tid;
}

Fp32Codec::Fp32Codec() = default;
Fp32Codec::~Fp32Codec() = default;

void
Fp32Codec::DoDispose()
{
    m_grads.clear();
    m_sums.clear();
    GradientCodec::DoDispose();
}

std::string
Fp32Codec::GetName() const
{
    return "fp32";
}

bool
Fp32Codec::IsAllReduceCompatible() const
{
    return true;
}

Eigen::VectorXf
Fp32Codec::RoundTrip(const Eigen::VectorXf& x)
{
    return x;
}

double
Fp32Codec::GetRoundTripBound(const Eigen::VectorXf& /* x */) const
{
    return 0;
}

void
Fp32Codec::Begin(const std::vector<Eigen::VectorXf>& grads)
{
    CheckConfigured();
    NS_ASSERT(grads.size() == m_n);
    m_grads = grads;
}

Ptr<Collective>
Fp32Codec::MakeRound(uint32_t round,
                     Ptr<MessageTransport> transport,
                     const std::vector<uint32_t>& ranks)
{
    NS_ASSERT(round == 0);
    Ptr<RingAllReduce> ar = CreateObject<RingAllReduce>();
    ar->Setup(transport, ranks, 4 * m_d);
    for (uint32_t w = 0; w < m_n; ++w)
    {
        ar->SetInput(w, m_grads[w]);
    }
    return ar;
}

void
Fp32Codec::EndRound(uint32_t /* round */, Ptr<Collective> collective)
{
    m_sums.assign(m_n, Eigen::VectorXf());
    for (uint32_t w = 0; w < m_n; ++w)
    {
        m_sums[w] = collective->GetOutput(w);
    }
}

Eigen::VectorXf
Fp32Codec::GetSum(uint32_t worker) const
{
    NS_ASSERT(worker < m_sums.size());
    return m_sums[worker];
}

std::vector<uint64_t>
Fp32Codec::GetRoundBytes() const
{
    return {4 * m_d};
}

std::vector<std::string>
Fp32Codec::GetRoundCollectives() const
{
    return {"allreduce"};
}

double
Fp32Codec::DefaultEncodeBytes() const
{
    return 0;
}

double
Fp32Codec::DefaultDecodeBytes() const
{
    return 0;
}

} // namespace ns3
