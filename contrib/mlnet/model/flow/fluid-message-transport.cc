// SPDX-License-Identifier: GPL-2.0-only
/*
 * FluidMessageTransport: see fluid-message-transport.h for what is modelled and what
 * is left out.
 *
 * Time. The fluid keeps its own times in double seconds from the start of the
 * simulation; ns-3 events are scheduled at those times rounded to the resolution, and
 * a completion event completes the flows of the fluid's own time (not the rounded
 * one), so rounding never accumulates. A delivery is scheduled at the completion's
 * time plus the message's latency, rounded once.
 *
 * Batching. All the sends of one instant (a collective's step, a driver starting its
 * tasks) start their flows, and one Update, scheduled for the same instant after them,
 * recomputes the rates once; the sends a delivery batch makes are updated for at the
 * end of that batch instead, without an event of their own (the rates are the same;
 * another event of that instant that sends has them recomputed again). The messages
 * that end together and are delivered at the same instant share one delivery event,
 * which delivers them in the order they ended:
 * the order one event per message would have run them in, since those events would
 * have been scheduled one after another, with nothing scheduled between them, and the
 * simulator runs events of one instant in the order they were scheduled. One
 * exception: an event that a FlowCompleted sink schedules for the very instant of a
 * delivery now runs before that instant's whole batch, where it ran after the
 * deliveries of the messages that had ended before the sink was called. Superseded
 * completion events are removed from the scheduler, not cancelled: ns-3 advances its
 * clock to cancelled events, which would stretch the run's simulated time past its last
 * delivery.
 */
#include "fluid-message-transport.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-names.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFluidMessageTransport");
NS_OBJECT_ENSURE_REGISTERED(FluidMessageTransport);

TypeId
FluidMessageTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FluidMessageTransport")
            .SetParent<MessageTransport>()
            .SetGroupName("Mlnet")
            .AddConstructor<FluidMessageTransport>()
            .AddAttribute("PerMessageOverhead",
                          "Software latency of a message (alpha_sw, s), added to every "
                          "delivery after the pipeline latency, as the twin's "
                          "AlphaBetaModel::PerMessageOverhead.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FluidMessageTransport::m_perMessageOverhead),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Lossless",
                          "Take the fabric's ports as lossless (PFC): what overfills a "
                          "switch port is counted, not dropped and repaired. Without it, "
                          "the fabric says (FabricSpec::lossless: PFC on, installed or, "
                          "without devices, recorded).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FluidMessageTransport::m_lossless),
                          MakeBooleanChecker())
            .AddAttribute("PacketTransport",
                          "The packet-level transport this one stands in for: its "
                          "packetization and flow keys (installed beside it; nothing is "
                          "sent through it). Null: the model's packetization, even ECMP "
                          "split.",
                          PointerValue(),
                          MakePointerAccessor(&FluidMessageTransport::m_packet),
                          MakePointerChecker<MessageTransport>())
            .AddTraceSource("FlowCompleted",
                            "A message's last byte left the fluid (it is delivered its "
                            "pipeline latency and software overhead later).",
                            MakeTraceSourceAccessor(&FluidMessageTransport::m_flowCompleted),
                            "ns3::FluidMessageTransport::FlowCompletedTracedCallback");
    return tid;
}

FluidMessageTransport::FluidMessageTransport() = default;
FluidMessageTransport::~FluidMessageTransport() = default;

void
FluidMessageTransport::DoDispose()
{
    if (!m_completion.IsExpired())
    {
        Simulator::Remove(m_completion);
    }
    if (m_updatePending && !m_updateDeferred && !m_update.IsExpired())
    {
        Simulator::Remove(m_update);
    }
    m_updatePending = false;
    if (m_rerouteConnected)
    {
        m_cluster->TraceDisconnectWithoutContext(
            "Rerouted",
            MakeCallback(&FluidMessageTransport::Reroute, this));
        m_rerouteConnected = false;
    }
    m_fluid.reset();
    m_inFlight.clear();
    m_messages = SlotPool<Message>();
    m_copies.clear();
    m_batches = SlotPool<std::vector<uint32_t>>();
    if (m_model)
    {
        m_model->Dispose();
    }
    m_model = nullptr;
    m_packet = nullptr;
    MessageTransport::DoDispose();
}

