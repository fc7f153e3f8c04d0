// SPDX-License-Identifier: GPL-2.0-only
/*
 * CompressedExchange: one gradient exchange through a GradientCodec, on the timeline.
 *
 * What it models. A Collective made of phases, all workers in lock-step: encode
 * (the codec's encode time), then the codec's rounds one after the other (each a
 * real-valued collective over the simulated network: all-reduce or all-gather, as
 * the codec says, with the compute between rounds, e.g. PowerSGD's
 * orthogonalization), then decode. Its output for member w is the codec's decoded
 * gradient sum. The record of every exchange (encode, communication, gaps, decode,
 * bytes on the wire, the algorithm of every round) goes to the Exchange trace.
 *
 * Left out: overlap of encode/decode with communication (off, as the reference's
 * default), per-worker differences in codec time (all workers equal).
 */
#ifndef COMPRESSION_COMPRESSED_EXCHANGE_H
#define COMPRESSION_COMPRESSED_EXCHANGE_H

#include "ns3/collective.h"
#include "ns3/gradient-codec.h"
#include "ns3/traced-callback.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief What one compressed exchange did.
 */
struct CompressedExchangeRecord
{
    std::string scheme;                  //!< codec name
    Time encode;                         //!< encode time charged
    Time communication;                  //!< sum of the rounds' collective durations
    Time gaps;                           //!< compute between rounds
    Time decode;                         //!< decode time charged
    Time total;                          //!< start to end
    uint64_t bytesOnWire{0};             //!< application bytes all workers sent
    std::vector<std::string> algorithms; //!< "allreduce/ring-bf16", "allgather/ring", ...
};

/**
 * \brief A gradient exchange run by a codec: encode, collectives, decode.
 */
class CompressedExchange : public Collective
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CompressedExchange();
    ~CompressedExchange() override;

    /// Signature of the Exchange trace.
    typedef void (*ExchangeTracedCallback)(const CompressedExchangeRecord& record);

    /**
     * \brief Use this codec (configured for the gradient size and workers) and
     * encode these gradients (one per member). Call after Setup, before Start.
     */
    void SetCodec(Ptr<GradientCodec> codec, const std::vector<Eigen::VectorXf>& grads);
    /// \return the record (complete once done)
    const CompressedExchangeRecord& GetExchangeRecord() const;

    std::string GetCollectiveName() const override;
    std::string GetAlgorithmName() const override;
    /// \return the rounds' schedules, one after the other (virtual collectives of the codec's
    /// sizes)
    std::vector<CollectiveStep> GetSchedule() const override;

protected:
    void DoDispose() override;
    void DoStart() override;
    void HandleMessage(const Message& msg) override;

private:
    void StartRound(uint32_t round);
    void RoundDone(uint32_t round, Ptr<Collective> c);
    void Finish();

    Ptr<GradientCodec> m_codec;
    Ptr<Collective> m_round;
    CompressedExchangeRecord m_record;
    TracedCallback<const CompressedExchangeRecord&> m_exchangeTrace;
};

} // namespace ns3

#endif // COMPRESSION_COMPRESSED_EXCHANGE_H
