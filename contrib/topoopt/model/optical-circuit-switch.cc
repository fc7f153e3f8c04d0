// SPDX-License-Identifier: GPL-2.0-only
#include "optical-circuit-switch.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/ocs-port-channel.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptOpticalCircuitSwitch");
NS_OBJECT_ENSURE_REGISTERED(OpticalCircuitSwitch);

namespace
{
// Technology defaults. All (unverified), see doc/ocs.md: a MEMS OCS reconfigures in
// about 10 ms (TopoOpt; Palomar reports a 1.2 ms median) with about 2 dB loss; a
// robotic patch panel takes minutes, with connector-class loss.
// Functions, not static Time objects: a Time made before the program sets its
// resolution would keep the old unit.
Time
OcsDelay()
{
    return MilliSeconds(10);
}

Time
PatchPanelDelay()
{
    return Seconds(120);
}

constexpr double kOcsLossDb = 2.0;
constexpr double kPatchPanelLossDb = 0.5;
} // namespace

TypeId
OpticalCircuitSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OpticalCircuitSwitch")
            .SetParent<Object>()
            .SetGroupName("Topoopt")
            .AddConstructor<OpticalCircuitSwitch>()
            .AddAttribute("Technology",
                          "Optical technology: patch-panel or ocs (sets the default "
                          "ReconfigurationDelay and InsertionLossDb).",
                          EnumValue(OCS),
                          MakeEnumAccessor(&OpticalCircuitSwitch::m_technology),
                          MakeEnumChecker(OCS, "ocs", PATCH_PANEL, "patch-panel"))
            .AddAttribute("DarkPortPolicy",
                          "Traffic on a port whose circuit is being reconfigured: drop, "
                          "buffer (held at the sender until the new circuit is up) or "
                          "drain-then-switch (pause, let sent frames arrive, switch, wait).",
                          EnumValue(DROP),
                          MakeEnumAccessor(&OpticalCircuitSwitch::m_policy),
                          MakeEnumChecker(DROP,
                                          "drop",
                                          BUFFER,
                                          "buffer",
                                          DRAIN_THEN_SWITCH,
                                          "drain-then-switch"))
            .AddAttribute("PortCount",
                          "Number of ports of the switch (ports). Default: 136 (Palomar).",
                          UintegerValue(136),
                          MakeUintegerAccessor(&OpticalCircuitSwitch::m_portCount),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("ReconfigurationDelay",
                          "Time a port whose circuit changes stays dark (s). Negative: the "
                          "technology default, 10 ms for ocs, 120 s for patch-panel "
                          "(both unverified).",
                          TimeValue(Seconds(-1)),
                          MakeTimeAccessor(&OpticalCircuitSwitch::m_reconfigurationDelay),
                          MakeTimeChecker())
            .AddAttribute("DataRate",
                          "Data rate of every circuit (bit/s); set on every cabled device.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&OpticalCircuitSwitch::SetDataRate,
                                               &OpticalCircuitSwitch::GetDataRate),
                          MakeDataRateChecker())
            .AddAttribute("FibreDelay",
                          "Propagation delay of a circuit, server port to server port "
                          "through the switch (s).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&OpticalCircuitSwitch::SetFibreDelay,
                                           &OpticalCircuitSwitch::GetFibreDelay),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("InsertionLossDb",
                          "Optical loss of a circuit between the two transceivers (dB). "
                          "Negative: the technology default, 2 dB for ocs, 0.5 dB for "
                          "patch-panel (unverified).",
                          DoubleValue(-1),
                          MakeDoubleAccessor(&OpticalCircuitSwitch::m_insertionLossDb),
                          MakeDoubleChecker<double>())
            .AddAttribute("LaunchPowerDbm",
                          "Transceiver launch power (dBm).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&OpticalCircuitSwitch::m_launchPowerDbm),
                          MakeDoubleChecker<double>())
            .AddAttribute("ReceiverSensitivityDbm",
                          "Transceiver receiver sensitivity (dBm).",
                          DoubleValue(-10),
                          MakeDoubleAccessor(&OpticalCircuitSwitch::m_receiverSensitivityDbm),
                          MakeDoubleChecker<double>())
            .AddAttribute("PowerMarginDb",
                          "Margin the received power must keep above the sensitivity (dB).",
                          DoubleValue(3),
                          MakeDoubleAccessor(&OpticalCircuitSwitch::m_marginDb),
                          MakeDoubleChecker<double>(0))
            .AddTraceSource(
                "ReconfigurationStart",
                "Ports went dark for a reconfiguration: (id, ports).",
                MakeTraceSourceAccessor(&OpticalCircuitSwitch::m_reconfigurationStartTrace),
                "ns3::OpticalCircuitSwitch::ReconfigurationTracedCallback")
            .AddTraceSource(
                "ReconfigurationEnd",
                "The new circuits of a reconfiguration are up: (id, ports).",
                MakeTraceSourceAccessor(&OpticalCircuitSwitch::m_reconfigurationEndTrace),
                "ns3::OpticalCircuitSwitch::ReconfigurationTracedCallback")
            .AddTraceSource("DroppedWhileDark",
                            "A frame was lost because its port had no live circuit: "
                            "(packet, port).",
                            MakeTraceSourceAccessor(&OpticalCircuitSwitch::m_droppedWhileDarkTrace),
                            "ns3::OpticalCircuitSwitch::DroppedTracedCallback")
            .AddTraceSource("LostInFlight",
                            "A frame already on the fibre of a circuit that was torn down was "
                            "lost (also a DroppedWhileDark; no device trace sees it, unlike "
                            "a frame refused while dark): (packet, port).",
                            MakeTraceSourceAccessor(&OpticalCircuitSwitch::m_lostInFlightTrace),
                            "ns3::OpticalCircuitSwitch::DroppedTracedCallback");
    return tid;
}