bool
FluidMessageTransport::SendsFrames() const
{
    return false;
}

void
FluidMessageTransport::SetPacketTransport(Ptr<MessageTransport> transport)
{
    if (m_cluster)
    {
        throw std::invalid_argument(
            "FluidMessageTransport: set the packet transport before Install");
    }
    m_packet = transport;
}

Ptr<MessageTransport>
FluidMessageTransport::GetPacketTransport() const
{
    return m_packet;
}

void
FluidMessageTransport::Install(Ptr<Cluster> cluster)
{
    NS_LOG_FUNCTION(this << cluster);
    // Refused before CheckInstall registers the transport: nothing is left half-installed.
    const DataRate relayRate = cluster ? cluster->GetFabricSpec().relayRate : DataRate(0);
    if (relayRate.GetBitRate() > 0)
    {
        // Its FIFO serializes every frame a server relays, a queue the fluid has not.
        throw std::invalid_argument(
            "FluidMessageTransport::Install: the fabric caps host relaying at " +
            std::to_string(relayRate.GetBitRate()) +
            " bit/s (a forwarding rate), which the flow level does not model (it models "
            "the relay latency); run at --level=packet or drop the forwarding rate");
    }
    CheckInstall(cluster);
    TraceNames::Register(this, "FluidMessageTransport");
    m_cluster = cluster;
    m_model = CreateObject<AlphaBetaModel>();
    m_model->SetCluster(cluster);
    if (m_packet)
    {
        m_packet->Install(cluster);
        m_model->SetPacketization(m_packet);
        // A transport that repairs as UDP does (UDP, RDMA): its timers time the repairs.
        TimeValue repair;
        TimeValue sender;
        m_repairs = m_packet->GetAttributeFailSafe("RepairTimeout", repair) &&
                    m_packet->GetAttributeFailSafe("SenderTimeout", sender);
        m_repairTimeout = repair.Get();
        m_senderTimeout = sender.Get();
    }
    m_model->SetAttribute("PerMessageOverhead", TimeValue(m_perMessageOverhead));
    m_fluid = FluidTransfers::Create(m_model->GetSharing(),
                                     m_model->GetLinkCapacities(),
                                     m_model->GetNicBacklogPackets());
    // Switch ports drop what they cannot queue where the stood-in transport repairs it
    // and the fabric is lossy (a forwarding rank's port holds its own sends back).
    const uint32_t none = std::numeric_limits<uint32_t>::max();
    std::vector<bool> drops;
    m_dropsAtFullPorts =
        m_repairs && !Lossless() && m_model->GetSharing() == FluidSharing::LINE_RATE;
    if (m_dropsAtFullPorts)
    {
        drops.assign(2 * cluster->GetLinks().size(), false);
        for (const ClusterLink& l : cluster->GetLinks())
        {
            drops[2 * l.id] = cluster->GetRankOfNode(l.nodeA) == none;
            drops[2 * l.id + 1] = cluster->GetRankOfNode(l.nodeB) == none;
        }
    }
    m_fluid->SetBuffers(m_model->GetLinkBuffers(), std::move(drops));
    // Standing in for UDP or RDMA, a transfer crossing a failed link sends the rest of
    // its packets over the new routes once they take effect, as the packets do.
    if (m_repairs && m_model->GetSharing() == FluidSharing::LINE_RATE)
    {
        m_rerouteConnected = cluster->TraceConnectWithoutContext(
            "Rerouted",
            MakeCallback(&FluidMessageTransport::Reroute, this));
    }
    m_splitBytes.assign(2 * cluster->GetLinks().size(), 0.0);
    m_splitPackets.assign(m_splitBytes.size(), 0.0);
}

Message
FluidMessageTransport::NewMessage(uint32_t src,
                                  uint32_t dst,
                                  uint32_t channel,
                                  uint32_t tag,
                                  uint64_t bytes,
                                  MessageBytes data)
{
    Message msg;
    msg.src = src;
    msg.dst = dst;
    msg.channel = channel;
    msg.tag = tag;
    msg.bytes = bytes;
    msg.data = std::move(data);
    msg.sent = Simulator::Now();
    return msg;
}

