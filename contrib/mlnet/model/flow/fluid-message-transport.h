// SPDX-License-Identifier: GPL-2.0-only
/*
 * FluidMessageTransport: the flow level. A MessageTransport whose messages are flows of
 * a FluidNetwork instead of packets, so every collective, iteration graph and
 * multi-job workload runs unchanged at flow level: the collectives advance on message
 * arrival exactly as at packet level and generate their messages as they go (no
 * schedule is written down), on ns-3's event loop.
 *
 * What it models. It stands in for a packet-level transport (SetPacketTransport, e.g.
 * the UDP or RDMA transport), whose packetization it takes: a message of m bytes is a
 * flow of W(m) wire bytes over the route the packet run's frames take (the same
 * RoutePlanner tables, the same flow-hash choice for the packet transport's flow key,
 * the same reroutes around failed links), through its sender NIC's FIFO as the packet
 * transport feeds it and sharing the links with the other messages in flight as that
 * transport's senders do (FluidTransfers: line rate with FIFO backlogs for UDP and
 * RDMA, max-min for TCP). When its last byte has left, it is delivered after its
 * route's pipeline latency L = (h-1)*F1*8/R + h*d plus PerMessageOverhead. Routes and
 * latencies come from an AlphaBetaModel, so a collective's flow-level time equals the
 * twin's Predict of its schedule (the same fluid), which a test checks.
 *
 * Link counters. When a message's last byte has left, its W(m) wire bytes and its
 * frames are added to the Cluster's counters of every directed link of its route
 * (Cluster::AddLinkTraffic; an even ECMP split adds each branch its share), so the
 * run's link bytes, bytes by link class and link imbalance are those of the packet
 * level's data frames. The packet transports' own control frames (UDP's and RDMA's
 * acknowledgements, TCP's) are not sent and not counted.
 *
 * Buffers. Each link's backlog is held against its port's buffer (the device queue and
 * queue disc the fabric built): the bytes that would not have fit are what a packet run
 * drops there (or pauses, under PFC), counted by GetLinkQueue. Standing in for the UDP
 * or RDMA transport on a fabric whose switches drop (no PFC: see the Lossless
 * attribute), a full switch
 * port drops them (FluidTransfers::SetBuffers): each transfer through it loses its
 * share, waits only what the port holds, and the transport's repair is followed as for
 * a failure (GetDropRepairs): the receiver asks for the missing packets RepairTimeout
 * after the transfer's tail arrived, and they are re-sent as a transfer of their own,
 * which may lose packets in turn. Otherwise (TCP, Lossless, a forwarding rank's port)
 * they are only counted (the run's health warns about them): the message waits out the
 * whole backlog and nothing is repaired.
 *
 * Link failures. A link that fails during the run stays on the routes of the messages
 * sent until the routes converge (Cluster::HoldRoutes, FaultPlan's Convergence), as
 * frames do; the messages sent after take the new routes. Standing in for the UDP or
 * RDMA transport, a transfer loses what it sends into the failed link in that window
 * and the transport's repair is followed (GetCaughtByFailures), and a transfer still
 * sending at the convergence sends the rest of its packets over the new routes
 * (Cluster trace Rerouted, FluidTransfers::SetRoute: in place, keeping its place at its
 * NIC); standing in for TCP (or nothing),
 * such transfers keep their route, lose nothing and are counted (the run's health
 * warns of them).
 *
 * What it leaves out. Everything the fluid leaves out (fluid-network.h): packets,
 * congestion-control dynamics, PFC pauses, losses at a forwarding rank's port; no
 * frame crosses a device, so pcap and device queues stay empty, and a link's counter
 * moves by a whole message at its transfer's end. Standing in for TCP, a transfer
 * caught by a failure keeps its route after the convergence (its bytes still load the
 * failed link's place); a moved one's parts are counted in whole packets; and
 * the bytes queued at or in flight on the link when it fails are not counted lost. A
 * host relay latency (FabricSpec::relayLatency) is part of a message's latency; a host
 * relay rate cap (FabricSpec::relayRate) is refused at Install.
 */
