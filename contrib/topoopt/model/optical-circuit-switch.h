// SPDX-License-Identifier: GPL-2.0-only
/*
 * OpticalCircuitSwitch: one optical plane of a TopoOpt fabric (a patch panel or an OCS).
 *
 * What it models. N ports, each cabled to one server NIC port (a
 * PointToPointNetDevice attached through an OcsPortChannel). The switch holds a
 * partial matching of bidirectional circuits; a frame sent on a port with a live
 * circuit reaches the peer port's device after exactly the time a
 * point-to-point link of the same rate and delay takes (serialization at the
 * device's DataRate, then FibreDelay). Reconfigure() installs a new full or
 * partial matching: circuits that do not change keep carrying traffic, the ports
 * whose peer changes go dark for the ReconfigurationDelay. What happens to
 * traffic on a port that goes dark is the DarkPortPolicy:
 *   - Drop: frames sent while dark are lost, and so are frames on the fibre when
 *     the mirror moves (the ns-3 circuit-switch fork's behaviour);
 *   - Buffer: frames sent while dark are held at the sender and leave back to back
 *     at line rate when the port's new circuit is up (SiP-ML / Etalon VOQs); frames
 *     already on the fibre when the mirror moves are lost;
 *   - DrainThenSwitch: the changing ports stop taking new frames (they are held as
 *     with Buffer), the frames already sent finish arriving, then the mirrors
 *     move, then the delay passes (FlexNetPacket: pause, drain, swap, wait; lossless).
 * A schedule (a list of matchings with dark and live durations, repeated) runs
 * periodic reconfiguration, as a rotor or a dynamic TopoOpt would. A transceiver
 * power budget (launch power - insertion loss >= receiver sensitivity + margin)
 * is checked whenever circuits are set up.
 *
 * What it leaves out: the optics themselves (no per-port loss variation, no
 * crosstalk, no bit errors), port-by-port sequencing of a robotic patch panel
 * (all changing ports move together), transceiver re-lock time beyond the
 * reconfiguration delay, and a bound on the hold buffer (held frames wait in an
 * unbounded FIFO at the sender; the device keeps serializing into it, so the
 * queue disc sees no backpressure while a port is dark).
 */
#ifndef TOPOOPT_OPTICAL_CIRCUIT_SWITCH_H
#define TOPOOPT_OPTICAL_CIRCUIT_SWITCH_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

namespace ns3
{

class OcsPortChannel;

/**
 * \brief An optical circuit switch (or patch panel): a reconfigurable matching of ports.
 */
class OpticalCircuitSwitch : public Object
{
public:
    /// Optical technology of the plane (sets the default delay and loss).
    enum Technology
    {
        PATCH_PANEL, //!< robotic patch panel: minutes to reconfigure, low loss
        OCS          //!< MEMS optical circuit switch: milliseconds, about 2 dB
    };

    /// What happens to traffic on a port whose circuit is being reconfigured.
    enum DarkPortPolicy
    {
        DROP,             //!< frames sent while dark (and on the fibre) are lost
        BUFFER,           //!< frames sent while dark wait at the sender for the new circuit
        DRAIN_THEN_SWITCH //!< pause, let sent frames arrive, switch, wait: lossless
    };

    /// A set of circuits: pairs of port indexes, each port at most once.
    using Matching = std::vector<std::pair<uint32_t, uint32_t>>;

    /// One slot of a reconfiguration schedule.
    struct ScheduleEntry
    {
        Matching matching; //!< full matching of this slot
        Time live;         //!< how long the slot's circuits carry traffic (> 0)
        Time dark{-1};     //!< how long changing ports stay dark (< 0: ReconfigurationDelay)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    OpticalCircuitSwitch();
    ~OpticalCircuitSwitch() override;

