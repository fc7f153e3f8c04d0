// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of TimelineReplay, the dependency replay behind AlphaBetaModel::Predict, with
 * both sharing disciplines, against an oracle that applies the same rules by brute
 * force (ReferenceReplay). Line rate: every NIC weight, rate, offered load and backlog
 * recomputed from all the messages in flight at every event. Max-min: every rate
 * recomputed from scratch (mlnettest::WaterFill, written apart from FluidNetwork) over
 * all the messages in flight at every event (the fronts of the sender NICs' FIFOs
 * first, then the rest: mlnettest::WaterFillWithPriority). It advances every message's
 * bytes and rescans every completion. Seeded random cases
 * on synthetic link models (split NICs, ECMP shares, unequal rates) and on small real
 * fabrics, with random dependencies, sizes, FIFOs, reductions and overheads: every
 * message's start, transfer end and arrival, every rank's finish and the total agree.
 */
#include "collective-test-support.h"
#include "max-min-oracle.h"

#include "ns3/collective-factory.h"
#include "ns3/core-module.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/message-transport.h"
#include "ns3/point-to-point-module.h"
#include "ns3/route-planner.h"
#include "ns3/stepwise-collective.h"
#include "ns3/timeline-replay.h"
#include "ns3/torus-helper.h"

#include <cmath>
#include <deque>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <utility>

using namespace ns3;
using mlnettest::HandTransport;

