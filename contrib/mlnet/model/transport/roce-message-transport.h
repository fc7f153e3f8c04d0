// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoceMessageTransport: an RDMA-style (RoCEv2) message transport with DCQCN
 * congestion control, over mlnet's fast data path.
 *
 * What it models. It is UdpMessageTransport (same packets, headers, wire overhead,
 * NIC scheduler, receiver-driven selective repair, real payloads, packet hooks) with
 * what a RoCE NIC adds:
 *  - a queue pair per message: it starts at line rate, as NICs do, and while its
 *    current rate Rc is below line rate its packets are paced: after a packet of w wire
 *    bytes it may send again w*8/Rc later (the NIC scheduler serves, round-robin, only
 *    queue pairs whose time has come and wakes at the earliest one). At line rate it is
 *    not paced: the device serialises back to back, so an uncongested message takes
 *    exactly the UDP transport's time;
 *  - frame classes: data frames carry ECN ECT(0) and priority 3 (the lossless RDMA
 *    class), ACK, NACK and CNP frames priority 7 (control) and Not-ECT;
 *  - the notification point (receiver): a data frame that arrives marked CE makes the
 *    receiver send a CNP to the sender, at most one per queue pair per CnpInterval;
 *  - the reaction point (sender): DcqcnRateControl, driven by CNPs, by the alpha timer
 *    (AlphaUpdateInterval, applied when the next CNP comes: only then is alpha read), by
 *    a rate-increase timer (RateIncreaseInterval, running from the first CNP until the
 *    queue pair is back at line rate) and by the byte counter (ByteCounter).
 * Switches mark CE with an EcnMarker (FabricHelper::SetSwitchEcn on a fast fabric).
 * Loss recovery is the inherited selective repair (receiver NACKs of the missing
 * ranges after RepairTimeout, sender probes after SenderTimeout): rare with PFC, and
 * tolerant of the reordering packet spraying causes.
 *
 * What it leaves out. Queue pairs that outlive a message (each message starts at line
 * rate with alpha = 1: a new message knows nothing of the congestion its predecessor
 * saw), go-back-N, HPCC / Swift / TIMELY, NIC processing delay, the CNP's own
 * priority queueing at hosts (ACK, NACK and CNP bypass the NIC scheduler, as on the
 * UDP transport). The IPv4 data path (it needs the fast path's frame classes).
 */
#ifndef MLNET_ROCE_MESSAGE_TRANSPORT_H
#define MLNET_ROCE_MESSAGE_TRANSPORT_H

#include "ns3/data-rate.h"
#include "ns3/dcqcn-rate-control.h"
#include "ns3/udp-message-transport.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief RDMA-style message transport: per-message queue pairs paced by DCQCN.
 */
class RoceMessageTransport : public UdpMessageTransport
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceMessageTransport();
    ~RoceMessageTransport() override;

    /**
     * \brief Install on a fast-path cluster, or on one without devices (data path
     * "none", the flow level's graph: the fluid asks it only what its frames would be,
     * and Send refuses). Throws std::invalid_argument on the IPv4 data path, or for
     * DCQCN attributes out of range for a rank's link rate.
     */
    void Install(Ptr<Cluster> cluster) override;

    /// \return CNPs sent by receivers
    uint64_t GetCnpsSent() const;
    /// \return CNPs received by senders (also those for messages already done)
    uint64_t GetCnpsReceived() const;
    /// \return rate decreases (CNPs that reached a live queue pair)
    uint64_t GetRateDecreases() const;
    /// \return the DCQCN parameters of a queue pair leaving by a device of `lineRate`
    DcqcnRateControl::Parameters GetDcqcnParameters(DataRate lineRate) const;

    /// Signature of the Rate trace: src rank, dst rank, message id, new rate (bit/s).
    using RateTracedCallback = void (*)(uint32_t, uint32_t, uint32_t, double);

protected:
    void DoDispose() override;
    Time NextSendTime(uint32_t rank, uint64_t key, const OutMessage& m) const override;
    void OnDataSent(uint32_t rank,
                    uint64_t key,
                    const OutMessage& m,
                    uint32_t wireBytes,
                    bool retransmission) override;
    void OnMessageEnd(uint32_t rank, uint64_t key) override;
    void SetFrameClass(FastFrameHeader& h, MlnetTransportHeader::PacketType type) const override;
    void HandleFrame(uint32_t rank, Ptr<Packet> p, const FastFrameHeader& h) override;
    void OnOtherPacket(uint32_t rank,
                       uint32_t peer,
                       const MlnetTransportHeader& h,
                       Ptr<Packet> p) override;

private:
    /// Sender state of one message's queue pair.
    struct QueuePair
    {
        explicit QueuePair(const DcqcnRateControl::Parameters& p)
            : cc(p)
        {
        }

        DcqcnRateControl cc;
        uint32_t dst{0};
        uint32_t id{0};
        Time nextSend;     //!< paced: earliest time of the next packet
        Time alphaEpoch;   //!< last alpha update (CNP or start)
        EventId rateTimer; //!< rate-increase timer (running while below line rate)
        Time lastSend;     //!< when it last sent a data packet
        Time timerStopped; //!< when its rate timer stopped for idleness (QueuePairPerPeer)
    };

    /// The queue pair a message rides: its peer's (QueuePairPerPeer) or its own.
    uint64_t QpKey(uint32_t peer, uint32_t messageId) const;
    /// Restart an idle pair's rate timer, applying the periods it missed.
    void ResumeRateTimer(uint32_t rank, uint64_t qpKey, QueuePair& qp);

    /// Receiver: a CE-marked data packet of message `id` from `src` arrived at `rank`.
    void OnCongestionMark(uint32_t rank, uint32_t src, const MlnetTransportHeader& h);
    /// Sender: a CNP about message `h.GetMessageId()` to `peer` arrived at `rank`.
    void OnCnp(uint32_t rank, uint32_t peer, const MlnetTransportHeader& h);
    void OnRateTimer(uint32_t rank, uint64_t key);
    /// Apply the alpha timer's decays since the last update (lazily, before a CNP).
    void CatchUpAlpha(QueuePair& qp) const;
    void TraceRate(uint32_t rank, const QueuePair& qp);

    // Attributes
    Time m_retransmitTimeout; //!< attribute RetransmitTimeout
    bool m_perPeer{false};    //!< attribute QueuePairPerPeer
    Time m_cnpInterval;
    Time m_alphaInterval;
    Time m_rateInterval;
    uint64_t m_byteCounter;
    uint32_t m_fastRecoverySteps;
    DataRate m_rateAi;
    DataRate m_rateHai;
    DataRate m_minRate;
    double m_g;
    uint8_t m_dataPriority;

    std::vector<std::unordered_map<uint64_t, QueuePair>> m_qps; //!< per sender rank
    /// per receiver rank: when the last CNP for Key(src, id) was sent
    std::vector<std::unordered_map<uint64_t, Time>> m_lastCnp;
    std::vector<size_t> m_lastCnpSwept; //!< size of m_lastCnp[r] after its last sweep

    uint64_t m_cnpsSent{0};
    uint64_t m_cnpsReceived{0};
    uint64_t m_rateDecreases{0};

    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_cnpSentTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, double> m_rateTrace;
};

} // namespace ns3

#endif // MLNET_ROCE_MESSAGE_TRANSPORT_H