    /**
     * \brief Cable a server port to the next free switch port.
     *
     * Attaches the device to a new OcsPortChannel, sets its DataRate to the switch's
     * DataRate and the channel's Delay to FibreDelay. The device must not be attached
     * to a channel yet; add it to its node before or after, as for any device.
     * \param device the server's port
     * \return the switch port index (0, 1, ...)
     * Throws std::invalid_argument when all PortCount ports are used.
     */
    uint32_t AddPort(Ptr<PointToPointNetDevice> device);
    /// \return ports cabled so far
    uint32_t GetNPorts() const;
    /// \return the device cabled to a port
    Ptr<PointToPointNetDevice> GetPortDevice(uint32_t port) const;
    /// \return the device at the other end of a port's live circuit, or null (none, or dark)
    Ptr<PointToPointNetDevice> GetPeerDevice(uint32_t port) const;
    /// \return the peer port of a live circuit, or -1 (no circuit, or dark)
    int64_t GetPeer(uint32_t port) const;
    /// \return the live circuits, (a, b) with a < b, by a
    Matching GetMatching() const;
    /// \return true while the port waits for its new circuit (dark)
    bool IsDark(uint32_t port) const;
    /// \return true while the port drains before switching (DrainThenSwitch)
    bool IsDraining(uint32_t port) const;
    /// \return total time the port has been dark, including a dark period in progress
    Time GetDarkTime(uint32_t port) const;
    /// \return frames waiting at the sender on a port (Buffer, DrainThenSwitch)
    uint32_t GetHeldFrames(uint32_t port) const;

    /**
     * \brief Set the circuits at once, with no dark time (initial cabling, before traffic).
     * Throws std::invalid_argument for a bad matching or an infeasible power budget.
     */
    void SetMatching(const Matching& matching);
    /**
     * \brief Move to a new full matching: ports not in it lose their circuit.
     * Ports whose peer does not change keep carrying traffic.
     * Throws std::invalid_argument for a bad matching, a port still reconfiguring,
     * a running schedule, or an infeasible power budget.
     */
    void Reconfigure(const Matching& matching);
    /**
     * \brief Change only the circuits of the ports named in `matching`; their former
     * peers lose their circuit, every other circuit stays as it is.
     * Throws as Reconfigure().
     */
    void ReconfigurePartial(const Matching& matching);
    /**
     * \brief Run a periodic schedule: for each entry, reconfigure to its matching (changed
     * ports dark for its dark time), then keep it live for its live time; repeat.
     * \param entries the slots (at least one)
     * \param repetitions how many times the list runs (0: until Simulator::Stop)
     * \param start when the first slot's reconfiguration starts (relative to now)
     * Throws std::invalid_argument for a bad entry.
     */
    void SetSchedule(const std::vector<ScheduleEntry>& entries,
                     uint32_t repetitions,
                     Time start = Seconds(0));
    /// \brief Stop a running schedule after the reconfiguration in progress (if any).
    void CancelSchedule();
    /// \return true while a schedule runs
    bool IsScheduleRunning() const;

    /// \return the reconfiguration delay in use (the technology default if not set)
    Time GetReconfigurationDelay() const;
    /// \return the insertion loss in use (dB; the technology default if not set)
    double GetInsertionLossDb() const;
    /// \return launch power - insertion loss - receiver sensitivity - required margin (dB)
    double GetPowerBudgetSlackDb() const;
    /**
     * \brief Check the transceiver power budget.
     * Throws std::invalid_argument naming the numbers when the received power falls
     * short of the receiver sensitivity plus the margin.
     */
    void CheckPowerBudget() const;

    /// \return frames delivered over live circuits
    uint64_t GetFramesDelivered() const;
    /// \return frames lost because their port was dark (DroppedWhileDark fired)
    uint64_t GetFramesDroppedWhileDark() const;
    /// \return frames that had to wait at the sender for a circuit
    uint64_t GetFramesHeld() const;

    /**
     * \brief Called by a port's channel when its device starts sending a frame.
     * \return false if the frame is dropped at once (dark port, Drop policy)
     */
    bool Transmit(uint32_t port, Ptr<const Packet> p, Time txTime);