namespace
{

using Shares = std::vector<std::pair<uint32_t, double>>;

/**
 * The oracle: the rules of line-rate-transfers.h or max-min-transfers.h (by
 * par.sharing) applied directly. Each message is routed up front; at every event every
 * rate is recomputed from the messages in flight (line rate: NIC weights, FIFO heads,
 * offered loads and backlogs; max-min: the textbook water-filling, the fronts of the
 * NICs' FIFOs first), every end is rescanned and every message's bytes are advanced.
 * Written for clarity, not speed.
 */
TimelinePrediction
ReferenceReplay(const std::vector<CollectiveStep>& schedule,
                uint32_t nRanks,
                const std::vector<double>& capacity,
                const Packetization& pk,
                const TimelineReplay::RouteFunction& route,
                const TimelineReplay::LatencyFunction& latency,
                const TimelineReplay::Parameters& par)
{
    const double inf = std::numeric_limits<double>::infinity();

    struct Msg
    {
        ScheduledMessage m;
        uint32_t si{0};
        Shares shares;
        uint32_t nicCount{0};
        uint32_t nic{UINT32_MAX};
        double wire{0}, packets{0}, latency{0};
        double head{0}, rest{0};         //!< bytes left: the FIFO head, the rest
        double headRate{0}, restRate{0}; //!< max-min: their rates (the head's at the front)
        double rate{0};                  //!< line rate: the rate of its current phase
        bool inFifo{false};
        double start{-1}, transferEnd{-1}, arrival{-1};
    };

    struct Step
    {
        std::vector<uint32_t> sends;
        uint32_t recvsLeft{0};
        double reduce{0};
        bool entered{false};
    };

    struct Chain
    {
        std::map<uint32_t, Step> steps;
        std::map<uint32_t, Step>::iterator cursor;
        bool computing{false}, done{false};
    };

    struct Event
    {
        double t;
        uint64_t seq;
        bool arrival;
        uint32_t a, b;

        bool operator>(const Event& o) const
        {
            return t != o.t ? t > o.t : seq > o.seq;
        }
    };

    auto spbOf = [&](uint32_t key) { return 1.0 / capacity[key]; };
    std::vector<Msg> msgs;
    std::vector<std::map<uint32_t, Chain>> ranks(nRanks);
    for (uint32_t si = 0; si < schedule.size(); ++si)
    {
        for (const auto& sm : schedule[si].messages)
        {
            Msg x;
            x.m = sm;
            x.si = si;
            bool legacy = sm.step == ScheduledMessage::kStepOfSchedule;
            if (legacy)
            {
                x.m.step = si;
                x.m.chain = 0;
            }
            if (sm.src != sm.dst && sm.bytes > 0)
            {
                x.nicCount = route(sm.src, sm.dst, x.shares);
                x.nic = x.nicCount == 1 ? x.shares[0].first : UINT32_MAX;
                x.wire = static_cast<double>(pk.GetWireBytes(sm.bytes));
                x.packets = static_cast<double>(pk.GetPacketCount(sm.bytes));
                x.latency = latency(sm.src, sm.dst, pk.GetFirstFrameBytes(sm.bytes), x.shares);
            }
            auto id = static_cast<uint32_t>(msgs.size());
            ranks[sm.src][x.m.chain].steps[x.m.step].sends.push_back(id);
            Step& recv = ranks[sm.dst][x.m.chain].steps[x.m.step];
            ++recv.recvsLeft;
            if (legacy)
            {
                recv.reduce = static_cast<double>(schedule[si].reduceBytes);
            }
            else if (sm.reduce)
            {
                recv.reduce += static_cast<double>(sm.bytes);
            }
            msgs.push_back(x);
        }
    }
    const bool lineRate = par.sharing == FluidSharing::LINE_RATE;
    const size_t nKeys = capacity.size();
    // Line rate: NIC weights, offered loads and FIFO backlogs; max-min: capacities.
    std::vector<double> weight(nKeys, 0), offered(nKeys, 0), queue(nKeys, 0), qTime(nKeys, 0);
    std::vector<std::deque<uint32_t>> fifo(nKeys);
    std::vector<uint32_t> active;
    std::vector<double> finish(nRanks, 0), computeFree(nRanks, 0);
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
    double now = 0;
    uint64_t seq = 0;
    bool dirty = false; // a message started or a phase ended: rates change
    auto backlog = [&](uint32_t key, double t) {
        return std::max(0.0, queue[key] + (offered[key] - 1.0 / spbOf(key)) * (t - qTime[key]));
    };
    // A message with bytes starts: the discipline's NIC admission.
    auto startLineRate = [&](Msg& f, uint32_t id) {
        if (f.nic != UINT32_MAX && par.nicBacklogPackets > 0)
        {
            // NIC FIFO: the head goes in if there is room and no round-robin message
            // waits; if they wait and the FIFO is empty, B of their packets go first.
            const double b = par.nicBacklogPackets;
            double queued = 0;
            for (uint32_t j : fifo[f.nic])
            {
                queued += msgs[j].head / (msgs[j].wire / msgs[j].packets);
            }
            double room = std::floor(b - queued + 1e-9);
            std::vector<uint32_t> rr;
            bool waiting = false;
            for (uint32_t j : active)
            {
                waiting |= msgs[j].nic == f.nic && msgs[j].head <= 0;
                if (msgs[j].nic == f.nic && msgs[j].head <= 0 && msgs[j].rest > 0)
                {
                    rr.push_back(j);
                }
            }
            if (room >= 1 && !waiting)
            {
                double p = std::min(f.packets, room);
                f.head = p == f.packets ? f.wire : p * (f.wire / f.packets);
                f.rest = f.wire - f.head;
                fifo[f.nic].push_back(id);
            }
            else if (waiting && fifo[f.nic].empty())
            {
                for (uint32_t j : rr)
                {
                    Msg& g = msgs[j];
                    double h = std::min(g.rest, b / rr.size() * (g.wire / g.packets));
                    g.head = h;
                    g.rest -= h;
                    fifo[f.nic].push_back(j);
                }
            }
        }
        active.push_back(id);
        dirty = true;
    };
    auto startMaxMin = [&](Msg& f, uint32_t id) {
        if (f.nic != UINT32_MAX && par.nicBacklogPackets > 0)
        {
            // The FIFO: packets of the heads queued (the front's partly sent); a head
            // only with room and no round-robin message (past its head) waiting.
            double queued = 0;
            for (uint32_t j : fifo[f.nic])
            {
                queued += msgs[j].head / (msgs[j].wire / msgs[j].packets);
            }
            bool waiting = false;
            for (uint32_t j : active)
            {
                waiting |= msgs[j].nic == f.nic && !msgs[j].inFifo && msgs[j].rest > 0;
            }
            double room = std::floor(par.nicBacklogPackets - queued + 1e-9);
            if (room >= 1 && !waiting)
            {
                double p = std::min(f.packets, room);
                f.head = p == f.packets ? f.wire : p * (f.wire / f.packets);
                f.rest = f.wire - f.head;
                f.inFifo = true;
                fifo[f.nic].push_back(id);
                dirty |= fifo[f.nic].size() == 1;
            }
        }
        dirty |= f.rest > 0;
        active.push_back(id);
    };
    auto start = [&](uint32_t id) {
        Msg& f = msgs[id];
        f.start = now;
        if (f.wire <= 0)
        {
            f.transferEnd = f.arrival = now;
            events.push({now, seq++, true, id, 0});
            return;
        }
        f.head = 0;
        f.rest = f.wire;
        lineRate ? startLineRate(f, id) : startMaxMin(f, id);
    };
    std::function<void(uint32_t, uint32_t)> advance = [&](uint32_t r, uint32_t c) {
        Chain& ch = ranks[r][c];
        while (true)
        {
            if (ch.cursor == ch.steps.end())
            {
                if (!ch.done)
                {
                    ch.done = true;
                    finish[r] = std::max(finish[r], now);
                }
                return;
            }
            Step& st = ch.cursor->second;
            if (!st.entered)
            {
                st.entered = true;
                for (uint32_t id : st.sends)
                {
                    start(id);
                }
            }
            if (st.recvsLeft > 0)
            {
                return;
            }
            ++ch.cursor;
            if (st.reduce > 0 && par.reductionTimePerByte > 0)
            {
                computeFree[r] =
                    std::max(now, computeFree[r]) + par.reductionTimePerByte * st.reduce;
                ch.computing = true;
                events.push({computeFree[r], seq++, false, r, c});
                return;
            }
        }
    };
    for (auto& chains : ranks)
    {
        for (auto& [c, ch] : chains)
        {
            ch.cursor = ch.steps.begin();
        }
    }
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (auto& [c, ch] : ranks[r])
        {
            advance(r, c);
        }
    }
    TimelinePrediction out;
    while (!active.empty() || !events.empty())
    {
        bool fluidFirst = false;
        if (lineRate)
        {
            if (dirty)
            {
                // Everything from scratch: backlogs so far, weights, rates, offered loads.
                for (size_t key = 0; key < nKeys; ++key)
                {
                    queue[key] = backlog(static_cast<uint32_t>(key), now);
                    qTime[key] = now;
                    offered[key] = 0;
                    weight[key] = 0;
                }
                for (uint32_t id : active)
                {
                    for (uint32_t k = 0; k < msgs[id].nicCount && msgs[id].head <= 0; ++k)
                    {
                        weight[msgs[id].shares[k].first] += msgs[id].shares[k].second;
                    }
                }
                for (uint32_t id : active)
                {
                    Msg& f = msgs[id];
                    if (f.head > 0)
                    {
                        f.rate = fifo[f.nic].front() == id ? 1.0 / spbOf(f.nic) : 0.0;
                    }
                    else
                    {
                        double spb = 0;
                        bool blocked = false;
                        for (uint32_t k = 0; k < f.nicCount; ++k)
                        {
                            blocked |= !fifo[f.shares[k].first].empty();
                            spb =
                                std::max(spb, spbOf(f.shares[k].first) * weight[f.shares[k].first]);
                        }
                        f.rate = blocked ? 0.0 : 1.0 / spb;
                    }
                    for (const auto& [key, share] : f.shares)
                    {
                        offered[key] += share * f.rate;
                    }
                }
                ++out.rateUpdates;
                dirty = false;
            }
            double tFluid = inf;
            for (uint32_t id : active)
            {
                const Msg& f = msgs[id];
                if (f.rate > 0)
                {
                    tFluid = std::min(tFluid,
                                      now + std::max(0.0, (f.head > 0 ? f.head : f.rest) / f.rate));
                }
            }
            double tEvent = events.empty() ? inf : events.top().t;
            // Ties (within 1e-13 s): phase ends before events, events first pushed first.
            fluidFirst = tFluid <= tEvent + 1e-13;
            double tNext = fluidFirst ? tFluid : std::max(now, tEvent);
            double dt = tNext - now;
            std::vector<uint32_t> still;
            for (uint32_t id : active)
            {
                Msg& f = msgs[id];
                double& left = f.head > 0 ? f.head : f.rest;
                if (f.rate > 0 && fluidFirst && left / f.rate - dt <= 1e-13)
                {
                    bool wasHead = &left == &f.head;
                    left = 0;
                    dirty = true;
                    if (wasHead)
                    {
                        fifo[f.nic].pop_front();
                        if (f.rest > 0)
                        {
                            still.push_back(id);
                            continue;
                        }
                    }
                    double wait = 0;
                    for (const auto& [key, share] : f.shares)
                    {
                        wait = std::max(wait, backlog(key, tNext) * spbOf(key));
                    }
                    f.transferEnd = tNext + wait;
                    f.arrival = f.transferEnd + f.latency + par.perMessageOverhead;
                    events.push({f.arrival, seq++, true, id, 0});
                    continue;
                }
                if (f.rate > 0)
                {
                    left -= f.rate * dt;
                }
                still.push_back(id);
            }
            active.swap(still);
            now = tNext;
        }
        else
        {
            if (dirty)
            {
                // Flow ids: 2 id for a head at the front of its FIFO, 2 id + 1 for a rest.
                std::map<uint32_t, mlnettest::OracleShares> heads;
                std::map<uint32_t, mlnettest::OracleShares> rests;
                for (uint32_t id : active)
                {
                    const Msg& f = msgs[id];
                    if (f.inFifo && fifo[f.nic].front() == id)
                    {
                        heads[2 * id] = f.shares;
                    }
                    if (f.rest > 0)
                    {
                        rests[2 * id + 1] = f.shares;
                    }
                }
                auto rate = mlnettest::WaterFillWithPriority(capacity, heads, rests);
                for (uint32_t id : active)
                {
                    msgs[id].headRate = rate.count(2 * id) ? rate[2 * id] : 0.0;
                    msgs[id].restRate = rate.count(2 * id + 1) ? rate[2 * id + 1] : 0.0;
                }
                ++out.rateUpdates;
                dirty = false;
            }
            double tFluid = inf;
            for (uint32_t id : active)
            {
                const Msg& f = msgs[id];
                if (f.headRate > 0)
                {
                    tFluid = std::min(tFluid, now + f.head / f.headRate);
                }
                if (f.rest > 0 && f.restRate > 0)
                {
                    tFluid = std::min(tFluid, now + f.rest / f.restRate);
                }
            }
            double tEvent = events.empty() ? inf : events.top().t;
            // Ties (within 1e-13 s): transfer ends before events, events first pushed first.
            fluidFirst = tFluid <= tEvent + 1e-13;
            double tNext = fluidFirst ? tFluid : std::max(now, tEvent);
            double dt = tNext - now;
            std::vector<uint32_t> still;
            std::vector<uint32_t> headsDone;
            for (uint32_t id : active)
            {
                Msg& f = msgs[id];
                auto ends = [&](double left, double rate) {
                    return fluidFirst && rate > 0 && left / rate - dt <= 1e-13;
                };
                if (f.headRate > 0 && ends(f.head, f.headRate))
                {
                    f.head = 0;
                    headsDone.push_back(id);
                }
                else
                {
                    f.head -= f.headRate * dt;
                }
                if (f.rest > 0 && ends(f.rest, f.restRate))
                {
                    f.rest = 0;
                    dirty = true;
                }
                else
                {
                    f.rest -= f.restRate * dt;
                }
            }
            for (uint32_t id : headsDone)
            {
                Msg& f = msgs[id];
                fifo[f.nic].pop_front();
                f.inFifo = false;
                dirty = true;
            }
            for (uint32_t id : active)
            {
                Msg& f = msgs[id];
                if (!f.inFifo && f.rest <= 0)
                {
                    f.transferEnd = tNext;
                    f.arrival = f.transferEnd + f.latency + par.perMessageOverhead;
                    events.push({f.arrival, seq++, true, id, 0});
                    continue;
                }
                still.push_back(id);
            }
            active.swap(still);
            now = tNext;
        }
        if (fluidFirst)
        {
            continue;
        }
        Event e = events.top();
        events.pop();
        std::vector<Event> tied;
        while (!events.empty() && events.top().t - e.t <= 1e-13)
        {
            tied.push_back(events.top());
            events.pop();
        }
        for (auto& x : tied)
        {
            if (x.seq < e.seq)
            {
                std::swap(x, e);
            }
        }
        for (const auto& x : tied)
        {
            events.push(x);
        }
        if (!e.arrival)
        {
            ranks[e.a][e.b].computing = false;
            advance(e.a, e.b);
            continue;
        }
        const Msg& f = msgs[e.a];
        Chain& ch = ranks[f.m.dst][f.m.chain];
        auto it = ch.steps.find(f.m.step);
        --it->second.recvsLeft;
        if (!ch.computing && ch.cursor == it)
        {
            advance(f.m.dst, f.m.chain);
        }
    }
    double total = 0;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        total = std::max(total, finish[r]);
        out.rankFinish.push_back(Seconds(finish[r]));
    }
    out.total = Seconds(total);
    for (const auto& f : msgs)
    {
        MessageTiming t;
        t.message = f.m;
        t.scheduleStep = f.si;
        t.start = Seconds(f.start);
        t.transferEnd = Seconds(f.transferEnd);
        t.arrival = Seconds(f.arrival);
        t.latency = Seconds(f.latency);
        out.messages.push_back(t);
    }
    return out;
}

