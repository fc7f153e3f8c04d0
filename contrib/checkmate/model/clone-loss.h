// SPDX-License-Identifier: GPL-2.0-only
/*
 * CloneLoss: which mirrored packets are lost, the rule both of Checkmate's mirrors
 * apply (GradientMirror at the packet level, FluidGradientMirror at the flow level).
 *
 * A mirror counts the packets it copies in each iteration (0, 1, ...). A packet is
 * lost when the test hook names it (Drop(iteration, index)) or when a uniform draw
 * from the mirror's own random stream falls below the loss rate. Every packet takes
 * one draw while the rate is positive, named or not, so naming a packet does not
 * shift the draws of the others. Only the current and the previous iteration's
 * counts are kept.
 */
#ifndef CHECKMATE_CLONE_LOSS_H
#define CHECKMATE_CLONE_LOSS_H

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <map>
#include <set>
#include <utility>

namespace ns3
{

/**
 * \brief The loss rule of mirrored packets: a test hook and draws at a rate.
 */
class CloneLoss
{
public:
    /**
     * \brief Draw from random stream `stream` (called once, when the mirror is installed).
     * \param stream the stream index
     */
    void SetStream(int64_t stream);
    /**
     * \brief Test hook: lose the `index`-th packet (0-based) copied in `iteration`.
     * \param iteration the training iteration
     * \param index the packet's place among the iteration's copied packets
     */
    void Drop(uint32_t iteration, uint32_t index);
    /**
     * \brief The next packet copied in `iteration`: is it lost?
     * \param iteration the packet's training iteration
     * \param rate the loss probability (no draw when it is 0)
     * \return true when the hook names it or its draw falls below `rate`
     */
    bool NextIsLost(uint32_t iteration, double rate);
    /// \brief Release the random stream.
    void Dispose();

private:
    Ptr<UniformRandomVariable> m_rng;                //!< the draws (after SetStream)
    std::set<std::pair<uint32_t, uint32_t>> m_drops; //!< (iteration, index) to lose
    std::map<uint32_t, uint32_t> m_copied;           //!< iteration -> packets so far
};

} // namespace ns3

#endif // CHECKMATE_CLONE_LOSS_H
