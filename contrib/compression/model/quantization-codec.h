// SPDX-License-Identifier: GPL-2.0-only
/*
 * QuantizationCodec: all-reduce compatible uniform quantization with a shared scale
 * (THC-style, without the randomized Hadamard transform).
 *
 * What it models. Round 0: every worker's max |g| travels by a tiny ring all-gather
 * (one float each); the shared scale is M = their maximum. Every coordinate is
 * stochastically rounded (unbiased) to one of L = 2^b - 1 levels:
 * q = floor((x + M) / D + u), D = 2M / L, u ~ U[0,1) (ns-3 stream, attribute Stream),
 * so x~ = q D - M. Round 1: the integers q are packed into lanes of the narrowest width
 * w in {4, 8, 16, 32} with 2^w > N L (the sum of N workers cannot overflow; checked,
 * never silently wrapped) and summed exactly by a PackedRingAllReduce. The decoded
 * sum is (sum q) D - N M: exactly the sum of the dequantized inputs. Bytes per
 * coordinate on the wire: w/8, e.g. b=8 on 4 workers needs w=16, the same as BF16.
 *
 * Round-trip bound (documented, tested): |x - x~| < D = 2M/L.
 * Encode/decode traffic default: 12 / 8 bytes per coordinate (max pass + quantize;
 * unpack + write fp32). THC with its Hadamard transform costs far more (reference:
 * 74 bytes); set EncodeBytesPerCoordinate to model it.
 * Left out: the Hadamard rotation, error feedback, per-bucket scales.
 */
#ifndef COMPRESSION_QUANTIZATION_CODEC_H
#define COMPRESSION_QUANTIZATION_CODEC_H

#include "ns3/gradient-codec.h"
#include "ns3/packed-ring-all-reduce.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \brief b-bit uniform stochastic quantization, summed in wider integer lanes.
 */
class QuantizationCodec : public GradientCodec
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    QuantizationCodec();
    ~QuantizationCodec() override;

    /// Throws std::invalid_argument unless Bits is 2, 4 or 8.
    void Configure(uint64_t coordinates, uint32_t workers) override;
    std::string GetName() const override;
    bool IsAllReduceCompatible() const override;
    Eigen::VectorXf RoundTrip(const Eigen::VectorXf& x) override;
    double GetRoundTripBound(const Eigen::VectorXf& x) const override;
    void Begin(const std::vector<Eigen::VectorXf>& grads) override;
    uint32_t GetRounds() const override;
    Ptr<Collective> MakeRound(uint32_t round,
                              Ptr<MessageTransport> transport,
                              const std::vector<uint32_t>& ranks) override;
    void EndRound(uint32_t round, Ptr<Collective> collective) override;
    Eigen::VectorXf GetSum(uint32_t worker) const override;
    std::vector<uint64_t> GetRoundBytes() const override;
    std::vector<std::string> GetRoundCollectives() const override;

    /// \return the aggregation lane format (valid after Configure)
    PackedRingAllReduce::LaneFormat GetLaneFormat() const;
    /// \return worker w's levels q of the last exchange (as floats)
    const Eigen::VectorXf& GetLevels(uint32_t worker) const;
    /// \return worker w's dequantized input of the last exchange, q D - M
    Eigen::VectorXf GetDequantized(uint32_t worker) const;

protected:
    void DoDispose() override;
    double DefaultEncodeBytes() const override;
    double DefaultDecodeBytes() const override;

private:
    Eigen::VectorXf Quantize(const Eigen::VectorXf& x, double scale);

    uint32_t m_bits{4};    //!< attribute Bits
    int64_t m_stream{700}; //!< attribute Stream
    uint32_t m_levels{15}; //!< L = 2^b - 1
    PackedRingAllReduce::LaneFormat m_lane{PackedRingAllReduce::UINT8};
    Ptr<UniformRandomVariable> m_rng;
    std::vector<Eigen::VectorXf> m_grads; //!< inputs
    std::vector<Eigen::VectorXf> m_q;     //!< levels per worker
    std::vector<double> m_scaleOf;        //!< per-worker scale M seen after round 0
    std::vector<Eigen::VectorXf> m_sums;  //!< decoded outputs
};

} // namespace ns3

#endif // COMPRESSION_QUANTIZATION_CODEC_H
