// SPDX-License-Identifier: GPL-2.0-only
/*
 * GeminiPolicy: the checkpoint frequency of Gemini (Wang et al., SOSP'23), which
 * checkpoints to peers' CPU memory and schedules the checkpoint traffic into
 * the idle gaps of the training traffic.
 *
 * What it models. Each of the N workers owns 1/N of the checkpoint (B/N of B
 * bytes: parameters plus optimizer state) and sends it to Replicas - 1 peers.
 * Per iteration a worker's NIC is idle for the iteration time minus the
 * all-reduce time, so at most IdleUtilization x rate x idle bytes of checkpoint
 * fit in an iteration without slowing training; the interval is the number of
 * iterations needed to move one checkpoint:
 * k = max(1, ceil((Replicas-1) x B/N / (IdleUtilization x rate x idle))).
 * The checkpoint traffic itself is sent over the simulated network (by the
 * runner) in slices of 1/k per iteration, during compute, so any overrun would
 * show up as overhead.
 *
 * Left out: Gemini's placement strategy (groups vs rings), remote-storage
 * fallback, the GPU -> CPU copy on the receiving peer.
 */
#ifndef CHECKMATE_GEMINI_POLICY_H
#define CHECKMATE_GEMINI_POLICY_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Gemini's idle-bandwidth-bounded checkpoint interval.
 */
class GeminiPolicy : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GeminiPolicy();
    ~GeminiPolicy() override;

    /**
     * \brief The interval.
     * \param checkpointBytes full checkpoint (all shards)
     * \param workers N
     * \param rate a worker's NIC rate
     * \param idle NIC idle time per iteration
     * \return iterations per checkpoint (>= 1)
     */
    uint32_t ChooseInterval(uint64_t checkpointBytes,
                            uint32_t workers,
                            DataRate rate,
                            Time idle) const;
    /// \return bytes one worker sends per checkpoint ((Replicas-1) x B / N)
    uint64_t GetBytesPerWorker(uint64_t checkpointBytes, uint32_t workers) const;

private:
    uint32_t m_replicas{2}; //!< attribute Replicas
    double m_idleUse{1.0};  //!< attribute IdleUtilization
};

} // namespace ns3

#endif // CHECKMATE_GEMINI_POLICY_H