OpticalCircuitSwitch::OpticalCircuitSwitch() = default;
OpticalCircuitSwitch::~OpticalCircuitSwitch() = default;

void
OpticalCircuitSwitch::DoDispose()
{
    m_scheduleEvent.Cancel();
    m_scheduleRunning = false;
    m_ports.clear();
    m_schedule.clear();
    Object::DoDispose();
}

// ---- Cabling -----------------------------------------------------------------------

uint32_t
OpticalCircuitSwitch::AddPort(Ptr<PointToPointNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    if (!device)
    {
        throw std::invalid_argument("OpticalCircuitSwitch::AddPort: the device is null");
    }
    if (m_ports.size() >= m_portCount)
    {
        throw std::invalid_argument("OpticalCircuitSwitch::AddPort: all " +
                                    std::to_string(m_portCount) +
                                    " ports are cabled; raise the PortCount attribute");
    }
    if (device->GetChannel())
    {
        throw std::invalid_argument("OpticalCircuitSwitch::AddPort: the device is already "
                                    "attached to a channel; cable a fresh device");
    }
    uint32_t index = static_cast<uint32_t>(m_ports.size());
    Port port;
    port.device = device;
    port.channel = CreateObject<OcsPortChannel>();
    port.channel->SetAttribute("Delay", TimeValue(m_fibreDelay));
    port.channel->SetSwitch(this, index);
    device->SetDataRate(m_rate);
    m_ports.push_back(port);
    device->Attach(port.channel);
    return index;
}

uint32_t
OpticalCircuitSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<PointToPointNetDevice>
OpticalCircuitSwitch::GetPortDevice(uint32_t port) const
{
    NS_ASSERT_MSG(port < m_ports.size(), "port " << port << " out of range");
    return m_ports[port].device;
}

Ptr<PointToPointNetDevice>
OpticalCircuitSwitch::GetPeerDevice(uint32_t port) const
{
    if (port >= m_ports.size() || m_ports[port].peer < 0 || m_ports[port].state == DARK)
    {
        return nullptr;
    }
    return m_ports[m_ports[port].peer].device;
}

int64_t
OpticalCircuitSwitch::GetPeer(uint32_t port) const
{
    NS_ASSERT_MSG(port < m_ports.size(), "port " << port << " out of range");
    return m_ports[port].state == DARK ? -1 : m_ports[port].peer;
}

