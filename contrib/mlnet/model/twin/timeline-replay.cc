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
 * Phases of Run: build the message graph (flatten the schedule, route every message,
 * hand it to its sender's and receiver's programs); enter every rank's chains; then,
 * until nothing is in flight or pending, recompute the rates if something changed,
 * advance the fluid to the earliest end of a head, a transfer or a timed event, retire
 * the transfers that ended, and handle the event (an arrival releases the receiver's
 * step, the end of a reduction its next one); finally report.
 */
#include "timeline-replay.h"

#include "ns3/log.h"
#include "ns3/route-planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTimelineReplay");

namespace
{

/// A phase ending within this time of the earliest one ends with it (s).
constexpr double kTie = 1e-13;

} // namespace

TimelineReplay::TimelineReplay(Ptr<const Cluster> cluster,
                               const RoutePlanner& planner,
                               const std::vector<LinkTiming>& links,
                               const Packetization& packetization,
                               HopsFunction hops,
                               LatencyFunction latency,
                               const Parameters& parameters)
    : m_cluster(cluster),
      m_planner(planner),
      m_links(links),
      m_packetization(packetization),
      m_hops(std::move(hops)),
      m_latency(std::move(latency)),
      m_parameters(parameters),
      m_nRanks(cluster->GetNRanks())
{
}

TimelinePrediction
TimelineReplay::Run(const std::vector<CollectiveStep>& schedule)
{
    NS_LOG_FUNCTION(this << schedule.size());
    NS_ASSERT_MSG(!m_ran, "a TimelineReplay replays one schedule");
    m_ran = true;
    BuildMessages(schedule);
    EnterAllChains();
    while (!m_active.empty() || !m_events.empty())
    {
        if (m_dirty)
        {
            RecomputeRates();
            m_dirty = false;
        }
        double tFluid = NextPhaseEnd();
        double tEvent =
            m_events.empty() ? std::numeric_limits<double>::infinity() : m_events.top().t;
        NS_ASSERT_MSG(tFluid < std::numeric_limits<double>::infinity() || !m_events.empty(),
                      "messages in flight but none can progress");
        double tNext = std::min(tFluid, tEvent);
        AdvanceFluid(tNext, tFluid <= tEvent);
        m_now = tNext;
        if (tFluid <= tEvent)
        {
            continue;
        }
        TimelineEvent e = m_events.top();
        m_events.pop();
        HandleEvent(e);
    }
    return Report();
}

// ---- Phase 1: the message graph -------------------------------------------------------

void
TimelineReplay::BuildMessages(const std::vector<CollectiveStep>& schedule)
{
    m_ranks.assign(m_nRanks, {});
    for (uint32_t si = 0; si < schedule.size(); ++si)
    {
        for (const auto& sm : schedule[si].messages)
        {
            FluidMessage f;
            f.msg = sm;
            f.scheduleStep = si;
            f.hops = m_hops(sm); // validates the ranks and the route
            bool legacy = sm.step == ScheduledMessage::kStepOfSchedule;
            if (legacy)
            {
                f.msg.step = si;
                f.msg.chain = 0;
            }
            if (sm.src != sm.dst && sm.bytes > 0)
            {
                RouteMessage(f);
            }
            uint32_t id = static_cast<uint32_t>(m_msgs.size());
            AddToPrograms(id, f, legacy ? &schedule[si] : nullptr);
            m_msgs.push_back(std::move(f));
        }
    }
    if (m_msgs.size() >= std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("AlphaBetaModel: the schedule has too many messages");
    }
}

