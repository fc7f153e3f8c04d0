// SPDX-License-Identifier: GPL-2.0-only
/*
 * LineRateTransfers: see line-rate-transfers.h for what is modelled and what is left
 * out.
 *
 * Incremental, same rules as a full rescan. A transfer's bytes left in its current
 * phase (head, then rest) are kept at t0 with the rate since t0 and brought up to date
 * (Settle) only when its rate or phase changes or the NIC FIFO rules read them. Rates
 * depend only on the sender's NIC links (FIFO order and emptiness, round-robin
 * weights), so a change on a NIC link recomputes the transfers on that link; a changed
 * rate moves its links' offered loads by the difference, after taking their backlog at
 * now (Rebase; the backlog is linear between changes of the offered load). Ties are
 * handled in start order. timeline-replay-test.cc checks it against a brute-force
 * oracle.
 */
#include "line-rate-transfers.h"

#include "ns3/assert.h"
#include "ns3/fluid-heap.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetLineRateTransfers");

namespace
{
constexpr double kInfinity = std::numeric_limits<double>::infinity();
} // namespace

LineRateTransfers::LineRateTransfers(std::vector<double> capacity, uint32_t nicBacklogPackets)
    : m_capacity(std::move(capacity)),
      m_buffer(m_capacity.size(), kInfinity),
      m_backlog(nicBacklogPackets),
      m_nicOf(m_capacity.size(), kNone),
      m_load(m_capacity.size())
{
}

LineRateTransfers::Nic&
LineRateTransfers::NicOf(uint32_t key)
{
    if (m_nicOf[key] == kNone)
    {
        m_nicOf[key] = static_cast<uint32_t>(m_nics.size());
        m_nics.emplace_back();
    }
    return m_nics[m_nicOf[key]];
}

uint32_t
LineRateTransfers::Start(double now,
                         double wire,
                         uint64_t packets,
                         const FluidNetwork::LinkShares& route,
                         uint32_t senderLinks)
{
    NS_ASSERT_MSG(wire > 0 && packets > 0, "a transfer without bytes");
    NS_ASSERT_MSG(senderLinks >= 1 && senderLinks <= route.size(), "a route without a first hop");
    // The owner ends what is due before it starts more (FluidMessageTransport's
    // CompleteDue), so no phase is settled past its end.
    NS_ASSERT_MSG(now <= PendingEnd() + FluidNetwork::kTie, "a transfer started past a due end");
    m_now = std::max(m_now, now);
    const uint32_t slot = m_flows.Acquire();
    Flow& f = m_flows[slot];
    f.order = m_startOrder++;
    f.route.Assign(route);
    f.nicCount = senderLinks;
    f.nic = f.nicCount == 1 ? route[0].first : kNone;
    f.packets = packets;
    f.wire = wire;
    f.head = 0;
    f.rest = f.wire;
    f.t0 = m_now;
    f.rate = 0;
    f.active = true;
    f.phaseChanged = true;
    NS_ASSERT_MSG(!f.merged, "a retired transfer kept a merged phase");
    FreeLosses(slot); // no losses yet
    for (uint32_t k = 0; k < f.nicCount && m_merged > 0; ++k)
    {
        SplitMerged(f.route.Key(k));
    }
    if (f.nic != kNone && m_backlog > 0)
    {
        NicOf(f.nic);
        AdmitToNicFifo(slot);
    }
    for (uint32_t k = 0; k < f.nicCount; ++k)
    {
        uint32_t key = f.route.Key(k);
        NicOf(key).flows.push_back(slot);
        Touch(key);
    }
    for (const auto& [key, share] : route)
    {
        ++m_load[key].flows;
    }
    ++m_activeFlows;
    m_dirty = true;
    return slot;
}