void
FluidMessageTransport::Send(uint32_t src,
                            uint32_t dst,
                            uint32_t channel,
                            uint32_t tag,
                            uint64_t bytes,
                            MessageBytes data)
{
    CheckSend(src, dst, bytes, data);
    NotifySend(src, dst, bytes);
    Message msg = NewMessage(src, dst, channel, tag, bytes, std::move(data));
    // A transfer the fluid ends at this very instant ends before this one starts (the
    // replay's rule: transfer ends before events at the same time), even when its
    // completion event is queued behind the event that sends.
    CompleteDue(msg.sent.GetSeconds());
    uint32_t senderLinks = 0;
    const double latency = m_model->MessagePath(src, dst, bytes, m_shares, senderLinks);
    StartTransfer(std::move(msg), senderLinks, latency, false);
}

void
FluidMessageTransport::SendCopy(uint32_t src,
                                uint32_t dst,
                                uint32_t channel,
                                uint32_t tag,
                                uint64_t bytes,
                                MessageBytes data,
                                uint16_t srcPort,
                                uint16_t dstPort)
{
    CheckSend(src, dst, bytes, data);
    Message msg = NewMessage(src, dst, channel, tag, bytes, std::move(data));
    CompleteDue(msg.sent.GetSeconds());
    if (srcPort != 0 || dstPort != 0)
    {
        const double latency = m_model->CopyPath(src, dst, bytes, srcPort, dstPort, m_shares);
        if (latency >= 0)
        {
            StartTransfer(std::move(msg), 1, latency, true);
            return;
        }
    }
    uint32_t senderLinks = 0;
    const double latency = m_model->MessagePath(src, dst, bytes, m_shares, senderLinks);
    if (senderLinks != 1 || m_shares.size() < 2)
    {
        throw std::invalid_argument(
            "FluidMessageTransport::SendCopy: rank " + std::to_string(src) + " reaches rank " +
            std::to_string(dst) + " over " + std::to_string(senderLinks) +
            " links of its own and " + std::to_string(m_shares.size() - senderLinks) +
            " beyond; a copy is made at the one switch a single-link rank sends through");
    }
    // The copy leaves the switch src's link leads to: that link is not on its route, and
    // the links leaving the switch take the sender's place at its front.
    const ClusterLink& first = m_cluster->GetLink(m_shares.front().first / 2);
    const uint32_t sw = m_shares.front().first % 2 == 0 ? first.nodeB : first.nodeA;
    m_shares.erase(m_shares.begin());
    auto leavesSwitch = [this, sw](const std::pair<uint32_t, double>& hop) {
        const ClusterLink& l = m_cluster->GetLink(hop.first / 2);
        return (hop.first % 2 == 0 ? l.nodeA : l.nodeB) == sw;
    };
    const auto rest = std::stable_partition(m_shares.begin(), m_shares.end(), leavesSwitch);
    StartTransfer(std::move(msg),
                  static_cast<uint32_t>(std::distance(m_shares.begin(), rest)),
                  latency,
                  true);
}

void
FluidMessageTransport::StartTransfer(Message msg, uint32_t senderLinks, double latency, bool copy)
{
    const uint32_t message = m_messages.Acquire();
    m_messages[message] = std::move(msg);
    if (copy)
    {
        m_copies.insert(message);
    }
    StartTransferOf(message, senderLinks, latency, 0);
}

uint64_t
FluidMessageTransport::CarriedBytes(const Message& msg, uint32_t repairPackets) const
{
    return repairPackets == 0
               ? msg.bytes
               : std::min<uint64_t>(msg.bytes, uint64_t{repairPackets} * GetMaxPayload());
}

uint32_t
FluidMessageTransport::PacketsOf(const Message& msg, const InFlight& x) const
{
    return static_cast<uint32_t>(m_model->GetPacketCount(CarriedBytes(msg, x.repairPackets)));
}

