// SPDX-License-Identifier: GPL-2.0-only
/*
 * PackedRingAllReduce: ring all-reduce of packed low-precision values.
 *
 * What it models. The wire format of a compressed all-reduce: each 32-bit word of
 * the buffer holds several lanes (two bf16 or fp16 values, or 32/w unsigned integers
 * of w bits), so the bytes on the wire are the encoded size. The ring algorithm is
 * RingAllReduce's; only the reduction differs: float lanes are widened to fp32,
 * added and rounded back to the lane format (round to nearest even, at every hop, as
 * a 16-bit NCCL all-reduce does); integer lanes are added as integers of w bits (the
 * caller picks w so the sum of N inputs cannot overflow: the "wider integer"
 * aggregation of all-reduce compatible quantization). Words are bit patterns, never
 * float arithmetic, so NaN-looking words travel unchanged.
 *
 * Left out: fp32 accumulation across hops (each hop rounds), stochastic rounding in
 * the reduction.
 */
#ifndef COMPRESSION_PACKED_RING_ALL_REDUCE_H
#define COMPRESSION_PACKED_RING_ALL_REDUCE_H

#include "ns3/ring-all-reduce.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Ring all-reduce whose 32-bit words pack bf16, fp16 or w-bit integer lanes.
 */
class PackedRingAllReduce : public RingAllReduce
{
public:
    /// Lane format of the packed words.
    enum LaneFormat
    {
        BF16,   //!< two bfloat16 values per word
        FP16,   //!< two IEEE half values per word
        UINT4,  //!< eight 4-bit unsigned integers per word
        UINT8,  //!< four 8-bit unsigned integers per word
        UINT16, //!< two 16-bit unsigned integers per word
        UINT32  //!< one 32-bit unsigned integer per word
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PackedRingAllReduce();
    ~PackedRingAllReduce() override;

    /// \brief Set the lane format (before Start).
    void SetLaneFormat(LaneFormat format);
    /// \return the lane format
    LaneFormat GetLaneFormat() const;
    /// \return lanes per 32-bit word
    static uint32_t LanesPerWord(LaneFormat format);
    /// \return bits per lane
    static uint32_t LaneBits(LaneFormat format);
    /// \return the narrowest integer lane holding values up to maxValue
    static LaneFormat IntegerLaneFor(uint64_t maxValue);

    /**
     * \brief Pack lane values into words (values beyond size are zero lanes).
     * Float formats round fp32 to the lane format (nearest even); integer formats
     * take the values as non-negative integers that must fit the lane.
     */
    static Eigen::VectorXf Pack(const Eigen::VectorXf& values, LaneFormat format);
    /// \return the first `count` lane values of packed words, as fp32
    static Eigen::VectorXf Unpack(const Eigen::VectorXf& words, LaneFormat format, uint64_t count);
    /// \return a word's bits
    static uint32_t Bits(float word);
    /// \return the float whose bits are `bits`
    static float FromBits(uint32_t bits);

    std::string GetAlgorithmName() const override;

protected:
    void ReduceSegment(Eigen::Ref<Eigen::VectorXf> dst, const float* src) const override;

private:
    LaneFormat m_format{BF16};
};

} // namespace ns3

#endif // COMPRESSION_PACKED_RING_ALL_REDUCE_H
