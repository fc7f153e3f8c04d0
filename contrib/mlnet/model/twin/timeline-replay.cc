// SPDX-License-Identifier: GPL-2.0-only
/*
 * TimelineReplay: see timeline-replay.h for what is modelled and what is left out.
 *
 * Ranks. Each rank runs its chains as the StepwiseCollective engine does: entering
 * step g of chain c issues the rank's messages of (c, g); the step completes when
 * every message addressed to the rank in (c, g) has arrived; a reduction (gamma x
 * reduced bytes) then starts when the rank's previous reduction ended, and the next
 * step is entered when it ends.
 *
 * Sender NIC (the directed links leaving the source: one for a host). It models the
 * UDP transport's NIC scheduler: a FIFO of at most B packets (NicBacklogPackets)
 * filled round-robin from the active messages. A message issued while the FIFO has
 * room puts its first packets (up to the room) in it at once: this "head" leaves at
 * the NIC's full rate, after the heads queued before it. The rest of the message is
 * served round-robin with the other active messages once the FIFO holds no head: each
 * gets rate_k / (sum of the round-robin shares on the link). A message that ECMP
 * splits over several first hops has no head and is round-robin on each of them.
 *
 * Downstream links. Senders do not slow down for the network (no congestion control):
 * a message offers its NIC rate x its ECMP share to every later link of its route. A
 * link offered more than its rate builds a FIFO backlog Q (fluid, dQ/dt = offered -
 * rate while Q > 0); a message whose last byte leaves its NIC at t waits the largest
 * Q(t)/rate over the links of its route. Its last byte then arrives after the
 * pipeline latency L = (h-1)*F1*8/R + h*d of its own route plus PerMessageOverhead.
 *
 * Rates are recomputed whenever a message starts, ends, or its head leaves the NIC.
 * Times are doubles (seconds) rounded once at the end. A lone message on an idle path
 * takes head/R + rest/R + L = T_msg exactly.
 *
 * Phases of Run: index the schedule (validate every message; its ids sorted by sender
 * and by receiver, then chain and step: each rank's program); enter every rank's
 * chains; then, until nothing is in flight or pending, update the rates if something
 * changed, take the earliest end of a head, a transfer or a timed event, retire the
 * transfers that ended, and handle the event (an arrival releases the receiver's
 * step, the end of a reduction its next one); finally report.
 *
 * Incremental, same rules. A message is routed when it starts and forgotten when it
 * arrives. Its bytes left in its current phase (head, then rest) are kept at t0 with
 * the rate since t0 and brought up to date (Settle) only when its rate or phase
 * changes or the NIC FIFO rules read them. Rates depend only on the sender's NIC
 * links (FIFO order and emptiness, round-robin weights), so a change on a NIC link
 * recomputes the flows on that link; a changed rate moves its downstream links'
 * offered load by the difference, after taking their backlog at now (Rebase; the
 * backlog is linear between changes of the offered load, so this is the same fluid).
 * Ties are handled in start order, as the full rescan did. Simultaneous means within
 * kTie (1e-13 s), for events too: phase ends come before events, and events in the
 * order they were pushed. Event times are sums of rounded terms, and the incremental
 * sums round differently from a full rescan; with exact time comparisons a last-bit
 * difference between two arrivals that are equal in exact arithmetic (or between an
 * arrival and a phase end) decided which receiver started its next messages first, and
 * so the NIC FIFO and round-robin order after it. The arithmetic differs
 * from a full rescan only in rounding (bytes left are computed once per rate change
 * instead of once per event): timeline-replay-test.cc checks the two agree to 1e-12.
 */
#include "timeline-replay.h"

#include "ns3/log.h"
#include "ns3/route-planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTimelineReplay");

namespace
{

/// A phase ending within this time of the earliest one ends with it (s).
constexpr double kTie = 1e-13;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

} // namespace