void
LineRateTransfers::AdmitToNicFifo(uint32_t slot)
{
    Flow& f = m_flows[slot];
    Nic& nic = m_nics[m_nicOf[f.nic]];
    const double fifoPackets = static_cast<double>(m_backlog);
    double perPacket = f.wire / static_cast<double>(f.packets);
    double queued = 0; // packets already in the FIFO
    for (uint32_t j : nic.fifo)
    {
        Flow& g = m_flows[j];
        Settle(g);
        queued += g.head / (g.wire / static_cast<double>(g.packets));
    }
    double room = std::floor(fifoPackets - queued + 1e-9);
    // The FIFO is kept full while round-robin messages wait: no room then. Asked only
    // where it decides, and it stops at the first such message: before it come only
    // messages with their heads in the FIFO (at most B) and transfers split over
    // several NICs (skipped here, and few), so this does not scan every message on the
    // NIC (a direct all-to-all starts n - 1 on each at once).
    auto roundRobinWaiting = [this, &nic, &f]() {
        for (uint32_t j : nic.flows)
        {
            if (m_flows[j].nic == f.nic && m_flows[j].head <= 0)
            {
                return true;
            }
        }
        return false;
    };
    if (room >= 1 && !roundRobinWaiting())
    {
        double pk = std::min(static_cast<double>(f.packets), room);
        f.head = pk == static_cast<double>(f.packets) ? f.wire : pk * perPacket;
        f.rest = f.wire - f.head;
        nic.fifo.push_back(slot);
    }
    else if (nic.fifo.empty() && roundRobinWaiting())
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

bool
LineRateTransfers::MayMerge(const Flow& f, uint32_t slot, double rate) const
{
    const Nic& nic = m_nics[m_nicOf[f.nic]];
    return f.rest > 0 && nic.flows.size() == 1 && nic.fifo.size() == 1 &&
           nic.fifo.front() == slot && m_capacity[f.nic] / f.route.Share(0) == rate;
}

void
LineRateTransfers::ClearMerged(Flow& f)
{
    if (f.merged)
    {
        f.merged = false;
        --m_merged;
    }
}

void
LineRateTransfers::SplitMerged(uint32_t nicKey)
{
    if (m_nicOf[nicKey] == kNone)
    {
        return;
    }
    Nic& nic = m_nics[m_nicOf[nicKey]];
    if (nic.fifo.size() != 1 || !m_flows[nic.fifo.front()].merged)
    {
        return;
    }
    const uint32_t slot = nic.fifo.front();
    Flow& f = m_flows[slot];
    ClearMerged(f);
    f.phaseChanged = true; // its version moves on: the merged phase end is stale
    const double headEnd = f.t0 + std::max(0.0, f.head / f.rate);
    if (headEnd <= m_now + FluidNetwork::kTie)
    {
        // The head left the FIFO at headEnd, as Advance would have ended it; the rest has
        // left at the same rate since.
        f.t0 = std::min(headEnd, m_now);
        f.head = 0;
        nic.fifo.pop_front();
    }
    Touch(nicKey);
    m_dirty = true;
}

void
LineRateTransfers::Carry(Load& d, uint32_t key, double t) const
{
    // The offered load is constant since qTime: both backlogs move at one slope, the
    // bounded one held in [0, buffer] (clipped at one end at most). While it is full,
    // the port drops the fraction (offered - rate) / offered of what arrives: over that
    // time, the overflow divided by the offered load.
    const double rise = (d.offered - m_capacity[key]) * (t - d.qTime);
    d.queue = std::max(0.0, d.queue + rise);
    d.peak = std::max(d.peak, d.queue);
    double b = d.bounded + rise;
    if (b > m_buffer[key])
    {
        d.overflow += b - m_buffer[key];
        if (d.drops)
        {
            d.dropped += (b - m_buffer[key]) / d.offered;
        }
        b = m_buffer[key];
    }
    d.bounded = std::max(0.0, b);
    d.qTime = t;
}

LineRateTransfers::Load
LineRateTransfers::LoadAt(uint32_t key, double t) const
{
    Load d = m_load[key];
    Carry(d, key, t);
    return d;
}

void
LineRateTransfers::Rebase(uint32_t key)
{
    Load& d = m_load[key];
    if (d.qTime != m_now)
    {
        Carry(d, key, m_now);
    }
}

void
LineRateTransfers::SetBuffers(std::vector<double> bytes, std::vector<bool> drop)
{
    NS_ASSERT_MSG(bytes.size() == m_capacity.size(), "one buffer per directed link");
    NS_ASSERT_MSG(drop.empty() || drop.size() == m_capacity.size(), "one drop flag per link");
    NS_ASSERT_MSG(m_startOrder == 0, "buffers are set before the first transfer");
    m_buffer = std::move(bytes);
    for (size_t key = 0; key < drop.size(); ++key)
    {
        m_load[key].drops = drop[key];
    }
}

double
LineRateTransfers::GetLost(uint32_t handle) const
{
    if (handle >= m_lossRuns.size())
    {
        return 0.0;
    }
    const LossRun run = m_lossRuns[handle];
    double lost = 0;
    for (uint32_t i = 0; i < run.size; ++i)
    {
        lost = std::max(lost, m_lossPool[run.first + i].lost);
    }
    return std::min(lost, m_flows[handle].wire);
}

void
LineRateTransfers::TakeLosses(const Flow& f, uint32_t slot)
{
    // A transfer gets its record at its first call once a port of its route has
    // dropped: its marks before were all 0 (when it last changed rate, its route's loads
    // were taken and none had dropped, or its rate was 0), and they stay 0, as its
    // losses do, while none of its ports has dropped (most transfers of a run that drops
    // at a few ports).
    if (slot >= m_lossRuns.size() || m_lossRuns[slot].first == kNone)
    {
        bool anyDropped = false;
        for (uint32_t k = 0; k < f.route.Size(); ++k)
        {
            const uint32_t key = f.route.Key(k);
            if (m_load[key].drops)
            {
                Rebase(key);
                anyDropped |= m_load[key].dropped > 0;
            }
        }
        if (!anyDropped)
        {
            return;
        }
    }
    const LossRun run = LossesOf(f, slot);
    for (uint32_t k = 0, i = 0; k < f.route.Size(); ++k)
    {
        const uint32_t key = f.route.Key(k);
        if (!m_load[key].drops)
        {
            continue;
        }
        Rebase(key);
        Loss& l = m_lossPool[run.first + i++];
        l.lost += f.rate * f.route.Share(k) * (m_load[key].dropped - l.mark);
        l.mark = m_load[key].dropped;
    }
}

FluidTransfers::LinkQueue
LineRateTransfers::GetLinkQueue(uint32_t key) const
{
    const Load d = LoadAt(key, m_now);
    return {d.peak, d.overflow};
}

void
LineRateTransfers::Settle(Flow& f) const
{
    if (f.t0 != m_now && f.rate > 0)
    {
        double& left = f.head > 0 ? f.head : f.rest;
        left -= f.rate * (m_now - f.t0);
    }
    f.t0 = m_now;
}

void
LineRateTransfers::Touch(uint32_t nicKey)
{
    Nic& nic = m_nics[m_nicOf[nicKey]];
    if (!nic.touched)
    {
        nic.touched = true;
        m_touched.push_back(nicKey);
    }
}

double
LineRateTransfers::NewRate(const Flow& f, uint32_t slot) const
{
    if (f.head > 0)
    {
        return m_nics[m_nicOf[f.nic]].fifo.front() == slot ? m_capacity[f.nic] : 0.0;
    }
    // The slowest of its NIC links: R / (round-robin shares), R itself for a transfer
    // alone on its link (as its head's rate, to the bit).
    double rate = kInfinity;
    bool blocked = false;
    for (uint32_t k = 0; k < f.nicCount; ++k)
    {
        uint32_t key = f.route.Key(k);
        const Nic& nic = m_nics[m_nicOf[key]];
        blocked |= !nic.fifo.empty();
        rate = std::min(rate, m_capacity[key] / nic.weight);
    }
    return blocked ? 0.0 : rate;
}

void
LineRateTransfers::UpdateRates()
{
    // The ended transfers leave their links.
    for (uint32_t slot : m_retired)
    {
        Flow& f = m_flows[slot];
        LeaveLinks(f);
        f.active = false;
        ++f.version;
        m_flows.Release(slot);
    }
    m_retired.clear();
    // Round-robin weights of the touched NIC links, summed in start order; their
    // transfers' rates are recomputed.
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
                    if (f.route.Key(k) == key)
                    {
                        nic.weight += f.route.Share(k);
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
    m_flowsUpdated += m_update.size();
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
            // Its links: the backlog so far (and whether a port of them dropped), then
            // the new offered load; its losses at the old rate up to now.
            for (uint32_t k = 0; k < f.route.Size(); ++k)
            {
                const uint32_t key = f.route.Key(k);
                Rebase(key);
                Load& d = m_load[key];
                m_dropped |= d.dropped > 0;
                d.offered += f.route.Share(k) * (rate - f.rate);
            }
            if (m_dropped)
            {
                TakeLosses(f, slot);
            }
        }
        f.rate = rate;
        f.phaseChanged = false;
        ++f.version;
        ClearMerged(f);
        if (rate > 0)
        {
            double left = f.head > 0 ? f.head : f.rest;
            double end = m_now + std::max(0.0, left / rate);
            // A head whose end would leave the rate as it is (the NIC's only transfer):
            // its rest's end, computed as Advance and this update would have computed it
            // at the head's end, is the phase end (one event a message, not two).
            if (f.head > 0 && MayMerge(f, slot, rate))
            {
                f.merged = true;
                ++m_merged;
                end += std::max(0.0, f.rest / rate);
            }
            PushEnd(PhaseEnd{end, slot, f.version});
        }
    }
    // Stale heap entries: rebuild when they outnumber the live ones.
    if (m_ends.size() > 2 * static_cast<size_t>(m_activeFlows) + 64)
    {
        DropStaleEnds();
    }
    ++m_rateUpdates;
}