    /// TracedCallback signature of ReconfigurationStart / End: (id, ports).
    typedef void (*ReconfigurationTracedCallback)(uint32_t id, const std::vector<uint32_t>& ports);
    /// TracedCallback signature of DroppedWhileDark: (packet, port).
    typedef void (*DroppedTracedCallback)(Ptr<const Packet> packet, uint32_t port);

protected:
    void DoDispose() override;

private:
    enum PortState
    {
        LIVE,     //!< has a circuit or is simply unconnected
        DRAINING, //!< DrainThenSwitch: holds new frames, waits for sent ones to arrive
        DARK      //!< mirrors moving
    };

    /// A frame handed to the fibre (or waiting behind others on it).
    struct Flight
    {
        Ptr<Packet> packet;
        Time start;   //!< when its first bit enters the fibre
        Time txTime;  //!< serialization time
        uint64_t seq; //!< matches the delivery event
    };

    /// A frame held at the sender.
    struct Held
    {
        Ptr<Packet> packet;
        Time txTime;
    };

    struct Port
    {
        Ptr<PointToPointNetDevice> device;
        Ptr<OcsPortChannel> channel;
        int64_t peer{-1};        //!< live peer (-1 none)
        int64_t pendingPeer{-1}; //!< peer after the reconfiguration in progress
        PortState state{LIVE};
        Time wireFreeAt{0};         //!< when the last scheduled frame leaves the sender
        std::deque<Flight> flights; //!< frames on (or queued for) the fibre, in order
        std::deque<Held> held;      //!< frames waiting for a circuit
        Time darkSince{0};
        Time darkTotal{0};
    };

    void ValidateMatching(const Matching& matching) const;
    /// The peer a port has, or will have once its reconfiguration in progress ends.
    int64_t Target(uint32_t port) const;
    std::vector<int64_t> PeersAfter(const Matching& matching, bool partial) const;
    /// Start a reconfiguration to `next`; `done` runs when the new circuits are up.
    void Begin(const std::vector<int64_t>& next, Time dark, std::function<void()> done);
    void GoDark(uint32_t id, std::vector<uint32_t> ports, Time dark, std::function<void()> done);
    void ComeUp(uint32_t id, std::vector<uint32_t> ports, std::function<void()> done);
    void Launch(uint32_t port, Ptr<Packet> p, Time txTime);
    void Deliver(uint32_t port, uint64_t seq);
    void DropFrame(uint32_t port, Ptr<const Packet> p);
    void RunScheduleSlot();
    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const;
    void SetFibreDelay(Time delay);
    Time GetFibreDelay() const;

    // Attributes
    Technology m_technology{OCS};
    DarkPortPolicy m_policy{DROP};
    uint32_t m_portCount{136};
    Time m_reconfigurationDelay{-1};
    DataRate m_rate{"100Gbps"};
    Time m_fibreDelay{MicroSeconds(1)};
    double m_insertionLossDb{-1};
    double m_launchPowerDbm{0};
    double m_receiverSensitivityDbm{-10};
    double m_marginDb{3};

    std::vector<Port> m_ports;
    uint64_t m_nextSeq{0};
    uint32_t m_nextReconfiguration{0};
    uint64_t m_delivered{0};
    uint64_t m_dropped{0};
    uint64_t m_held{0};

    std::vector<ScheduleEntry> m_schedule;
    uint32_t m_scheduleRepetitions{0};
    uint32_t m_scheduleSlot{0};
    uint32_t m_scheduleRound{0};
    bool m_scheduleRunning{false};
    EventId m_scheduleEvent;

    TracedCallback<uint32_t, const std::vector<uint32_t>&> m_reconfigurationStartTrace;
    TracedCallback<uint32_t, const std::vector<uint32_t>&> m_reconfigurationEndTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_droppedWhileDarkTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_lostInFlightTrace; //!< torn-down circuit
};

} // namespace ns3

#endif // TOPOOPT_OPTICAL_CIRCUIT_SWITCH_H
