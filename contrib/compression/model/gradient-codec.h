// SPDX-License-Identifier: GPL-2.0-only
/*
 * GradientCodec: base of the gradient-compression schemes of the collective layer.
 *
 * What it models. A codec turns every worker's gradient (d coordinates, fp32) into
 * what goes on the wire, runs one or more collectives over the simulated network
 * with those encoded real values in the packets (rounds: MakeRound / EndRound; e.g.
 * PowerSGD's two all-reduces), and decodes the result into each worker's gradient
 * SUM. Its cost model is memory-bound: encode (decode) time = d x
 * EncodeBytesPerCoordinate (DecodeBytesPerCoordinate) / DeviceMemoryBandwidth, the
 * extra device-memory (HBM) traffic per coordinate; CompressedExchange charges it
 * before the first send and after the last receive (no overlap). Codec state (error
 * feedback residuals, PowerSGD's Q) lives in the codec across iterations.
 *
 * What it leaves out. Kernel launch latency, compute-bound codecs (the time is memory
 * traffic only), overlap of encode/decode with communication, per-layer bucketing
 * (the gradient is one flat vector).
 */
#ifndef COMPRESSION_GRADIENT_CODEC_H
#define COMPRESSION_GRADIENT_CODEC_H

#include "ns3/collective.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <Eigen/Core>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Base of gradient codecs: encode, exchange over collectives, decode, cost model.
 */
class GradientCodec : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GradientCodec();
    ~GradientCodec() override;

    /// \return the scheme's name ("fp32", "bf16", "fp16", "topk", "quant", "powersgd")
    virtual std::string GetName() const = 0;
    /// \return true if the scheme aggregates with all-reduce (false: all-gather)
    virtual bool IsAllReduceCompatible() const = 0;

    /**
     * \brief Prepare for d coordinates on n workers (resets codec state).
     * Throws std::invalid_argument for impossible parameters (e.g. rank > matrix).
     */
    virtual void Configure(uint64_t coordinates, uint32_t workers);
    /// \return d
    uint64_t GetCoordinates() const;
    /// \return n
    uint32_t GetWorkers() const;

    /**
     * \brief Encode then decode one vector alone (no error feedback, no aggregation).
     * Needs Configure. Used to check the documented error bound.
     */
    virtual Eigen::VectorXf RoundTrip(const Eigen::VectorXf& x) = 0;
    /// \return the documented bound on max |x - RoundTrip(x)| for this x
    virtual double GetRoundTripBound(const Eigen::VectorXf& x) const = 0;

    // ---- the exchange (driven by CompressedExchange) --------------------------

    /// \brief Encode every worker's gradient (applies and updates error feedback).
    virtual void Begin(const std::vector<Eigen::VectorXf>& grads) = 0;
    /// \return the number of collectives the exchange runs one after the other
    virtual uint32_t GetRounds() const;
    /// \return round r's collective, set up with its real inputs
    virtual Ptr<Collective> MakeRound(uint32_t round,
                                      Ptr<MessageTransport> transport,
                                      const std::vector<uint32_t>& ranks) = 0;
    /// \brief Round r's collective finished: read its outputs.
    virtual void EndRound(uint32_t round, Ptr<Collective> collective) = 0;
    /// \return worker w's decoded gradient sum (after the last round)
    virtual Eigen::VectorXf GetSum(uint32_t worker) const = 0;

    // ---- cost model -----------------------------------------------------------

    /// \return encode time of one worker: d x EncodeBytesPerCoordinate / bandwidth
    Time GetEncodeTime() const;
    /// \return decode time of one worker: d x DecodeBytesPerCoordinate / bandwidth
    Time GetDecodeTime() const;
    /// \return compute between round r and r+1 (default 0; PowerSGD: orthogonalization)
    virtual Time GetRoundGap(uint32_t round) const;
    /// \return extra memory traffic of encoding, bytes per coordinate (attribute or default)
    double GetEncodeBytesPerCoordinate() const;
    /// \return extra memory traffic of decoding, bytes per coordinate (attribute or default)
    double GetDecodeBytesPerCoordinate() const;
    /// \return DeviceMemoryBandwidth (bytes/s)
    double GetDeviceMemoryBandwidth() const;

    // ---- wire -----------------------------------------------------------------

    /**
     * \brief Payload of each round: the Setup bytes of its collective (all-reduce: the
     * encoded vector; all-gather: the gathered result), from the scheme's formula.
     */
    virtual std::vector<uint64_t> GetRoundBytes() const = 0;
    /// \return the collective of each round: "allreduce" or "allgather"
    virtual std::vector<std::string> GetRoundCollectives() const = 0;
    /**
     * \return application bytes all workers send in one exchange, from the formula:
     * ring all-reduce of S: 2(N-1) S; ring all-gather of S: (N-1) S.
     */
    uint64_t GetBytesOnWire() const;

protected:
    void DoDispose() override;
    /// \return the scheme's default encode traffic (bytes per coordinate)
    virtual double DefaultEncodeBytes() const = 0;
    /// \return the scheme's default decode traffic (bytes per coordinate)
    virtual double DefaultDecodeBytes() const = 0;
    /// \brief Throw std::logic_error-free check: NS_ASSERT that Configure was called.
    void CheckConfigured() const;

    uint64_t m_d{0}; //!< coordinates
    uint32_t m_n{0}; //!< workers

private:
    double m_memoryBandwidth{768e9}; //!< attribute DeviceMemoryBandwidth (B/s)
    double m_encodeBytes{-1};        //!< attribute EncodeBytesPerCoordinate (< 0: default)
    double m_decodeBytes{-1};        //!< attribute DecodeBytesPerCoordinate (< 0: default)
};

} // namespace ns3

#endif // COMPRESSION_GRADIENT_CODEC_H
