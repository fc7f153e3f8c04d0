// SPDX-License-Identifier: GPL-2.0-only
/*
 * CompressedTrainer: data-parallel training whose gradient exchange is compressed.
 *
 * What it models. A DataParallelTrainer whose every iteration exchanges the real
 * gradients through a GradientCodec (CompressedExchange: encode time, the codec's
 * collectives with real encoded values in the packets, decode time), so codec compute
 * and wire savings are both on the timeline and the optimizer sees the decoded
 * (lossy) gradient sum: accuracy per iteration reflects the compression for real.
 * The per-iteration exchange records (encode, communication, decode, bytes on the
 * wire, algorithms) are kept and traced.
 *
 * Left out: what DataParallelTrainer leaves out (no overlap with backward, one bucket).
 */
#ifndef COMPRESSION_COMPRESSED_TRAINER_H
#define COMPRESSION_COMPRESSED_TRAINER_H

#include "ns3/compressed-exchange.h"
#include "ns3/data-parallel-trainer.h"
#include "ns3/gradient-codec.h"

#include <vector>

namespace ns3
{

/**
 * \brief DataParallelTrainer with a GradientCodec on the gradient exchange.
 */
class CompressedTrainer : public DataParallelTrainer
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CompressedTrainer();
    ~CompressedTrainer() override;

    /**
     * \brief Use this codec (call after Setup, before Run). Configures it for the
     * model's parameter count and the workers; throws std::invalid_argument for
     * impossible codec parameters.
     */
    void SetCodec(Ptr<GradientCodec> codec);
    /// \return the codec
    Ptr<GradientCodec> GetCodec() const;
    /// \return one record per finished exchange, in order
    const std::vector<CompressedExchangeRecord>& GetExchangeRecords() const;

protected:
    void DoDispose() override;
    Ptr<Collective> CreateExchange(uint32_t iteration,
                                   const std::vector<Eigen::VectorXf>& grads) override;

private:
    void ExchangeDone(const CompressedExchangeRecord& record);

    Ptr<GradientCodec> m_codec;
    std::vector<CompressedExchangeRecord> m_exchanges;
    TracedCallback<const CompressedExchangeRecord&> m_exchangeTrace;
};

} // namespace ns3

#endif // COMPRESSION_COMPRESSED_TRAINER_H