void
LineRateTransfers::PushEnd(const PhaseEnd& e)
{
    // A push that would grow the vector first drops the stale entries when at least a
    // quarter of them are (an active transfer has one live entry at most): a rate
    // update of every transfer at once (a million in a 1024-rank direct all-to-all)
    // does not double the vector past twice the live entries.
    const size_t size = m_ends.size();
    if (size == m_ends.capacity() && size >= 64 &&
        4 * (size - std::min<size_t>(size, m_activeFlows)) >= size)
    {
        DropStaleEnds();
    }
    fluidheap::Push(m_ends, e);
}

void
LineRateTransfers::DropStaleEnds()
{
    fluidheap::DropStale(m_ends, [this](const PhaseEnd& e) {
        const Flow& f = m_flows[e.flow];
        return !f.active || f.version != e.version; // a transfer's live entry is its version's
    });
}

double
LineRateTransfers::NextEnd()
{
    if (m_dirty)
    {
        UpdateRates();
        m_dirty = false;
    }
    return PendingEnd();
}

double
LineRateTransfers::PendingEnd()
{
    while (!m_ends.empty())
    {
        const PhaseEnd& e = m_ends.front();
        const Flow& f = m_flows[e.flow];
        if (f.active && f.version == e.version)
        {
            return e.t;
        }
        fluidheap::Pop(m_ends);
    }
    return kInfinity;
}