/// A fabric as the replay sees it: directed links' capacities, routes, latencies.
struct LinkModel
{
    uint32_t nRanks{0};
    std::vector<double> capacity; //!< bytes/s per directed key (2 id, 2 id + 1)
    TimelineReplay::RouteFunction route;
    TimelineReplay::LatencyFunction latency;
};

/// Hops as the model counts them: 0 to itself or empty, else the route's links.
uint32_t
TestHops(const ScheduledMessage& m)
{
    return m.src == m.dst || m.bytes == 0 ? 0 : 1;
}

/// A deterministic latency: a function of the pair and the first frame only.
double
TestLatency(uint32_t src, uint32_t dst, uint64_t f1, const FluidNetwork::LinkShares& /* route */)
{
    return 1.0137e-6 * (1 + (src * 7 + dst * 3) % 4) + 8.0 * static_cast<double>(f1) / 97.9e9;
}

/**
 * A synthetic link model: every rank has one or two NIC links of its own, every pair
 * a route of one or two of its sender's NIC links (split evenly) and one to three
 * shared links with shares of 1, 1/2, 1/3 or 1/4; rates of 10 to 100 Gb/s.
 */
LinkModel
SyntheticModel(std::mt19937& gen)
{
    LinkModel lm;
    lm.nRanks = 2 + gen() % 7;
    // Rates whose seconds per byte are not whole picoseconds, so exact times do not sit
    // on the resolution's rounding boundaries.
    const double rates[] = {10.3e9, 25.7e9, 41.1e9, 97.9e9};
    std::vector<std::vector<uint32_t>> nics(lm.nRanks);
    auto addLink = [&]() {
        lm.capacity.push_back(rates[gen() % 4] / 8.0);
        lm.capacity.push_back(rates[gen() % 4] / 8.0);
        return static_cast<uint32_t>(lm.capacity.size() / 2 - 1);
    };
    for (uint32_t r = 0; r < lm.nRanks; ++r)
    {
        for (uint32_t k = 0; k < 1 + gen() % 2; ++k)
        {
            nics[r].push_back(2 * addLink()); // its A -> B direction
        }
    }
    const uint32_t shared = 1 + gen() % 6;
    std::vector<uint32_t> down;
    for (uint32_t k = 0; k < shared; ++k)
    {
        uint32_t id = addLink();
        down.push_back(2 * id);
        down.push_back(2 * id + 1);
    }
    auto routes =
        std::make_shared<std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, Shares>>>();
    for (uint32_t s = 0; s < lm.nRanks; ++s)
    {
        for (uint32_t d = 0; d < lm.nRanks; ++d)
        {
            Shares sh;
            uint32_t nNic = std::min<uint32_t>(1 + gen() % 2, nics[s].size());
            for (uint32_t k = 0; k < nNic; ++k)
            {
                sh.emplace_back(nics[s][k], 1.0 / nNic);
            }
            std::vector<uint32_t> pool = down;
            std::shuffle(pool.begin(), pool.end(), gen);
            for (uint32_t k = 0; k < 1 + gen() % std::min<size_t>(3, pool.size()); ++k)
            {
                sh.emplace_back(pool[k], 1.0 / (1 + gen() % 4));
            }
            (*routes)[{s, d}] = {nNic, sh};
        }
    }
    lm.route = [routes](uint32_t s, uint32_t d, Shares& out) {
        const auto& r = routes->at({s, d});
        out = r.second;
        return r.first;
    };
    lm.latency = TestLatency;
    return lm;
}