TimelineReplay::TimelineReplay(uint32_t nRanks,
                               const std::vector<LinkTiming>& links,
                               const Packetization& packetization,
                               RouteFunction route,
                               HopsFunction hops,
                               LatencyFunction latency,
                               const Parameters& parameters)
    : m_nRanks(nRanks),
      m_links(links),
      m_packetization(packetization),
      m_route(std::move(route)),
      m_hops(std::move(hops)),
      m_latency(std::move(latency)),
      m_parameters(parameters)
{
}

TimelineReplay::RouteFunction
TimelineReplay::ClusterRoutes(Ptr<const Cluster> cluster,
                              const RoutePlanner& planner,
                              FlowKeyFunction flowKey)
{
    // A rank pair's route is asked for by every message between them (a ring asks for
    // each of its n pairs 2(n-1) times): the last routes are kept, one per slot of a
    // direct-mapped cache of at most kRouteSlots pairs (bounded memory whatever the
    // schedule).
    constexpr uint32_t kRouteSlots = 1u << 16;

    struct Cached
    {
        uint64_t pair{std::numeric_limits<uint64_t>::max()};
        uint32_t nic{0};
        std::vector<std::pair<uint32_t, double>> shares;
    };

    const uint64_t nRanks = cluster->GetNRanks();
    const uint64_t slots = std::min<uint64_t>(kRouteSlots, std::max<uint64_t>(1, nRanks * nRanks));
    auto cache = std::make_shared<std::vector<Cached>>(slots);
    return [cluster, &planner, cache, nRanks, flowKey](
               uint32_t src,
               uint32_t dst,
               std::vector<std::pair<uint32_t, double>>& shares) -> uint32_t {
        const uint64_t pair = src * nRanks + dst;
        Cached& c = (*cache)[(pair * 0x9E3779B97F4A7C15ULL >> 16) % cache->size()];
        if (c.pair != pair)
        {
            // First hops (the sender's NIC) first, then the downstream links.
            const uint32_t srcNode = cluster->GetRankNode(src)->GetId();
            const auto& links = cluster->GetLinks();
            auto leavesSource = [&](const std::pair<uint32_t, double>& ks) {
                const ClusterLink& l = links[ks.first / 2];
                return (ks.first % 2 == 0 ? l.nodeA : l.nodeB) == srcNode;
            };
            c.pair = std::numeric_limits<uint64_t>::max(); // until routed (it may throw)
            FlowKey key;
            auto routeShares = flowKey && src != dst && flowKey(src, dst, key)
                                   ? planner.FlowShares(src, dst, key)
                                   : planner.LinkShares(src, dst);
            c.shares.clear();
            for (const auto& ks : routeShares)
            {
                if (leavesSource(ks))
                {
                    c.shares.push_back(ks);
                }
            }
            c.nic = static_cast<uint32_t>(c.shares.size());
            for (const auto& ks : routeShares)
            {
                if (!leavesSource(ks))
                {
                    c.shares.push_back(ks);
                }
            }
            c.pair = pair;
        }
        shares.assign(c.shares.begin(), c.shares.end());
        return c.nic;
    };
}

TimelinePrediction
TimelineReplay::Run(const std::vector<CollectiveStep>& schedule, bool keepMessages)
{
    NS_LOG_FUNCTION(this << schedule.size());
    NS_ASSERT_MSG(!m_ran, "a TimelineReplay replays one schedule");
    m_ran = true;
    m_schedule = &schedule;
    BuildIndex(keepMessages);
    EnterAllChains();
    while (m_activeFlows > 0 || !m_events.empty() || !m_tied.empty())
    {
        if (m_dirty)
        {
            UpdateRates();
            m_dirty = false;
        }
        double tFluid = NextPhaseEnd();
        double tEvent = NextEventTime();
        NS_ASSERT_MSG(tFluid < kInfinity || tEvent < kInfinity,
                      "messages in flight but none can progress");
        if (tFluid <= tEvent + kTie)
        {
            m_now = tFluid;
            EndPhases(tFluid);
            continue;
        }
        m_now = std::max(m_now, tEvent);
        TimelineEvent e = PopNextEvent();
        HandleEvent(e);
    }
    return Report();
}

