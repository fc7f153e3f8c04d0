// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fp32Codec: no compression, the FP32 contrast (not the baseline: that is BF16).
 *
 * What it models. The gradient goes on the wire as fp32 (4 bytes per coordinate)
 * through a ring all-reduce with real values; no encode or decode traffic by default.
 * Left out: nothing beyond GradientCodec's limits.
 */
#ifndef COMPRESSION_FP32_CODEC_H
#define COMPRESSION_FP32_CODEC_H

#include "ns3/gradient-codec.h"

namespace ns3
{

/**
 * \brief Dense fp32 all-reduce (4 bytes per coordinate).
 */
class Fp32Codec : public GradientCodec
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    Fp32Codec();
    ~Fp32Codec() override;

    std::string GetName() const override;
    bool IsAllReduceCompatible() const override;
    Eigen::VectorXf RoundTrip(const Eigen::VectorXf& x) override;
    /// \return 0: fp32 is exact
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
    std::vector<Eigen::VectorXf> m_grads; //!< inputs of the exchange
    std::vector<Eigen::VectorXf> m_sums;  //!< outputs
};

} // namespace ns3

#endif // COMPRESSION_FP32_CODEC_H