void
FluidMessageTransport::StartTransferOf(uint32_t message,
                                       uint32_t senderLinks,
                                       double latency,
                                       uint32_t repairPackets)
{
    const double now = Simulator::Now().GetSeconds();
    const uint64_t bytes = CarriedBytes(m_messages[message], repairPackets);
    const double wire = static_cast<double>(m_model->GetWireBytes(bytes));
    const uint32_t slot =
        m_fluid->Start(now, wire, m_model->GetPacketCount(bytes), m_shares, senderLinks);
    if (slot >= m_inFlight.size())
    {
        m_inFlight.Resize(slot + 1);
    }
    m_inFlight[slot] = {message, repairPackets, latency + m_perMessageOverhead.GetSeconds()};
    if (repairPackets > 0)
    {
        m_repairStarts[message] = now;
    }
    if (!m_updatePending)
    {
        m_updatePending = true;
        // Sends made while a batch is delivered are updated for once the batch is done
        // (DeliverBatch), without an event of their own.
        m_updateDeferred = m_delivering;
        if (!m_updateDeferred)
        {
            m_update = Simulator::ScheduleNow(&FluidMessageTransport::Update, this);
        }
    }
}

void
FluidMessageTransport::Update()
{
    m_updatePending = false;
    const double t = m_fluid->NextEnd();
    // The completion is pending while m_completion holds it: CompleteFlows clears it
    // when it runs (asking the simulator, EventId::IsExpired, cost 2 % of a 256-rank
    // all-to-all).
    if (m_completion.PeekEventImpl() != nullptr)
    {
        if (t == m_completionAt)
        {
            return;
        }
        Simulator::Remove(m_completion);
    }
    if (t == std::numeric_limits<double>::infinity())
    {
        m_completion = EventId();
        return;
    }
    m_completionAt = t;
    const Time delay = std::max(Time(0), Seconds(t) - Simulator::Now());
    m_completion = Simulator::Schedule(delay, &FluidMessageTransport::CompleteFlows, this);
}

void
FluidMessageTransport::CompleteFlows()
{
    m_completion = EventId();
    // Messages sent at this instant before this event may have ended it already, or
    // changed the rates: the next completion may have moved.
    const double t = m_fluid->NextEnd();
    if (t <= m_completionAt + FluidNetwork::kTie)
    {
        Finish(t);
    }
    Update();
}

void
FluidMessageTransport::CompleteDue(double now)
{
    for (double t = m_fluid->PendingEnd(); t <= now + FluidNetwork::kTie; t = m_fluid->PendingEnd())
    {
        Finish(t);
    }
}