#ifndef MLNET_FLUID_MESSAGE_TRANSPORT_H
#define MLNET_FLUID_MESSAGE_TRANSPORT_H

#include "ns3/alpha-beta-model.h"
#include "ns3/event-id.h"
#include "ns3/fluid-transfers.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/slot-pool.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief Messages as max-min fair flows over the packet run's routes (the flow level).
 */
class FluidMessageTransport : public MessageTransport
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FluidMessageTransport();
    ~FluidMessageTransport() override;

    /**
     * \brief The packet-level transport this one stands in for. Install installs it on
     * the same cluster to learn its packetization (MTU-dependent) and flow keys;
     * nothing is ever sent through it. Without one, the packetization is the model's
     * (MaxPayload, PerPacketOverhead attributes of AlphaBetaModel) and ECMP is an even
     * split.
     * \param transport a transport not yet installed
     */
    void SetPacketTransport(Ptr<MessageTransport> transport);
    /// \return the packet-level transport stood in for (may be null)
    Ptr<MessageTransport> GetPacketTransport() const;

    void Install(Ptr<Cluster> cluster) override;
    void Send(uint32_t src,
              uint32_t dst,
              uint32_t channel,
              uint32_t tag,
              uint64_t bytes,
              MessageBytes data = nullptr) override;
    /**
     * \brief Send a copy of a message `src` is sending now, made by the switch its
     * frames enter first (a mirroring switch: contrib/checkmate at the flow level).
     *
     * The copy is a transfer of the message's wire bytes from that switch to dst: it
     * loads the links beyond the switch (counted on them like any transfer), not src's
     * own link, queues at the switch's port to its next hop as a sender NIC would, and
     * arrives after the pipeline latency of src's link and that path (its first frame
     * first reaches the switch). Its path: with ports given, on a fabric that routes by
     * per-flow hash, the one the switch's own frames with flow key (the switch's first
     * address, dst's address, UDP, srcPort, dstPort) take (AlphaBetaModel::CopyPath);
     * otherwise src's route to dst beyond the switch. It goes to the channel's handler
     * at dst without being counted as sent or delivered: no rank sent it
     * (MessageTransport::DeliverCopy).
     * Left out: a copy is not held back by its original, so it can leave the switch
     * faster than the original reaches it when the original's first link is slower.
     * Throws std::invalid_argument as Send does, and when src has more than one link
     * (the copy would be made at several switches).
     */
    void SendCopy(uint32_t src,
                  uint32_t dst,
                  uint32_t channel,
                  uint32_t tag,
                  uint64_t bytes,
                  MessageBytes data = nullptr,
                  uint16_t srcPort = 0,
                  uint16_t dstPort = 0);
    uint32_t GetPerPacketOverhead() const override;
    uint32_t GetMaxPayload() const override;
    bool GetFlowKey(uint32_t src, uint32_t dst, FlowKey& key) const override;

    /// \return the model that routes and times the messages (after Install)
    Ptr<AlphaBetaModel> GetModel() const;
    /// \return rate recomputations of the fluid so far
    uint64_t GetRecomputations() const;
    /// \return flows whose rate was recomputed, summed over the recomputations
    uint64_t GetFlowsRecomputed() const;
    /// \return messages in flight (their bytes still leaving)
    uint32_t GetActiveFlows() const;
    /**
     * \brief A directed link's backlog in the fluid against its port's buffer
     * (AlphaBetaModel::GetLinkBuffers): the largest backlog built there and the bytes a
     * port of that buffer could not have queued, so far (zero under max-min sharing).
     * \param key directed link key (2 * link id + (0 if A->B else 1))
     * \return its figures (after Install)
     */
    FluidTransfers::LinkQueue GetLinkQueue(uint32_t key) const;
    /// \return wire bytes of a full frame (maximum payload + per-packet overhead), the
    /// unit in which overflows are counted as frames
    uint32_t GetFrameWireBytes() const;

    /// The stood-in transport's repair of lost packets (GetCaughtByFailures,
    /// GetDropRepairs).
    struct Repairs
    {
        uint64_t messages{0};        //!< messages that lost packets and had them re-sent
        uint64_t lostPackets{0};     //!< packets they lost (each repair's too)
        uint64_t resentWireBytes{0}; //!< wire bytes of the repair transfers
        uint64_t timeouts{0};        //!< repair and probe timeouts that fired
    };

    /// Messages a link failure caught in flight (see GetCaughtByFailures).
    struct FailureCatch
    {
        /// messages whose route crossed a failed link and kept it, losing nothing: the
        /// stood-in transport's repair is not modelled (TCP, none stood in for, or a
        /// copy made by a switch, SendCopy)
        uint64_t messages{0};
        uint64_t wireBytes{0}; //!< their wire bytes (whole messages)
        Repairs repaired;      //!< the others: what they lost and how it was re-sent
    };

    /**
     * \return true when full switch ports drop (standing in for the UDP or RDMA
     * transport, Lossless false, line-rate sharing; after Install)
     */
    bool GetDropsAtFullPorts() const;
    /**
     * \return the packets full switch ports dropped and their repair, so far. A
     * transfer's lost wire bytes (FluidTransfers::GetLost) are counted in packets of its
     * own size, the fractions carried from one transfer to the next so that the total
     * follows the fluid's; the receiver asks for them RepairTimeout after the transfer's
     * last byte arrived, and the missing packets are a transfer of their own, started
     * when the NACK reaches the sender; the message is delivered when the last repair
     * ends whole. A copy made by a switch (SendCopy) loses nothing at full ports.
     */
    Repairs GetDropRepairs() const;

    /**
     * \return the messages whose transfer crossed a link that failed under it, so far.
     * Standing in for a UDP or RDMA transport, the packets a transfer sent into the
     * link between its failure and the routes' convergence (Cluster: failedAt,
     * reroutedAt; in proportion to the time, the transfer's rate taken as even) are
     * lost and repaired as that transport repairs them: the receiver asks for them after
     * RepairTimeout of silence (from its last arrival: the transfer's tail when it ended
     * after the convergence, else the last byte before the failure), the sender probes
     * a message that lost every packet after SenderTimeout (doubled each time), and a
     * NACK or probe before the convergence is lost in turn; the missing packets are
     * then a transfer of their own over the routes of that moment, and the message is
     * delivered when it ends. A transfer still sending at the convergence stops there:
     * the rest of its packets is a transfer over the new routes, and the receiver asks
     * for the lost ones RepairTimeout after the rest's tail arrived. Otherwise (TCP, a
     * switch's copy) the transfer keeps its route and loses nothing (`messages`).
     */
    FailureCatch GetCaughtByFailures() const;

    /// Signature of the FlowCompleted trace: the message, when its last byte left.
    typedef void (*FlowCompletedTracedCallback)(const Message& msg, Time transferEnd);