const std::vector<FluidTransfers::Ended>&
LineRateTransfers::Advance(double t)
{
    // Every phase ending within kTie of t ends now, in start order. The due entries are
    // popped to the back of the heap's vector, where they are sorted by start order:
    // the batch takes no memory of its own (a million phases at once in a 1024-rank
    // direct all-to-all).
    m_now = std::max(m_now, t);
    m_ended.clear();
    size_t heap = m_ends.size();
    size_t batch = heap;
    while (heap > 0)
    {
        const PhaseEnd& e = m_ends.front();
        const Flow& f = m_flows[e.flow];
        const bool live = f.active && f.version == e.version;
        if (live && e.t - t > FluidNetwork::kTie)
        {
            break;
        }
        fluidheap::PopTo(m_ends, heap);
        --heap;
        if (live)
        {
            PhaseEnd& due = m_ends[--batch];
            std::swap(due, m_ends[heap]); // over a stale entry popped before, if any
            due.order = m_flows[due.flow].order;
        }
    }
    std::sort(m_ends.begin() + batch, m_ends.end(), [](const PhaseEnd& a, const PhaseEnd& b) {
        return a.order < b.order; // orders are unique
    });
    m_dirty = true;
    for (size_t i = batch; i < m_ends.size(); ++i)
    {
        const uint32_t slot = m_ends[i].flow;
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
            if (f.rest > 0 && !f.merged)
            {
                f.phaseChanged = true;
                continue;
            }
        }
        ClearMerged(f);
        f.rest = 0;
        FinishTransfer(f, slot);
    }
    m_ends.resize(heap);
    return m_ended;
}