void
FluidMessageTransport::Finish(double t)
{
    // One event per delivery instant, its messages in the order they ended: this call's
    // batches found by their instant (no sort, and no record of the ended transfers
    // beside the fluid's: a million at one instant in a 1024-rank direct all-to-all),
    // scheduled once every FlowCompleted sink has run (their order does not matter:
    // their instants differ).
    const Time now = Simulator::Now();
    for (const auto& [slot, end] : m_fluid->Advance(t))
    {
        const InFlight& x = m_inFlight[slot];
        const Message& msg = m_messages[x.message];
        // A transfer Reroute moved: its packets sent on earlier routes are counted there,
        // and those they lost are asked for with its own.
        Owed owed;
        if (!m_owed.empty())
        {
            if (const auto it = m_owed.find(x.message); it != m_owed.end())
            {
                owed = it->second;
                m_owed.erase(it);
            }
        }
        const uint64_t carried = owed.counted == 0
                                     ? CarriedBytes(msg, x.repairPackets)
                                     : CarriedBytes(msg, PacketsOf(msg, x) - owed.counted);
        const Loss loss = CountOnLinks(m_fluid->GetRoute(slot), carried, x, owed.from, t);
        if (x.repairPackets > 0)
        {
            m_repairStarts.erase(x.message);
        }
        // A copy (SendCopy) leaves a switch on a path of its own: its repair is not
        // modelled (asked only of a transfer that lost something).
        auto isCopy = [this, &x]() { return !m_copies.empty() && m_copies.count(x.message) > 0; };
        if (loss.caught && (!m_repairs || isCopy()))
        {
            ++m_caught.messages;
            m_caught.wireBytes += m_model->GetWireBytes(carried);
        }
        else if (loss.fraction > 0)
        {
            const uint32_t lost = LostToFailure(loss, m_model->GetPacketCount(carried));
            BeginRepair(x, loss, lost, t, end, owed.packets);
            continue;
        }
        const double lostWire = m_dropsAtFullPorts ? m_fluid->GetLost(slot) : 0.0;
        if (lostWire > 0 && !isCopy())
        {
            const uint32_t dropped =
                DroppedPackets(lostWire,
                               static_cast<double>(m_model->GetWireBytes(carried)),
                               m_model->GetPacketCount(carried));
            if (dropped > 0)
            {
                // The receiver asks for them after a silence from the tail's arrival.
                CountLoss(x, dropped, kNoLink);
                const double latency = x.delivery - m_perMessageOverhead.GetSeconds();
                NackAfterSilence(x.message,
                                 dropped + owed.packets,
                                 kNoLink,
                                 latency,
                                 Seconds(end + latency));
                continue;
            }
        }
        if (owed.packets > 0)
        {
            const double latency = x.delivery - m_perMessageOverhead.GetSeconds();
            NackAfterSilence(x.message, owed.packets, owed.link, latency, Seconds(end + latency));
            continue;
        }
        if (!m_flowCompleted.IsEmpty())
        {
            m_flowCompleted(msg, Seconds(end));
        }
        const Time at = std::max(now, Seconds(end + x.delivery));
        const auto [open, fresh] = m_openBatches.try_emplace(at.GetTimeStep(), 0);
        if (fresh)
        {
            open->second = m_batches.Acquire();
            m_batches[open->second].clear();
        }
        m_batches[open->second].push_back(x.message);
    }
    for (const auto& [step, batch] : m_openBatches)
    {
        Simulator::Schedule(TimeStep(step) - now,
                            &FluidMessageTransport::DeliverBatch,
                            this,
                            batch);
    }
    // A map's clear() visits all its buckets, which never shrink: a large one goes.
    if (m_openBatches.size() > kOpenBatchesKept)
    {
        m_openBatches = {};
    }
    else
    {
        m_openBatches.clear();
    }
}

void
FluidMessageTransport::DeliverBatch(uint32_t batch)
{
    // Delivering may send (growing m_messages), end more transfers and fill other
    // batches (growing the pool): the batch is taken out while it is delivered, the
    // record keeps its capacity, and each message leaves its slot before its delivery.
    std::vector<uint32_t> messages;
    messages.swap(m_batches[batch]);
    const Time now = Simulator::Now();
    m_delivering = true;
    for (const uint32_t slot : messages)
    {
        Message msg = std::move(m_messages[slot]);
        m_messages.Release(slot);
        msg.delivered = now;
        if (!m_copies.empty() && m_copies.erase(slot) > 0)
        {
            DeliverCopy(msg);
            continue;
        }
        Deliver(msg);
    }
    m_delivering = false;
    messages.clear();
    m_batches[batch].swap(messages);
    m_batches.Release(batch);
    // The rates of what the deliveries sent, as the Update they would have scheduled for
    // this instant would have recomputed them: with every send of the batch started.
    if (m_updateDeferred)
    {
        m_updateDeferred = false;
        Update();
    }
}