OpticalCircuitSwitch::Matching
OpticalCircuitSwitch::GetMatching() const
{
    Matching m;
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        int64_t q = GetPeer(p);
        if (q > static_cast<int64_t>(p))
        {
            m.emplace_back(p, static_cast<uint32_t>(q));
        }
    }
    return m;
}

bool
OpticalCircuitSwitch::IsDark(uint32_t port) const
{
    NS_ASSERT(port < m_ports.size());
    return m_ports[port].state == DARK;
}

bool
OpticalCircuitSwitch::IsDraining(uint32_t port) const
{
    NS_ASSERT(port < m_ports.size());
    return m_ports[port].state == DRAINING;
}

Time
OpticalCircuitSwitch::GetDarkTime(uint32_t port) const
{
    NS_ASSERT(port < m_ports.size());
    const Port& p = m_ports[port];
    return p.darkTotal + (p.state == DARK ? Simulator::Now() - p.darkSince : Time(0));
}

uint32_t
OpticalCircuitSwitch::GetHeldFrames(uint32_t port) const
{
    NS_ASSERT(port < m_ports.size());
    return static_cast<uint32_t>(m_ports[port].held.size());
}

// ---- Optics ------------------------------------------------------------------------

Time
OpticalCircuitSwitch::GetReconfigurationDelay() const
{
    if (!m_reconfigurationDelay.IsStrictlyNegative())
    {
        return m_reconfigurationDelay;
    }
    return m_technology == PATCH_PANEL ? PatchPanelDelay() : OcsDelay();
}

double
OpticalCircuitSwitch::GetInsertionLossDb() const
{
    if (m_insertionLossDb >= 0)
    {
        return m_insertionLossDb;
    }
    return m_technology == PATCH_PANEL ? kPatchPanelLossDb : kOcsLossDb;
}

double
OpticalCircuitSwitch::GetPowerBudgetSlackDb() const
{
    return m_launchPowerDbm - GetInsertionLossDb() - m_receiverSensitivityDbm - m_marginDb;
}

void
OpticalCircuitSwitch::CheckPowerBudget() const
{
    if (GetPowerBudgetSlackDb() < 0)
    {
        std::ostringstream os;
        os << "OpticalCircuitSwitch: infeasible power budget: launch " << m_launchPowerDbm
           << " dBm - insertion loss " << GetInsertionLossDb()
           << " dB = " << m_launchPowerDbm - GetInsertionLossDb()
           << " dBm received, below receiver "
           << "sensitivity " << m_receiverSensitivityDbm << " dBm + margin " << m_marginDb
           << " dB = " << m_receiverSensitivityDbm + m_marginDb
           << " dBm; lower InsertionLossDb, raise LaunchPowerDbm or lower "
              "ReceiverSensitivityDbm";
        throw std::invalid_argument(os.str());
    }
}

void
OpticalCircuitSwitch::SetDataRate(DataRate rate)
{
    m_rate = rate;
    for (auto& p : m_ports)
    {
        p.device->SetDataRate(rate);
    }
}

DataRate
OpticalCircuitSwitch::GetDataRate() const
{
    return m_rate;
}

void
OpticalCircuitSwitch::SetFibreDelay(Time delay)
{
    m_fibreDelay = delay;
    for (auto& p : m_ports)
    {
        p.channel->SetAttribute("Delay", TimeValue(delay));
    }
}

Time
OpticalCircuitSwitch::GetFibreDelay() const
{
    return m_fibreDelay;
}

// ---- Matchings ---------------------------------------------------------------------