void
LineRateTransfers::FinishTransfer(Flow& f, uint32_t slot)
{
    // Its last byte left the NIC; it waits behind the largest backlog on its route
    // (links offered more than their rate; FIFO). The largest, not the sum: a link
    // behind a congested one is only fed at that one's rate, which the offered loads
    // (NIC rates) overstate. Where full ports drop, what they hold (the bounded backlog).
    double wait = 0;
    for (uint32_t k = 0; k < f.route.Size(); ++k)
    {
        const uint32_t key = f.route.Key(k);
        const Load d = LoadAt(key, m_now);
        m_dropped |= d.dropped > 0;
        if (m_dropped && d.drops)
        {
            m_load[key] = d; // the Rebase TakeLosses makes, done once
        }
        wait = std::max(wait, (d.drops ? d.bounded : d.queue) / m_capacity[key]);
    }
    if (m_dropped)
    {
        TakeLosses(f, slot);
    }
    m_ended.push_back({slot, m_now + wait});
    Retire(f, slot);
}

void
LineRateTransfers::Retire(const Flow& f, uint32_t slot)
{
    LeaveNics(f, slot);
    --m_activeFlows;
    m_retired.push_back(slot);
}

void
LineRateTransfers::LeaveLinks(const Flow& f)
{
    for (uint32_t k = 0; k < f.route.Size(); ++k)
    {
        const uint32_t key = f.route.Key(k);
        Rebase(key);
        Load& d = m_load[key];
        d.offered -= f.route.Share(k) * f.rate;
        if (--d.flows == 0)
        {
            d.offered = 0;
        }
    }
}

LineRateTransfers::LossRun
LineRateTransfers::LossesOf(const Flow& f, uint32_t slot)
{
    if (slot >= m_lossRuns.size())
    {
        m_lossRuns.resize(std::max<size_t>(slot + 1, m_flows.size()));
    }
    LossRun& run = m_lossRuns[slot];
    if (run.first != kNone)
    {
        return run;
    }
    // A run of one record per dropping port of its route, in route order (the drop
    // flags are fixed before the first transfer): a freed run of that size, else the
    // pool's tail, within one block.
    run.size = 0;
    for (uint32_t k = 0; k < f.route.Size(); ++k)
    {
        run.size += m_load[f.route.Key(k)].drops ? 1 : 0;
    }
    NS_ASSERT_MSG(run.size <= BlockStore<Loss>::BLOCK,
                  "a route of more dropping ports than a block");
    if (run.size >= m_lossFree.size())
    {
        m_lossFree.resize(run.size + 1);
    }
    if (!m_lossFree[run.size].empty())
    {
        run.first = m_lossFree[run.size].back();
        m_lossFree[run.size].pop_back();
    }
    else
    {
        const uint32_t block = BlockStore<Loss>::BLOCK;
        if (m_lossEnd % block + run.size > block)
        {
            m_lossEnd += block - m_lossEnd % block; // the rest of a block stays unused
        }
        run.first = m_lossEnd;
        m_lossEnd += run.size;
        m_lossPool.Resize(m_lossEnd);
    }
    for (uint32_t i = 0; i < run.size; ++i)
    {
        m_lossPool[run.first + i] = Loss{};
    }
    return run;
}

void
LineRateTransfers::FreeLosses(uint32_t slot)
{
    if (slot >= m_lossRuns.size() || m_lossRuns[slot].first == kNone)
    {
        return;
    }
    LossRun& run = m_lossRuns[slot];
    if (run.size > 0)
    {
        m_lossFree[run.size].push_back(run.first);
    }
    run = LossRun{};
}

void
LineRateTransfers::LeaveNics(const Flow& f, uint32_t slot)
{
    for (uint32_t k = 0; k < f.nicCount; ++k)
    {
        uint32_t key = f.route.Key(k);
        auto& flows = m_nics[m_nicOf[key]].flows;
        flows.erase(std::find(flows.begin(), flows.end(), slot));
        Touch(key);
    }
}