protected:
    void DoDispose() override;
    /// \return false: the fluid sends no frames, so it runs on a fabric without devices
    bool SendsFrames() const override;

private:
    /// A transfer in flight, by its FluidTransfers handle: its message and latency.
    struct InFlight
    {
        uint32_t message{0};       //!< slot in m_messages
        uint32_t repairPackets{0}; //!< 0: the message's transfer; else a repair of these
        double delivery{0};        //!< L + PerMessageOverhead (s)
    };

    /// What a failed link took from a transfer (CountOnLinks).
    struct Loss
    {
        bool caught{false}; //!< a link of its route has failed
        double start{0};    //!< when the transfer started (s; set when caught)
        double fraction{0}; //!< of its bytes sent into a failed link before the reroute
        uint32_t link{0};   //!< that link (the one taking the largest fraction)
        double failedAt{0}; //!< when it failed (s)
    };

    /// Add a transfer's wire bytes and frames (of `bytes` application bytes) to the
    /// counters of `route`, which it took from `from` (negative: its start, StartOf(x))
    /// to `sent`. \return what failed links on the route took from it
    Loss CountOnLinks(const PackedRoute& route,
                      uint64_t bytes,
                      const InFlight& x,
                      double from,
                      double sent);
    /// \return the application bytes a transfer carries (a repair: its packets' share)
    uint64_t CarriedBytes(const Message& msg, uint32_t repairPackets) const;
    /// \return the packets a transfer carries (its message's, or its repair's)
    uint32_t PacketsOf(const Message& msg, const InFlight& x) const;
    /// \return when a transfer started (s): its message's send, or its repair's start
    double StartOf(const InFlight& x) const;
    /// A transfer that lost `lost` packets ended sending at `sent` (its last byte out of
    /// the backlogs at `end`): set up the stood-in transport's repair (GetCaughtByFailures).
    void BeginRepair(const InFlight& x,
                     const Loss& loss,
                     uint32_t lost,
                     double sent,
                     double end,
                     uint32_t owed = 0);
    /// The routes around a failed link took effect (Cluster trace Rerouted): the
    /// transfers crossing it go on over the new routes (FluidTransfers::SetRoute).
    void Reroute(uint32_t link);
    /// \return the packets of `packets` a transfer lost to a failed link (loss.fraction
    /// > 0): that share, rounded up, at least one
    static uint32_t LostToFailure(const Loss& loss, uint64_t packets);
    /// \return the record of losses to `link` (kNoLink: drops at full ports)
    Repairs& RepairsOf(uint32_t link);
    /// Count `lost` packets a transfer lost to `link` (kNoLink: full ports), and its
    /// message the first time.
    void CountLoss(const InFlight& x, uint32_t lost, uint32_t link);
    /// Schedule the receiver's repair timer of a message that lost `lost` packets to
    /// `link` (kNoLink: full ports): RepairTimeout after its last arrival.
    void NackAfterSilence(uint32_t message,
                          uint32_t lost,
                          uint32_t link,
                          double latency,
                          Time lastArrival);
    /// The receiver's repair timer: the NACK, or (routes not yet around `link`) none;
    /// `link` kNoLink: packets dropped at a full port
    void NackMissing(uint32_t message, uint32_t lost, uint32_t link, double latency);
    /// The sender's probe of a message that lost every packet: its last packet again.
    void Probe(uint32_t message, uint32_t lost, uint32_t link, double latency, Time timeout);
    /// Start the transfer of a message's `lost` missing packets over today's route
    /// (lost to the failed `link`, or kNoLink: dropped at a full port).
    void StartRepair(uint32_t message, uint32_t lost, uint32_t link);
    /// \return the whole packets a transfer of `packets` lost at full ports (its lost
    /// wire bytes, > 0, out of `wire`), the fraction carried to the next (m_dropCarry)
    uint32_t DroppedPackets(double lostWire, double wire, uint64_t packets);
    /// \return true when full ports hold back instead of dropping (see Lossless)
    bool Lossless() const;

    static constexpr uint32_t kNoLink = UINT32_MAX; //!< a loss no failed link caused

    /// What a transfer Reroute moved left on its earlier routes: the packets it sent
    /// there (counted on them) and those it lost there, asked for after its tail.
    struct Owed
    {
        uint32_t packets{0};    //!< lost, to be asked for
        uint32_t link{kNoLink}; //!< the failed link that took some (kNoLink: full ports)
        uint32_t counted{0};    //!< packets sent (and counted) on earlier routes
        double from{-1};        //!< when it took its current route (s; -1: never moved)
    };

    std::unordered_map<uint32_t, Owed> m_owed; //!< by message slot
    bool m_rerouteConnected{false};            //!< Reroute is on the cluster's Rerouted

    /// \return a message sent now
    static Message NewMessage(uint32_t src,
                              uint32_t dst,
                              uint32_t channel,
                              uint32_t tag,
                              uint64_t bytes,
                              MessageBytes data);
    /// Start the transfer of a message on m_shares (senderLinks of them its first hop)
    /// with its latency; `copy` marks a copy (SendCopy).
    void StartTransfer(Message msg, uint32_t senderLinks, double latency, bool copy);
    /// Start a transfer of the message in slot `message` (the whole message, or a
    /// repair of `repairPackets` packets) on m_shares.
    void StartTransferOf(uint32_t message,
                         uint32_t senderLinks,
                         double latency,
                         uint32_t repairPackets);

    /// Recompute the rates the sends and completions since the last call changed,
    /// and schedule the next completion (once per instant, after every send of it).
    void Update();
    /// The completion event: the transfers ending now end (unless the rates moved).
    void CompleteFlows();
    /// End every transfer whose end at the current rates is at or before `now` (s).
    void CompleteDue(double now);
    /// End the transfers ending at t; their messages are delivered after their latency.
    void Finish(double t);
    /// The delivery event of a batch: deliver its messages in order.
    void DeliverBatch(uint32_t batch);

    Ptr<MessageTransport> m_packet;
    Ptr<AlphaBetaModel> m_model;
    std::unique_ptr<FluidTransfers> m_fluid;
    /// Messages from Send until delivered, by slot: stored once, while their transfer
    /// runs and then while their delivery waits (a million at once in a 1024-rank
    /// direct all-to-all)
    SlotPool<Message> m_messages;
    std::unordered_set<uint32_t> m_copies; //!< slots in m_messages holding a copy (SendCopy)
    BlockStore<InFlight> m_inFlight;       //!< by FluidTransfers handle
    FluidNetwork::LinkShares m_shares;     //!< scratch
    /// Per directed link (2 id + B->A), the bytes and frames of even-split shares
    /// counted so far as real numbers; the link counters get their rounding.
    std::vector<double> m_splitBytes;
    std::vector<double> m_splitPackets;
    Time m_perMessageOverhead;
    /// The messages (slots in m_messages) delivered at one instant by one event, in
    /// the order they ended (a record keeps its capacity when reused)
    SlotPool<std::vector<uint32_t>> m_batches;
    FailureCatch m_caught;          //!< see GetCaughtByFailures
    Repairs m_dropped;              //!< see GetDropRepairs
    double m_dropCarry{0};          //!< fraction of a dropped packet carried (DroppedPackets)
    bool m_lossless{false};         //!< the fabric's ports hold back instead of dropping (PFC)
    bool m_dropsAtFullPorts{false}; //!< see GetDropsAtFullPorts
    bool m_repairs{false};          //!< the stood-in transport repairs losses as UDP does
    Time m_repairTimeout;           //!< its RepairTimeout (m_repairs)
    Time m_senderTimeout;           //!< its SenderTimeout (m_repairs)
    /// when each repair transfer in flight started, by message slot (few: kept apart so
    /// that the million records of a direct all-to-all stay 16 bytes)
    std::unordered_map<uint32_t, double> m_repairStarts;
    /// Scratch of Finish: the batches it opened, by delivery instant (time steps); they
    /// are scheduled from it once every FlowCompleted sink has run
    std::unordered_map<int64_t, uint32_t> m_openBatches;
    static constexpr size_t kOpenBatchesKept = 64; //!< see Finish
    EventId m_update;                              //!< the pending Update of this instant
    bool m_updatePending{false};                   //!< an Update of this instant has not run
    bool m_delivering{false};     //!< DeliverBatch is delivering: it runs the Update its sends need
    bool m_updateDeferred{false}; //!< the pending Update is DeliverBatch's (not scheduled)
    EventId m_completion;         //!< the next completion (null when none is pending)
    double m_completionAt{0};
    TracedCallback<const Message&, Time> m_flowCompleted;
};

} // namespace ns3

#endif // MLNET_FLUID_MESSAGE_TRANSPORT_H
