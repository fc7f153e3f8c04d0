// SPDX-License-Identifier: GPL-2.0-only
/*
 * TrafficAccounting: where every message and every frame of a run went, and the
 * check that none was created or lost without a trace.
 *
 * What it models. Attached once to a Cluster (and the transports working on it) by
 * the runner layer, before Simulator::Run, it counts at two levels:
 *
 *  - messages (from the transports' own counters): sent, delivered, abandoned (the
 *    transport gave up on a message it never delivered) and in flight (the rest);
 *  - frames and their wire bytes (PPP frames as they are on the wire), from the
 *    standard ns-3 trace sources: sent by hosts (Ipv4L3Protocol SendOutgoing at a
 *    rank, or FastForwarding Tx), mirrored (sent by a switch's own stack: Checkmate's
 *    gradient clones), forwarded (UnicastForward / FastForwarding Forward), delivered
 *    (LocalDeliver / FastForwarding Deliver), re-sent (the transports' retransmission
 *    counters, a subset of sent), dropped (where: the link class of the device, or
 *    "host" / "switch" for a node's own drops; why: "buffer" for a PFC node's full
 *    shared buffer (PriorityFlowControl BufferDrop), "queue" for a device queue
 *    (MacTxDrop) or traffic-control queue disc overflow, "failed-link" for PhyRxDrop
 *    on a link failed by Cluster::FailLink, "phy" for other PhyRxDrop / PhyTxDrop,
 *    "no-route" for IPv4 / fast-path routing drops (also a frame for a rank without
 *    transport), "other" for the remaining IPv4 drop reasons), and in flight at the end
 *    (in queue discs, device queues, on the wire, and frames the fast path holds for
 *    OrderSimultaneousArrivals).
 *
 * Close(), after Simulator::Run, sums the counts over the processes of a distributed
 * run and checks conservation:
 *
 *   messages (and bytes): sent = delivered + abandoned + in flight, in flight >= 0
 *   frames (and wire bytes): sent by hosts + mirrored
 *                              = delivered + dropped + in flight
 *   every device: frames handed to it = queue drops + transmitted + still queued
 *
 * where the frames in flight are measured (queues, and on the wire: transmissions
 * started less arrivals and PHY drops), not taken as the remainder. A violation
 * throws std::logic_error naming the counts: a frame or message went somewhere the
 * accounting does not see, which is a bug to find, not a rounding error. The result
 * of each Close is kept in a process-wide log that RunReport turns into the
 * "accounting" section of a results document.
 *
 * Frames a fabric extension holds outside the point-to-point devices count as on the
 * wire; one that loses frames there reports them (CountLostOnWire: topoopt's optical
 * circuit switch tearing a circuit down under its frames).
 *
 * PAUSE frames of priority flow control are link-level: counted apart (sent, received,
 * lost), taken out of the frames in flight, and balanced on their own:
 *
 *   PAUSE frames: sent = received + lost + in flight, in flight >= 0
 *
 * Health counters beside them: transport timeouts and the wire bytes of re-sent frames
 * (the transports' GetTimeouts / GetBytesResent), the largest switch egress backlog
 * seen (device queue plus queue disc, sampled when a frame is queued at a switch
 * port), and the PFC pause and ECN marking counts a lossless-fabric or RDMA model
 * fills in (zero without one). All are summed over processes except the largest
 * queue, which is their maximum.
 *
 * At the flow level no frame moves; for a FluidMessageTransport the counts carry what
 * its fluid predicts instead: the largest backlog it built at a link and, by link
 * class, the bytes that exceeded the ports' buffers (FluidMessageTransport::
 * GetLinkQueue), in full frames, apart for switch ports and for ports of ranks that
 * forward, the frames full switch ports dropped and the fluid re-sent (GetDropRepairs),
 * and what link failures did to the messages in flight (GetCaughtByFailures: the frames
 * lost and re-sent as the stood-in transport repairs them, or the messages that kept
 * their route where that repair is not modelled). They are read from this process's
 * transports (the flow level runs in one process) and play no part in the conservation check.
 *
 * Left out: per-priority or per-flow breakdowns. In a distributed run a UDP sender
 * cannot see whether a receiver in another process completed a message it gives up
 * on, and counts it as abandoned.
 */
#ifndef MLNET_TRAFFIC_ACCOUNTING_H
#define MLNET_TRAFFIC_ACCOUNTING_H

#include "ns3/cluster.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/message-transport.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class QueueDisc;
class QueueDiscItem;
class FastForwarding;
class FluidMessageTransport;
class PriorityFlowControl;

/**
 * \brief Counts of one run as TrafficAccounting::Close found them.
 */
