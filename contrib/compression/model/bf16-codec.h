// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bf16Codec: the 16-bit baseline: dense bf16 (or fp16) all-reduce.
 *
 * What it models. Every coordinate is rounded to bfloat16 (Format=bf16, the default
 * baseline) or IEEE half (Format=fp16), nearest even (Eigen's conversions), packed
 * two per 32-bit word and all-reduced by a PackedRingAllReduce that adds in fp32 and
 * rounds back at every hop. 2 bytes per coordinate on the wire. Encode/decode traffic
 * 4 + 4 bytes per coordinate by default (read fp32 + write 16 bit; read 16 bit + write
 * fp32, rounded from the reference's BF16 row "4 + 4 AR").
 *
 * Round-trip bound (documented, tested): |x - bf16(x)| <= 2^-8 |x|;
 * fp16: |x - fp16(x)| <= 2^-11 |x| + 2^-25 for |x| <= 65504 (larger values overflow).
 * Left out: loss scaling for fp16 underflow.
 */
#ifndef COMPRESSION_BF16_CODEC_H
#define COMPRESSION_BF16_CODEC_H

#include "ns3/gradient-codec.h"
#include "ns3/packed-ring-all-reduce.h"

namespace ns3
{

/**
 * \brief Dense 16-bit all-reduce (bf16 or fp16), 2 bytes per coordinate.
 */
class Bf16Codec : public GradientCodec
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    Bf16Codec();
    ~Bf16Codec() override;

    std::string GetName() const override;
    bool IsAllReduceCompatible() const override;
    Eigen::VectorXf RoundTrip(const Eigen::VectorXf& x) override;
    double GetRoundTripBound(const Eigen::VectorXf& x) const override;
    void Begin(const std::vector<Eigen::VectorXf>& grads) override;
    Ptr<Collective> MakeRound(uint32_t round,
                              Ptr<MessageTransport> transport,
                              const std::vector<uint32_t>& ranks) override;
    void EndRound(uint32_t round, Ptr<Collective> collective) override;
    Eigen::VectorXf GetSum(uint32_t worker) const override;
    std::vector<uint64_t> GetRoundBytes() const override;
    std::vector<std::string> GetRoundCollectives() const override;

protected:
    void DoDispose() override;
    double DefaultEncodeBytes() const override;
    double DefaultDecodeBytes() const override;

private:
    PackedRingAllReduce::LaneFormat Lane() const;

    std::string m_format{"bf16"};         //!< attribute Format
    std::vector<Eigen::VectorXf> m_words; //!< packed inputs
    std::vector<Eigen::VectorXf> m_sums;  //!< decoded outputs
};

} // namespace ns3

#endif // COMPRESSION_BF16_CODEC_H
