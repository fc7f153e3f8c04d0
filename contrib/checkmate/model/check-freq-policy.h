// SPDX-License-Identifier: GPL-2.0-only
/*
 * CheckFreqPolicy: the checkpoint-interval rule of CheckFreq (Mohan et al.,
 * FAST'21), as coded in msr-fiddle/CheckFreq (cf_iterator.py).
 *
 * What it models. A checkpoint has two phases: a snapshot of the model state
 * (GPU -> CPU memory, t_c = bytes / SnapshotBandwidth) that is pipelined with
 * the next iteration's forward and backward pass and only delays its update,
 * and a persist to storage (bytes / PersistBandwidth, 515 MB/s in CheckFreq)
 * that runs in the background. The interval follows the profiled times:
 * k = max(ceil((t_f - t_c) / t_i), 1) iterations, with t_f = t_c + persist and
 * t_i the mean iteration time; in adaptive mode, if the measured overhead
 * exceeds MaxOverhead, k grows by 2.
 *
 * Left out: the GPU-memory snapshot variant (t_g), contention of the persist
 * with training for PCIe and CPU, the profiling window (the caller gives t_i).
 */
#ifndef CHECKMATE_CHECK_FREQ_POLICY_H
#define CHECKMATE_CHECK_FREQ_POLICY_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief CheckFreq's checkpoint interval and stall rules.
 */
class CheckFreqPolicy : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CheckFreqPolicy();
    ~CheckFreqPolicy() override;

    /**
     * \brief CheckFreq's interval rule on given timings.
     * \param iteration t_i, mean iteration time (s, > 0)
     * \param snapshot t_c, snapshot time (s)
     * \param full t_f, snapshot + persist time (s)
     * \return k = max(ceil((t_f - t_c) / t_i), 1)
     */
    static uint32_t Interval(double iteration, double snapshot, double full);
    /// \return snapshot time of a checkpoint of `bytes`
    Time GetSnapshotTime(uint64_t bytes) const;
    /// \return persist time of a checkpoint of `bytes`
    Time GetPersistTime(uint64_t bytes) const;
    /// \return the interval for a checkpoint of `bytes` and mean iteration time t_i
    uint32_t ChooseInterval(uint64_t bytes, Time iteration) const;
    /// \return the interval after adapting to a measured overhead fraction
    uint32_t Adapt(uint32_t interval, double overhead) const;
    /**
     * \return the stall a snapshot causes: what the snapshot does not hide behind
     * the next iteration's compute, max(0, t_c - compute)
     */
    Time GetStall(uint64_t bytes, Time compute) const;
    /// \return whether the adaptive rule is on
    bool IsAdaptive() const;

private:
    double m_snapshotBw{12e9};  //!< attribute SnapshotBandwidth (B/s)
    double m_persistBw{515e6};  //!< attribute PersistBandwidth (B/s)
    double m_maxOverhead{0.05}; //!< attribute MaxOverhead (fraction)
    bool m_adaptive{true};      //!< attribute Adaptive
};

} // namespace ns3

#endif // CHECKMATE_CHECK_FREQ_POLICY_H