void
OpticalCircuitSwitch::ValidateMatching(const Matching& matching) const
{
    std::vector<bool> used(m_ports.size(), false);
    for (const auto& [a, b] : matching)
    {
        for (uint32_t x : {a, b})
        {
            if (x >= m_ports.size())
            {
                throw std::invalid_argument(
                    "OpticalCircuitSwitch: circuit (" + std::to_string(a) + ", " +
                    std::to_string(b) + ") names port " + std::to_string(x) + " but only " +
                    std::to_string(m_ports.size()) + " ports are cabled (0.." +
                    std::to_string(m_ports.size() ? m_ports.size() - 1 : 0) + ")");
            }
        }
        if (a == b)
        {
            throw std::invalid_argument("OpticalCircuitSwitch: circuit (" + std::to_string(a) +
                                        ", " + std::to_string(b) + ") joins a port to itself");
        }
        for (uint32_t x : {a, b})
        {
            if (used[x])
            {
                throw std::invalid_argument("OpticalCircuitSwitch: port " + std::to_string(x) +
                                            " appears in two circuits; a matching uses "
                                            "each port at most once");
            }
            used[x] = true;
        }
    }
}

int64_t
OpticalCircuitSwitch::Target(uint32_t port) const
{
    const Port& p = m_ports[port];
    return p.state == LIVE ? p.peer : p.pendingPeer;
}

std::vector<int64_t>
OpticalCircuitSwitch::PeersAfter(const Matching& matching, bool partial) const
{
    std::vector<int64_t> next(m_ports.size(), -1);
    if (partial)
    {
        for (uint32_t p = 0; p < m_ports.size(); ++p)
        {
            next[p] = Target(p);
        }
        for (const auto& [a, b] : matching)
        {
            for (uint32_t x : {a, b})
            {
                if (next[x] >= 0)
                {
                    next[next[x]] = -1; // the former peer loses its circuit
                }
            }
        }
    }
    for (const auto& [a, b] : matching)
    {
        next[a] = b;
        next[b] = a;
    }
    return next;
}

void
OpticalCircuitSwitch::SetMatching(const Matching& matching)
{
    NS_LOG_FUNCTION(this);
    ValidateMatching(matching);
    CheckPowerBudget();
    std::vector<int64_t> next = PeersAfter(matching, false);
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        Port& port = m_ports[p];
        if (port.state != LIVE)
        {
            throw std::invalid_argument("OpticalCircuitSwitch::SetMatching: port " +
                                        std::to_string(p) +
                                        " is reconfiguring; SetMatching is for the "
                                        "initial cabling, use Reconfigure during a run");
        }
        if (next[p] != port.peer)
        {
            for (const auto& f : port.flights)
            {
                DropFrame(p, f.packet);
                m_lostInFlightTrace(f.packet, p);
            }
            port.flights.clear();
            port.wireFreeAt = Simulator::Now();
        }
        port.peer = next[p];
    }
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        while (m_ports[p].peer >= 0 && !m_ports[p].held.empty())
        {
            Held h = m_ports[p].held.front();
            m_ports[p].held.pop_front();
            Launch(p, h.packet, h.txTime);
        }
    }
}

void
OpticalCircuitSwitch::Reconfigure(const Matching& matching)
{
    if (m_scheduleRunning)
    {
        throw std::invalid_argument("OpticalCircuitSwitch::Reconfigure: a schedule is "
                                    "running; call CancelSchedule() first");
    }
    ValidateMatching(matching);
    CheckPowerBudget();
    Begin(PeersAfter(matching, false), GetReconfigurationDelay(), nullptr);
}

void
OpticalCircuitSwitch::ReconfigurePartial(const Matching& matching)
{
    if (m_scheduleRunning)
    {
        throw std::invalid_argument("OpticalCircuitSwitch::ReconfigurePartial: a schedule "
                                    "is running; call CancelSchedule() first");
    }
    ValidateMatching(matching);
    CheckPowerBudget();
    Begin(PeersAfter(matching, true), GetReconfigurationDelay(), nullptr);
}

