// SPDX-License-Identifier: GPL-2.0-only
#include "compressed-trainer.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CompressionCompressedTrainer");
NS_OBJECT_ENSURE_REGISTERED(CompressedTrainer);

TypeId
CompressedTrainer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CompressedTrainer")
            .SetParent<DataParallelTrainer>()
            .SetGroupName("Compression")
            .AddConstructor<CompressedTrainer>()
            .AddTraceSource("Exchange",
                            "An iteration's compressed exchange finished (its record).",
                            MakeTraceSourceAccessor(&CompressedTrainer::m_exchangeTrace),
                            "ns3::CompressedExchange::ExchangeTracedCallback");
    return tid;
}

CompressedTrainer::CompressedTrainer() = default;
CompressedTrainer::~CompressedTrainer() = default;

void
CompressedTrainer::DoDispose()
{
    m_codec = nullptr;
    DataParallelTrainer::DoDispose();
}

void
CompressedTrainer::SetCodec(Ptr<GradientCodec> codec)
{
    NS_ASSERT_MSG(GetModel(), "call Setup first");
    if (!codec)
    {
        throw std::invalid_argument("CompressedTrainer needs a codec");
    }
    codec->Configure(GetModel()->GetParameterCount(), static_cast<uint32_t>(GetWorkers().size()));
    m_codec = codec;
}

Ptr<GradientCodec>
CompressedTrainer::GetCodec() const
{
    return m_codec;
}

const std::vector<CompressedExchangeRecord>&
CompressedTrainer::GetExchangeRecords() const
{
    return m_exchanges;
}

Ptr<Collective>
CompressedTrainer::CreateExchange(uint32_t iteration, const std::vector<Eigen::VectorXf>& grads)
{
    if (!m_codec)
    {
        return DataParallelTrainer::CreateExchange(iteration, grads);
    }
    Ptr<CompressedExchange> ex = CreateObject<CompressedExchange>();
    ex->Setup(GetTransport(), GetWorkers(), GetGradientBytes());
    ex->SetCodec(m_codec, grads);
    ex->TraceConnectWithoutContext("Exchange",
                                   MakeCallback(&CompressedTrainer::ExchangeDone, this));
    return ex;
}

void
CompressedTrainer::ExchangeDone(const CompressedExchangeRecord& record)
{
    m_exchanges.push_back(record);
    m_exchangeTrace(record);
}

} // namespace ns3