double
TimelineReplay::NextEventTime() const
{
    double t = m_events.empty() ? kInfinity : m_events.top().t;
    return m_tiedTimes.empty() ? t : std::min(t, *m_tiedTimes.begin());
}

TimelineReplay::TimelineEvent
TimelineReplay::PopNextEvent()
{
    // Events within kTie of the earliest are simultaneous: the first pushed goes first.
    // Their times are sums of rounded terms, so two arrivals that are equal in exact
    // arithmetic may differ in the last bit; ordering them by time would let the
    // rounding pick which receiver starts its next messages first. The tied events
    // wait in m_tied (by insertion), so a step where every rank's arrival ties costs
    // O(log n) per event, not a pass over all of them per event. An event moved there
    // stays within kTie of the earliest one left: later events are never earlier than
    // the time at which it was moved.
    const double t0 = NextEventTime();
    while (!m_events.empty() && m_events.top().t - t0 <= kTie)
    {
        m_tiedTimes.insert(m_events.top().t);
        m_tied.push(m_events.top());
        m_events.pop();
    }
    TimelineEvent pick = m_tied.top();
    m_tied.pop();
    m_tiedTimes.erase(m_tiedTimes.find(pick.t));
    return pick;
}

// ---- Phase 1: the schedule's index ------------------------------------------------------

void
TimelineReplay::BuildIndex(bool keepMessages)
{
    const std::vector<CollectiveStep>& schedule = *m_schedule;
    m_keep = keepMessages;
    uint64_t total = 0;
    m_stepBegin.reserve(schedule.size() + 1);
    for (const auto& step : schedule)
    {
        m_stepBegin.push_back(static_cast<uint32_t>(std::min<uint64_t>(total, kNone)));
        total += step.messages.size();
    }
    if (total >= kNone)
    {
        throw std::invalid_argument("AlphaBetaModel: the schedule has too many messages");
    }
    m_stepBegin.push_back(static_cast<uint32_t>(total));
    if (m_keep)
    {
        m_out.messages.resize(total);
    }
    uint32_t id = 0;
    for (uint32_t si = 0; si < schedule.size(); ++si)
    {
        for (const auto& sm : schedule[si].messages)
        {
            uint32_t hops = m_hops(sm); // validates the ranks and the route
            if (m_keep)
            {
                Resolved r = Resolve(id);
                MessageTiming& t = m_out.messages[id];
                t.message = sm;
                t.message.chain = r.chain;
                t.message.step = r.step;
                t.scheduleStep = si;
                t.hops = hops;
            }
            ++id;
        }
    }
    m_arrived.assign(total, false);
    std::vector<uint32_t> sendBegin;
    std::vector<uint32_t> recvBegin;
    SortByRank(true, m_sends, sendBegin);
    SortByRank(false, m_recvs, recvBegin);
    // Each rank's chains, ascending: the union of the chains it sends and receives in.
    m_chainBegin.assign(m_nRanks + 1, 0);
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        m_chainBegin[r] = static_cast<uint32_t>(m_chains.size());
        uint32_t s = sendBegin[r];
        uint32_t v = recvBegin[r];
        while (s < sendBegin[r + 1] || v < recvBegin[r + 1])
        {
            uint32_t cs = s < sendBegin[r + 1] ? Resolve(m_sends[s]).chain : kNone;
            uint32_t cv = v < recvBegin[r + 1] ? Resolve(m_recvs[v]).chain : kNone;
            RankChain ch;
            ch.rank = r;
            ch.chain = std::min(cs, cv);
            ch.sendPos = s;
            while (s < sendBegin[r + 1] && Resolve(m_sends[s]).chain == ch.chain)
            {
                ++s;
            }
            ch.sendEnd = s;
            ch.recvPos = v;
            while (v < recvBegin[r + 1] && Resolve(m_recvs[v]).chain == ch.chain)
            {
                ++v;
            }
            ch.recvEnd = v;
            m_chains.push_back(ch);
        }
    }
    m_chainBegin[m_nRanks] = static_cast<uint32_t>(m_chains.size());
}

