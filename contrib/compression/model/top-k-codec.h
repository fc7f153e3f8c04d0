// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopKCodec: TopK sparsification sent by all-gather, with error feedback.
 *
 * What it models. Each worker adds its residual to its gradient (error feedback,
 * attribute ErrorFeedback), keeps the k = ceil(Density d) coordinates of largest
 * magnitude (ties: lower index first), and sends them as (bf16 value, index) pairs:
 * 16 + 16 bits when d <= 65536, 16 + 32 bits otherwise, packed as a byte stream
 * into 32-bit words. TopK is not all-reduce compatible: the pairs of all workers are
 * gathered by a RingAllGather (logged as such, never silently), and every worker
 * decodes the gathered pairs into the dense sum (workers in order: deterministic).
 * The residual keeps what was not sent, including the bf16 rounding of sent values.
 *
 * Wire: the gathered result is N x 4 ceil(k (b_v + b_i) / 32) bytes; each worker
 * receives (N-1) of the N chunks. Beats dense 16-bit all-reduce only when
 * density < 32 / (N (b_v + b_i)) (beta terms; CompressionCostModel).
 *
 * Round-trip bound (documented, tested; no feedback): max(|x|_(k+1), 2^-8 max|x|),
 * |x|_(k+1) the largest dropped magnitude.
 * Encode/decode traffic default: 16 / 8 bytes per coordinate (feedback add, selection
 * pass; dense scatter). Left out: approximate (sampled) selection, GPU sort costs.
 */
#ifndef COMPRESSION_TOP_K_CODEC_H
#define COMPRESSION_TOP_K_CODEC_H

#include "ns3/gradient-codec.h"

#include <utility>

namespace ns3
{

/**
 * \brief TopK (values + indices) by all-gather, with error feedback.
 */
class TopKCodec : public GradientCodec
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TopKCodec();
    ~TopKCodec() override;

    /// One sent coordinate: index, bf16-rounded value.
    using Entry = std::pair<uint32_t, float>;

    /// Throws std::invalid_argument unless 0 < Density <= 1.
    void Configure(uint64_t coordinates, uint32_t workers) override;
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

    /// \return k
    uint64_t GetK() const;
    /// \return index bits (16 or 32)
    uint32_t GetIndexBits() const;
    /// \return worker w's selected entries of the last exchange (index order)
    const std::vector<Entry>& GetSelected(uint32_t worker) const;
    /// \return what worker `receiver` decoded as worker `sender`'s entries
    const std::vector<Entry>& GetReceived(uint32_t receiver, uint32_t sender) const;

    /// \return the chunk (words) encoding entries
    Eigen::VectorXf Encode(const std::vector<Entry>& entries) const;
    /// \return the entries of a chunk
    std::vector<Entry> Decode(const Eigen::VectorXf& chunk) const;

protected:
    void DoDispose() override;
    double DefaultEncodeBytes() const override;
    double DefaultDecodeBytes() const override;

private:
    std::vector<Entry> Select(const Eigen::VectorXf& v) const;

    double m_density{0.01};                                  //!< attribute Density
    bool m_feedback{true};                                   //!< attribute ErrorFeedback
    uint64_t m_k{1};                                         //!< ceil(density d)
    std::vector<Eigen::VectorXf> m_residual;                 //!< error feedback per worker
    std::vector<std::vector<Entry>> m_selected;              //!< per worker
    std::vector<std::vector<std::vector<Entry>>> m_received; //!< [receiver][sender]
    std::vector<Eigen::VectorXf> m_sums;                     //!< decoded outputs
};

} // namespace ns3

#endif // COMPRESSION_TOP_K_CODEC_H