void
TimelineReplay::RouteMessage(FluidMessage& f)
{
    const ScheduledMessage& sm = f.msg;
    f.wire = static_cast<double>(m_packetization.GetWireBytes(sm.bytes));
    f.latency = m_latency(sm.src, sm.dst, m_packetization.GetFirstFrameBytes(sm.bytes));
    f.delivery = f.latency + m_parameters.perMessageOverhead;
    // First hops (the sender's NIC) first, then the downstream links.
    const uint32_t srcNode = m_cluster->GetRankNode(sm.src)->GetId();
    auto routeShares = m_planner.LinkShares(sm.src, sm.dst);
    auto leavesSource = [&](const std::pair<uint32_t, double>& ks) {
        const ClusterLink& l = m_cluster->GetLinks()[ks.first / 2];
        return (ks.first % 2 == 0 ? l.nodeA : l.nodeB) == srcNode;
    };
    f.shareBegin = static_cast<uint32_t>(m_shares.size());
    for (const auto& ks : routeShares)
    {
        if (leavesSource(ks))
        {
            m_shares.push_back(ks);
        }
    }
    f.nicEnd = static_cast<uint32_t>(m_shares.size());
    for (const auto& ks : routeShares)
    {
        if (!leavesSource(ks))
        {
            m_shares.push_back(ks);
        }
    }
    f.shareEnd = static_cast<uint32_t>(m_shares.size());
    NS_ASSERT_MSG(f.nicEnd > f.shareBegin, "a route without a first hop");
    if (f.nicEnd == f.shareBegin + 1)
    {
        f.nic = m_shares[f.shareBegin].first;
    }
    f.packets = m_packetization.GetPacketCount(sm.bytes);
}

void
TimelineReplay::AddToPrograms(uint32_t id, const FluidMessage& f, const CollectiveStep* lockStep)
{
    const ScheduledMessage& sm = f.msg;
    m_ranks[sm.src][sm.chain].steps[sm.step].sends.push_back(id);
    RankStep& recv = m_ranks[sm.dst][sm.chain].steps[sm.step];
    ++recv.recvsLeft;
    if (lockStep)
    {
        // A hand-written schedule: its receivers reduce the step's reduceBytes.
        recv.reduceBytes = static_cast<double>(lockStep->reduceBytes);
    }
    else if (sm.reduce)
    {
        recv.reduceBytes += static_cast<double>(sm.bytes);
    }
}

// ---- Phase 2: the ranks' programs -----------------------------------------------------

void
TimelineReplay::EnterAllChains()
{
    const size_t nKeys = 2 * m_links.size();
    m_finish.assign(m_nRanks, 0.0);
    m_computeFree.assign(m_nRanks, 0.0);
    m_weight.assign(nKeys, 0.0);
    m_fifo.assign(nKeys, {});
    m_offered.assign(nKeys, 0.0);
    m_queue.assign(nKeys, 0.0);
    m_qTime.assign(nKeys, 0.0);
    m_isLive.assign(nKeys, 0);
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        for (auto& [c, ch] : m_ranks[r])
        {
            ch.cursor = ch.steps.begin();
        }
    }
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        for (auto& [c, ch] : m_ranks[r])
        {
            AdvanceChain(r, c);
        }
    }
}

void
TimelineReplay::AdvanceChain(uint32_t r, uint32_t c)
{
    RankChain& ch = m_ranks[r][c];
    const double gamma = m_parameters.reductionTimePerByte;
    while (true)
    {
        if (ch.cursor == ch.steps.end())
        {
            if (!ch.done)
            {
                ch.done = true;
                m_finish[r] = std::max(m_finish[r], m_now);
            }
            return;
        }
        RankStep& st = ch.cursor->second;
        if (!st.entered)
        {
            st.entered = true;
            for (uint32_t id : st.sends)
            {
                StartMessage(id);
            }
        }
        if (st.recvsLeft > 0)
        {
            return; // still waiting
        }
        ++ch.cursor;
        if (st.reduceBytes > 0 && gamma > 0)
        {
            // One compute resource per rank: reductions one after the other.
            m_computeFree[r] = std::max(m_now, m_computeFree[r]) + gamma * st.reduceBytes;
            ch.computing = true;
            m_events.push({m_computeFree[r], m_seq++, false, r, c});
            return;
        }
    }
}

void
TimelineReplay::StartMessage(uint32_t id)
{
    FluidMessage& f = m_msgs[id];
    f.start = m_now;
    if (f.wire <= 0)
    {
        // To itself or empty: delivered at once.
        f.transferEnd = m_now;
        f.arrival = m_now;
        m_events.push({m_now, m_seq++, true, id, 0});
        return;
    }
    f.head = 0;
    f.rest = f.wire;
    if (f.nic != UINT32_MAX && m_parameters.nicBacklogPackets > 0)
    {
        AdmitToNicFifo(id);
    }
    m_active.push_back(id);
    m_dirty = true;
}