TimelineReplay::Resolved
TimelineReplay::Resolve(uint32_t id) const
{
    auto it = std::upper_bound(m_stepBegin.begin(), m_stepBegin.end(), id);
    auto si = static_cast<uint32_t>(it - m_stepBegin.begin() - 1);
    const ScheduledMessage& sm = (*m_schedule)[si].messages[id - m_stepBegin[si]];
    if (sm.step == ScheduledMessage::kStepOfSchedule)
    {
        // A hand-written schedule: one chain, the step is the CollectiveStep's index.
        return {&sm, si, 0, si};
    }
    return {&sm, si, sm.chain, sm.step};
}

void
TimelineReplay::SortByRank(bool bySender, std::vector<uint32_t>& ids, std::vector<uint32_t>& begin)
{
    const auto total = static_cast<uint32_t>(m_arrived.size());
    begin.assign(m_nRanks + 1, 0);
    auto rankOf = [&](const ScheduledMessage& sm) { return bySender ? sm.src : sm.dst; };
    for (const auto& step : *m_schedule)
    {
        for (const auto& sm : step.messages)
        {
            ++begin[rankOf(sm) + 1];
        }
    }
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        begin[r + 1] += begin[r];
    }
    ids.assign(total, 0);
    std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
    uint32_t id = 0;
    for (const auto& step : *m_schedule)
    {
        for (const auto& sm : step.messages)
        {
            ids[fill[rankOf(sm)]++] = id++;
        }
    }
    // Within a rank: by (chain, step), then schedule order (ids are ascending already).
    std::vector<std::pair<uint64_t, uint32_t>> keyed;
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        keyed.clear();
        for (uint32_t k = begin[r]; k < begin[r + 1]; ++k)
        {
            Resolved m = Resolve(ids[k]);
            keyed.emplace_back(static_cast<uint64_t>(m.chain) << 32 | m.step, ids[k]);
        }
        if (!std::is_sorted(keyed.begin(), keyed.end()))
        {
            std::sort(keyed.begin(), keyed.end());
            for (uint32_t k = begin[r]; k < begin[r + 1]; ++k)
            {
                ids[k] = keyed[k - begin[r]].second;
            }
        }
    }
}

// ---- Phase 2: the ranks' programs -----------------------------------------------------

void
TimelineReplay::EnterAllChains()
{
    const size_t nKeys = 2 * m_links.size();
    m_finish.assign(m_nRanks, 0.0);
    m_computeFree.assign(m_nRanks, 0.0);
    m_nicOf.assign(nKeys, kNone);
    m_down.assign(nKeys, Downstream());
    for (uint32_t c = 0; c < m_chains.size(); ++c)
    {
        AdvanceChain(c);
    }
}