FluidMessageTransport::Loss
FluidMessageTransport::CountOnLinks(const PackedRoute& route,
                                    uint64_t bytes,
                                    const InFlight& x,
                                    double from,
                                    double sent)
{
    const uint64_t wire = m_model->GetWireBytes(bytes);
    const uint64_t frames = m_model->GetPacketCount(bytes);
    Loss loss;
    for (uint32_t k = 0; k < route.Size(); ++k)
    {
        const uint32_t key = route.Key(k);
        const double share = route.Share(k);
        const ClusterLink& link = m_cluster->GetLink(key / 2);
        if (link.failed)
        {
            if (!loss.caught)
            {
                loss.caught = true;
                // only here: a Time conversion per transfer costs
                loss.start = from < 0 ? StartOf(x) : from;
            }
            const double start = loss.start;
            // Its bytes sent between the failure and the reroute, at an even rate.
            const double from = std::max(start, link.failedAt.GetSeconds());
            const double to = std::min(sent, link.reroutedAt.GetSeconds());
            const double fraction =
                sent > start ? std::max(0.0, to - from) / (sent - start) : (from < to ? 1.0 : 0.0);
            if (share * fraction > loss.fraction)
            {
                loss.fraction = share * fraction;
                loss.link = key / 2;
                loss.failedAt = link.failedAt.GetSeconds();
            }
        }
        if (share == 1.0)
        {
            m_cluster->AddLinkTraffic(key / 2, key % 2 == 0, wire, frames);
            continue;
        }
        // A branch of an even split: its share, the counter holding the rounded sum.
        double& counted = m_splitBytes[key];
        double& countedFrames = m_splitPackets[key];
        const auto bytesBefore = std::llround(counted);
        const auto framesBefore = std::llround(countedFrames);
        counted += static_cast<double>(wire) * share;
        countedFrames += static_cast<double>(frames) * share;
        m_cluster->AddLinkTraffic(
            key / 2,
            key % 2 == 0,
            static_cast<uint64_t>(std::llround(counted) - bytesBefore),
            static_cast<uint64_t>(std::llround(countedFrames) - framesBefore));
    }
    return loss;
}

double
FluidMessageTransport::StartOf(const InFlight& x) const
{
    if (x.repairPackets == 0)
    {
        return m_messages[x.message].sent.GetSeconds();
    }
    const auto it = m_repairStarts.find(x.message);
    return it != m_repairStarts.end() ? it->second : 0.0;
}

void
FluidMessageTransport::BeginRepair(const InFlight& x,
                                   const Loss& loss,
                                   uint32_t lost,
                                   double sent,
                                   double end,
                                   uint32_t owed)
{
    CountLoss(x, lost, loss.link);
    m_cluster->NotifyFramesLost(loss.link, lost);
    lost += owed;
    const double latency = x.delivery - m_perMessageOverhead.GetSeconds(); // one way
    const double rerouted = m_cluster->GetLink(loss.link).reroutedAt.GetSeconds();
    const Time now = Simulator::Now();
    double lastArrival;
    if (sent > rerouted)
    {
        lastArrival = end + latency; // its tail took the new routes
    }
    else if (loss.start < loss.failedAt)
    {
        lastArrival = loss.failedAt + latency; // its bytes sent before the failure
    }
    else
    {
        // Nothing arrived: the receiver knows nothing of it until the sender's probe.
        Simulator::Schedule(std::max(Time(0), Seconds(sent) + m_senderTimeout - now),
                            &FluidMessageTransport::Probe,
                            this,
                            x.message,
                            lost,
                            loss.link,
                            latency,
                            m_senderTimeout);
        return;
    }
    NackAfterSilence(x.message, lost, loss.link, latency, Seconds(lastArrival));
}