struct TrafficCounts
{
    /// A number of units and their bytes.
    struct Amount
    {
        uint64_t count{0}; //!< messages or frames
        uint64_t bytes{0}; //!< application bytes (messages) or wire bytes (frames)
    };

    /// One place and cause of drops.
    struct Drop
    {
        std::string where; //!< link class, or "host" / "switch" for a node's own drops
        std::string cause; //!< queue, buffer, failed-link, phy, no-route, other
        Amount frames;     //!< frames and wire bytes dropped there
    };

    std::string fabric;     //!< FabricSpec::kind
    std::string dataPath;   //!< ipv4 or fast
    std::string transports; //!< transport type names, comma separated

    Amount messagesSent;      //!< messages handed to the transports
    Amount messagesDelivered; //!< whole messages delivered to their receivers
    Amount messagesAbandoned; //!< given up by the transport, never delivered
    Amount messagesInFlight;  //!< sent - delivered - abandoned

    Amount framesSent;        //!< frames put on the network by hosts (re-sent included)
    uint64_t framesResent{0}; //!< of those, retransmissions (transport counters)
    Amount framesMirrored;    //!< frames sent by switches' own stacks (Checkmate clones)
    Amount framesForwarded;   //!< hops: frames sent on by a switch or forwarding host
    Amount framesDelivered;   //!< frames consumed by their destination node's stack
    Amount framesDropped;     //!< total of drops
    Amount framesInFlight;    //!< queued or on the wire at the end
    std::vector<Drop> drops;  //!< non-zero drops by place and cause, largest first

    // Priority flow control (PriorityFlowControl; zero without it). PAUSE frames are
    // link-level: not in the frame counts above, balanced on their own.
    uint64_t pfcPausesSent{0};     //!< PFC PAUSE frames sent (all ports and priorities)
    uint64_t pfcPausesReceived{0}; //!< PFC PAUSE frames received
    double pfcPausedSeconds{0};    //!< time paused, summed over ports and priorities
    uint64_t maxQueueBytes{0};     //!< largest switch device queue or PFC egress stage seen (bytes)
    uint64_t ecnMarked{0};         //!< frames marked CE by switches
    uint64_t timeouts{0};          //!< transport timeouts (probes, repair timers, TCP RTOs)
    uint64_t bytesResent{0};       //!< wire bytes of retransmitted frames

    // The flow level (FluidMessageTransport; zero at packet level): its backlogs held
    // against the ports' buffers. Predictions of the fluid, not measured frames.
    uint64_t fluidPeakBacklogBytes{0}; //!< largest backlog the fluid built at one link
    Amount fluidOverflow;              //!< full frames (and wire bytes) no buffer had room for
    std::vector<Drop> fluidOverflows;  //!< by link class and port, largest first
    Amount fluidCaught;                //!< messages (and wire bytes) crossing a link when it failed
                                       //!< that kept their route (repair not modelled)
    Amount fluidRepaired;              //!< frames a link failure took and the fluid re-sent
                                       //!< (and their wire bytes)
    Amount fluidDropRepaired;          //!< frames full switch ports dropped and the fluid
                                       //!< re-sent (and the repairs' wire bytes)
    uint64_t fluidRepairTimeouts{0};   //!< repair and probe timeouts of both kinds of repair

    /// cause of an overflow at a switch port the fluid holds back (PFC, or a transport
    /// standing in for one that adapts): a packet-level run drops it (or pauses)
    static constexpr const char* SWITCH_BUFFER = "switch-buffer";
    /// cause of an overflow at a switch port the fluid dropped, and the transport
    /// repaired (fluidDropRepaired), as a packet-level run does
    static constexpr const char* SWITCH_DROP = "switch-drop";
    /// cause of an overflow at the port of a rank that forwards: a packet-level run holds
    /// that rank's own sends back (its NIC scheduler counts the frames it relays)
    static constexpr const char* RANK_BUFFER = "rank-buffer";

    /// \return the counts as JSON (the "accounting" entries of a results document)
    nlohmann::json ToJson() const;
    /**
     * \return one line for people when something was dropped, re-sent, timed out,
     * paused or marked, e.g. "dropped 1234 frames (tor-agg queue 1200, host-tor
     * failed-link 34), re-sent 1234 (12.3 MB), 40 timeouts, max queue 1.2 MB";
     * empty when nothing was
     */
    std::string Summary() const;
    /// \return the drops for people: "tor-agg queue 1200, host-tor failed link 34"
    std::string DropList() const;
    /// \return the fluid's overflows for people, as DropList: "tor-agg buffer 1200"
    std::string OverflowList() const;
};

/**
 * \brief Message and frame accounting of a cluster, with the conservation check.
 */