void
TimelineReplay::AdvanceChain(uint32_t chainIndex)
{
    RankChain& ch = m_chains[chainIndex];
    const double gamma = m_parameters.reductionTimePerByte;
    while (true)
    {
        if (ch.sendPos == ch.sendEnd && ch.recvPos == ch.recvEnd)
        {
            if (!ch.done)
            {
                ch.done = true;
                m_finish[ch.rank] = std::max(m_finish[ch.rank], m_now);
            }
            return;
        }
        if (!ch.entered)
        {
            // Enter the chain's next step: the smallest step it sends or receives in.
            ch.entered = true;
            uint32_t gs = ch.sendPos < ch.sendEnd ? Resolve(m_sends[ch.sendPos]).step : kNone;
            uint32_t gr = ch.recvPos < ch.recvEnd ? Resolve(m_recvs[ch.recvPos]).step : kNone;
            ch.step = std::min(gs, gr);
            ch.sendStepEnd = ch.sendPos;
            while (ch.sendStepEnd < ch.sendEnd && Resolve(m_sends[ch.sendStepEnd]).step == ch.step)
            {
                ++ch.sendStepEnd;
            }
            ch.recvStepEnd = ch.recvPos;
            ch.recvsLeft = 0;
            while (ch.recvStepEnd < ch.recvEnd && Resolve(m_recvs[ch.recvStepEnd]).step == ch.step)
            {
                ch.recvsLeft += m_arrived[m_recvs[ch.recvStepEnd]] ? 0 : 1;
                ++ch.recvStepEnd;
            }
            for (uint32_t k = ch.sendPos; k < ch.sendStepEnd; ++k)
            {
                StartMessage(m_sends[k]);
            }
        }
        if (ch.recvsLeft > 0)
        {
            return; // still waiting
        }
        // The step's reduction: a hand-written schedule's receivers reduce its
        // reduceBytes, a collective's the bytes of the messages marked reduce.
        double reduceBytes = 0;
        for (uint32_t k = ch.recvPos; k < ch.recvStepEnd; ++k)
        {
            Resolved m = Resolve(m_recvs[k]);
            if (m.msg->step == ScheduledMessage::kStepOfSchedule)
            {
                reduceBytes = static_cast<double>((*m_schedule)[m.scheduleStep].reduceBytes);
            }
            else if (m.msg->reduce)
            {
                reduceBytes += static_cast<double>(m.msg->bytes);
            }
        }
        ch.sendPos = ch.sendStepEnd;
        ch.recvPos = ch.recvStepEnd;
        ch.entered = false;
        if (reduceBytes > 0 && gamma > 0)
        {
            // One compute resource per rank: reductions one after the other.
            double& free = m_computeFree[ch.rank];
            free = std::max(m_now, free) + gamma * reduceBytes;
            ch.computing = true;
            m_events.push({free, m_seq++, false, chainIndex});
            return;
        }
    }
}

void
TimelineReplay::StartMessage(uint32_t id)
{
    const ScheduledMessage& sm = *Resolve(id).msg;
    if (m_keep)
    {
        m_out.messages[id].start = Seconds(m_now);
    }
    if (sm.src == sm.dst || sm.bytes == 0)
    {
        // To itself or empty: delivered at once.
        if (m_keep)
        {
            m_out.messages[id].transferEnd = Seconds(m_now);
            m_out.messages[id].arrival = Seconds(m_now);
        }
        m_events.push({m_now, m_seq++, true, id});
        return;
    }
    uint32_t slot;
    if (m_freeFlows.empty())
    {
        slot = static_cast<uint32_t>(m_flows.size());
        m_flows.emplace_back();
    }
    else
    {
        slot = m_freeFlows.back();
        m_freeFlows.pop_back();
    }
    Flow& f = m_flows[slot];
    f.id = id;
    f.order = m_startOrder++;
    f.nicCount = m_route(sm.src, sm.dst, f.shares);
    NS_ASSERT_MSG(f.nicCount > 0 && f.nicCount <= f.shares.size(), "a route without a first hop");
    f.nic = f.nicCount == 1 ? f.shares[0].first : kNone;
    f.packets = m_packetization.GetPacketCount(sm.bytes);
    f.wire = static_cast<double>(m_packetization.GetWireBytes(sm.bytes));
    double latency = m_latency(sm.src, sm.dst, m_packetization.GetFirstFrameBytes(sm.bytes));
    f.delivery = latency + m_parameters.perMessageOverhead;
    if (m_keep)
    {
        m_out.messages[id].latency = Seconds(latency);
    }
    f.head = 0;
    f.rest = f.wire;
    f.t0 = m_now;
    f.rate = 0;
    f.active = true;
    f.phaseChanged = true;
    if (f.nic != kNone && m_parameters.nicBacklogPackets > 0)
    {
        if (m_nicOf[f.nic] == kNone)
        {
            m_nicOf[f.nic] = static_cast<uint32_t>(m_nics.size());
            m_nics.emplace_back();
        }
        AdmitToNicFifo(slot);
    }
    for (uint32_t k = 0; k < f.nicCount; ++k)
    {
        uint32_t key = f.shares[k].first;
        if (m_nicOf[key] == kNone)
        {
            m_nicOf[key] = static_cast<uint32_t>(m_nics.size());
            m_nics.emplace_back();
        }
        m_nics[m_nicOf[key]].flows.push_back(slot);
        Touch(key);
    }
    for (uint32_t k = f.nicCount; k < f.shares.size(); ++k)
    {
        ++m_down[f.shares[k].first].flows;
    }
    ++m_activeFlows;
    m_dirty = true;
}

