// SPDX-License-Identifier: GPL-2.0-only
/*
 * EcnMarker: RED-style ECN marking at a switch's egress, as DCQCN specifies it.
 *
 * What it models. When a switch queues an ECN-capable frame (FastFrameHeader::ecn ==
 * ECT0) on an output device behind q bytes, the frame is marked Congestion Experienced
 * with probability
 *     0                                  for q <= Kmin,
 *     Pmax * (q - Kmin) / (Kmax - Kmin)  for Kmin < q <= Kmax,
 *     1                                  for q > Kmax,
 * on the instantaneous queue (no averaging: DCQCN's switches mark on the instantaneous
 * queue, which RED with weight 1 is). The defaults are the 100 Gbps entries of HPCC's
 * ns-3 DCQCN configuration (KMIN_MAP, KMAX_MAP, PMAX_MAP): Kmin = 400 KB, Kmax = 1600 KB,
 * Pmax = 0.2, for the fabrics' default 100 Gbps links and 9 KB frames. The DCQCN paper's
 * (Zhu et al., SIGCOMM 2015) 40 Gbps profile, Kmin = 5 KB, Kmax = 200 KB, Pmax = 1%,
 * marks an incast's frames from the first one queued and throttles it far below the link
 * (measured: topoopt-cluster's DLRM on an ideal switch at 2.5x its twin, against 1.15x
 * with the 100 Gbps profile). Draws come from one ns-3 random stream per
 * marker (AssignStreams), so the same run marks the same frames.
 *
 * FastForwarding calls ShouldMark where a switch hands a forwarded frame to its output
 * device, with FastForwarding::GetQueuedBytes of that device; FabricHelper::SetSwitchEcn
 * on a fast fabric gives every switch one marker.
 *
 * Left out: marking on dequeue (the frame is marked as it joins the queue), per-priority
 * thresholds, ECN on frames that are not ECT0 (Not-ECT frames are never marked or dropped
 * for it), marking by hosts or relaying ranks.
 */
#ifndef MLNET_ECN_MARKER_H
#define MLNET_ECN_MARKER_H

#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Probabilistic ECN marking by queue length (DCQCN's RED profile).
 */
class EcnMarker : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    EcnMarker();
    ~EcnMarker() override;

    /**
     * \brief The marking probability at a queue of `queuedBytes` (no draw).
     * \param queuedBytes bytes already waiting on the output device
     * \return 0 below Kmin, the linear ramp up to Pmax at Kmax, 1 above Kmax
     */
    double GetProbability(uint64_t queuedBytes) const;
    /**
     * \brief Decide whether an ECN-capable frame joining a queue of `queuedBytes` is
     * marked CE (one draw when the probability is strictly between 0 and 1); counts and
     * traces the marks.
     * \param queuedBytes bytes already waiting on the output device
     * \return true: mark the frame
     */
    bool ShouldMark(uint64_t queuedBytes);
    /// \return frames marked so far
    uint64_t GetMarks() const;
    /**
     * \brief Use a fixed random stream (ns-3 convention).
     * \param stream first stream index
     * \return streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// Signature of the Mark trace: bytes queued when the frame was marked.
    using MarkTracedCallback = void (*)(uint64_t);

protected:
    void DoDispose() override;

private:
    /// Check Kmin < Kmax and 0 < Pmax <= 1 (throws std::invalid_argument).
    void Validate() const;

    uint64_t m_kMin;                   //!< attribute Kmin (bytes)
    uint64_t m_kMax;                   //!< attribute Kmax (bytes)
    double m_pMax;                     //!< attribute Pmax
    Ptr<UniformRandomVariable> m_draw; //!< U(0,1) draws
    uint64_t m_marks{0};
    TracedCallback<uint64_t> m_markTrace;
};

} // namespace ns3

#endif // MLNET_ECN_MARKER_H
