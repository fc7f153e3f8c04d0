// SPDX-License-Identifier: GPL-2.0-only
/*
 * MaxMinTransfers: see max-min-transfers.h for what is modelled and what is left out.
 *
 * Room in a FIFO. The packets queued in a NIC's FIFO are the heads waiting behind the
 * front plus what is left of the front's head; a new message gets floor(B - queued)
 * packets of head when that is at least one and no round-robin message is waiting.
 */
#include "max-min-transfers.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetMaxMinTransfers");

MaxMinTransfers::MaxMinTransfers(std::vector<double> capacity, uint32_t nicBacklogPackets)
    : m_net(std::move(capacity)),
      m_backlog(nicBacklogPackets)
{
}

uint32_t
MaxMinTransfers::Start(double now,
                       double wire,
                       uint64_t packets,
                       const FluidNetwork::LinkShares& route,
                       uint32_t senderLinks)
{
    NS_ASSERT_MSG(wire > 0 && packets > 0, "a transfer without bytes");
    NS_ASSERT_MSG(senderLinks >= 1 && senderLinks <= route.size(), "a route without a first hop");
    const uint32_t slot = m_transfers.Acquire();
    Transfer& x = m_transfers[slot];
    x.route.Assign(route);
    x.order = m_order++;
    x.nic = senderLinks == 1 ? route[0].first : kNone;
    x.head = 0;
    x.headPackets = 0;
    x.perPacket = wire / static_cast<double>(packets);
    x.headFlow = kNone;
    x.pending = 0;
    x.inRoundRobin = false;
    x.active = true;
    ++m_active;
    if (x.nic != kNone && m_backlog > 0)
    {
        Nic& nic = m_nics[x.nic];
        double queued = 0; // packets in the FIFO
        for (uint32_t j : nic.fifo)
        {
            const Transfer& y = m_transfers[j];
            queued += y.headFlow == kNone ? y.headPackets
                                          : m_net.GetBytesLeft(y.headFlow, now) / y.perPacket;
        }
        const double room = std::floor(static_cast<double>(m_backlog) - queued + 1e-9);
        if (room >= 1 && nic.roundRobin == 0)
        {
            x.headPackets = std::min(static_cast<double>(packets), room);
            x.head =
                x.headPackets == static_cast<double>(packets) ? wire : x.headPackets * x.perPacket;
            nic.fifo.push_back(slot);
            ++x.pending;
            if (nic.fifo.size() == 1)
            {
                StartHead(now, slot);
            }
        }
    }
    const double rest = wire - x.head;
    if (rest > 0)
    {
        uint32_t flow = m_net.Start(now, rest, x.route, false);
        if (flow >= m_owner.size())
        {
            m_owner.resize(flow + 1);
        }
        m_owner[flow] = {slot, false};
        ++x.pending;
        if (x.nic != kNone && x.head == 0)
        {
            x.inRoundRobin = true;
            ++m_nics[x.nic].roundRobin;
        }
    }
    return slot;
}

void
MaxMinTransfers::StartHead(double now, uint32_t slot)
{
    Transfer& x = m_transfers[slot];
    x.headFlow = m_net.Start(now, x.head, x.route, true);
    if (x.headFlow >= m_owner.size())
    {
        m_owner.resize(x.headFlow + 1);
    }
    m_owner[x.headFlow] = {slot, true};
}

double
MaxMinTransfers::NextEnd()
{
    return m_net.NextCompletion();
}

double
MaxMinTransfers::PendingEnd()
{
    return m_net.PendingCompletion();
}

const std::vector<FluidTransfers::Ended>&
MaxMinTransfers::Advance(double t)
{
    // Owners first: starting the next heads below may reuse the ended flows' handles.
    m_flowsEnded.clear();
    for (uint32_t flow : m_net.Complete(t))
    {
        m_flowsEnded.push_back(m_owner[flow]);
    }
    m_done.clear();
    for (const Owner& owner : m_flowsEnded)
    {
        FlowEnded(t, owner);
    }
    std::sort(m_done.begin(), m_done.end(), [this](uint32_t a, uint32_t b) {
        return m_transfers[a].order < m_transfers[b].order;
    });
    m_ended.clear();
    for (uint32_t slot : m_done)
    {
        Transfer& x = m_transfers[slot];
        x.active = false; // its route stays readable until the slot is reused (GetRoute)
        --m_active;
        m_transfers.Release(slot);
        m_ended.push_back({slot, t});
    }
    return m_ended;
}

void
MaxMinTransfers::FlowEnded(double t, const Owner& owner)
{
    Transfer& x = m_transfers[owner.transfer];
    NS_ASSERT(x.active && x.pending > 0);
    if (owner.head)
    {
        // The head left: the next queued head moves; the rest, if any, is round-robin.
        Nic& nic = m_nics[x.nic];
        NS_ASSERT(!nic.fifo.empty() && nic.fifo.front() == owner.transfer);
        nic.fifo.pop_front();
        x.headFlow = kNone;
        x.head = 0;
        x.headPackets = 0;
        if (x.pending > 1)
        {
            x.inRoundRobin = true;
            ++nic.roundRobin;
        }
        if (!nic.fifo.empty())
        {
            StartHead(t, nic.fifo.front());
        }
    }
    else if (x.inRoundRobin)
    {
        x.inRoundRobin = false;
        --m_nics[x.nic].roundRobin;
    }
    if (--x.pending == 0)
    {
        m_done.push_back(owner.transfer);
    }
}

const PackedRoute&
MaxMinTransfers::GetRoute(uint32_t handle) const
{
    return m_transfers[handle].route;
}

uint32_t
MaxMinTransfers::GetActive() const
{
    return m_active;
}

uint64_t
MaxMinTransfers::GetRecomputations() const
{
    return m_net.GetRecomputations();
}

uint64_t
MaxMinTransfers::GetFlowsRecomputed() const
{
    return m_net.GetFlowsRecomputed();
}

} // namespace ns3