void
TimelineReplay::AdmitToNicFifo(uint32_t slot)
{
    Flow& f = m_flows[slot];
    Nic& nic = m_nics[m_nicOf[f.nic]];
    const double fifoPackets = static_cast<double>(m_parameters.nicBacklogPackets);
    double perPacket = f.wire / static_cast<double>(f.packets);
    double queued = 0; // packets already in the FIFO
    for (uint32_t j : nic.fifo)
    {
        Flow& g = m_flows[j];
        Settle(g);
        queued += g.head / (g.wire / static_cast<double>(g.packets));
    }
    double room = std::floor(fifoPackets - queued + 1e-9);
    // The FIFO is kept full while round-robin messages wait: no room then.
    bool roundRobinWaiting = false;
    for (uint32_t j : nic.flows)
    {
        roundRobinWaiting |= m_flows[j].nic == f.nic && m_flows[j].head <= 0;
    }
    if (room >= 1 && !roundRobinWaiting)
    {
        double pk = std::min(static_cast<double>(f.packets), room);
        f.head = pk == static_cast<double>(f.packets) ? f.wire : pk * perPacket;
        f.rest = f.wire - f.head;
        nic.fifo.push_back(slot);
    }
    else if (roundRobinWaiting && nic.fifo.empty())
    {
        // The FIFO is full of packets of the round-robin messages: they leave before
        // this message's first packet. Split B packets evenly over them and send those
        // first.
        std::vector<uint32_t> rr;
        for (uint32_t j : nic.flows)
        {
            Flow& g = m_flows[j];
            if (g.nic == f.nic && g.head <= 0)
            {
                Settle(g);
                if (g.rest > 0)
                {
                    rr.push_back(j);
                }
            }
        }
        for (uint32_t j : rr)
        {
            Flow& g = m_flows[j];
            double bpp = g.wire / static_cast<double>(g.packets);
            double h = std::min(g.rest, fifoPackets / rr.size() * bpp);
            g.head = h;
            g.rest -= h;
            g.phaseChanged = true;
            nic.fifo.push_back(j);
        }
    }
}

// ---- Phase 3: the fluid -----------------------------------------------------------------

double
TimelineReplay::SecondsPerByte(uint32_t key) const
{
    const LinkTiming& lc = m_links[key / 2];
    return key % 2 == 0 ? lc.secondsPerByteAtoB : lc.secondsPerByteBtoA;
}

double
TimelineReplay::Backlog(uint32_t key, double t) const
{
    // Offered load constant since qTime.
    const Downstream& d = m_down[key];
    return std::max(0.0, d.queue + (d.offered - 1.0 / SecondsPerByte(key)) * (t - d.qTime));
}

void
TimelineReplay::Rebase(uint32_t key)
{
    Downstream& d = m_down[key];
    d.queue = Backlog(key, m_now);
    d.qTime = m_now;
}

void
TimelineReplay::Settle(Flow& f) const
{
    if (f.t0 != m_now && f.rate > 0)
    {
        double& left = f.head > 0 ? f.head : f.rest;
        left -= f.rate * (m_now - f.t0);
    }
    f.t0 = m_now;
}

void
TimelineReplay::Touch(uint32_t nicKey)
{
    Nic& nic = m_nics[m_nicOf[nicKey]];
    if (!nic.touched)
    {
        nic.touched = true;
        m_touched.push_back(nicKey);
    }
}