void
FluidMessageTransport::Reroute(uint32_t link)
{
    // Every transfer crossing the link goes on over the new routes, in place (keeping
    // its place at its NIC): the packets it sent are counted on the old route with what
    // the link (and full ports) took from them, asked for after its tail (m_owed). A copy
    // made by a switch keeps its path.
    const double now = Simulator::Now().GetSeconds();
    CompleteDue(now);
    for (uint32_t h = 0; h < m_inFlight.size(); ++h)
    {
        if (!m_fluid->IsSending(h))
        {
            continue;
        }
        const PackedRoute& route = m_fluid->GetRoute(h);
        bool crosses = false;
        for (uint32_t k = 0; k < route.Size() && !crosses; ++k)
        {
            crosses = route.Key(k) / 2 == link;
        }
        InFlight& x = m_inFlight[h];
        if (!crosses || (!m_copies.empty() && m_copies.count(x.message) > 0))
        {
            continue;
        }
        const Message& msg = m_messages[x.message];
        const auto [it, fresh] = m_owed.try_emplace(x.message);
        Owed& owed = it->second;
        if (fresh)
        {
            owed.from = StartOf(x);
        }
        // The part on this route: what the earlier routes did not carry.
        const uint32_t part = PacketsOf(msg, x) - owed.counted;
        const auto partWire = static_cast<double>(m_model->GetWireBytes(CarriedBytes(msg, part)));
        FluidNetwork::LinkShares oldShares; // PackedRoute is not copied (it may own memory)
        for (uint32_t k = 0; k < route.Size(); ++k)
        {
            oldShares.emplace_back(route.Key(k), route.Share(k));
        }
        PackedRoute old;
        old.Assign(oldShares);
        uint32_t senderLinks = 0;
        const double latency = m_model->MessagePath(msg.src,
                                                    msg.dst,
                                                    CarriedBytes(msg, x.repairPackets),
                                                    m_shares,
                                                    senderLinks);
        const FluidTransfers::Moved moved = m_fluid->SetRoute(h, now, m_shares, senderLinks);
        NS_ASSERT_MSG(moved.left >= 0, "Reroute is connected only where transfers can move");
        // At least its last packet is left: it was still sending.
        const auto rest =
            static_cast<uint32_t>(std::clamp(std::ceil(moved.left / partWire * part - 1e-9),
                                             1.0,
                                             static_cast<double>(part)));
        const uint32_t sent = part - rest;
        if (sent > 0)
        {
            const uint64_t sentBytes = CarriedBytes(msg, sent);
            const Loss loss = CountOnLinks(old, sentBytes, x, owed.from, now);
            if (loss.fraction > 0)
            {
                const uint32_t lost = LostToFailure(loss, sent);
                CountLoss(x, lost, loss.link);
                m_cluster->NotifyFramesLost(loss.link, lost);
                owed.packets += lost;
                owed.link = loss.link;
            }
            if (m_dropsAtFullPorts && moved.lost > 0)
            {
                const uint32_t dropped =
                    DroppedPackets(moved.lost,
                                   static_cast<double>(m_model->GetWireBytes(sentBytes)),
                                   sent);
                CountLoss(x, dropped, kNoLink);
                owed.packets += dropped;
            }
        }
        owed.counted += sent;
        owed.from = now;
        x.delivery = latency + m_perMessageOverhead.GetSeconds();
    }
}

uint32_t
FluidMessageTransport::LostToFailure(const Loss& loss, uint64_t packets)
{
    // The packets it sent into the failed link before the reroute (at least one).
    const auto n = static_cast<double>(packets);
    return static_cast<uint32_t>(std::clamp(std::ceil(loss.fraction * n - 1e-9), 1.0, n));
}

FluidMessageTransport::Repairs&
FluidMessageTransport::RepairsOf(uint32_t link)
{
    return link == kNoLink ? m_dropped : m_caught.repaired;
}

void
FluidMessageTransport::CountLoss(const InFlight& x, uint32_t lost, uint32_t link)
{
    Repairs& r = RepairsOf(link);
    r.messages += x.repairPackets == 0 ? 1 : 0; // a repair's losses are its message's
    r.lostPackets += lost;
}

void
FluidMessageTransport::NackAfterSilence(uint32_t message,
                                        uint32_t lost,
                                        uint32_t link,
                                        double latency,
                                        Time lastArrival)
{
    Simulator::Schedule(std::max(Time(0), lastArrival + m_repairTimeout - Simulator::Now()),
                        &FluidMessageTransport::NackMissing,
                        this,
                        message,
                        lost,
                        link,
                        latency);
}

void
FluidMessageTransport::Probe(uint32_t message,
                             uint32_t lost,
                             uint32_t link,
                             double latency,
                             Time timeout)
{
    ++m_caught.repaired.timeouts;
    if (Simulator::Now() < m_cluster->GetLink(link).reroutedAt)
    {
        // Into the failed link again; the next probe after twice the time.
        Simulator::Schedule(2 * timeout,
                            &FluidMessageTransport::Probe,
                            this,
                            message,
                            lost,
                            link,
                            latency,
                            2 * timeout);
        return;
    }
    // The last packet again: a message of one packet is whole when it arrives; else the
    // receiver learns of the message and asks for the rest after its repair timeout.
    if (lost == 1)
    {
        StartRepair(message, 1, link);
        return;
    }
    NackAfterSilence(message, lost - 1, link, latency, Simulator::Now() + Seconds(latency));
}