FluidTransfers::Moved
LineRateTransfers::SetRoute(uint32_t slot,
                            double t,
                            const FluidNetwork::LinkShares& route,
                            uint32_t senderLinks)
{
    NS_ASSERT_MSG(t <= PendingEnd() + FluidNetwork::kTie, "a transfer moved past a due end");
    NS_ASSERT_MSG(IsSending(slot), "moving a transfer that is not sending");
    NS_ASSERT_MSG(senderLinks >= 1 && senderLinks <= route.size(), "a route without a first hop");
    m_now = std::max(m_now, t);
    Flow& f = m_flows[slot];
    if (f.nic != kNone && m_merged > 0)
    {
        SplitMerged(f.nic);
    }
    Settle(f);
    Moved moved;
    moved.left = std::max(0.0, f.head) + std::max(0.0, f.rest);
    // The old route: its backlogs and drops up to now, the transfer's losses there at
    // its rate so far, then its offered load leaves.
    for (uint32_t k = 0; k < f.route.Size(); ++k)
    {
        const uint32_t key = f.route.Key(k);
        Rebase(key);
        m_dropped |= m_load[key].dropped > 0;
    }
    if (m_dropped)
    {
        TakeLosses(f, slot);
        moved.lost = GetLost(slot);
    }
    LeaveLinks(f);
    // Its NIC: kept (with a head in the FIFO) where it leaves by the same links; else it
    // leaves the old ones with its head and joins the new ones round-robin, in start
    // order, its rate recomputed at the next update.
    bool sameNics = senderLinks == f.nicCount;
    for (uint32_t k = 0; k < f.nicCount && sameNics; ++k)
    {
        sameNics = route[k].first == f.route.Key(k);
    }
    if (!sameNics)
    {
        LeaveNics(f, slot);
        if (f.head > 0)
        {
            Nic& nic = m_nics[m_nicOf[f.nic]];
            nic.fifo.erase(std::find(nic.fifo.begin(), nic.fifo.end(), slot));
            f.rest += f.head;
            f.head = 0;
        }
        f.phaseChanged = true;
    }
    f.route.Assign(route);
    f.nicCount = senderLinks;
    f.nic = senderLinks == 1 ? route[0].first : kNone;
    if (!sameNics)
    {
        for (uint32_t k = 0; k < f.nicCount; ++k)
        {
            const uint32_t key = f.route.Key(k);
            NicOf(key);
            if (m_merged > 0)
            {
                SplitMerged(key);
            }
            auto& flows = m_nics[m_nicOf[key]].flows;
            flows.insert(std::upper_bound(flows.begin(),
                                          flows.end(),
                                          f.order,
                                          [this](uint64_t order, uint32_t j) {
                                              return order < m_flows[j].order;
                                          }),
                         slot);
            Touch(key);
        }
    }
    // The new route: its offered load from now, and its losses marked at the ports' P.
    for (uint32_t k = 0; k < f.route.Size(); ++k)
    {
        const uint32_t key = f.route.Key(k);
        Rebase(key);
        m_dropped |= m_load[key].dropped > 0;
        m_load[key].offered += f.route.Share(k) * f.rate;
        ++m_load[key].flows;
    }
    if (m_dropped)
    {
        FreeLosses(slot);
        const LossRun run = LossesOf(f, slot);
        for (uint32_t k = 0, i = 0; k < f.route.Size(); ++k)
        {
            const uint32_t key = f.route.Key(k);
            if (m_load[key].drops)
            {
                m_lossPool[run.first + i++].mark = m_load[key].dropped;
            }
        }
    }
    m_dirty = true;
    return moved;
}

bool
LineRateTransfers::IsSending(uint32_t slot) const
{
    if (slot >= m_flows.size())
    {
        return false;
    }
    const Flow& f = m_flows[slot];
    return f.active && (f.head > 0 || f.rest > 0);
}

const PackedRoute&
LineRateTransfers::GetRoute(uint32_t handle) const
{
    return m_flows[handle].route;
}

uint32_t
LineRateTransfers::GetActive() const
{
    return m_activeFlows;
}

uint64_t
LineRateTransfers::GetRecomputations() const
{
    return m_rateUpdates;
}

uint64_t
LineRateTransfers::GetFlowsRecomputed() const
{
    return m_flowsUpdated;
}

} // namespace ns3
