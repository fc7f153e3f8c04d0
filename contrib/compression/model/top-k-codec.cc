// SPDX-License-Identifier: GPL-2.0-only
#include "top-k-codec.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/ring-all-gather.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionTopKCodec");
NS_OBJECT_ENSURE_REGISTERED(TopKCodec);

TypeId
TopKCodec::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TopKCodec")
            .SetParent<GradientCodec>()
            .SetGroupName("Compression")
            .AddConstructor<TopKCodec>()
            .AddAttribute("Density",
                          "Fraction of coordinates sent, k = ceil(Density d) (0 < Density <= 1).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&TopKCodec::m_density),
                          MakeDoubleChecker<double>())
            .AddAttribute("ErrorFeedback",
                          "Carry what was not sent over to the next iteration.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TopKCodec::m_feedback),
                          MakeBooleanChecker());
    return tid;
}

TopKCodec::TopKCodec() = default;
TopKCodec::~TopKCodec() = default;

void
TopKCodec::DoDispose()
{
    m_residual.clear();
    m_selected.clear();
    m_received.clear();
    m_sums.clear();
    GradientCodec::DoDispose();
}

void
TopKCodec::Configure(uint64_t coordinates, uint32_t workers)
{
    if (!(m_density > 0 && m_density <= 1))
    {
        throw std::invalid_argument("TopK density must be in (0, 1], got " +
                                    std::to_string(m_density));
    }
    GradientCodec::Configure(coordinates, workers);
    m_k = std::max<uint64_t>(
        1,
        std::min<uint64_t>(coordinates,
                           static_cast<uint64_t>(std::ceil(m_density * coordinates - 1e-9))));
    m_residual.assign(workers, Eigen::VectorXf::Zero(coordinates));
    NS_LOG_INFO("topk k=" << m_k << " of " << coordinates
                          << ": not all-reduce compatible, exchanged by ring all-gather");
}

std::string
TopKCodec::GetName() const
{
    return "topk";
}

bool
TopKCodec::IsAllReduceCompatible() const
{
    return false;
}

uint64_t
TopKCodec::GetK() const
{
    return m_k;
}

uint32_t
TopKCodec::GetIndexBits() const
{
    return m_d <= 65536 ? 16 : 32;
}

std::vector<TopKCodec::Entry>
TopKCodec::Select(const Eigen::VectorXf& v) const
{
    std::vector<uint32_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    auto before = [&v](uint32_t a, uint32_t b) {
        float fa = std::abs(v[a]);
        float fb = std::abs(v[b]);
        return fa != fb ? fa > fb : a < b;
    };
    std::nth_element(idx.begin(), idx.begin() + (m_k - 1), idx.end(), before);
    idx.resize(m_k);
    std::sort(idx.begin(), idx.end());
    std::vector<Entry> out;
    out.reserve(m_k);
    for (uint32_t i : idx)
    {
        out.emplace_back(i, static_cast<float>(Eigen::bfloat16(v[i])));
    }
    return out;
}

Eigen::VectorXf
TopKCodec::Encode(const std::vector<Entry>& entries) const
{
    uint32_t ib = GetIndexBits() / 8;
    uint32_t per = 2 + ib;
    uint64_t words = (m_k * per + 3) / 4;
    std::vector<uint8_t> bytes(words * 4, 0);
    NS_ASSERT(entries.size() == m_k);
    for (uint64_t e = 0; e < m_k; ++e)
    {
        uint16_t v = Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(entries[e].second));
        uint32_t i = entries[e].first;
        std::memcpy(&bytes[e * per], &v, 2);
        std::memcpy(&bytes[e * per + 2], &i, ib); // little-endian low bytes
    }
    Eigen::VectorXf chunk(words);
    std::memcpy(chunk.data(), bytes.data(), bytes.size());
    return chunk;
}

std::vector<TopKCodec::Entry>
TopKCodec::Decode(const Eigen::VectorXf& chunk) const
{
    uint32_t ib = GetIndexBits() / 8;
    uint32_t per = 2 + ib;
    std::vector<uint8_t> bytes(chunk.size() * 4);
    std::memcpy(bytes.data(), chunk.data(), bytes.size());
    std::vector<Entry> out;
    for (uint64_t e = 0; e < m_k; ++e)
    {
        uint16_t v;
        uint32_t i = 0;
        std::memcpy(&v, &bytes[e * per], 2);
        std::memcpy(&i, &bytes[e * per + 2], ib);
        out.emplace_back(i, static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(v)));
    }
    return out;
}