void
TimelineReplay::AdmitToNicFifo(uint32_t id)
{
    FluidMessage& f = m_msgs[id];
    const double fifoPackets = static_cast<double>(m_parameters.nicBacklogPackets);
    std::deque<uint32_t>& fifo = m_fifo[f.nic];
    double perPacket = f.wire / static_cast<double>(f.packets);
    double queued = 0; // packets already in the FIFO
    for (uint32_t j : fifo)
    {
        queued += m_msgs[j].head / (m_msgs[j].wire / static_cast<double>(m_msgs[j].packets));
    }
    double room = std::floor(fifoPackets - queued + 1e-9);
    // The FIFO is kept full while round-robin messages wait: no room then.
    bool roundRobinWaiting = false;
    for (uint32_t j : m_active)
    {
        roundRobinWaiting |= m_msgs[j].nic == f.nic && m_msgs[j].head <= 0;
    }
    if (room >= 1 && !roundRobinWaiting)
    {
        double pk = std::min(static_cast<double>(f.packets), room);
        f.head = pk == static_cast<double>(f.packets) ? f.wire : pk * perPacket;
        f.rest = f.wire - f.head;
        fifo.push_back(id);
    }
    else if (roundRobinWaiting && fifo.empty())
    {
        // The FIFO is full of packets of the round-robin messages: they leave before
        // this message's first packet. Split B packets evenly over them and send those
        // first.
        std::vector<uint32_t> rr;
        for (uint32_t j : m_active)
        {
            if (m_msgs[j].nic == f.nic && m_msgs[j].head <= 0 && m_msgs[j].rest > 0)
            {
                rr.push_back(j);
            }
        }
        for (uint32_t j : rr)
        {
            FluidMessage& g = m_msgs[j];
            double bpp = g.wire / static_cast<double>(g.packets);
            double h = std::min(g.rest, fifoPackets / rr.size() * bpp);
            g.head = h;
            g.rest -= h;
            fifo.push_back(j);
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
    return std::max(0.0,
                    m_queue[key] +
                        (m_offered[key] - 1.0 / SecondsPerByte(key)) * (t - m_qTime[key]));
}

void
TimelineReplay::RecomputeRates()
{
    for (uint32_t key : m_live)
    {
        m_queue[key] = Backlog(key, m_now);
        m_qTime[key] = m_now;
        m_offered[key] = 0;
    }
    // Round-robin shares, on NIC links whose FIFO holds no head.
    for (uint32_t id : m_active)
    {
        const FluidMessage& f = m_msgs[id];
        if (f.head <= 0)
        {
            for (uint32_t k = f.shareBegin; k < f.nicEnd; ++k)
            {
                m_weight[m_shares[k].first] += m_shares[k].second;
            }
        }
    }
    for (uint32_t id : m_active)
    {
        SetMessageRate(m_msgs[id], id);
    }
    for (uint32_t id : m_active)
    {
        for (uint32_t k = m_msgs[id].shareBegin; k < m_msgs[id].nicEnd; ++k)
        {
            m_weight[m_shares[k].first] = 0;
        }
    }
    PruneIdleLinks();
    ++m_rateUpdates;
}

void
TimelineReplay::SetMessageRate(FluidMessage& f, uint32_t id)
{
    if (f.head > 0)
    {
        f.rate = m_fifo[f.nic].front() == id ? 1.0 / SecondsPerByte(f.nic) : 0.0;
    }
    else
    {
        double spb = 0;
        bool blocked = false;
        for (uint32_t k = f.shareBegin; k < f.nicEnd; ++k)
        {
            uint32_t key = m_shares[k].first;
            blocked |= !m_fifo[key].empty();
            spb = std::max(spb, SecondsPerByte(key) * m_weight[key]);
        }
        f.rate = blocked ? 0.0 : 1.0 / spb;
    }
    // Offer the NIC rate to every downstream link of the route.
    for (uint32_t k = f.nicEnd; k < f.shareEnd; ++k)
    {
        uint32_t key = m_shares[k].first;
        if (!m_isLive[key])
        {
            m_queue[key] = Backlog(key, m_now); // idle since qTime: drained
            m_qTime[key] = m_now;
            m_offered[key] = 0;
            m_isLive[key] = 1;
            m_live.push_back(key);
        }
        m_offered[key] += m_shares[k].second * f.rate;
    }
}

void
TimelineReplay::PruneIdleLinks()
{
    std::vector<uint32_t> keep;
    keep.reserve(m_live.size());
    for (uint32_t key : m_live)
    {
        if (m_offered[key] > 0 || m_queue[key] > 0)
        {
            keep.push_back(key);
        }
        else
        {
            m_isLive[key] = 0;
        }
    }
    m_live.swap(keep);
}

double
TimelineReplay::NextPhaseEnd() const
{
    double tFluid = std::numeric_limits<double>::infinity();
    for (uint32_t id : m_active)
    {
        const FluidMessage& f = m_msgs[id];
        if (f.rate > 0)
        {
            double left = f.head > 0 ? f.head : f.rest;
            tFluid = std::min(tFluid, m_now + std::max(0.0, left / f.rate));
        }
    }
    return tFluid;
}

void
TimelineReplay::AdvanceFluid(double tNext, bool fluidFirst)
{
    double dt = tNext - m_now;
    std::vector<uint32_t> still;
    still.reserve(m_active.size());
    for (uint32_t id : m_active)
    {
        FluidMessage& f = m_msgs[id];
        double& left = f.head > 0 ? f.head : f.rest;
        if (f.rate <= 0)
        {
            still.push_back(id);
            continue;
        }
        if (fluidFirst && left / f.rate - dt <= kTie)
        {
            // This phase is over.
            left = 0;
            m_dirty = true;
            if (&left == &f.head)
            {
                NS_ASSERT(m_fifo[f.nic].front() == id);
                m_fifo[f.nic].pop_front();
                if (f.rest > 0)
                {
                    still.push_back(id);
                    continue;
                }
            }
            FinishTransfer(f, id, tNext);
            continue;
        }
        left -= f.rate * dt;
        still.push_back(id);
    }
    m_active.swap(still);
}

void
TimelineReplay::FinishTransfer(FluidMessage& f, uint32_t id, double t)
{
    // Its last byte left the NIC; it waits behind the largest backlog on its route
    // (links offered more than their rate; FIFO), then the pipeline latency. The
    // largest, not the sum: a link behind a congested one is only fed at that one's
    // rate, which the offered loads (NIC rates) overstate.
    double wait = 0;
    for (uint32_t k = f.nicEnd; k < f.shareEnd; ++k)
    {
        uint32_t key = m_shares[k].first;
        wait = std::max(wait, Backlog(key, t) * SecondsPerByte(key));
    }
    f.transferEnd = t + wait;
    f.arrival = f.transferEnd + f.delivery;
    m_events.push({f.arrival, m_seq++, true, id, 0});
}

// ---- Phase 4: events ------------------------------------------------------------------

void
TimelineReplay::HandleEvent(const TimelineEvent& e)
{
    if (!e.arrival)
    {
        // A reduction ended: the chain goes on.
        m_ranks[e.a][e.b].computing = false;
        AdvanceChain(e.a, e.b);
        return;
    }
    // An arrival releases the receiver's step once its last message is in.
    const FluidMessage& f = m_msgs[e.a];
    RankChain& ch = m_ranks[f.msg.dst][f.msg.chain];
    auto it = ch.steps.find(f.msg.step);
    NS_ASSERT(it != ch.steps.end() && it->second.recvsLeft > 0);
    --it->second.recvsLeft;
    if (!ch.computing && ch.cursor == it)
    {
        AdvanceChain(f.msg.dst, f.msg.chain);
    }
}

// ---- Phase 5: the report --------------------------------------------------------------

TimelinePrediction
TimelineReplay::Report()
{
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        for (const auto& [c, ch] : m_ranks[r])
        {
            NS_ASSERT_MSG(ch.done, "rank " << r << " chain " << c << " never finished");
        }
    }
    TimelinePrediction out;
    out.rateUpdates = m_rateUpdates;
    double total = 0;
    out.rankFinish.resize(m_nRanks);
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        total = std::max(total, m_finish[r]);
        out.rankFinish[r] = Seconds(m_finish[r]);
    }
    out.total = Seconds(total);
    out.messages.reserve(m_msgs.size());
    for (const auto& f : m_msgs)
    {
        MessageTiming t;
        t.message = f.msg;
        t.scheduleStep = f.scheduleStep;
        t.start = Seconds(f.start);
        t.transferEnd = Seconds(f.transferEnd);
        t.arrival = Seconds(f.arrival);
        t.latency = Seconds(f.latency);
        t.hops = f.hops;
        out.messages.push_back(t);
    }
    return out;
}

} // namespace ns3
