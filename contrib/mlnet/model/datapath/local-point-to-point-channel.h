// SPDX-License-Identifier: GPL-2.0-only
/*
 * LocalPointToPointChannel: a point-to-point channel whose two ends run in one
 * process, handing the receiver the transmitted frame itself rather than a copy.
 *
 * What it models: exactly what ns-3's PointToPointChannel models (a full-duplex wire
 * of one propagation delay; a frame put on it at t arrives whole at the peer device at
 * t + txTime + Delay), with the same events in the same order, so every simulated time
 * is unchanged. What it saves: the Packet::Copy that PointToPointChannel::TransmitStart
 * makes of every frame on every hop (an allocation, the buffer, tag and metadata
 * copies) and the free of the sender's instance.
 *
 * Why the copy is not needed: once a frame is on the wire the sending device keeps it
 * only until its transmit-complete event at t + txTime + InterframeGap, which runs
 * before the arrival at t + txTime + Delay when InterframeGap <= Delay (scheduled
 * first, so also at equal times); the sender's traces (PhyTxBegin, PhyTxEnd, pcap) have
 * seen it by then. The receiver is then the only holder and may change it (strip the
 * PPP header, forward it) as it does its own copy today. FabricHelper uses this channel
 * in one-process builds with InterframeGap 0 (the default); a build split over MPI
 * processes keeps ns-3's channels (PointToPointRemoteChannel between processes).
 *
 * Jitter (attribute, 0 by default: the channel above, to the event). Each frame
 * arrives a uniform random time in [0, Jitter] later than t + txTime + Delay, never
 * before the frame sent before it on the same wire arrived (order is kept). It stands
 * for what a deterministic simulation leaves out: the nanoseconds by which real
 * senders' clocks, PHYs and NIC pipelines drift apart. Without it, senders of one rate
 * stay in lockstep, and at a full drop-tail port the same senders win every freed
 * place (phase effects): measured on a 16-rank fat-tree all-to-all, 10 ns of jitter
 * moved the collective's time by up to 27 % (flow-level.md, "Lockstep at full ports").
 * Its draws come from one UniformRandomVariable per channel (AssignStreams).
 *
 * Left out: the TxRxPointToPoint animation trace of PointToPointChannel (private to the
 * base class; NetAnim is not used on these fabrics). Device traces and pcap see every
 * frame as before. A trace sink that keeps a transmitted frame past transmit-complete
 * sees it as the receiver left it (a sink that needs the frame later must copy it).
 */
#ifndef MLNET_LOCAL_POINT_TO_POINT_CHANNEL_H
#define MLNET_LOCAL_POINT_TO_POINT_CHANNEL_H

#include "ns3/nstime.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \brief PointToPointChannel without a Packet::Copy per transmitted frame.
 */
class LocalPointToPointChannel : public PointToPointChannel
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LocalPointToPointChannel();
    ~LocalPointToPointChannel() override;

    /**
     * \brief Put a frame on the wire: the peer device receives this same packet
     * txTime + Delay from now (plus its jitter, see the file comment).
     * \param p the frame (PPP header on)
     * \param src the sending device
     * \param txTime its transmission time
     * \return true
     */
    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override;

    /**
     * \brief Fix the random stream of the jitter's draws.
     * \param stream first stream index to use
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return the largest extra delay of a frame (the Jitter attribute; 0: none)
    Time GetJitter() const;

protected:
    void DoDispose() override;

private:
    Time m_jitter{0};                        //!< largest extra delay of a frame
    Ptr<UniformRandomVariable> m_jitterRv;   //!< its draws (made when first needed)
    Time m_lastArrival[2]{Time(0), Time(0)}; //!< per wire (by sending end), the latest arrival
};

} // namespace ns3

#endif // MLNET_LOCAL_POINT_TO_POINT_CHANNEL_H