Eigen::VectorXf
TopKCodec::RoundTrip(const Eigen::VectorXf& x)
{
    CheckConfigured();
    Eigen::VectorXf out = Eigen::VectorXf::Zero(x.size());
    for (const auto& e : Decode(Encode(Select(x))))
    {
        out[e.first] = e.second;
    }
    return out;
}

double
TopKCodec::GetRoundTripBound(const Eigen::VectorXf& x) const
{
    std::vector<float> a(x.data(), x.data() + x.size());
    for (auto& v : a)
    {
        v = std::abs(v);
    }
    std::sort(a.begin(), a.end(), std::greater<float>());
    double dropped = m_k < a.size() ? a[m_k] : 0.0;
    return std::max(dropped, std::ldexp(static_cast<double>(a.empty() ? 0 : a[0]), -8));
}

void
TopKCodec::Begin(const std::vector<Eigen::VectorXf>& grads)
{
    CheckConfigured();
    NS_ASSERT(grads.size() == m_n);
    m_selected.clear();
    for (uint32_t w = 0; w < m_n; ++w)
    {
        Eigen::VectorXf v = m_feedback ? Eigen::VectorXf(m_residual[w] + grads[w]) : grads[w];
        m_selected.push_back(Select(v));
        if (m_feedback)
        {
            for (const auto& e : m_selected.back())
            {
                v[e.first] -= e.second;
            }
            m_residual[w] = v;
        }
    }
}

Ptr<Collective>
TopKCodec::MakeRound(uint32_t round,
                     Ptr<MessageTransport> transport,
                     const std::vector<uint32_t>& ranks)
{
    NS_ASSERT(round == 0);
    Ptr<RingAllGather> ag = CreateObject<RingAllGather>();
    ag->Setup(transport, ranks, GetRoundBytes()[0]);
    for (uint32_t w = 0; w < m_n; ++w)
    {
        ag->SetInput(w, Encode(m_selected[w]));
    }
    return ag;
}

void
TopKCodec::EndRound(uint32_t /* round */, Ptr<Collective> collective)
{
    uint64_t words = GetRoundBytes()[0] / 4 / m_n;
    m_sums.clear();
    m_received.assign(m_n, {});
    for (uint32_t r = 0; r < m_n; ++r)
    {
        const Eigen::VectorXf& all = collective->GetOutput(r);
        NS_ASSERT(static_cast<uint64_t>(all.size()) == words * m_n);
        Eigen::VectorXf sum = Eigen::VectorXf::Zero(m_d);
        for (uint32_t s = 0; s < m_n; ++s)
        {
            m_received[r].push_back(Decode(all.segment(s * words, words)));
            for (const auto& e : m_received[r].back())
            {
                NS_ASSERT(e.first < m_d);
                sum[e.first] += e.second;
            }
        }
        m_sums.push_back(sum);
    }
}

Eigen::VectorXf
TopKCodec::GetSum(uint32_t worker) const
{
    NS_ASSERT(worker < m_sums.size());
    return m_sums[worker];
}

const std::vector<TopKCodec::Entry>&
TopKCodec::GetSelected(uint32_t worker) const
{
    NS_ASSERT(worker < m_selected.size());
    return m_selected[worker];
}

const std::vector<TopKCodec::Entry>&
TopKCodec::GetReceived(uint32_t receiver, uint32_t sender) const
{
    NS_ASSERT(receiver < m_received.size() && sender < m_received[receiver].size());
    return m_received[receiver][sender];
}

std::vector<uint64_t>
TopKCodec::GetRoundBytes() const
{
    uint64_t per = 2 + GetIndexBits() / 8;
    return {m_n * 4 * ((m_k * per + 3) / 4)};
}

std::vector<std::string>
TopKCodec::GetRoundCollectives() const
{
    return {"allgather"};
}

double
TopKCodec::DefaultEncodeBytes() const
{
    return 16;
}

double
TopKCodec::DefaultDecodeBytes() const
{
    return 8;
}

} // namespace ns3