void
OpticalCircuitSwitch::Begin(const std::vector<int64_t>& next, Time dark, std::function<void()> done)
{
    std::vector<uint32_t> changed;
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        if (next[p] != Target(p))
        {
            if (m_ports[p].state != LIVE)
            {
                throw std::invalid_argument(
                    "OpticalCircuitSwitch: port " + std::to_string(p) +
                    " is still reconfiguring; wait for ReconfigurationEnd before changing "
                    "its circuit again");
            }
            changed.push_back(p);
        }
    }
    if (changed.empty())
    {
        if (done)
        {
            done();
        }
        return;
    }
    uint32_t id = m_nextReconfiguration++;
    NS_LOG_INFO("reconfiguration " << id << ": " << changed.size() << " ports change");
    for (uint32_t p : changed)
    {
        m_ports[p].pendingPeer = next[p];
    }
    if (m_policy != DRAIN_THEN_SWITCH)
    {
        GoDark(id, changed, dark, done);
        return;
    }
    // Drain: hold new frames, wait until the last frame already sent has arrived.
    Time now = Simulator::Now();
    Time until = now;
    for (uint32_t p : changed)
    {
        Port& port = m_ports[p];
        port.state = DRAINING;
        if (!port.flights.empty())
        {
            const Flight& last = port.flights.back();
            until = std::max(until, last.start + last.txTime + m_fibreDelay);
        }
    }
    if (until == now)
    {
        GoDark(id, changed, dark, done);
    }
    else
    {
        Simulator::Schedule(until - now,
                            &OpticalCircuitSwitch::GoDark,
                            this,
                            id,
                            changed,
                            dark,
                            done);
    }
}

void
OpticalCircuitSwitch::GoDark(uint32_t id,
                             std::vector<uint32_t> ports,
                             Time dark,
                             std::function<void()> done)
{
    Time now = Simulator::Now();
    for (uint32_t p : ports)
    {
        Port& port = m_ports[p];
        std::deque<Held> back; // frames still at the sender: they wait for the new circuit
        for (const auto& f : port.flights)
        {
            if (f.start + f.txTime + m_fibreDelay <= now)
            {
                // Arrives at this very instant: the mirror has not moved yet.
                ++m_delivered;
                m_ports[port.peer].device->Receive(f.packet);
            }
            else if (f.start >= now && m_policy != DROP)
            {
                back.push_back({f.packet, f.txTime});
            }
            else
            {
                DropFrame(p, f.packet);
                m_lostInFlightTrace(f.packet, p);
            }
        }
        port.flights.clear();
        port.held.insert(port.held.begin(), back.begin(), back.end());
        port.wireFreeAt = now;
        port.state = DARK;
        port.darkSince = now;
    }
    m_reconfigurationStartTrace(id, ports);
    Simulator::Schedule(dark, &OpticalCircuitSwitch::ComeUp, this, id, ports, done);
}

void
OpticalCircuitSwitch::ComeUp(uint32_t id, std::vector<uint32_t> ports, std::function<void()> done)
{
    Time now = Simulator::Now();
    for (uint32_t p : ports)
    {
        Port& port = m_ports[p];
        port.darkTotal += now - port.darkSince;
        port.state = LIVE;
        port.peer = port.pendingPeer;
        port.pendingPeer = -1;
        port.wireFreeAt = now;
    }
    for (uint32_t p : ports)
    {
        Port& port = m_ports[p];
        while (port.peer >= 0 && !port.held.empty())
        {
            Held h = port.held.front();
            port.held.pop_front();
            Launch(p, h.packet, h.txTime);
        }
    }
    NS_LOG_INFO("reconfiguration " << id << " done");
    m_reconfigurationEndTrace(id, ports);
    if (done)
    {
        done();
    }
}

// ---- Frames ------------------------------------------------------------------------

bool
OpticalCircuitSwitch::Transmit(uint32_t port, Ptr<const Packet> p, Time txTime)
{
    NS_ASSERT(port < m_ports.size());
    Port& pt = m_ports[port];
    if (pt.state == LIVE && pt.peer >= 0)
    {
        Launch(port, p->Copy(), txTime);
        return true;
    }
    if (m_policy == DROP)
    {
        DropFrame(port, p);
        return false;
    }
    pt.held.push_back({p->Copy(), txTime});
    ++m_held;
    return true;
}

void
OpticalCircuitSwitch::Launch(uint32_t port, Ptr<Packet> p, Time txTime)
{
    Port& pt = m_ports[port];
    Time now = Simulator::Now();
    // A frame leaves when the fibre is free: at once on an idle live circuit (exactly
    // a point-to-point link), behind released held frames otherwise.
    Time start = std::max(now, pt.wireFreeAt);
    pt.wireFreeAt = start + txTime;
    uint64_t seq = m_nextSeq++;
    pt.flights.push_back({p, start, txTime, seq});
    Ptr<PointToPointNetDevice> dst = m_ports[pt.peer].device;
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   (start - now) + txTime + m_fibreDelay,
                                   &OpticalCircuitSwitch::Deliver,
                                   this,
                                   port,
                                   seq);
}