class TrafficAccounting : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TrafficAccounting();
    ~TrafficAccounting() override;

    /**
     * \brief The accounting of a cluster: made and connected on the first call
     * (aggregated to the cluster), the same object afterwards. Call before the run's
     * traffic starts; transports that start on the cluster later are added by
     * themselves (Cluster ObjectBound). Attached with a FluidMessageTransport, it
     * connects no frame trace until a transport that sends frames is added.
     * \param cluster the fabric, built (links, stacks and queue discs in place)
     * \param transport a transport to count (or null)
     * \return the cluster's accounting
     */
    static Ptr<TrafficAccounting> Attach(Ptr<Cluster> cluster,
                                         Ptr<MessageTransport> transport = nullptr);
    /// \brief Count a transport's messages too (once, however often it is added); the
    /// first one that is not a FluidMessageTransport connects the frame traces.
    void AddTransport(Ptr<MessageTransport> transport);
    /**
     * \return whether frames are counted: the device and node traces are connected
     * unless the accounting was attached with a FluidMessageTransport (a flow-level run
     * sends no frame) and no other transport was added since
     */
    bool AreFramesCounted() const;

    /**
     * \brief Count a frame lost after its device began to transmit it, where no device
     * trace sees it: in a channel of a fabric extension (topoopt's optical circuit
     * switch tearing down a circuit under it). A "phy" drop on the device's link.
     * \param sender the device that transmitted the frame
     * \param frame the frame (PPP header on)
     */
    void CountLostOnWire(Ptr<NetDevice> sender, Ptr<const Packet> frame);

    /// \return the counts of this process so far (in flight measured now)
    TrafficCounts GetCounts() const;
    /// \return true once Close has run (GetClosedCounts has an answer)
    bool IsClosed() const;
    /**
     * \brief The counts the last Close returned (its entry in the log): what a runner
     * reports beside the run's row. Throws std::logic_error before the first Close.
     */
    TrafficCounts GetClosedCounts() const;
    /**
     * \brief End of a run (after Simulator::Run, before Simulator::Destroy): merge the
     * counts over the processes of a distributed run (every process must call it),
     * check conservation and record the counts in the log (a later Close of the same
     * accounting replaces its entry). Throws std::logic_error naming the counts when
     * conservation does not hold.
     * \return the merged counts
     */
    TrafficCounts Close();

    /// \return how many entries the log holds (a position to list from later)
    static std::size_t LogCount();
    /// \return the log's entries from position `first` on, in order
    static std::vector<TrafficCounts> LogSince(std::size_t first);

    /// Signature of the FrameDropped trace: frame (PPP header on when the device had
    /// added it), where, cause.
    typedef void (*FrameDroppedCallback)(Ptr<const Packet> frame,
                                         const std::string& where,
                                         const std::string& cause);

protected:
    void DoDispose() override;

