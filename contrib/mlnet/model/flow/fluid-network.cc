// SPDX-License-Identifier: GPL-2.0-only
/*
 * FluidNetwork: see fluid-network.h for what is modelled and what is left out.
 *
 * Progressive filling with a heap. For the component being recomputed, every link
 * starts with its whole capacity left and the shares of all its flows unfrozen; its
 * fill level is remaining / weight, the common rate at which it would be full. The
 * link with the smallest level is popped, its unfrozen flows frozen at that level,
 * and every link those flows cross gives up share x level of its capacity and share
 * of its weight (a new entry with its new level; older ones are skipped by version).
 * A link's level never falls when flows freeze on it at a level no higher than its
 * own, so the popped levels rise and every flow is frozen at its bottleneck's level:
 * the weighted max-min fair allocation.
 */
#include "fluid-network.h"

#include "ns3/assert.h"
#include "ns3/fluid-heap.h"
#include "ns3/log.h"
#include "ns3/packed-route.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFluidNetwork");

namespace
{
constexpr double kInfinity = std::numeric_limits<double>::infinity();
} // namespace

FluidNetwork::FluidNetwork(std::vector<double> capacity)
    : m_capacity(std::move(capacity)),
      m_links(m_capacity.size())
{
}

uint32_t
FluidNetwork::Start(double now, double bytes, const LinkShares& links, bool priority)
{
    PackedRoute route;
    route.Assign(links);
    return Start(now, bytes, route, priority);
}

uint32_t
FluidNetwork::Start(double now, double bytes, const PackedRoute& links, bool priority)
{
    NS_ASSERT_MSG(bytes > 0, "a flow without bytes");
    NS_ASSERT_MSG(links.Size() > 0, "a flow that crosses no link");
    // The owner completes what is due before it starts more (FluidMessageTransport's
    // CompleteDue), so no flow is settled past its end.
    NS_ASSERT_MSG(now <= PendingCompletion() + kTie, "a flow started past a due completion");
    m_now = std::max(m_now, now);
    const uint32_t slot = m_flows.Acquire();
    Flow& f = m_flows[slot];
    f.hops.resize(links.Size());
    for (uint32_t k = 0; k < links.Size(); ++k)
    {
        const uint32_t key = links.Key(k);
        NS_ASSERT_MSG(key < m_links.size() && m_capacity[key] > 0,
                      "link " << key << " has no capacity");
        NS_ASSERT_MSG(links.Share(k) > 0, "a share that is not positive");
        Link& l = m_links[key];
        f.hops[k] = {key, static_cast<uint32_t>(l.flows.size()), links.Share(k)};
        l.flows.push_back(slot);
        MarkDirty(key);
    }
    f.left = bytes;
    f.t0 = m_now;
    f.rate = 0;
    f.end = kInfinity;
    f.order = m_order++;
    f.priority = priority;
    f.active = true;
    ++f.version;
    ++m_active;
    return slot;
}

void
FluidNetwork::MarkDirty(uint32_t key)
{
    Link& l = m_links[key];
    if (!l.dirty)
    {
        l.dirty = true;
        m_dirty.push_back(key);
    }
}

double
FluidNetwork::NextCompletion()
{
    if (!m_dirty.empty())
    {
        Recompute();
    }
    return PendingCompletion();
}

double
FluidNetwork::PendingCompletion()
{
    while (!m_ends.empty())
    {
        const Entry& e = m_ends.front();
        const Flow& f = m_flows[e.index];
        if (f.active && f.version == e.version)
        {
            return e.t;
        }
        fluidheap::Pop(m_ends);
    }
    return kInfinity;
}

const std::vector<uint32_t>&
FluidNetwork::Complete(double t)
{
    m_now = std::max(m_now, t);
    m_completed.clear();
    while (!m_ends.empty())
    {
        const Entry e = m_ends.front();
        const Flow& f = m_flows[e.index];
        if (f.active && f.version == e.version)
        {
            if (e.t - t > kTie)
            {
                break;
            }
            m_completed.push_back(e.index);
        }
        fluidheap::Pop(m_ends);
    }
    std::sort(m_completed.begin(), m_completed.end(), [this](uint32_t a, uint32_t b) {
        return m_flows[a].order < m_flows[b].order;
    });
    for (uint32_t slot : m_completed)
    {
        Flow& f = m_flows[slot];
        for (const Hop& hop : f.hops)
        {
            // Swap-remove from the link's list, fixing the moved flow's position.
            auto& list = m_links[hop.key].flows;
            const uint32_t moved = list.back();
            list[hop.position] = moved;
            list.pop_back();
            if (moved != slot)
            {
                for (Hop& other : m_flows[moved].hops)
                {
                    if (other.key == hop.key)
                    {
                        other.position = hop.position;
                        break;
                    }
                }
            }
            MarkDirty(hop.key);
        }
        f.active = false;
        f.left = 0;
        f.rate = 0;
        ++f.version;
        --m_active;
        m_flows.Release(slot);
    }
    return m_completed;
}

