// SPDX-License-Identifier: GPL-2.0-only
/*
 * PriorityFlowControl: IEEE 802.1Qbb priority flow control at one node of the fast
 * data path, with the egress stage and the buffer model it needs.
 *
 * What is modelled. A node with PFC (aggregated by FabricHelper::SetPfc next to its
 * FastForwarding) holds every frame it sends in an egress stage per output device:
 * eight FIFO queues by FastFrameHeader::priority, served strictly (7 first), that feed
 * the point-to-point device so that its queue holds at most one frame behind the one
 * on the wire (refilled from the device's PhyTxBegin trace), so frames still leave back
 * to back at line rate. A transit frame is charged, from its arrival until it starts
 * transmission on its output device, to its (ingress device, priority) in a buffer
 * shared by the whole node (BufferSize). When the bytes of an ingress port-priority
 * cross the XOFF threshold (static XoffThreshold, or by default the dynamic threshold
 * XoffAlpha x free shared buffer, as Broadcom-style MMUs and HPCC's switch MMU use), the
 * node sends a PAUSE for that priority (quanta 65535, one quantum = 512 bit times) back
 * on that link, refreshes it at half its duration while still above the resume level
 * (XOFF - XonOffset), and sends a PAUSE with quanta 0 (XON) once below it. A node that
 * receives a PAUSE stops serving that priority on that device for the quanta (or until
 * XON); hosts obey too (UdpMessageTransport's NIC scheduler sees the egress stage in its
 * backlog). The node keeps Headroom per ingress port out of the dynamic threshold's free
 * buffer, for what is already on the wire when a PAUSE leaves; a frame that finds the
 * whole buffer full is dropped (BufferDrop; cause "buffer" in TrafficAccounting).
 * PAUSE frames are real 64-byte frames (FastFrameHeader with protocol PAUSE_PROTOCOL,
 * priority = the paused class, srcPort = quanta) handed straight to the device, ahead
 * of the stage's queued data.
 *
 * A watchdog (only armed while some egress priority is paused with frames waiting)
 * looks every DeadlockTimeout for a cycle of paused, stalled ports (each paused port's
 * downstream node itself stalled on a paused port, none of them having sent a frame
 * for DeadlockTimeout); it fires Deadlock and throws std::runtime_error("PFC deadlock:
 * ...") out of Simulator::Run.
 *
 * Left out: one frame of slack (the frame waiting in the device queue is not stopped by
 * a PAUSE), devices that are not point-to-point (bypass the stage), headroom is
 * reserved in aggregate (not per port-priority), frames of the local rank are not
 * charged to the buffer (they are the transport's memory), no PFC on the IPv4 path.
 */
#ifndef MLNET_PRIORITY_FLOW_CONTROL_H
#define MLNET_PRIORITY_FLOW_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fast-frame-header.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

namespace ns3
{

class Node;
class PointToPointNetDevice;

/**
 * \brief PFC (802.1Qbb), egress stage and shared-buffer model of one fast-path node.
 */
class PriorityFlowControl : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PriorityFlowControl();
    ~PriorityFlowControl() override;

    /// FastFrameHeader::protocol of a PAUSE frame (IP protocol 255, reserved).
    static constexpr uint8_t PAUSE_PROTOCOL = 255;
    /// Wire size of a PAUSE frame (bytes, PPP header included), as an Ethernet PAUSE.
    static constexpr uint32_t PAUSE_WIRE_BYTES = 64;
    /// Ingress index of frames sent by the local rank (not charged to the buffer).
    static constexpr uint32_t LOCAL = std::numeric_limits<uint32_t>::max();

    /// \brief Serve the frames of `node` (call after its devices are in place).
    void Install(Ptr<Node> node);

    /**
     * \brief A transit frame arrived on device `inIf`: charge it to (inIf, priority).
     * \return false when the buffer is full (the caller drops it; BufferDrop fired)
     */
    bool Admit(uint32_t inIf, Ptr<const Packet> frame, uint8_t priority);
    /**
     * \brief Send a frame (FastFrameHeader on) by `out` through the egress stage;
     * `inIf` is the device it was charged to by Admit, or LOCAL.
     */
    void Output(Ptr<Packet> frame, Ptr<NetDevice> out, uint32_t inIf, uint8_t priority);
    /// \brief A PAUSE frame arrived on device `inIf` (header already read).
    void ReceivePause(uint32_t inIf, const FastFrameHeader& h);

    /// \return bytes (FastFrameHeader included) waiting in the egress stage of `out`
    uint64_t GetEgressBytes(Ptr<NetDevice> out) const;
    /// \return frames waiting in the egress stage of `out`
    uint32_t GetEgressFrames(Ptr<NetDevice> out) const;
    /// \return frames waiting in all egress stages of the node
    uint32_t GetEgressFrames() const;
    /// \return their bytes (FastFrameHeader included)
    uint64_t GetEgressBytes() const;
    /// \return bytes the node's buffer holds now (wire sizes of charged frames)
    uint64_t GetBufferedBytes() const;