private:
    /**
     * Let go of the transports at Simulator::Destroy: the accounting is aggregated to
     * its cluster, and a transport holds the cluster, so holding the transports past
     * the simulation would keep the whole fabric alive (a reference cycle).
     */
    void Release();

    /// Frame counters, each with frames and bytes.
    enum Counter
    {
        SENT_HOST,
        SENT_SWITCH,
        FORWARDED,
        DELIVERED,
        MAC_TX,
        MAC_TX_DROP,
        PHY_TX_BEGIN,
        PHY_TX_DROP,
        PHY_RX_END,
        PHY_RX_DROP,
        PAUSE_SENT,     //!< PAUSE frames (PriorityFlowControl), outside the data balance
        PAUSE_RECEIVED, //!< PAUSE frames consumed by the node they were sent to
        PAUSE_DROPPED,  //!< PAUSE frames lost (device queue, PHY)
        N_COUNTERS
    };

    /// Drop causes (columns of the drop table).
    enum Cause
    {
        QUEUE,
        BUFFER, //!< a PFC node's shared buffer was full
        FAILED_LINK,
        PHY,
        NO_ROUTE,
        OTHER,
        N_CAUSES
    };

    /// Drop places, the ObjectBound hook and, with countFrames, ConnectFrames.
    void Connect(Ptr<Cluster> cluster, bool countFrames);
    /// Connect every device's and node's frame traces (once).
    void ConnectFrames();
    void ConnectDevice(Ptr<PointToPointNetDevice> dev, uint32_t linkId);
    void ConnectNode(Ptr<Node> node, bool isRank);
    void OnObjectBound(Ptr<Object> object);

    void Count(Counter c, uint64_t bytes);
    void CountDrop(uint32_t where, Cause cause, Ptr<const Packet> p, uint64_t bytes);
    // Device traces (frames with their PPP header).
    void OnFrame(Counter c, Ptr<const Packet> p);
    void OnMacTx(uint32_t device, Ptr<const Packet> p);
    void OnDeviceDrop(uint32_t where, Cause cause, Counter c, Ptr<const Packet> p);
    void OnPhyRxDrop(const NetDevice* dev, Ptr<const Packet> p);
    // IPv4 traces (packets without IP header; +header +PPP on the wire).
    void OnIpv4(Counter c, const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface);
    void OnIpv4Drop(uint32_t where,
                    const Ipv4Header& h,
                    Ptr<const Packet> p,
                    Ipv4L3Protocol::DropReason reason,
                    Ptr<Ipv4> ipv4,
                    uint32_t iface);
    void OnQueueDiscDrop(uint32_t device, Ptr<const QueueDiscItem> item);
    /// IPv4 Tx: a packet (IP header on) handed to an interface's traffic control.
    void OnIpv4Tx(Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t iface);
    // Fast data path traces (frames with FastFrameHeader, without PPP header).
    void OnFast(Counter c, Ptr<const Packet> p, uint32_t rank);
    void OnFastDrop(uint32_t where, Ptr<const Packet> p, uint32_t rank);
    // PriorityFlowControl traces.
    void OnBufferDrop(uint32_t where, Ptr<const Packet> p, Ptr<NetDevice> in);
    void OnPause(Counter c, Ptr<NetDevice> dev, uint8_t priority, uint16_t quanta);
    /// \return true for a PAUSE frame (PPP header on or not); false without PFC nodes
    bool IsPause(Ptr<const Packet> p) const;
    /// A frame was queued at switch port `device`: sample its backlog.
    void SampleQueue(uint32_t device);
    void OnDeviceEnqueue(uint32_t device, Ptr<const Packet> p);
    void OnQueueDiscEnqueue(uint32_t device, Ptr<const QueueDiscItem> item);

    /// Index of a drop place (link class, "host", "switch"), fixed by Connect.
    uint32_t WhereIndex(const std::string& where) const;
    /// All counters as one vector (the order ProcessRuntime::SumAll merges).
    std::vector<uint64_t> Flatten() const;
    TrafficCounts Build(const std::vector<uint64_t>& flat) const;
    /// \brief Add a flow-level transport's backlog figures to counts `c`.
    void AddFluidQueues(Ptr<FluidMessageTransport> fluid, TrafficCounts& c) const;
    static void Check(const TrafficCounts& c, const std::vector<uint64_t>& flat);
    /// \return the largest backlog seen by this process (device queues, PFC stages)
    uint64_t MaxQueueBytes() const;

    /// One link device and what passed through its traffic control.
    struct Device
    {
        Ptr<PointToPointNetDevice> device;
        uint32_t linkId{0};
        Ptr<QueueDisc> qdisc;           //!< root queue disc (IPv4 path), or null
        bool ipv4{false};               //!< its node has an IPv4 stack (and traffic control)
        bool atSwitch{false};           //!< its node is not a rank (a switch port)
        uint64_t toTc[2]{0, 0};         //!< frames, bytes IPv4 handed to traffic control
        uint64_t macTx[2]{0, 0};        //!< frames, bytes handed to the device
        uint64_t qdiscDropped[2]{0, 0}; //!< frames, bytes its queue disc dropped
    };

    Cluster* m_cluster{nullptr}; //!< the cluster this is aggregated to (not owned: a Ptr would keep
                                 //!< the aggregate alive)
    std::vector<Ptr<MessageTransport>> m_transports;
    std::vector<Device> m_devices;                                //!< every link device
    std::vector<Ptr<FastForwarding>> m_fast;                      //!< fast-path nodes
    std::vector<Ptr<PriorityFlowControl>> m_pfc;                  //!< nodes with PFC
    std::unordered_map<const NetDevice*, uint32_t> m_deviceIndex; //!< device -> m_devices
    bool m_framesCounted{false};                                  //!< ConnectFrames has run
    std::array<uint64_t, 2 * N_COUNTERS> m_counters{};            //!< frames, bytes
    std::vector<std::string> m_where;                             //!< drop places
    std::vector<std::array<uint64_t, 2 * N_CAUSES>> m_drops;      //!< by place: frames, bytes
    int64_t m_logEntry{-1};      //!< this accounting's entry in the log, once closed
    uint64_t m_maxQueueBytes{0}; //!< largest switch port backlog sampled
    TracedCallback<Ptr<const Packet>, const std::string&, const std::string&> m_dropTrace;
};

} // namespace ns3

#endif // MLNET_TRAFFIC_ACCOUNTING_H
