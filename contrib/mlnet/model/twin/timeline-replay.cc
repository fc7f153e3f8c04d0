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
 * Messages in flight are FluidTransfers over the links of their routes (the ECMP
 * shares of an even split, or the one path a flow hashes to): a head through the
 * sender NIC's FIFO, max-min fair sharing everywhere. When a transfer's last byte has
 * left, the message arrives after the pipeline latency
 * L = (h-1)*F1*8/R + h*d of its own route plus PerMessageOverhead. Times are doubles
 * (seconds) rounded once at the end. A lone message on an idle path takes W/R + L =
 * T_msg exactly.
 *
 * Phases of Run: index the schedule (validate every message; its ids sorted by sender
 * and by receiver, then chain and step: each rank's program); enter every rank's
 * chains; then, until nothing is in flight or pending, take the earliest of the
 * fluid's next completion and the next timed event, end the transfers that ended,
 * or handle the event (an arrival releases the receiver's step, the end of a
 * reduction its next one); finally report. Run(program) has no index: the members'
 * chains are listed in the index's order, a chain's next step is generated when it is
 * entered (steps that neither send nor receive are skipped, as the index skips them),
 * and a message that arrives before its receiver's step is counted until it is.
 *
 * Ties. Simultaneous means within kTie (1e-13 s), for transfers and events: transfer
 * ends come before events, and events in the order they were pushed. Event times are
 * sums of rounded terms; with exact comparisons a last-bit difference between two
 * arrivals that are equal in exact arithmetic would decide which receiver starts its
 * next messages first.
 */
#include "timeline-replay.h"

#include "ns3/log.h"
#include "ns3/route-planner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTimelineReplay");

namespace
{

/// A transfer or event within this time of the earliest one happens with it (s).
constexpr double kTie = FluidNetwork::kTie;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// A schedule of m messages indexes only its own ranks (links) when kCompact m is fewer
/// than the fabric's ranks (directed links).
constexpr uint64_t kCompact = 16;
/// Most entries of BuildIndex's table of pairs' hops (a power of two).
constexpr uint64_t kHopsCache = 4096;
/// A table entry no pair has taken (ranks are below 2^32 - 1).
constexpr uint64_t kNoPair = std::numeric_limits<uint64_t>::max();

} // namespace

TimelineReplay::TimelineReplay(uint32_t nRanks,
                               const std::vector<double>& capacity,
                               const Packetization& packetization,
                               RouteFunction route,
                               HopsFunction hops,
                               LatencyFunction latency,
                               const Parameters& parameters)
    : m_nRanks(nRanks),
      m_capacity(&capacity),
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
    // schedule). A hashed path of up to kInlineHops links is kept in its slot (one cache
    // line, no allocation: an all-to-all of 1024 ranks asks for a million pairs once
    // each, and copying heap-held routes in and out of the slots was a tenth of its
    // run); a split route, or a longer path, in the slot's vector.
    constexpr uint32_t kRouteSlots = 1u << 16;
    constexpr uint32_t kInlineHops = 6; // a 3-tier fat-tree's longest path

    struct Cached
    {
        uint64_t pair{std::numeric_limits<uint64_t>::max()};
        uint32_t nic{0};
        uint32_t hops{0}; //!< > 0: a path of that many links in `keys`, each share 1
        std::array<uint32_t, kInlineHops> keys{};
        FluidNetwork::LinkShares shares; //!< when hops == 0
    };

    const uint64_t nRanks = cluster->GetNRanks();
    const uint64_t slots = std::min<uint64_t>(kRouteSlots, std::max<uint64_t>(1, nRanks * nRanks));
    auto cache = std::make_shared<std::vector<Cached>>(slots);
    auto path = std::make_shared<std::vector<uint32_t>>(); // scratch, reused
    return [cluster, &planner, cache, path, nRanks, flowKey](uint32_t src,
                                                             uint32_t dst,
                                                             FluidNetwork::LinkShares& shares) {
        const uint64_t pair = src * nRanks + dst;
        // Slots by (distance, source): the pairs of one distance (dst - src mod n: a
        // ring's, or an all-to-all step's) take consecutive slots from a hashed start.
        const uint64_t distance = (dst + nRanks - src) % nRanks;
        Cached& c = (*cache)[((distance * 0x9E3779B97F4A7C15ULL >> 16) + src) % cache->size()];
        if (c.pair != pair)
        {
            c.pair = std::numeric_limits<uint64_t>::max(); // until routed (it may throw)
            FlowKey key;
            c.shares.clear();
            c.hops = 0;
            if (flowKey && src != dst && flowKey(src, dst, key))
            {
                // One path: its first link is the only one leaving the sender (its NIC),
                // then the others by directed link key (FlowShares' order).
                planner.FlowPath(src, dst, key, *path);
                std::sort(path->begin() + 1, path->end());
                if (path->size() <= kInlineHops)
                {
                    c.hops = static_cast<uint32_t>(path->size());
                    std::copy(path->begin(), path->end(), c.keys.begin());
                }
                else
                {
                    for (uint32_t k : *path)
                    {
                        c.shares.emplace_back(k, 1.0);
                    }
                }
                c.nic = 1;
            }
            else
            {
                auto routeShares = planner.LinkShares(src, dst);
                // The links leaving the sender (its NIC) first, then the others.
                const uint32_t srcNode = cluster->GetRankNode(src)->GetId();
                const auto& links = cluster->GetLinks();
                auto leavesSource = [&](const std::pair<uint32_t, double>& ks) {
                    const ClusterLink& l = links[ks.first / 2];
                    return (ks.first % 2 == 0 ? l.nodeA : l.nodeB) == srcNode;
                };
                std::copy_if(routeShares.begin(),
                             routeShares.end(),
                             std::back_inserter(c.shares),
                             leavesSource);
                c.nic = static_cast<uint32_t>(c.shares.size());
                std::copy_if(routeShares.begin(),
                             routeShares.end(),
                             std::back_inserter(c.shares),
                             [&](const auto& ks) { return !leavesSource(ks); });
            }
            c.pair = pair;
        }
        if (c.hops > 0)
        {
            shares.resize(c.hops);
            for (uint32_t i = 0; i < c.hops; ++i)
            {
                shares[i] = {c.keys[i], 1.0};
            }
        }
        else
        {
            shares.assign(c.shares.begin(), c.shares.end());
        }
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
    RunEvents();
    return Report();
}

TimelinePrediction
TimelineReplay::Run(const StepwiseCollective& program, bool keepMessages)
{
    NS_LOG_FUNCTION(this << &program);
    NS_ASSERT_MSG(!m_ran, "a TimelineReplay replays one schedule");
    m_ran = true;
    m_program = &program;
    m_keep = keepMessages;
    IndexProgram();
    EnterAllChains();
    RunEvents();
    NS_ASSERT_MSG(m_early.empty(), "messages arrived for steps never entered");
    if (m_keep)
    {
        SortKeptTimings();
    }
    return Report();
}

void
TimelineReplay::RunEvents()
{
    while (m_fluid->GetActive() > 0 || !m_events.empty() || !m_tied.empty() ||
           m_batchPos < m_batch.size())
    {
        double tFluid = m_fluid->NextEnd();
        double tEvent = NextEventTime();
        NS_ASSERT_MSG(tFluid < kInfinity || tEvent < kInfinity,
                      "messages in flight but none can progress");
        if (tFluid <= tEvent + kTie)
        {
            m_now = std::max(m_now, tFluid);
            EndTransfers(tFluid);
            continue;
        }
        m_now = std::max(m_now, tEvent);
        TimelineEvent e = PopNextEvent();
        HandleEvent(e);
    }
}

double
TimelineReplay::NextEventTime() const
{
    double t = m_events.empty() ? kInfinity : m_events.top().t;
    if (m_batchPos < m_batch.size())
    {
        t = std::min(t, m_batchMin[m_batchPos]);
    }
    return m_tiedTimes.empty() ? t : std::min(t, m_tiedTimes.top());
}

TimelineReplay::TimelineEvent
TimelineReplay::PopNextEvent()
{
    // Events within kTie of the earliest are simultaneous: the first pushed goes first.
    // Their times are sums of rounded terms, so two arrivals that are equal in exact
    // arithmetic may differ in the last bit; ordering them by time would let the
    // rounding pick which receiver starts its next messages first. The tied events
    // wait in m_batch or m_tied (by insertion), so a step where every rank's arrival ties costs
    // O(log n) per event, not a pass over all of them per event. An event moved there
    // stays within kTie of the earliest one left: later events are never earlier than
    // the time at which it was moved.
    const double t0 = NextEventTime();
    const bool joining = !m_events.empty() && m_events.top().t - t0 <= kTie;
    if (m_batchPos < m_batch.size())
    {
        if (!joining)
        {
            return m_batch[m_batchPos++]; // the batch's next, by insertion
        }
        // Events join the tied ones: the batch's rest goes to the general heaps.
        for (size_t i = m_batchPos; i < m_batch.size(); ++i)
        {
            m_tied.push(m_batch[i]);
            m_tiedTimes.push(m_batch[i].t);
        }
        m_batch.clear();
        m_batchPos = 0;
    }
    else if (m_tied.empty())
    {
        TimelineEvent first = m_events.top();
        m_events.pop();
        if (m_events.empty() || m_events.top().t - t0 > kTie)
        {
            return first; // most often the earliest event ties with no other
        }
        // A batch of tied events (a ring's step ends with every rank's arrival): served
        // by insertion from a vector, the earliest time of its rest a suffix minimum,
        // until other events join it.
        m_batch.assign(1, first);
        while (!m_events.empty() && m_events.top().t - t0 <= kTie)
        {
            m_batch.push_back(m_events.top());
            m_events.pop();
        }
        // Popped by time, then insertion: in insertion order already where the times are
        // equal to the bit.
        auto inserted = [](const TimelineEvent& a, const TimelineEvent& b) {
            return a.seq < b.seq;
        };
        if (!std::is_sorted(m_batch.begin(), m_batch.end(), inserted))
        {
            std::sort(m_batch.begin(), m_batch.end(), inserted);
        }
        m_batchMin.resize(m_batch.size());
        double earliest = kInfinity;
        for (size_t i = m_batch.size(); i-- > 0;)
        {
            earliest = std::min(earliest, m_batch[i].t);
            m_batchMin[i] = earliest;
        }
        m_batchPos = 1;
        return m_batch.front();
    }
    while (!m_events.empty() && m_events.top().t - t0 <= kTie)
    {
        m_tiedTimes.push(m_events.top().t);
        m_tied.push(m_events.top());
        m_events.pop();
    }
    TimelineEvent pick = m_tied.top();
    m_tied.pop();
    // Erase one copy of pick.t: it waits in m_tiedGone until it is the earliest, so
    // that the top of m_tiedTimes is always a time m_tied still holds.
    m_tiedGone.push(pick.t);
    while (!m_tiedGone.empty() && m_tiedGone.top() == m_tiedTimes.top())
    {
        m_tiedGone.pop();
        m_tiedTimes.pop();
    }
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
    // Resolve is asked about every message several times (the index, each step's
    // entry, each arrival): its schedule step is looked up, not searched for.
    m_stepOf.resize(total);
    for (uint32_t si = 0; si < schedule.size(); ++si)
    {
        std::fill(m_stepOf.begin() + m_stepBegin[si], m_stepOf.begin() + m_stepBegin[si + 1], si);
    }
    if (m_keep)
    {
        m_out.messages.resize(total);
    }
    // A schedule much smaller than the fabric (a send, one HB domain's all-reduce in a
    // 32k-GPU iteration) indexes only its own ranks and links, so that its replay costs
    // what it holds, not what the cluster holds. Both indexes keep the global order:
    // the fluid solves the same problem under new names.
    const bool ownRanks = kCompact * total < m_nRanks;
    const bool ownLinks = kCompact * total < m_capacity->size();
    m_ranks.clear();
    m_linkKeys.clear();
    FluidNetwork::LinkShares route;
    // As many entries as messages, up to kHopsCache: a small schedule's table is small.
    uint64_t entries = 1;
    while (entries < std::min(total, kHopsCache))
    {
        entries *= 2;
    }
    std::vector<std::pair<uint64_t, uint32_t>> hopsOfPair(entries, {kNoPair, 0});
    uint32_t id = 0;
    for (uint32_t si = 0; si < schedule.size(); ++si)
    {
        for (const auto& sm : schedule[si].messages)
        {
            const uint32_t hops = HopsOf(sm, hopsOfPair); // validates the ranks and the route
            if (ownRanks)
            {
                m_ranks.push_back(sm.src);
                m_ranks.push_back(sm.dst);
            }
            if (ownLinks && sm.src != sm.dst && sm.bytes > 0)
            {
                m_route(sm.src, sm.dst, route);
                for (const auto& share : route)
                {
                    m_linkKeys.push_back(share.first);
                }
            }
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
    for (std::vector<uint32_t>* keys : {&m_ranks, &m_linkKeys})
    {
        std::sort(keys->begin(), keys->end());
        keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
    }
    m_nLocal = ownRanks ? static_cast<uint32_t>(m_ranks.size()) : m_nRanks;
    m_arrived.assign(total, false);
    std::vector<uint32_t> sendBegin;
    std::vector<uint32_t> recvBegin;
    SortByRank(true, m_sends, sendBegin);
    SortByRank(false, m_recvs, recvBegin);
    // Each rank's chains, ascending: the union of the chains it sends and receives in.
    m_chainBegin.assign(m_nLocal + 1, 0);
    for (uint32_t r = 0; r < m_nLocal; ++r)
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
    m_chainBegin[m_nLocal] = static_cast<uint32_t>(m_chains.size());
}

uint32_t
TimelineReplay::HopsOf(const ScheduledMessage& sm,
                       std::vector<std::pair<uint64_t, uint32_t>>& hopsOfPair) const
{
    if (sm.src == sm.dst || sm.bytes == 0)
    {
        return m_hops(sm);
    }
    // A pair's messages repeat (a ring's 2 (n - 1) steps): its hops are asked for once
    // while it holds its place in the direct-mapped table.
    const uint64_t pair = static_cast<uint64_t>(sm.src) << 32 | sm.dst;
    auto& [key, hops] =
        hopsOfPair[((pair * 0x9E3779B97F4A7C15ULL) >> 32) & (hopsOfPair.size() - 1)];
    if (key != pair)
    {
        hops = m_hops(sm);
        key = pair;
    }
    return hops;
}

uint32_t
TimelineReplay::LocalRank(uint32_t rank) const
{
    return m_ranks.empty()
               ? rank
               : static_cast<uint32_t>(std::lower_bound(m_ranks.begin(), m_ranks.end(), rank) -
                                       m_ranks.begin());
}

uint32_t
TimelineReplay::GlobalRank(uint32_t local) const
{
    return m_ranks.empty() ? local : m_ranks[local];
}

TimelineReplay::Resolved
TimelineReplay::Resolve(uint32_t id) const
{
    const uint32_t si = m_stepOf[id];
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
    begin.assign(m_nLocal + 1, 0);
    auto rankOf = [&](const ScheduledMessage& sm) { return LocalRank(bySender ? sm.src : sm.dst); };
    for (const auto& step : *m_schedule)
    {
        for (const auto& sm : step.messages)
        {
            ++begin[rankOf(sm) + 1];
        }
    }
    for (uint32_t r = 0; r < m_nLocal; ++r)
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
    for (uint32_t r = 0; r < m_nLocal; ++r)
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
    std::vector<double> capacity;
    if (m_linkKeys.empty())
    {
        capacity = *m_capacity;
    }
    else
    {
        capacity.reserve(m_linkKeys.size());
        for (uint32_t key : m_linkKeys)
        {
            capacity.push_back((*m_capacity)[key]);
        }
    }
    m_fluid = FluidTransfers::Create(m_parameters.sharing,
                                     std::move(capacity),
                                     m_parameters.nicBacklogPackets);
    m_finish.assign(m_nLocal, 0.0);
    m_computeFree.assign(m_nLocal, 0.0);
    for (uint32_t c = 0; c < m_chains.size(); ++c)
    {
        m_program ? AdvanceProgramChain(c) : AdvanceChain(c);
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
    StartTransfer(*Resolve(id).msg, id, id);
}

uint32_t
TimelineReplay::KeepIdOf(uint32_t token) const
{
    return m_program ? m_live[token].keepId : token;
}

void
TimelineReplay::StartTransfer(const ScheduledMessage& sm, uint32_t token, uint32_t keepId)
{
    MessageTiming* timing = m_keep ? &m_out.messages[keepId] : nullptr;
    if (timing)
    {
        timing->start = Seconds(m_now);
    }
    if (sm.src == sm.dst || sm.bytes == 0)
    {
        // To itself or empty: delivered at once.
        if (timing)
        {
            timing->transferEnd = Seconds(m_now);
            timing->arrival = Seconds(m_now);
        }
        m_events.push({m_now, m_seq++, true, token});
        return;
    }
    FluidNetwork::LinkShares& route = m_routeScratch; // its capacity kept across messages
    const uint32_t senderLinks = m_route(sm.src, sm.dst, route);
    double latency = m_latency(sm.src, sm.dst, m_packetization.GetFirstFrameBytes(sm.bytes), route);
    if (timing)
    {
        timing->latency = Seconds(latency);
    }
    if (!m_linkKeys.empty())
    {
        for (auto& share : route)
        {
            share.first = static_cast<uint32_t>(
                std::lower_bound(m_linkKeys.begin(), m_linkKeys.end(), share.first) -
                m_linkKeys.begin());
        }
    }
    uint32_t slot = m_fluid->Start(m_now,
                                   static_cast<double>(m_packetization.GetWireBytes(sm.bytes)),
                                   m_packetization.GetPacketCount(sm.bytes),
                                   route,
                                   senderLinks);
    if (slot >= m_inFlight.size())
    {
        m_inFlight.resize(slot + 1);
    }
    m_inFlight[slot] = {token, latency + m_parameters.perMessageOverhead};
}

// ---- Phase 3: the fluid -----------------------------------------------------------------

void
TimelineReplay::EndTransfers(double t)
{
    for (const auto& [slot, end] : m_fluid->Advance(t))
    {
        const InFlight& x = m_inFlight[slot];
        double arrival = end + x.delivery;
        if (m_keep)
        {
            MessageTiming& timing = m_out.messages[KeepIdOf(x.id)];
            timing.transferEnd = Seconds(end);
            timing.arrival = Seconds(arrival);
        }
        m_events.push({arrival, m_seq++, true, x.id});
    }
}

// ---- Phase 4: events ------------------------------------------------------------------

void
TimelineReplay::HandleEvent(const TimelineEvent& e)
{
    if (!e.arrival)
    {
        // A reduction ended: the chain goes on.
        m_chains[e.a].computing = false;
        m_program ? AdvanceProgramChain(e.a) : AdvanceChain(e.a);
        return;
    }
    if (m_program)
    {
        ArriveProgramMessage(e.a);
        return;
    }
    // An arrival releases the receiver's step once its last message is in.
    Resolved m = Resolve(e.a);
    const uint32_t dst = LocalRank(m.msg->dst);
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

// ---- A program's replay: its steps generated as they are entered ------------------------

void
TimelineReplay::IndexProgram()
{
    const std::vector<uint32_t>& ranks = m_program->GetRanks();
    const auto n = static_cast<uint32_t>(ranks.size());
    for (uint32_t r : ranks)
    {
        ScheduledMessage self;
        self.src = r;
        self.dst = r;
        m_hops(self); // throws for a rank out of range, as the schedule's index does
    }
    // A collective of few of the fabric's ranks indexes only its own (renamed in order:
    // the results are those of indexing every rank).
    m_ranks.clear();
    if (kCompact * n < m_nRanks)
    {
        m_ranks = ranks;
        std::sort(m_ranks.begin(), m_ranks.end());
        m_ranks.erase(std::unique(m_ranks.begin(), m_ranks.end()), m_ranks.end());
    }
    m_nLocal = m_ranks.empty() ? m_nRanks : static_cast<uint32_t>(m_ranks.size());
    m_memberOf.assign(m_nLocal, kNone);
    m_localOfMember.resize(n);
    for (uint32_t m = 0; m < n; ++m)
    {
        m_localOfMember[m] = LocalRank(ranks[m]);
        m_memberOf[m_localOfMember[m]] = m;
    }
    uint64_t entries = 1;
    while (entries < std::min<uint64_t>(4 * static_cast<uint64_t>(n), kHopsCache))
    {
        entries *= 2;
    }
    m_hopsOfPair.assign(entries, {kNoPair, 0});
    // Each member's chains that have steps, ascending, by local rank: the schedule's
    // index holds the same chains in the same order (and chains whose steps are all
    // empty, which finish at once, here too).
    m_chainBegin.assign(m_nLocal + 1, 0);
    for (uint32_t r = 0; r < m_nLocal; ++r)
    {
        m_chainBegin[r] = static_cast<uint32_t>(m_chains.size());
        if (m_memberOf[r] == kNone)
        {
            continue;
        }
        const std::vector<uint32_t> lengths = m_program->GetChainLengths(m_memberOf[r]);
        for (uint32_t c = 0; c < lengths.size(); ++c)
        {
            if (lengths[c] > 0)
            {
                RankChain ch;
                ch.rank = r;
                ch.chain = c;
                ch.length = lengths[c];
                m_chains.push_back(ch);
            }
        }
    }
    m_chainBegin[m_nLocal] = static_cast<uint32_t>(m_chains.size());
}

void
TimelineReplay::AdvanceProgramChain(uint32_t chainIndex)
{
    RankChain& ch = m_chains[chainIndex];
    const double gamma = m_parameters.reductionTimePerByte;
    const uint32_t member = m_memberOf[ch.rank];
    const uint32_t unit = m_program->GetUnit();
    const std::vector<uint32_t>& ranks = m_program->GetRanks();
    while (true)
    {
        if (!ch.entered)
        {
            // The chain's next step that sends or receives (the schedule's index skips
            // the others), generated now.
            while (ch.step < ch.length)
            {
                m_program->GetStep(member, ch.chain, ch.step, m_step);
                if (!m_step.sends.empty() || !m_step.recvs.empty())
                {
                    break;
                }
                ++ch.step;
            }
            if (ch.step == ch.length)
            {
                if (!ch.done)
                {
                    ch.done = true;
                    m_finish[ch.rank] = std::max(m_finish[ch.rank], m_now);
                }
                return;
            }
            ch.entered = true;
            ch.recvsLeft = static_cast<uint32_t>(m_step.recvs.size());
            ch.reduceBytes = static_cast<double>(m_step.ReducedUnits() * unit);
            if (!m_early.empty())
            {
                const auto early = m_early.find(static_cast<uint64_t>(chainIndex) << 32 | ch.step);
                if (early != m_early.end())
                {
                    NS_ASSERT(early->second <= ch.recvsLeft);
                    ch.recvsLeft -= early->second;
                    m_early.erase(early);
                }
            }
            for (uint32_t k = 0; k < m_step.sends.size(); ++k)
            {
                const StepwiseCollective::SendOp& send = m_step.sends[k];
                ScheduledMessage sm;
                sm.src = ranks[member];
                sm.dst = ranks[send.to];
                sm.bytes = send.seg.length * unit;
                sm.chain = ch.chain;
                sm.step = ch.step;
                const uint32_t hops = HopsOf(sm, m_hopsOfPair); // validates the route
                Live live{m_localOfMember[send.to], ch.chain, ch.step, 0};
                if (m_keep)
                {
                    // Whether its receiver adds it, as GetSchedule says.
                    const RankChain* peer = FindProgramChain(live.dst, ch.chain);
                    sm.reduce = peer != nullptr && ch.step < peer->length &&
                                m_program->ReceiveReduces(send.to, ch.chain, ch.step, member);
                    live.keepId = static_cast<uint32_t>(m_out.messages.size());
                    MessageTiming timing;
                    timing.message = sm;
                    timing.hops = hops;
                    m_out.messages.push_back(timing);
                    m_keptOrder.push_back({ch.step, member, ch.chain, k});
                }
                uint32_t token;
                if (m_liveFree.empty())
                {
                    token = static_cast<uint32_t>(m_live.size());
                    m_live.push_back(live);
                }
                else
                {
                    token = m_liveFree.back();
                    m_liveFree.pop_back();
                    m_live[token] = live;
                }
                StartTransfer(sm, token, live.keepId);
            }
        }
        if (ch.recvsLeft > 0)
        {
            return; // still waiting
        }
        ch.entered = false;
        ++ch.step;
        if (ch.reduceBytes > 0 && gamma > 0)
        {
            // One compute resource per rank: reductions one after the other.
            double& free = m_computeFree[ch.rank];
            free = std::max(m_now, free) + gamma * ch.reduceBytes;
            ch.computing = true;
            m_events.push({free, m_seq++, false, chainIndex});
            return;
        }
    }
}

TimelineReplay::RankChain*
TimelineReplay::FindProgramChain(uint32_t local, uint32_t chain)
{
    auto first = m_chains.begin() + m_chainBegin[local];
    auto last = m_chains.begin() + m_chainBegin[local + 1];
    auto it = std::lower_bound(first, last, chain, [](const RankChain& c, uint32_t x) {
        return c.chain < x;
    });
    return it != last && it->chain == chain ? &*it : nullptr;
}

void
TimelineReplay::ArriveProgramMessage(uint32_t token)
{
    const Live live = m_live[token];
    m_liveFree.push_back(token);
    RankChain* it = FindProgramChain(live.dst, live.chain);
    NS_ASSERT_MSG(it != nullptr, "a message for a chain its receiver lacks");
    const auto chainIndex = static_cast<uint32_t>(it - m_chains.data());
    if (it->entered && it->step == live.step)
    {
        NS_ASSERT(it->recvsLeft > 0);
        if (--it->recvsLeft == 0)
        {
            AdvanceProgramChain(chainIndex);
        }
        return;
    }
    // Its receiver has not entered that step yet: counted when it does.
    ++m_early[static_cast<uint64_t>(chainIndex) << 32 | live.step];
}

void
TimelineReplay::SortKeptTimings()
{
    // GetSchedule's order: by step, then member, chain and send; its steps numbered
    // from 0 over the steps that send.
    std::vector<uint32_t> order(m_out.messages.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
        return m_keptOrder[a] < m_keptOrder[b];
    });
    std::vector<MessageTiming> sorted;
    sorted.reserve(order.size());
    uint32_t scheduleStep = 0;
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        if (i > 0 && m_keptOrder[order[i]][0] != m_keptOrder[order[i - 1]][0])
        {
            ++scheduleStep;
        }
        sorted.push_back(std::move(m_out.messages[order[i]]));
        sorted.back().scheduleStep = scheduleStep;
    }
    m_out.messages = std::move(sorted);
    m_keptOrder.clear();
}

// ---- Phase 5: the report --------------------------------------------------------------

TimelinePrediction
TimelineReplay::Report()
{
    for (const auto& ch : m_chains)
    {
        NS_ASSERT_MSG(ch.done,
                      "rank " << GlobalRank(ch.rank) << " chain " << ch.chain << " never finished");
    }
    m_out.rateUpdates = m_fluid->GetRecomputations();
    m_out.flowsRecomputed = m_fluid->GetFlowsRecomputed();
    double total = 0;
    for (uint32_t r = 0; r < m_nLocal; ++r)
    {
        total = std::max(total, m_finish[r]);
    }
    if (m_keep)
    {
        // A Time per rank of the cluster: a 4096-GPU iteration's twin predicts thousands
        // of tasks, most of them on a few ranks.
        m_out.rankFinish.assign(m_nRanks, Time(0));
        for (uint32_t r = 0; r < m_nLocal; ++r)
        {
            m_out.rankFinish[GlobalRank(r)] = Seconds(m_finish[r]);
        }
    }
    m_out.total = Seconds(total);
    return std::move(m_out);
}

} // namespace ns3
