// SPDX-License-Identifier: GPL-2.0-only
/*
 * CompressionCostModel: the analytical twin of compressed gradient exchanges.
 *
 * What it models. Communication time of each scheme from AlphaBetaModel's closed
 * forms (Thakur et al. 2005) on the codec's own round sizes: dense (possibly
 * quantized) ring all-reduce of S bytes, 2(N-1) alpha + 2(N-1)/N S beta; TopK ring
 * all-gather of the gathered size S, (N-1) alpha + (N-1)/N S beta; PowerSGD two
 * all-reduces (P: 4 a r, Q: 4 c r bytes). Exchange time adds the codec's encode,
 * between-round and decode times (memory traffic / DeviceMemoryBandwidth).
 * Break-even conditions:
 *  - TopK vs dense 16-bit: beta terms only, density < 32 / (N (b_v + b_i)); with the
 *    alpha terms and the codec times, the density where both exchange times are equal;
 *  - quantization vs 16-bit: it wins only if B_HBM / B_wire > dH / dW, dH the extra
 *    memory bytes per coordinate, dW = 2 (N-1)/N (16 - w)/8 the wire bytes saved per
 *    coordinate (w: aggregation lane bits).
 * alpha and beta are attributes; FromLink derives them for a store-and-forward
 * ideal switch: alpha = 2 d + F1 8 / R (two hops, first frame stored once, F1 =
 * min(m, P) + O for the round's per-step message m = S/N, so a tiny round gets a
 * tiny alpha), beta = 8 (P + O) / (P R) (per-packet overhead O on P payload bytes).
 *
 * Left out: contention, per-step rounding of the ring's segments, the reduction's
 * gamma term (0 in mlnet's default runs).
 */
#ifndef COMPRESSION_COMPRESSION_COST_MODEL_H
#define COMPRESSION_COMPRESSION_COST_MODEL_H

#include "ns3/data-rate.h"
#include "ns3/gradient-codec.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

namespace ns3
{

/**
 * \brief Alpha-beta twin of compressed exchanges and their break-even conditions.
 */
class CompressionCostModel : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CompressionCostModel();
    ~CompressionCostModel() override;

    /**
     * \brief Set alpha and beta for an ideal (one-switch) fabric of this link.
     * \param rate link rate \param delay link delay
     * \param maxPayload application bytes per packet \param overhead wire bytes per packet
     */
    void FromLink(DataRate rate, Time delay, uint32_t maxPayload, uint32_t overhead);
    /// \return alpha (s)
    double GetAlpha() const;
    /// \return beta (s/byte)
    double GetBeta() const;

    /// \return communication time of a configured codec's rounds (s)
    double CommunicationTime(Ptr<const GradientCodec> codec) const;
    /// \return encode + gaps + communication + decode (s)
    double ExchangeTime(Ptr<const GradientCodec> codec) const;

    /**
     * \brief Beta-only TopK break-even density vs dense 16-bit all-reduce.
     * \return 32 / (N (valueBits + indexBits))
     */
    static double TopKBreakEvenDensityBeta(uint32_t n, uint32_t valueBits, uint32_t indexBits);
    /**
     * \brief Density at which TopK's exchange time equals the 16-bit baseline's, with
     * alpha terms and codec times (linear in density).
     * \param topk a configured TopKCodec (its density is ignored)
     * \param baseline a configured 16-bit codec
     */
    double TopKBreakEvenDensity(Ptr<const GradientCodec> topk,
                                Ptr<const GradientCodec> baseline) const;
    /**
     * \brief Memory-to-wire bandwidth ratio B_HBM / B_wire above which a quantizer beats
     * the 16-bit baseline (beta terms): dH / dW. Infinite if it saves no wire bytes.
     * \param laneBits w, the aggregation lane width on the wire
     */
    static double QuantBreakEvenRatio(uint32_t n,
                                      uint32_t laneBits,
                                      double extraMemoryBytesPerCoordinate);

protected:
    void DoDispose() override;

private:
    /// \return alpha for a round of S bytes (per-step message S/N) on n ranks
    double AlphaFor(double bytes, uint32_t n) const;

    double m_rate{0};       //!< link rate (bit/s) set by FromLink (0: use Alpha as is)
    double m_delay{0};      //!< link delay (s) set by FromLink
    uint32_t m_payload{0};  //!< P set by FromLink
    uint32_t m_overhead{0}; //!< O set by FromLink
    double m_alpha{2e-6};   //!< attribute Alpha (s)
    double m_beta{8e-11};   //!< attribute Beta (s/byte)
};

} // namespace ns3

#endif // COMPRESSION_COMPRESSION_COST_MODEL_H