/// A real fabric's link model: its rates and delays, its routes.
struct RealFabric
{
    Ptr<Cluster> cluster;
    std::unique_ptr<RoutePlanner> planner;
    LinkModel model;

    explicit RealFabric(Ptr<Cluster> c)
        : cluster(c),
          planner(std::make_unique<RoutePlanner>(c))
    {
        planner->Compute();
        model.nRanks = c->GetNRanks();
        for (const auto& l : c->GetLinks())
        {
            DataRateValue a;
            DataRateValue b;
            l.devA->GetAttribute("DataRate", a);
            l.devB->GetAttribute("DataRate", b);
            model.capacity.push_back(static_cast<double>(a.Get().GetBitRate()) / 8.0);
            model.capacity.push_back(static_cast<double>(b.Get().GetBitRate()) / 8.0);
        }
        model.route = TimelineReplay::ClusterRoutes(cluster, *planner);
        model.latency = TestLatency;
    }
};

ScheduledMessage
RandomMessage(std::mt19937& gen, uint32_t nRanks, uint32_t p, bool legacy)
{
    ScheduledMessage m;
    m.src = gen() % nRanks;
    m.dst = gen() % 8 == 0 ? m.src : gen() % nRanks; // sometimes to itself
    const uint64_t sizes[] = {0, 1, 100, p - 1ULL, p, p + 1ULL, 3ULL * p + 17, 8ULL * p};
    m.bytes = gen() % 3 == 0 ? 1 + gen() % (20 * p) : sizes[gen() % 8];
    if (!legacy)
    {
        m.chain = gen() % 3;
        m.step = gen() % 6;
        m.reduce = gen() % 2 == 0;
    }
    return m;
}

