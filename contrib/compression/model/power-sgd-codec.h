// SPDX-License-Identifier: GPL-2.0-only
/*
 * PowerSgdCodec: PowerSGD low-rank compression (Vogels et al., NeurIPS 2019), rank r,
 * with error feedback; all-reduce compatible (two all-reduces).
 *
 * What it models. The flat gradient plus residual is viewed as an a x c matrix M
 * (a = Rows, default ceil(sqrt(d)); c = ceil(d / a); zero padded). With the shared
 * Q (c x r; standard normal from a common ns-3 stream at the start, then the previous
 * iteration's reduced Q: warm start), round 0 all-reduces P = M Q (a r floats); every
 * worker orthonormalizes the sum with Eigen's HouseholderQR (thin Q factor P^); round
 * 1 all-reduces Q_w = M_w^T P^ (c r floats). The decoded sum is P^ Q_sum^T, and the
 * residual M_w - P^ Q_w^T is carried to the next iteration. fp32 on the wire.
 *
 * Round-trip bound (documented, tested): a projection never grows the matrix, so
 * max |x - x~| <= ||M||_F; with full rank r = min(a, c), |x - x~| <= 1e-4 ||M||_F.
 * Traffic defaults: encode 16 (feedback, M Q), between the rounds 4 (M^T P^) and
 * decode 12 bytes per coordinate (P^ Q^T, residual).
 * Left out: per-layer matrices (the whole gradient is one matrix), bias vectors sent
 * uncompressed, the QR's compute time (memory traffic of M only).
 */
#ifndef COMPRESSION_POWER_SGD_CODEC_H
#define COMPRESSION_POWER_SGD_CODEC_H

#include "ns3/gradient-codec.h"

#include <Eigen/Dense>

namespace ns3
{

/**
 * \brief PowerSGD rank-r compression: all-reduce P, orthogonalize, all-reduce Q.
 */
class PowerSgdCodec : public GradientCodec
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PowerSgdCodec();
    ~PowerSgdCodec() override;

    /// Throws std::invalid_argument unless 1 <= Rank <= min(a, c).
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
    Time GetRoundGap(uint32_t round) const override;
    std::vector<uint64_t> GetRoundBytes() const override;
    std::vector<std::string> GetRoundCollectives() const override;

    /// \return a (rows of the matrix view)
    uint64_t GetRowCount() const;
    /// \return c (columns)
    uint64_t GetColumnCount() const;

protected:
    void DoDispose() override;
    double DefaultEncodeBytes() const override;
    double DefaultDecodeBytes() const override;

private:
    Eigen::MatrixXf ToMatrix(const Eigen::VectorXf& v) const;
    Eigen::VectorXf ToVector(const Eigen::MatrixXf& m) const;
    Eigen::MatrixXf Orthonormalize(const Eigen::MatrixXf& p) const;

    uint32_t m_rank{4};                      //!< attribute Rank
    uint32_t m_rows{0};                      //!< attribute Rows (0: automatic)
    bool m_feedback{true};                   //!< attribute ErrorFeedback
    int64_t m_stream{800};                   //!< attribute Stream
    uint64_t m_a{0};                         //!< rows in use
    uint64_t m_c{0};                         //!< columns in use
    Eigen::MatrixXf m_q;                     //!< shared Q (c x r)
    std::vector<Eigen::MatrixXf> m_residual; //!< error feedback per worker (a x c)
    std::vector<Eigen::MatrixXf> m_m;        //!< M per worker of the exchange
    std::vector<Eigen::MatrixXf> m_phat;     //!< P^ per worker
    std::vector<Eigen::VectorXf> m_sums;     //!< decoded outputs
};

} // namespace ns3

#endif // COMPRESSION_POWER_SGD_CODEC_H