double
TimelineReplay::NewRate(const Flow& f, uint32_t slot) const
{
    if (f.head > 0)
    {
        return m_nics[m_nicOf[f.nic]].fifo.front() == slot ? 1.0 / SecondsPerByte(f.nic) : 0.0;
    }
    double spb = 0;
    bool blocked = false;
    for (uint32_t k = 0; k < f.nicCount; ++k)
    {
        uint32_t key = f.shares[k].first;
        const Nic& nic = m_nics[m_nicOf[key]];
        blocked |= !nic.fifo.empty();
        spb = std::max(spb, SecondsPerByte(key) * nic.weight);
    }
    return blocked ? 0.0 : 1.0 / spb;
}

void
TimelineReplay::UpdateRates()
{
    // The ended flows leave their downstream links.
    for (uint32_t slot : m_retired)
    {
        Flow& f = m_flows[slot];
        for (uint32_t k = f.nicCount; k < f.shares.size(); ++k)
        {
            uint32_t key = f.shares[k].first;
            Downstream& d = m_down[key];
            Rebase(key);
            d.offered -= f.shares[k].second * f.rate;
            if (--d.flows == 0)
            {
                d.offered = 0;
            }
        }
        f.active = false;
        ++f.version;
        m_freeFlows.push_back(slot);
    }
    m_retired.clear();
    // Round-robin weights of the touched NIC links, summed in start order; their flows'
    // rates are recomputed.
    m_update.clear();
    for (uint32_t key : m_touched)
    {
        Nic& nic = m_nics[m_nicOf[key]];
        nic.touched = false;
        nic.weight = 0;
        for (uint32_t slot : nic.flows)
        {
            Flow& f = m_flows[slot];
            if (f.head <= 0)
            {
                for (uint32_t k = 0; k < f.nicCount; ++k)
                {
                    if (f.shares[k].first == key)
                    {
                        nic.weight += f.shares[k].second;
                    }
                }
            }
            if (!f.marked)
            {
                f.marked = true;
                m_update.push_back(slot);
            }
        }
    }
    m_touched.clear();
    for (uint32_t slot : m_update)
    {
        Flow& f = m_flows[slot];
        f.marked = false;
        double rate = NewRate(f, slot);
        if (rate == f.rate && !f.phaseChanged)
        {
            continue;
        }
        Settle(f);
        if (rate != f.rate)
        {
            // Its downstream links: the backlog so far, then the new offered load.
            for (uint32_t k = f.nicCount; k < f.shares.size(); ++k)
            {
                uint32_t key = f.shares[k].first;
                Rebase(key);
                m_down[key].offered += f.shares[k].second * (rate - f.rate);
            }
        }
        f.rate = rate;
        f.phaseChanged = false;
        ++f.version;
        if (rate > 0)
        {
            double left = f.head > 0 ? f.head : f.rest;
            f.end = m_now + std::max(0.0, left / rate);
            m_ends.push({f.end, slot, f.version});
        }
    }
    // Stale heap entries: rebuild when they outnumber the live ones.
    if (m_ends.size() > 2 * static_cast<size_t>(m_activeFlows) + 64)
    {
        std::vector<PhaseEnd> live;
        live.reserve(m_activeFlows);
        for (uint32_t slot = 0; slot < m_flows.size(); ++slot)
        {
            const Flow& f = m_flows[slot];
            if (f.active && f.rate > 0)
            {
                live.push_back({f.end, slot, f.version});
            }
        }
        m_ends = decltype(m_ends)(std::greater<>(), std::move(live));
    }
    ++m_rateUpdates;
}

double
TimelineReplay::NextPhaseEnd()
{
    while (!m_ends.empty())
    {
        const PhaseEnd& e = m_ends.top();
        const Flow& f = m_flows[e.flow];
        if (f.active && f.version == e.version)
        {
            return e.t;
        }
        m_ends.pop();
    }
    return kInfinity;
}