void
OpticalCircuitSwitch::Deliver(uint32_t port, uint64_t seq)
{
    Port& pt = m_ports[port];
    if (pt.flights.empty() || pt.flights.front().seq != seq)
    {
        return; // the circuit was torn down under this frame (already accounted)
    }
    Ptr<Packet> p = pt.flights.front().packet;
    pt.flights.pop_front();
    ++m_delivered;
    m_ports[pt.peer].device->Receive(p);
}

void
OpticalCircuitSwitch::DropFrame(uint32_t port, Ptr<const Packet> p)
{
    NS_LOG_LOGIC("port " << port << " dark: frame " << p->GetUid() << " lost");
    ++m_dropped;
    m_droppedWhileDarkTrace(p, port);
}

uint64_t
OpticalCircuitSwitch::GetFramesDelivered() const
{
    return m_delivered;
}

uint64_t
OpticalCircuitSwitch::GetFramesDroppedWhileDark() const
{
    return m_dropped;
}

uint64_t
OpticalCircuitSwitch::GetFramesHeld() const
{
    return m_held;
}

// ---- Schedule ----------------------------------------------------------------------

void
OpticalCircuitSwitch::SetSchedule(const std::vector<ScheduleEntry>& entries,
                                  uint32_t repetitions,
                                  Time start)
{
    if (m_scheduleRunning)
    {
        throw std::invalid_argument("OpticalCircuitSwitch::SetSchedule: a schedule is "
                                    "already running; call CancelSchedule() first");
    }
    if (entries.empty())
    {
        throw std::invalid_argument("OpticalCircuitSwitch::SetSchedule: the schedule has no "
                                    "entries; give at least one matching");
    }
    if (start.IsStrictlyNegative())
    {
        throw std::invalid_argument("OpticalCircuitSwitch::SetSchedule: negative start time");
    }
    for (size_t i = 0; i < entries.size(); ++i)
    {
        if (!entries[i].live.IsStrictlyPositive())
        {
            throw std::invalid_argument("OpticalCircuitSwitch::SetSchedule: entry " +
                                        std::to_string(i) + " has no live time; give live > 0");
        }
        ValidateMatching(entries[i].matching);
    }
    CheckPowerBudget();
    m_schedule = entries;
    m_scheduleRepetitions = repetitions;
    m_scheduleSlot = 0;
    m_scheduleRound = 0;
    m_scheduleRunning = true;
    m_scheduleEvent = Simulator::Schedule(start, &OpticalCircuitSwitch::RunScheduleSlot, this);
}

void
OpticalCircuitSwitch::RunScheduleSlot()
{
    if (!m_scheduleRunning)
    {
        return;
    }
    const ScheduleEntry& e = m_schedule[m_scheduleSlot];
    Time dark = e.dark.IsStrictlyNegative() ? GetReconfigurationDelay() : e.dark;
    Time live = e.live;
    Begin(PeersAfter(e.matching, false), dark, [this, live]() {
        if (!m_scheduleRunning)
        {
            return;
        }
        if (++m_scheduleSlot == m_schedule.size())
        {
            m_scheduleSlot = 0;
            if (m_scheduleRepetitions > 0 && ++m_scheduleRound == m_scheduleRepetitions)
            {
                m_scheduleRunning = false; // the last slot's circuits stay
                return;
            }
        }
        m_scheduleEvent = Simulator::Schedule(live, &OpticalCircuitSwitch::RunScheduleSlot, this);
    });
}

void
OpticalCircuitSwitch::CancelSchedule()
{
    m_scheduleRunning = false;
    m_scheduleEvent.Cancel();
}

bool
OpticalCircuitSwitch::IsScheduleRunning() const
{
    return m_scheduleRunning;
}

} // namespace ns3