/// Random messages with random (chain, step) dependencies: a message of step g is sent
/// when its sender enters g of its chain, awaited by its receiver in g, so no cycle.
std::vector<CollectiveStep>
RandomSchedule(std::mt19937& gen, uint32_t nRanks, uint32_t p)
{
    const bool legacy = gen() % 4 == 0; // hand-written: the step is the CollectiveStep
    std::vector<CollectiveStep> schedule(1 + gen() % 5);
    const uint32_t n = 1 + gen() % 40;
    for (uint32_t i = 0; i < n; ++i)
    {
        CollectiveStep& s = schedule[gen() % schedule.size()];
        s.messages.push_back(RandomMessage(gen, nRanks, p, legacy));
        s.reduceBytes = gen() % 2 == 0 ? 0 : gen() % 50000;
    }
    return schedule;
}

TimelineReplay::Parameters
RandomParameters(std::mt19937& gen)
{
    TimelineReplay::Parameters par;
    const double gammas[] = {0.0, 1e-10, 3e-11};
    par.reductionTimePerByte = gammas[gen() % 3];
    par.perMessageOverhead = gen() % 2 == 0 ? 0.0 : 1.5e-6;
    const uint32_t backlogs[] = {0, 1, 4, 8};
    par.nicBacklogPackets = backlogs[gen() % 4];
    par.sharing = gen() % 2 == 0 ? FluidSharing::LINE_RATE : FluidSharing::MAX_MIN;
    return par;
}

/// The new replay and the oracle on one case: every time the same (to 1e-12 relative).
void
ExpectSameTimeline(const LinkModel& lm,
                   const std::vector<CollectiveStep>& schedule,
                   const Packetization& pk,
                   const TimelineReplay::Parameters& par,
                   const std::string& label)
{
    TimelineReplay replay(lm.nRanks, lm.capacity, pk, lm.route, TestHops, lm.latency, par);
    TimelinePrediction got = replay.Run(schedule);
    TimelinePrediction want =
        ReferenceReplay(schedule, lm.nRanks, lm.capacity, pk, lm.route, lm.latency, par);
    auto same = [](Time a, Time b) {
        return std::abs(a.GetSeconds() - b.GetSeconds()) <= 1e-12 * std::abs(b.GetSeconds());
    };
    EXPECT_TRUE(same(got.total, want.total)) << label << ": " << got.total << " vs " << want.total;
    // Line rate with NIC FIFOs: a head whose end changes no rate (its NIC's only
    // transfer) is not an event of the engine, as it is of the oracle.
    if (par.sharing == FluidSharing::LINE_RATE && par.nicBacklogPackets > 0)
    {
        EXPECT_LE(got.rateUpdates, want.rateUpdates) << label;
    }
    else
    {
        EXPECT_EQ(got.rateUpdates, want.rateUpdates) << label;
    }
    ASSERT_EQ(got.rankFinish.size(), want.rankFinish.size()) << label;
    for (size_t r = 0; r < want.rankFinish.size(); ++r)
    {
        EXPECT_TRUE(same(got.rankFinish[r], want.rankFinish[r])) << label << " rank " << r;
    }
    ASSERT_EQ(got.messages.size(), want.messages.size()) << label;
    for (size_t i = 0; i < want.messages.size(); ++i)
    {
        const MessageTiming& g = got.messages[i];
        const MessageTiming& w = want.messages[i];
        EXPECT_TRUE(same(g.start, w.start))
            << label << " message " << i << ": start " << g.start << " vs " << w.start;
        EXPECT_TRUE(same(g.transferEnd, w.transferEnd))
            << label << " message " << i << ": transferEnd " << g.transferEnd << " vs "
            << w.transferEnd;
        EXPECT_TRUE(same(g.arrival, w.arrival))
            << label << " message " << i << ": arrival " << g.arrival << " vs " << w.arrival;
        EXPECT_EQ(g.latency, w.latency) << label << " message " << i;
        EXPECT_EQ(g.message.step, w.message.step) << label << " message " << i;
        EXPECT_EQ(g.message.chain, w.message.chain) << label << " message " << i;
        EXPECT_EQ(g.scheduleStep, w.scheduleStep) << label << " message " << i;
    }
}