void
TimelineReplay::EndPhases(double t)
{
    // Every phase ending within kTie of t ends now, in start order.
    m_batch.clear();
    while (!m_ends.empty())
    {
        const PhaseEnd e = m_ends.top();
        const Flow& f = m_flows[e.flow];
        if (f.active && f.version == e.version)
        {
            if (e.t - t > kTie)
            {
                break;
            }
            m_batch.push_back(e.flow);
        }
        m_ends.pop();
    }
    std::sort(m_batch.begin(), m_batch.end(), [this](uint32_t a, uint32_t b) {
        return m_flows[a].order < m_flows[b].order;
    });
    m_dirty = true;
    for (uint32_t slot : m_batch)
    {
        Flow& f = m_flows[slot];
        ++f.version;
        f.t0 = t;
        if (f.head > 0)
        {
            f.head = 0;
            Nic& nic = m_nics[m_nicOf[f.nic]];
            NS_ASSERT(nic.fifo.front() == slot);
            nic.fifo.pop_front();
            Touch(f.nic);
            if (f.rest > 0)
            {
                f.phaseChanged = true;
                continue;
            }
        }
        f.rest = 0;
        FinishTransfer(f, slot);
    }
}

void
TimelineReplay::FinishTransfer(Flow& f, uint32_t slot)
{
    // Its last byte left the NIC; it waits behind the largest backlog on its route
    // (links offered more than their rate; FIFO), then the pipeline latency. The
    // largest, not the sum: a link behind a congested one is only fed at that one's
    // rate, which the offered loads (NIC rates) overstate.
    double wait = 0;
    for (uint32_t k = f.nicCount; k < f.shares.size(); ++k)
    {
        uint32_t key = f.shares[k].first;
        wait = std::max(wait, Backlog(key, m_now) * SecondsPerByte(key));
    }
    double transferEnd = m_now + wait;
    double arrival = transferEnd + f.delivery;
    if (m_keep)
    {
        m_out.messages[f.id].transferEnd = Seconds(transferEnd);
        m_out.messages[f.id].arrival = Seconds(arrival);
    }
    m_events.push({arrival, m_seq++, true, f.id});
    // It leaves its NIC links now; its downstream links at the next rate update.
    for (uint32_t k = 0; k < f.nicCount; ++k)
    {
        uint32_t key = f.shares[k].first;
        auto& flows = m_nics[m_nicOf[key]].flows;
        flows.erase(std::find(flows.begin(), flows.end(), slot));
        Touch(key);
    }
    --m_activeFlows;
    m_retired.push_back(slot);
}

// ---- Phase 4: events ------------------------------------------------------------------

void
TimelineReplay::HandleEvent(const TimelineEvent& e)
{
    if (!e.arrival)
    {
        // A reduction ended: the chain goes on.
        m_chains[e.a].computing = false;
        AdvanceChain(e.a);
        return;
    }
    // An arrival releases the receiver's step once its last message is in.
    Resolved m = Resolve(e.a);
    const uint32_t dst = m.msg->dst;
    auto first = m_chains.begin() + m_chainBegin[dst];
    auto last = m_chains.begin() + m_chainBegin[dst + 1];
    auto it = std::lower_bound(first, last, m.chain, [](const RankChain& c, uint32_t chain) {
        return c.chain < chain;
    });
    NS_ASSERT(it != last && it->chain == m.chain && !m_arrived[e.a]);
    m_arrived[e.a] = true;
    RankChain& ch = *it;
    if (ch.entered && ch.step == m.step)
    {
        NS_ASSERT(ch.recvsLeft > 0);
        if (--ch.recvsLeft == 0)
        {
            AdvanceChain(static_cast<uint32_t>(it - m_chains.begin()));
        }
    }
}

// ---- Phase 5: the report --------------------------------------------------------------

TimelinePrediction
TimelineReplay::Report()
{
    for (const auto& ch : m_chains)
    {
        NS_ASSERT_MSG(ch.done, "rank " << ch.rank << " chain " << ch.chain << " never finished");
    }
    m_out.rateUpdates = m_rateUpdates;
    double total = 0;
    m_out.rankFinish.resize(m_nRanks);
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        total = std::max(total, m_finish[r]);
        m_out.rankFinish[r] = Seconds(m_finish[r]);
    }
    m_out.total = Seconds(total);
    return std::move(m_out);
}

} // namespace ns3