void
FluidNetwork::Recompute()
{
    CollectComponent();
    FillProgressively();
    for (uint32_t slot : m_compFlows)
    {
        Flow& f = m_flows[slot];
        f.left = std::max(0.0, f.left - f.rate * (m_now - f.t0));
        f.t0 = m_now;
        if (f.newRate != f.rate)
        {
            // A flow behind priority flows on a full link waits (rate 0, no end).
            f.rate = f.newRate;
            f.end = f.rate > 0 ? m_now + f.left / f.rate : kInfinity;
            ++f.version;
            if (f.rate > 0)
            {
                fluidheap::Push(m_ends, Entry{f.end, slot, f.version});
            }
        }
    }
    m_flowsRecomputed += m_compFlows.size();
    ++m_recomputations;
    // Stale heap entries: dropped in place when they outnumber the live ones (no new
    // vector: a recomputation of a million flows leaves a million stale entries).
    if (m_ends.size() > 2 * static_cast<size_t>(m_active) + 64)
    {
        fluidheap::DropStale(m_ends, [this](const Entry& e) {
            const Flow& f = m_flows[e.index];
            return !f.active || f.version != e.version;
        });
    }
}

void
FluidNetwork::CollectComponent()
{
    // Breadth first from the changed links, through flows to the links they cross.
    ++m_epoch;
    m_compFlows.clear();
    m_compLinks.clear();
    for (uint32_t key : m_dirty)
    {
        m_links[key].dirty = false;
        if (m_links[key].seen != m_epoch)
        {
            m_links[key].seen = m_epoch;
            m_compLinks.push_back(key);
        }
    }
    m_dirty.clear();
    for (size_t i = 0; i < m_compLinks.size(); ++i)
    {
        for (uint32_t slot : m_links[m_compLinks[i]].flows)
        {
            Flow& f = m_flows[slot];
            if (f.seen == m_epoch)
            {
                continue;
            }
            f.seen = m_epoch;
            m_compFlows.push_back(slot);
            for (const Hop& hop : f.hops)
            {
                if (m_links[hop.key].seen != m_epoch)
                {
                    m_links[hop.key].seen = m_epoch;
                    m_compLinks.push_back(hop.key);
                }
            }
        }
    }
}

void
FluidNetwork::FillProgressively()
{
    for (uint32_t key : m_compLinks)
    {
        m_links[key].remaining = m_capacity[key];
    }
    for (uint32_t slot : m_compFlows)
    {
        m_flows[slot].frozen = false;
    }
    // Priority flows first, on the whole capacity; then the others on what is left.
    for (bool priority : {true, false})
    {
        FillClass(priority);
    }
}

void
FluidNetwork::FillClass(bool priority)
{
    std::vector<Entry> initial;
    initial.reserve(m_compLinks.size());
    size_t unfrozen = 0;
    for (uint32_t slot : m_compFlows)
    {
        unfrozen += m_flows[slot].priority == priority ? 1 : 0;
    }
    if (unfrozen == 0)
    {
        return;
    }
    for (uint32_t key : m_compLinks)
    {
        Link& l = m_links[key];
        l.weight = 0;
        l.unfrozen = 0;
        ++l.version;
    }
    // Each link's unfrozen shares, flow by flow: O(flow-link pairs) (a link looking
    // its share up in each of its flows' routes cost a route length more per pair).
    for (uint32_t slot : m_compFlows)
    {
        const Flow& f = m_flows[slot];
        if (f.priority != priority)
        {
            continue;
        }
        for (const Hop& hop : f.hops)
        {
            Link& l = m_links[hop.key];
            ++l.unfrozen;
            l.weight += hop.share;
        }
    }
    for (uint32_t key : m_compLinks)
    {
        const Link& l = m_links[key];
        if (l.unfrozen > 0)
        {
            initial.push_back({l.remaining / l.weight, key, l.version});
        }
    }
    MinHeap levels(std::greater<>(), std::move(initial));
    double level = 0;
    while (unfrozen > 0 && !levels.empty())
    {
        const Entry e = levels.top();
        levels.pop();
        Link& l = m_links[e.index];
        if (e.version != l.version || l.unfrozen == 0)
        {
            continue;
        }
        // Rounding may put a later level a hair below an earlier one: levels only rise.
        level = std::max(level, e.t);
        m_touched.clear();
        for (uint32_t slot : l.flows)
        {
            Flow& f = m_flows[slot];
            if (f.frozen || f.priority != priority)
            {
                continue;
            }
            f.frozen = true;
            f.newRate = level;
            --unfrozen;
            for (const Hop& hop : f.hops)
            {
                Link& m = m_links[hop.key];
                m.remaining = std::max(0.0, m.remaining - hop.share * f.newRate);
                m.weight = std::max(0.0, m.weight - hop.share);
                --m.unfrozen;
                ++m.version;
                if (m.touched != m_epoch)
                {
                    m.touched = m_epoch;
                    m_touched.push_back(hop.key);
                }
            }
        }
        // Every other link those flows cross has a new level while it has unfrozen
        // flows; its older entries are stale (version).
        for (uint32_t key : m_touched)
        {
            Link& m = m_links[key];
            m.touched = 0;
            if (m.unfrozen > 0)
            {
                levels.push({m.weight > 0 ? m.remaining / m.weight : kInfinity, key, m.version});
            }
        }
    }
    NS_ASSERT_MSG(unfrozen == 0, "progressive filling left " << unfrozen << " flows unfrozen");
}

double
FluidNetwork::GetRate(uint32_t flow) const
{
    return m_flows.at(flow).rate;
}

double
FluidNetwork::GetBytesLeft(uint32_t flow, double t) const
{
    const Flow& f = m_flows.at(flow);
    return f.active ? std::max(0.0, f.left - f.rate * (t - f.t0)) : 0.0;
}

uint32_t
FluidNetwork::GetActiveFlows() const
{
    return m_active;
}

uint64_t
FluidNetwork::GetRecomputations() const
{
    return m_recomputations;
}

uint64_t
FluidNetwork::GetFlowsRecomputed() const
{
    return m_flowsRecomputed;
}

} // namespace ns3