Packetization
RandomPacketization(std::mt19937& gen)
{
    const uint32_t payloads[] = {1000, 1500, 8972};
    return Packetization(payloads[gen() % 3], gen() % 2 == 0 ? 30 : 50);
}

/// A 2:1 oversubscribed fat-tree of 8 hosts (ECMP over its uplinks) and a 3x3 torus
/// (dimension order), at rates that give no round times.
void
AddFatTreeAndTorus(std::vector<std::unique_ptr<RealFabric>>& fabrics)
{
    FatTreeHelper fatTree(8);
    fatTree.SetOversubscription(2.0);
    fatTree.SetLinkRate(DataRate("97900Mbps"));
    fabrics.push_back(std::make_unique<RealFabric>(fatTree.Install()));
    TorusHelper torus({3, 3});
    torus.SetLinkRate(DataRate("41100Mbps"));
    fabrics.push_back(std::make_unique<RealFabric>(torus.Install()));
}

class TimelineReplayTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

} // namespace

TEST_F(TimelineReplayTest, MatchesTheFullRescanOnRandomSyntheticFabrics)
{
    std::mt19937 gen(20261201);
    for (uint32_t i = 0; i < 150; ++i)
    {
        LinkModel lm = SyntheticModel(gen);
        Packetization pk = RandomPacketization(gen);
        auto schedule = RandomSchedule(gen, lm.nRanks, pk.GetMaxPayload());
        ExpectSameTimeline(lm, schedule, pk, RandomParameters(gen), "case " + std::to_string(i));
    }
}

TEST_F(TimelineReplayTest, MatchesTheFullRescanOnRandomRealFabrics)
{
    // Routes of real fabrics: one NIC link per host, ECMP over the fat-tree's uplinks,
    // dimension order on the torus.
    std::mt19937 gen(42);
    std::vector<std::unique_ptr<RealFabric>> fabrics;
    IdealSwitchHelper star(5);
    star.SetLinkRate(DataRate("25700Mbps"));
    fabrics.push_back(std::make_unique<RealFabric>(star.Install()));
    AddFatTreeAndTorus(fabrics);
    for (uint32_t i = 0; i < 60; ++i)
    {
        const LinkModel& lm = fabrics[i % fabrics.size()]->model;
        Packetization pk = RandomPacketization(gen);
        auto schedule = RandomSchedule(gen, lm.nRanks, pk.GetMaxPayload());
        ExpectSameTimeline(lm, schedule, pk, RandomParameters(gen), "case " + std::to_string(i));
    }
    // And the collectives' own schedules on the fat-tree.
    RealFabric& ft = *fabrics[1];
    Ptr<HandTransport> t = CreateObject<HandTransport>();
    t->Install(ft.cluster);
    std::vector<uint32_t> members(8);
    std::iota(members.begin(), members.end(), 0);
    for (const auto& [collective, algorithm] : CollectiveFactory::List())
    {
        Ptr<Collective> c = CollectiveFactory::Create(collective, algorithm);
        if (algorithm == "hierarchical")
        {
            c->SetAttribute("GroupSize", UintegerValue(4));
        }
        try
        {
            c->Setup(t, members, 64000);
        }
        catch (const std::invalid_argument&)
        {
            continue; // not on 8 ranks
        }
        for (FluidSharing sharing : {FluidSharing::LINE_RATE, FluidSharing::MAX_MIN})
        {
            TimelineReplay::Parameters par;
            par.reductionTimePerByte = 2e-11;
            par.sharing = sharing;
            ExpectSameTimeline(ft.model,
                               c->GetSchedule(),
                               Packetization(1000, 50),
                               par,
                               collective + "/" + algorithm + " " + ToString(sharing));
        }
    }
}

