// SPDX-License-Identifier: GPL-2.0-only
#include "compressed-exchange.h"

#include "ns3/log.h"
#include "ns3/ring-all-gather.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionCompressedExchange");
NS_OBJECT_ENSURE_REGISTERED(CompressedExchange);

TypeId
CompressedExchange::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CompressedExchange")
            .SetParent<Collective>()
            .SetGroupName("Compression")
            .AddConstructor<CompressedExchange>()
            .AddTraceSource("Exchange",
                            "An exchange finished: encode, communication, gaps, decode times, "
                            "bytes on the wire and the algorithm of every round.",
                            MakeTraceSourceAccessor(&CompressedExchange::m_exchangeTrace),
                            "ns3::CompressedExchange::ExchangeTracedCallback");
    return tid;
}

CompressedExchange::CompressedExchange() = default;
CompressedExchange::~CompressedExchange() = default;

void
CompressedExchange::DoDispose()
{
    if (m_round)
    {
        m_round->Dispose();
        m_round = nullptr;
    }
    m_codec = nullptr;
    Collective::DoDispose();
}

void
CompressedExchange::SetCodec(Ptr<GradientCodec> codec, const std::vector<Eigen::VectorXf>& grads)
{
    NS_ASSERT_MSG(m_transport, "Setup first");
    NS_ASSERT_MSG(codec && codec->GetWorkers() == m_ranks.size(), "codec not configured");
    m_codec = codec;
    m_codec->Begin(grads);
    m_record = CompressedExchangeRecord();
    m_record.scheme = codec->GetName();
}

const CompressedExchangeRecord&
CompressedExchange::GetExchangeRecord() const
{
    return m_record;
}

std::string
CompressedExchange::GetCollectiveName() const
{
    return "compressed";
}

std::string
CompressedExchange::GetAlgorithmName() const
{
    return m_codec ? m_codec->GetName() : "none";
}

std::vector<CollectiveStep>
CompressedExchange::GetSchedule() const
{
    std::vector<CollectiveStep> out;
    if (!m_codec)
    {
        return out;
    }
    std::vector<uint64_t> bytes = m_codec->GetRoundBytes();
    std::vector<std::string> kinds = m_codec->GetRoundCollectives();
    for (size_t r = 0; r < bytes.size(); ++r)
    {
        Ptr<Collective> c;
        if (kinds[r] == "allreduce")
        {
            c = CreateObject<RingAllReduce>();
        }
        else
        {
            c = CreateObject<RingAllGather>();
        }
        c->Setup(m_transport, m_ranks, bytes[r]);
        for (auto& s : c->GetSchedule())
        {
            out.push_back(s);
        }
        c->Dispose();
    }
    return out;
}

void
CompressedExchange::DoStart()
{
    NS_ASSERT_MSG(m_codec, "SetCodec before Start");
    m_record.encode = m_codec->GetEncodeTime();
    m_record.decode = m_codec->GetDecodeTime();
    Simulator::Schedule(m_record.encode, &CompressedExchange::StartRound, this, 0);
}

void
CompressedExchange::HandleMessage(const Message& /* msg */)
{
    NS_ASSERT_MSG(false, "CompressedExchange sends nothing itself");
}

void
CompressedExchange::StartRound(uint32_t round)
{
    if (m_round)
    {
        m_round->Dispose();
    }
    m_round = m_codec->MakeRound(round, m_transport, m_ranks);
    NS_LOG_INFO(m_codec->GetName()
                << " round " << round << ": " << m_round->GetCollectiveName() << " ("
                << m_round->GetAlgorithmName() << "), " << m_round->GetRecord().bytes << " bytes");
    m_round->SetDoneCallback(MakeCallback(&CompressedExchange::RoundDone, this).Bind(round));
    m_round->Start();
}

void
CompressedExchange::RoundDone(uint32_t round, Ptr<Collective> c)
{
    m_codec->EndRound(round, c);
    m_record.communication += c->GetDuration();
    m_record.algorithms.push_back(c->GetCollectiveName() + "/" + c->GetAlgorithmName());
    if (round + 1 < m_codec->GetRounds())
    {
        Time gap = m_codec->GetRoundGap(round);
        m_record.gaps += gap;
        Simulator::Schedule(gap, &CompressedExchange::StartRound, this, round + 1);
        return;
    }
    Simulator::Schedule(m_record.decode, &CompressedExchange::Finish, this);
}

void
CompressedExchange::Finish()
{
    m_record.bytesOnWire = m_codec->GetBytesOnWire();
    m_out.clear();
    for (uint32_t w = 0; w < m_ranks.size(); ++w)
    {
        m_out.push_back(m_codec->GetSum(w));
    }
    m_record.total = m_record.encode + m_record.communication + m_record.gaps + m_record.decode;
    m_exchangeTrace(m_record);
    for (uint32_t w = 0; w < m_ranks.size(); ++w)
    {
        MemberDone(w);
    }
}

} // namespace ns3