bool
FluidMessageTransport::Lossless() const
{
    return m_lossless || m_cluster->GetFabricSpec().lossless;
}

uint32_t
FluidMessageTransport::DroppedPackets(double lostWire, double wire, uint64_t packets)
{
    m_dropCarry += lostWire / wire * static_cast<double>(packets);
    const double whole = std::min(std::floor(m_dropCarry + 1e-9), static_cast<double>(packets));
    m_dropCarry = std::max(0.0, m_dropCarry - whole);
    return static_cast<uint32_t>(whole);
}

void
FluidMessageTransport::NackMissing(uint32_t message, uint32_t lost, uint32_t link, double latency)
{
    ++RepairsOf(link).timeouts;
    if (link != kNoLink && Simulator::Now() < m_cluster->GetLink(link).reroutedAt)
    {
        // The NACK, or the packets it asks for, go into the failed link: silence again.
        NackAfterSilence(message, lost, link, latency, Simulator::Now());
        return;
    }
    Simulator::Schedule(Seconds(latency),
                        &FluidMessageTransport::StartRepair,
                        this,
                        message,
                        lost,
                        link);
}

void
FluidMessageTransport::StartRepair(uint32_t message, uint32_t lost, uint32_t link)
{
    CompleteDue(Simulator::Now().GetSeconds()); // may send (a FlowCompleted sink): first
    const Message& msg = m_messages[message];
    const uint64_t bytes = CarriedBytes(msg, lost);
    RepairsOf(link).resentWireBytes += m_model->GetWireBytes(bytes);
    uint32_t senderLinks = 0;
    const double latency = m_model->MessagePath(msg.src, msg.dst, bytes, m_shares, senderLinks);
    StartTransferOf(message, senderLinks, latency, lost);
}

FluidMessageTransport::FailureCatch
FluidMessageTransport::GetCaughtByFailures() const
{
    return m_caught;
}

bool
FluidMessageTransport::GetDropsAtFullPorts() const
{
    return m_dropsAtFullPorts;
}

FluidMessageTransport::Repairs
FluidMessageTransport::GetDropRepairs() const
{
    return m_dropped;
}

uint32_t
FluidMessageTransport::GetPerPacketOverhead() const
{
    return m_packet ? m_packet->GetPerPacketOverhead()
                    : (m_model ? m_model->GetPerPacketOverhead() : 0);
}

uint32_t
FluidMessageTransport::GetMaxPayload() const
{
    if (m_packet)
    {
        return m_packet->GetMaxPayload();
    }
    if (!m_model)
    {
        throw std::invalid_argument("FluidMessageTransport::GetMaxPayload: call "
                                    "Install(cluster) first");
    }
    return m_model->GetMaxPayload();
}

bool
FluidMessageTransport::GetFlowKey(uint32_t src, uint32_t dst, FlowKey& key) const
{
    return m_packet && m_packet->GetFlowKey(src, dst, key);
}

Ptr<AlphaBetaModel>
FluidMessageTransport::GetModel() const
{
    return m_model;
}

uint64_t
FluidMessageTransport::GetRecomputations() const
{
    return m_fluid ? m_fluid->GetRecomputations() : 0;
}

uint64_t
FluidMessageTransport::GetFlowsRecomputed() const
{
    return m_fluid ? m_fluid->GetFlowsRecomputed() : 0;
}

uint32_t
FluidMessageTransport::GetActiveFlows() const
{
    return m_fluid ? m_fluid->GetActive() : 0;
}

FluidTransfers::LinkQueue
FluidMessageTransport::GetLinkQueue(uint32_t key) const
{
    if (!m_fluid)
    {
        throw std::invalid_argument("FluidMessageTransport::GetLinkQueue: call "
                                    "Install(cluster) first");
    }
    return m_fluid->GetLinkQueue(key);
}

uint32_t
FluidMessageTransport::GetFrameWireBytes() const
{
    return GetMaxPayload() + GetPerPacketOverhead();
}

} // namespace ns3