TEST_F(TimelineReplayTest, AProgramReplaysAsItsWrittenScheduleBitForBit)
{
    // Run(program) generates each member's steps as it enters them; Run(schedule) reads
    // them from GetSchedule(). Every time, every message's account (in schedule order,
    // with its step, chain, reduce flag and hops), every rank's finish and the fluid's
    // work must be the same to the bit: every algorithm, on the whole fabric and on a
    // few of its ranks out of order, under both sharings, with and without reductions.
    // On the 72-host switch four ranks are fewer than 1/16 of the fabric's: the program's
    // replay indexes only its members (the schedule's, only its ranks and links).
    std::vector<std::unique_ptr<RealFabric>> fabrics;
    AddFatTreeAndTorus(fabrics);
    IdealSwitchHelper star(72);
    star.SetLinkRate(DataRate("25700Mbps"));
    fabrics.push_back(std::make_unique<RealFabric>(star.Install()));
    uint32_t compared = 0;
    for (const auto& fabric : fabrics)
    {
        Ptr<HandTransport> t = CreateObject<HandTransport>();
        t->Install(fabric->cluster);
        const uint32_t n = fabric->model.nRanks;
        std::vector<uint32_t> all(n);
        std::iota(all.begin(), all.end(), 0);
        const std::vector<uint32_t> some = {n - 2, 1, n - 1, 3}; // not ascending
        for (const auto& [collective, algorithm] : CollectiveFactory::List())
        {
            for (const std::vector<uint32_t>* members : {&std::as_const(all), &some})
            {
                Ptr<Collective> c = CollectiveFactory::Create(collective, algorithm);
                if (algorithm == "hierarchical")
                {
                    c->SetAttribute("GroupSize", UintegerValue(members->size() == 4 ? 2 : 4));
                }
                try
                {
                    c->Setup(t, *members, 64000);
                }
                catch (const std::invalid_argument&)
                {
                    continue; // not on these ranks
                }
                Ptr<StepwiseCollective> program = DynamicCast<StepwiseCollective>(c);
                ASSERT_TRUE(program) << collective << "/" << algorithm;
                const std::vector<CollectiveStep> schedule = c->GetSchedule();
                for (FluidSharing sharing : {FluidSharing::LINE_RATE, FluidSharing::MAX_MIN})
                {
                    for (double gamma : {0.0, 2e-11})
                    {
                        const std::string label =
                            collective + "/" + algorithm + " on " +
                            std::to_string(members->size()) + " of " + std::to_string(n) +
                            " ranks, " + ToString(sharing) + ", gamma " + std::to_string(gamma);
                        TimelineReplay::Parameters par;
                        par.reductionTimePerByte = gamma;
                        par.perMessageOverhead = 1.5e-6;
                        par.sharing = sharing;
                        const Packetization pk(1000, 50);
                        const LinkModel& lm = fabric->model;
                        auto replay = [&]() {
                            return TimelineReplay(lm.nRanks,
                                                  lm.capacity,
                                                  pk,
                                                  lm.route,
                                                  TestHops,
                                                  lm.latency,
                                                  par);
                        };
                        const TimelinePrediction want = replay().Run(schedule);
                        const TimelinePrediction got = replay().Run(*program);
                        EXPECT_EQ(got.total, want.total) << label;
                        EXPECT_EQ(got.rateUpdates, want.rateUpdates) << label;
                        EXPECT_EQ(got.flowsRecomputed, want.flowsRecomputed) << label;
                        EXPECT_EQ(got.rankFinish, want.rankFinish) << label;
                        ASSERT_EQ(got.messages.size(), want.messages.size()) << label;
                        for (size_t i = 0; i < want.messages.size(); ++i)
                        {
                            const MessageTiming& g = got.messages[i];
                            const MessageTiming& w = want.messages[i];
                            const std::string at = label + ", message " + std::to_string(i);
                            EXPECT_EQ(g.message.src, w.message.src) << at;
                            EXPECT_EQ(g.message.dst, w.message.dst) << at;
                            EXPECT_EQ(g.message.bytes, w.message.bytes) << at;
                            EXPECT_EQ(g.message.chain, w.message.chain) << at;
                            EXPECT_EQ(g.message.step, w.message.step) << at;
                            EXPECT_EQ(g.message.reduce, w.message.reduce) << at;
                            EXPECT_EQ(g.scheduleStep, w.scheduleStep) << at;
                            EXPECT_EQ(g.hops, w.hops) << at;
                            EXPECT_EQ(g.start, w.start) << at;
                            EXPECT_EQ(g.transferEnd, w.transferEnd) << at;
                            EXPECT_EQ(g.arrival, w.arrival) << at;
                            EXPECT_EQ(g.latency, w.latency) << at;
                        }
                        ++compared;
                    }
                }
            }
        }
    }
    EXPECT_GE(compared, 4u * 2 * CollectiveFactory::List().size()); // most ran twice
}

TEST_F(TimelineReplayTest, ClusterRoutesGiveEveryPairItsHashedPathWhateverTheCache)
{
    // The route function keeps a pair's hashed path in its cache slot when it has at
    // most six links and in the slot's vector when longer: every pair, asked in an order
    // that evicts (all pairs, then again in reverse), must get the planner's own path,
    // its first link (the NIC) first and the others by directed link key.
    FatTreeHelper fatTree(16);
    fatTree.SetTiers(3);
    TorusHelper torus({8, 8}); // direct connect: up to 8 links
    const std::vector<std::pair<Ptr<Cluster>, bool>> fabrics = {{fatTree.Install(), false},
                                                                {torus.Install(), true}};
    for (const auto& [cluster, longerThanSix] : fabrics)
    {
        RoutePlanner planner(cluster);
        planner.Compute();
        auto key = [](uint32_t src, uint32_t dst, FlowKey& k) {
            k.srcAddr = 0x0a000000 + src;
            k.dstAddr = 0x0a000000 + dst;
            k.srcPort = static_cast<uint16_t>(49152 + (src * 31 + dst) % 1000);
            k.dstPort = 9000;
            return true;
        };
        auto route = TimelineReplay::ClusterRoutes(cluster, planner, key);
        const uint32_t n = cluster->GetNRanks();
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t d = 0; d < n; ++d)
            {
                if (s != d)
                {
                    pairs.emplace_back(s, d);
                }
            }
        }
        std::vector<std::pair<uint32_t, uint32_t>> asked(pairs);
        asked.insert(asked.end(), pairs.rbegin(), pairs.rend());
        size_t longest = 0;
        Shares got;
        std::vector<uint32_t> path;
        for (const auto& [s, d] : asked)
        {
            FlowKey k;
            key(s, d, k);
            planner.FlowPath(s, d, k, path);
            longest = std::max(longest, path.size());
            std::sort(path.begin() + 1, path.end());
            Shares want;
            for (uint32_t link : path)
            {
                want.emplace_back(link, 1.0);
            }
            ASSERT_EQ(route(s, d, got), 1u) << s << " -> " << d;
            ASSERT_EQ(got, want) << s << " -> " << d;
        }
        // Both kinds of slot were used: the 3-tier fat-tree's longest path fills a slot.
        EXPECT_EQ(longest > 6, longerThanSix) << longest;
        EXPECT_GE(longest, 6u);
    }
}