    /// \return PAUSE frames sent (XON included)
    uint64_t GetPausesSent() const;
    /// \return PAUSE frames received (XON included)
    uint64_t GetPausesReceived() const;
    /// \return seconds egress priorities were paused, summed over devices and priorities
    /// (a pause still running counts up to now)
    double GetPausedSeconds() const;
    /// \return largest backlog a frame found ahead of it for one device (bytes in the
    /// egress stage + device queue)
    uint64_t GetMaxQueueBytes() const;
    /// \return frames dropped because the buffer was full
    uint64_t GetBufferDrops() const;
    /**
     * \return the XOFF threshold of an ingress port-priority now (bytes): XoffThreshold,
     * or XoffAlpha x (BufferSize - headroom reserve - buffered bytes)
     */
    uint64_t GetXoff() const;
    /// \return the headroom of a device of this node (bytes): Headroom, or 2 x delay x
    /// rate + 2 MTU frames
    uint64_t GetHeadroom(Ptr<NetDevice> device) const;
    /// \return how long a PAUSE of `quanta` stops a device of this rate
    static Time PauseDuration(uint16_t quanta, DataRate rate);

    /// Signature of PauseSent / PauseReceived: device, priority, quanta.
    using PauseTracedCallback = void (*)(Ptr<NetDevice>, uint8_t, uint16_t);
    /// Signature of Resume: device, priority, time it was paused.
    using ResumeTracedCallback = void (*)(Ptr<NetDevice>, uint8_t, Time);
    /// Signature of BufferDrop: frame (FastFrameHeader on), ingress device.
    using DropTracedCallback = void (*)(Ptr<const Packet>, Ptr<NetDevice>);
    /// Signature of Deadlock: description of the cycle.
    using DeadlockTracedCallback = void (*)(const std::string&);

protected:
    void DoDispose() override;

private:
    /// One frame waiting in the egress stage.
    struct Entry
    {
        Ptr<Packet> frame;
        uint32_t inIf;
        uint32_t charge; //!< bytes charged to the buffer (0 for local frames)
    };

    /// A frame handed to the device, not yet transmitting.
    struct Handed
    {
        const Packet* frame;
        uint32_t inIf;
        uint8_t priority;
        uint32_t charge;
        bool pause; //!< a PAUSE frame (not data: does not count as progress)
    };

    /// One device of the node: its egress stage and its ingress accounting.
    struct Port
    {
        Ptr<NetDevice> device;
        Ptr<PointToPointNetDevice> p2p; //!< null: bypasses the stage
        DataRate rate{0};
        uint64_t headroom{0};
        std::array<std::unique_ptr<std::deque<Entry>>, 8> queues; //!< lazily allocated
        uint64_t bytes{0};                                        //!< in the stage
        uint32_t frames{0};
        std::deque<Handed> handed;
        bool feeding{false};
        Time lastTx{0};
        // Egress side: paused by the downstream neighbour.
        std::array<bool, 8> paused{};
        std::array<Time, 8> pausedSince{};
        std::array<EventId, 8> resume;
        // Ingress side: what frames from this device hold, and our PAUSE state.
        std::array<uint64_t, 8> ingress{};
        std::array<bool, 8> xoff{};
        std::array<EventId, 8> refresh;
    };

    Port& GetPort(uint32_t ifIndex);
    const Port* FindPort(Ptr<NetDevice> device) const;
    void Feed(Port& port);
    void OnPhyTxBegin(uint32_t ifIndex, Ptr<const Packet> p);
    void Release(uint32_t inIf, uint8_t priority, uint32_t charge);
    void SendPause(uint32_t inIf, uint8_t priority, uint16_t quanta);
    void Refresh(uint32_t inIf, uint8_t priority);
    void Resume(uint32_t ifIndex, uint8_t priority);
    void ArmWatchdog();
    void Watchdog();
    /// \return true when `port` has frames of a paused priority and sent nothing for
    /// DeadlockTimeout
    bool Stalled(const Port& port) const;
    /// \return true when a paused priority of `port` holds a frame charged to `inIf`
    static bool Holds(const Port& port, uint32_t inIf);

    Node* m_node{nullptr};
    std::vector<Port> m_ports; //!< by ifIndex
    uint64_t m_bufferSize{0};
    uint64_t m_xoffStatic{0};
    double m_alpha{0.125};
    uint64_t m_xonOffset{0};
    uint64_t m_headroomAttr{0};
    uint64_t m_headroomReserve{0}; //!< sum of the ports' headroom
    Time m_deadlockTimeout;
    uint64_t m_used{0};
    uint32_t m_frames{0};
    uint64_t m_egressBytes{0};
    uint64_t m_pausesSent{0};
    uint64_t m_pausesReceived{0};
    Time m_pausedTotal{0};
    uint32_t m_pausedNow{0};
    uint64_t m_maxQueue{0};
    uint64_t m_bufferDrops{0};
    EventId m_watchdog;
    TracedCallback<Ptr<NetDevice>, uint8_t, uint16_t> m_pauseSentTrace;
    TracedCallback<Ptr<NetDevice>, uint8_t, uint16_t> m_pauseReceivedTrace;
    TracedCallback<Ptr<NetDevice>, uint8_t, Time> m_resumeTrace;
    TracedCallback<Ptr<const Packet>, Ptr<NetDevice>> m_bufferDropTrace;
    TracedCallback<const std::string&> m_deadlockTrace;
};

} // namespace ns3

#endif // MLNET_PRIORITY_FLOW_CONTROL_H