TEST_F(TimelineReplayTest, KeepsMessagesOnlyWhenAsked)
{
    std::mt19937 gen(7);
    LinkModel lm = SyntheticModel(gen);
    Packetization pk(1000, 50);
    auto schedule = RandomSchedule(gen, lm.nRanks, 1000);
    TimelineReplay::Parameters par;
    TimelineReplay all(lm.nRanks, lm.capacity, pk, lm.route, TestHops, lm.latency, par);
    TimelineReplay totalOnly(lm.nRanks, lm.capacity, pk, lm.route, TestHops, lm.latency, par);
    TimelinePrediction a = all.Run(schedule, true);
    TimelinePrediction b = totalOnly.Run(schedule, false);
    size_t n = 0;
    for (const auto& s : schedule)
    {
        n += s.messages.size();
    }
    EXPECT_EQ(a.messages.size(), n);
    EXPECT_TRUE(b.messages.empty());
    EXPECT_EQ(a.total, b.total); // deterministic: the same replay twice
    EXPECT_EQ(a.rankFinish.size(), lm.nRanks);
    EXPECT_TRUE(b.rankFinish.empty()); // per-rank times come with the messages only
}

TEST_F(TimelineReplayTest, AnEventJoiningTiedOnesGoesFirstWhenPushedFirst)
{
    // Three messages on links of their own: X (0 -> 4) and Y (1 -> 3) of 4000 bytes end
    // together, Z (2 -> 3) of 2000 bytes ends earlier and is pushed first. Latencies put
    // the arrivals at X, X + 0.8e-13 s (Y) and X + 1.6e-13 s (Z): X and Y tie, Z ties
    // with Y but not with X. After X, Y is the earliest and Z is within the tie of it:
    // the two are simultaneous and Z, pushed first, goes first. Rank 3 reduces both
    // (chains 1 and 0, one compute resource): Z's reduction (2 us) runs before Y's
    // (4 us), so Z's follow-up Z2 (3 -> 5) leaves 2 us after Y's arrival and Y's Y2 6 us
    // after it. Serving Y before Z would give 6 and 4 us.
    const uint32_t nRanks = 6;
    const std::vector<double> capacity(2 * nRanks, 100e9 / 8);
    auto route = [](uint32_t s, uint32_t /* d */, Shares& out) {
        out.assign(1, {2 * s, 1.0}); // the sender's link
        return 1u;
    };
    auto message = [](uint32_t src, uint32_t dst, uint64_t bytes, uint32_t chain, uint32_t step) {
        return mlnettest::Msg(src, dst, bytes, chain, step, dst == 3); // rank 3 reduces
    };
    std::vector<CollectiveStep> schedule(2);
    schedule[0].messages = {message(0, 4, 4000, 0, 0),  // X
                            message(1, 3, 4000, 0, 0),  // Y
                            message(2, 3, 2000, 1, 0)}; // Z
    schedule[1].messages = {message(3, 5, 1000, 0, 1),  // Y2
                            message(3, 5, 1000, 1, 1)}; // Z2
    const Packetization pk(1000, 0);
    TimelineReplay::Parameters par;
    par.reductionTimePerByte = 1e-9;
    // The transfers' ends, from a replay without latency.
    auto none = [](uint32_t, uint32_t, uint64_t, const Shares&) { return 0.0; };
    TimelinePrediction ends =
        TimelineReplay(nRanks, capacity, pk, route, TestHops, none, par).Run(schedule);
    const double endX = ends.messages[0].transferEnd.GetSeconds();
    const double endZ = ends.messages[2].transferEnd.GetSeconds();
    ASSERT_EQ(ends.messages[1].transferEnd, ends.messages[0].transferEnd);
    ASSERT_LT(endZ, endX);
    const double lx = 1e-6;
    auto latency = [=](uint32_t src, uint32_t, uint64_t, const Shares&) {
        return src == 0 ? lx : src == 1 ? lx + 0.8e-13 : endX + lx + 1.6e-13 - endZ;
    };
    TimelinePrediction p =
        TimelineReplay(nRanks, capacity, pk, route, TestHops, latency, par).Run(schedule);
    const double y = p.messages[1].arrival.GetSeconds();
    EXPECT_NEAR(p.messages[4].start.GetSeconds() - y, 2e-6, 1e-12); // Z2
    EXPECT_NEAR(p.messages[3].start.GetSeconds() - y, 6e-6, 1e-12); // Y2
    // The oracle serves them in the same order.
    ExpectSameTimeline({nRanks, capacity, route, latency}, schedule, pk, par, "joining");
}
