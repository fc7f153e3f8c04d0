// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of FluidNetwork, the max-min fair fluid of the flow level and of the twin:
 * golden rates and completion times worked by hand (a lone flow, an equal split, the
 * textbook two-link example, weighted ECMP shares), the max-min certificate on seeded
 * random networks after every start and completion (no link above its capacity,
 * every flow bottlenecked on a full link where nobody is faster), the incremental
 * rates against a from-scratch water-filling written independently here, bytes
 * conserved to the end, and recomputation confined to the changed component.
 */
#include "max-min-oracle.h"

#include "ns3/fluid-network.h"
#include "ns3/fluid-transfers.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace ns3;
using mlnettest::WaterFill;

namespace
{

using Shares = FluidNetwork::LinkShares;

/// Completes flows until none is left; returns each handle's completion times in order.
std::vector<std::pair<uint32_t, double>>
RunToEnd(FluidNetwork& net)
{
    std::vector<std::pair<uint32_t, double>> out;
    for (double t = net.NextCompletion(); t < std::numeric_limits<double>::infinity();
         t = net.NextCompletion())
    {
        for (uint32_t f : net.Complete(t))
        {
            out.emplace_back(f, t);
        }
    }
    return out;
}

TEST(FluidNetworkTest, LoneFlowRunsAtItsSlowestLink)
{
    // 100 Gb/s and 40 Gb/s links: the flow crosses both, the slower one sets its rate.
    FluidNetwork net({100e9 / 8, 40e9 / 8, 100e9 / 8});
    const double bytes = 1048576 + 117 * 30; // W of 1 MiB at P 8972, O 30
    uint32_t f = net.Start(0, bytes, {{0, 1.0}, {1, 1.0}});
    double t = net.NextCompletion();
    EXPECT_DOUBLE_EQ(net.GetRate(f), 40e9 / 8);
    EXPECT_DOUBLE_EQ(t, bytes * 8 / 40e9);
    ASSERT_EQ(net.Complete(t).size(), 1u);
    EXPECT_EQ(net.GetActiveFlows(), 0u);
    EXPECT_EQ(net.NextCompletion(), std::numeric_limits<double>::infinity());
}

TEST(FluidNetworkTest, FlowsSharingALinkSplitItAndTheSurvivorSpeedsUp)
{
    // C = 1000 B/s. a = 100 B, b = 300 B, both from 0: each at C/2 until a ends at
    // 2a/C = 0.2 s; b has 300 - 100 = 200 B left, alone at C: ends at 0.2 + 0.2 = 0.4 s.
    FluidNetwork net({1000.0});
    uint32_t a = net.Start(0, 100, {{0, 1.0}});
    uint32_t b = net.Start(0, 300, {{0, 1.0}});
    EXPECT_DOUBLE_EQ(net.NextCompletion(), 0.2);
    EXPECT_DOUBLE_EQ(net.GetRate(a), 500.0);
    EXPECT_DOUBLE_EQ(net.GetRate(b), 500.0);
    auto done = RunToEnd(net);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].first, a);
    EXPECT_DOUBLE_EQ(done[0].second, 0.2);
    EXPECT_DOUBLE_EQ(done[1].second, 0.4);
}

TEST(FluidNetworkTest, TwoLinkTextbookExample)
{
    // Link 0 (C = 1) carries A and B; link 1 (C = 2) carries B and C. Max-min: link 0
    // fills first at 1/2 (A = B = 0.5); C takes what link 1 has left: 2 - 0.5 = 1.5.
    FluidNetwork net({1.0, 2.0});
    uint32_t a = net.Start(0, 10, {{0, 1.0}});
    uint32_t b = net.Start(0, 10, {{0, 1.0}, {1, 1.0}});
    uint32_t c = net.Start(0, 10, {{1, 1.0}});
    net.NextCompletion();
    EXPECT_DOUBLE_EQ(net.GetRate(a), 0.5);
    EXPECT_DOUBLE_EQ(net.GetRate(b), 0.5);
    EXPECT_DOUBLE_EQ(net.GetRate(c), 1.5);
}

TEST(FluidNetworkTest, EcmpSharesWeighTheLinks)
{
    // X is split evenly over links 0 and 1 (C = 1 each); Y uses link 0 alone.
    // Link 0: 0.5 x + y <= 1 fills at level 1 / 1.5 = 2/3; link 1 would at 2: x = y = 2/3.
    FluidNetwork net({1.0, 1.0});
    uint32_t x = net.Start(0, 1, {{0, 0.5}, {1, 0.5}});
    uint32_t y = net.Start(0, 1, {{0, 1.0}});
    net.NextCompletion();
    EXPECT_NEAR(net.GetRate(x), 2.0 / 3.0, 1e-15);
    EXPECT_NEAR(net.GetRate(y), 2.0 / 3.0, 1e-15);
}

TEST(FluidNetworkTest, LineAllToAllIsBoundByTheMiddleLink)
{
    // Four nodes in a line, links 0-1, 1-2, 2-3 (keys 2i: rightwards, 2i+1: leftwards),
    // C each. An all-to-all of B bytes per pair puts 4 flows on each direction of the
    // middle link (0->2, 0->3, 1->2, 1->3 rightwards): it ends at 4 B / C, the bound.
    const double c = 12.5e9;
    const double b = 1e6;
    FluidNetwork net(std::vector<double>(6, c));
    for (uint32_t s = 0; s < 4; ++s)
    {
        for (uint32_t d = 0; d < 4; ++d)
        {
            if (s == d)
            {
                continue;
            }
            Shares route;
            for (uint32_t i = std::min(s, d); i < std::max(s, d); ++i)
            {
                route.emplace_back(2 * i + (d > s ? 0 : 1), 1.0);
            }
            net.Start(0, b, route);
        }
    }
    auto done = RunToEnd(net);
    ASSERT_EQ(done.size(), 12u);
    EXPECT_NEAR(done.back().second, 4 * b / c, 1e-15);
}

/// Checks the max-min certificate of the current rates and the oracle's rates.
void
ExpectMaxMin(const FluidNetwork& net,
             const std::vector<double>& capacity,
             const std::map<uint32_t, Shares>& active)
{
    std::vector<double> load(capacity.size(), 0.0);
    for (const auto& [f, links] : active)
    {
        for (const auto& [k, s] : links)
        {
            load[k] += s * net.GetRate(f);
        }
    }
    for (size_t k = 0; k < capacity.size(); ++k)
    {
        EXPECT_LE(load[k], capacity[k] * (1 + 1e-9)) << "link " << k << " over capacity";
    }
    for (const auto& [f, links] : active)
    {
        // A bottleneck: a full link on which no flow is faster than f.
        bool bottleneck = false;
        for (const auto& [k, s] : links)
        {
            bool full = load[k] >= capacity[k] * (1 - 1e-9);
            bool fastest = true;
            for (const auto& [g, gl] : active)
            {
                for (const auto& [gk, gs] : gl)
                {
                    fastest &= gk != k || net.GetRate(g) <= net.GetRate(f) * (1 + 1e-9);
                }
            }
            bottleneck |= full && fastest;
        }
        EXPECT_TRUE(bottleneck) << "flow " << f << " has no bottleneck";
    }
    auto oracle = WaterFill(capacity, active);
    for (const auto& [f, r] : oracle)
    {
        EXPECT_NEAR(net.GetRate(f), r, 1e-9 * r) << "flow " << f;
    }
}

TEST(FluidNetworkTest, IncrementalRatesAreMaxMinOnRandomNetworks)
{
    for (uint32_t seed = 1; seed <= 40; ++seed)
    {
        std::mt19937 gen(seed);
        const uint32_t nLinks = 2 + gen() % 12;
        std::vector<double> capacity(nLinks);
        for (auto& c : capacity)
        {
            c = 1.0 + gen() % 8; // unequal rates
        }
        FluidNetwork net(capacity);
        std::map<uint32_t, Shares> active;
        std::map<uint32_t, double> bytes;
        double now = 0;
        auto startSome = [&](uint32_t count) {
            for (uint32_t i = 0; i < count; ++i)
            {
                Shares links;
                std::set<uint32_t> used;
                const uint32_t hops = 1 + gen() % std::min<uint32_t>(4, nLinks);
                const bool split = gen() % 4 == 0 && nLinks >= hops + 1;
                while (used.size() < hops + (split ? 1 : 0))
                {
                    used.insert(gen() % nLinks);
                }
                uint32_t j = 0;
                for (uint32_t k : used)
                {
                    // Split flows put half on their first two links.
                    links.emplace_back(k, split && j++ < 2 ? 0.5 : 1.0);
                }
                double b = 1.0 + gen() % 100;
                uint32_t f = net.Start(now, b, links);
                ASSERT_EQ(active.count(f), 0u);
                active[f] = links;
                bytes[f] = b;
            }
        };
        startSome(1 + gen() % 10);
        while (!active.empty())
        {
            double t = net.NextCompletion();
            ExpectMaxMin(net, capacity, active);
            if (HasFailure())
            {
                FAIL() << "seed " << seed;
            }
            // Sometimes start flows midway instead of completing (the active flows are
            // a random walk: held under 40, each check being quadratic in them).
            if (gen() % 3 == 0 && active.size() < 40)
            {
                now = now + (t - now) * 0.5;
                startSome(1 + gen() % 3);
                continue;
            }
            now = t;
            for (uint32_t f : net.Complete(t))
            {
                active.erase(f);
            }
        }
    }
}

TEST(FluidNetworkTest, BytesAreConservedToTheEnd)
{
    // Each flow's bytes = the integral of its rate from its start to its completion.
    std::mt19937 gen(7);
    std::vector<double> capacity(6, 3.0);
    FluidNetwork net(capacity);
    std::map<uint32_t, double> moved;
    std::map<uint32_t, double> want;
    for (uint32_t i = 0; i < 20; ++i)
    {
        Shares links{{gen() % 6, 1.0}};
        uint32_t other = gen() % 6;
        if (other != links[0].first)
        {
            links.emplace_back(other, 1.0);
        }
        double b = 10.0 + gen() % 50;
        uint32_t f = net.Start(0, b, links);
        want[f] = b;
        moved[f] = 0;
    }
    double now = 0;
    for (double t = net.NextCompletion(); t < std::numeric_limits<double>::infinity();
         t = net.NextCompletion())
    {
        for (auto& [f, m] : moved)
        {
            if (want.count(f))
            {
                m += net.GetRate(f) * (t - now);
            }
        }
        now = t;
        for (uint32_t f : net.Complete(t))
        {
            EXPECT_NEAR(moved[f], want[f], 1e-9 * want[f]) << "flow " << f;
            want.erase(f);
        }
    }
    EXPECT_TRUE(want.empty());
}

TEST(FluidNetworkTest, RecomputesOnlyTheChangedComponent)
{
    // 100 flows on 100 separate links, then one more on link 0: only link 0's two
    // flows are recomputed.
    FluidNetwork net(std::vector<double>(100, 1.0));
    for (uint32_t k = 0; k < 100; ++k)
    {
        net.Start(0, 1000, {{k, 1.0}});
    }
    net.NextCompletion();
    EXPECT_EQ(net.GetFlowsRecomputed(), 100u); // the first batch: everything
    uint32_t extra = net.Start(1, 10, {{0, 1.0}});
    net.NextCompletion();
    EXPECT_EQ(net.GetFlowsRecomputed(), 102u);
    EXPECT_EQ(net.GetRecomputations(), 2u);
    EXPECT_DOUBLE_EQ(net.GetRate(extra), 0.5);
    EXPECT_DOUBLE_EQ(net.GetRate(1), 1.0);
}

} // namespace

namespace
{
/// Ends every transfer of a line-rate fluid; returns when the last one's bytes left.
double
DrainLineRate(FluidTransfers& x)
{
    double last = 0;
    for (double t = x.NextEnd(); t < std::numeric_limits<double>::infinity(); t = x.NextEnd())
    {
        for (const auto& e : x.Advance(t))
        {
            last = std::max(last, e.end);
        }
    }
    return last;
}
} // namespace

TEST(FluidNetworkTest, LineRateBuffersCountWhatAPortCannotHold)
{
    // Three senders (links 0-2, R each) send W bytes at once into link 3 (R): offered
    // 3R, the backlog grows at 2R for W/R to 2W, then drains at R. A port of b bytes
    // holds b of it and cannot hold 2W - b, wherever the excess would go.
    const double r = 1e9;
    const double w = 1e6;
    for (double b : {0.5e6, 1.999e6, 2e6, 3e6, std::numeric_limits<double>::infinity()})
    {
        auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r, r}, 0);
        x->SetBuffers({b, b, b, b});
        for (uint32_t s = 0; s < 3; ++s)
        {
            x->Start(0, w, 100, Shares{{s, 1.0}, {3, 1.0}}, 1);
        }
        // The last byte leaves its NIC at W/R and the port at 3W/R (FIFO backlog).
        EXPECT_DOUBLE_EQ(DrainLineRate(*x), 3 * w / r);
        const FluidTransfers::LinkQueue q = x->GetLinkQueue(3);
        EXPECT_DOUBLE_EQ(q.peakBacklog, 2 * w) << b;
        EXPECT_NEAR(q.overflow, std::max(0.0, 2 * w - b), 1e-6) << b;
        for (uint32_t s = 0; s < 3; ++s)
        {
            EXPECT_EQ(x->GetLinkQueue(s).peakBacklog, 0.0);
            EXPECT_EQ(x->GetLinkQueue(s).overflow, 0.0);
        }
    }
}

namespace
{
/// Ends every transfer of a line-rate fluid; returns each one's end and losses by handle.
std::map<uint32_t, std::pair<double, double>>
EndsOf(FluidTransfers& x)
{
    std::map<uint32_t, std::pair<double, double>> ended;
    for (double t = x.NextEnd(); t < std::numeric_limits<double>::infinity(); t = x.NextEnd())
    {
        for (const auto& e : x.Advance(t))
        {
            ended[e.transfer] = {e.end, x.GetLost(e.transfer)};
        }
    }
    return ended;
}
} // namespace

TEST(FluidNetworkTest, LineRateHeadOfALoneTransferIsNotAnEvent)
{
    // A NIC FIFO of 8 packets, A of 100 packets (W wire bytes) alone on its NIC (R): its
    // head of 8 leaves at R, its rest at R too, so its head's end at 0.08 W/R changes
    // nothing and is not an event: one phase end, at W/R, and two rate updates (its
    // start and its end).
    const double r = 1e9;
    const double w = 1e6;
    {
        auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r}, 8);
        const uint32_t a = x->Start(0, w, 100, Shares{{0, 1.0}, {1, 1.0}}, 1);
        EXPECT_DOUBLE_EQ(x->NextEnd(), w / r);
        EXPECT_DOUBLE_EQ(EndsOf(*x).at(a).first, w / r);
        EXPECT_EQ(x->GetRecomputations(), 2u);
    }
    // B joins A's NIC, and A's head's end is taken where it would have been.
    // - At 0.5 W/R, past A's head: A is round-robin with 0.5 W left, and the FIFO is
    //   full of its packets: 8 more (0.08 W) leave first, to 0.58 W/R. Then A (0.42 W)
    //   and B (W) share R: A ends at 0.58 + 0.84 = 1.42 W/R, B (0.58 W left) at 2 W/R.
    // - At 0.04 W/R, in A's head (0.04 W left): B's head is the FIFO's other 4 packets
    //   (0.04 W), leaving after A's, at 0.12 W/R; A's rest (0.92 W) waits for it, then
    //   shares R with B's (0.96 W): A ends at 0.12 + 1.84 = 1.96 W/R, B at 2 W/R.
    for (const auto& [join, endA] : {std::pair{0.5, 1.42}, std::pair{0.04, 1.96}})
    {
        auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r}, 8);
        const uint32_t a = x->Start(0, w, 100, Shares{{0, 1.0}, {1, 1.0}}, 1);
        EXPECT_DOUBLE_EQ(x->NextEnd(), w / r);
        const uint32_t b = x->Start(join * w / r, w, 100, Shares{{0, 1.0}, {1, 1.0}}, 1);
        const auto ended = EndsOf(*x);
        EXPECT_NEAR(ended.at(a).first, endA * w / r, 1e-12 * w / r) << join;
        EXPECT_NEAR(ended.at(b).first, 2 * w / r, 1e-12 * w / r) << join;
    }
}

TEST(FluidNetworkTest, LineRateSetRouteMovesATransferInPlace)
{
    // A (NIC 0) and B (NIC 1), R each, send W at once into link 2 (R): its backlog
    // grows at R. At W/2R A moves to link 3 (R), having sent W/2 and left W/2: link 2
    // keeps its W/2 backlog (offered R from then), link 3 builds none. Both NICs end at
    // W/R (A's rate is unchanged); A waits nothing, B the W/2 left at link 2. Unmoved,
    // B would wait W (ending at 2W/R).
    const double r = 1e9;
    const double w = 1e6;
    {
        auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r, r}, 0);
        const uint32_t a = x->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
        const uint32_t b = x->Start(0, w, 100, Shares{{1, 1.0}, {2, 1.0}}, 1);
        EXPECT_DOUBLE_EQ(x->NextEnd(), w / r);
        const FluidTransfers::Moved m = x->SetRoute(a, w / (2 * r), Shares{{0, 1.0}, {3, 1.0}}, 1);
        EXPECT_DOUBLE_EQ(m.left, w / 2);
        EXPECT_EQ(m.lost, 0.0);
        EXPECT_TRUE(x->IsSending(a));
        EXPECT_EQ(x->GetRoute(a).Key(1), 3u);
        const auto ended = EndsOf(*x);
        EXPECT_DOUBLE_EQ(ended.at(a).first, w / r);
        EXPECT_DOUBLE_EQ(ended.at(b).first, 3 * w / (2 * r));
        EXPECT_EQ(x->GetLinkQueue(3).peakBacklog, 0.0);
        EXPECT_DOUBLE_EQ(x->GetLinkQueue(2).peakBacklog, w / 2);
    }
    // Its place at its NIC. A NIC FIFO of 100 packets: A's 100 are queued whole (its
    // head) and B, behind them, sends nothing until they left. Moved at W/2R onto a
    // route leaving by the same NIC, A keeps its head: A ends at W/R, B at 2W/R. Moved
    // onto another NIC (link 1), A leaves the FIFO: B sends from W/2R at R (ending at
    // 3W/2R) and A's last W/2 at R on link 1 (ending at W/R).
    for (const bool sameNic : {true, false})
    {
        auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r, r}, 100);
        const uint32_t a = x->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
        const uint32_t b = x->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
        EXPECT_DOUBLE_EQ(x->NextEnd(), w / r);
        const Shares to = sameNic ? Shares{{0, 1.0}, {3, 1.0}} : Shares{{1, 1.0}, {3, 1.0}};
        EXPECT_DOUBLE_EQ(x->SetRoute(a, w / (2 * r), to, 1).left, w / 2);
        const auto ended = EndsOf(*x);
        EXPECT_DOUBLE_EQ(ended.at(a).first, w / r) << sameNic;
        EXPECT_DOUBLE_EQ(ended.at(b).first, (sameNic ? 2.0 : 1.5) * w / r) << sameNic;
    }
    // Its losses. Link 2's port holds nothing and drops: offered 2R, it drops half of
    // what arrives. Moved at W/2R, A lost W/4 of the W/2 it sent there; on link 3 it
    // loses nothing more (GetLost: the new route's), and link 2, offered R from then,
    // drops no more: B lost W/4.
    {
        const double inf = std::numeric_limits<double>::infinity();
        auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r, r}, 0);
        x->SetBuffers({inf, inf, 0, inf}, {false, false, true, false});
        const uint32_t a = x->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
        const uint32_t b = x->Start(0, w, 100, Shares{{1, 1.0}, {2, 1.0}}, 1);
        EXPECT_DOUBLE_EQ(x->NextEnd(), w / r);
        const FluidTransfers::Moved m = x->SetRoute(a, w / (2 * r), Shares{{0, 1.0}, {3, 1.0}}, 1);
        EXPECT_DOUBLE_EQ(m.lost, w / 4);
        const auto ended = EndsOf(*x);
        EXPECT_EQ(ended.at(a).second, 0.0);
        EXPECT_DOUBLE_EQ(ended.at(b).second, w / 4);
        EXPECT_DOUBLE_EQ(x->GetLinkQueue(2).overflow, w / 2);
    }
    // Max-min sharing cannot move a transfer: nothing is done.
    auto y = FluidTransfers::Create(FluidSharing::MAX_MIN, {r, r}, 0);
    const uint32_t c = y->Start(0, w, 100, Shares{{0, 1.0}}, 1);
    EXPECT_LT(y->SetRoute(c, 0, Shares{{1, 1.0}}, 1).left, 0);
    EXPECT_DOUBLE_EQ(y->NextEnd(), w / r);
}

TEST(FluidNetworkTest, LineRateFullPortsDropTheirShareOfWhatArrives)
{
    // Three senders (links 0-2, R each) send W at once into link 3 (R), whose port drops
    // beyond b: full from b/2R, it drops 2/3 of what arrives until W/R, 2W - b in all, a
    // third from each; each waits only the b bytes the port holds.
    const double r = 1e9;
    const double w = 1e6;
    const double inf = std::numeric_limits<double>::infinity();
    for (double b : {0.5e6, 1.5e6})
    {
        auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r, r}, 0);
        x->SetBuffers({inf, inf, inf, b}, {false, false, false, true});
        for (uint32_t s = 0; s < 3; ++s)
        {
            x->Start(0, w, 100, Shares{{s, 1.0}, {3, 1.0}}, 1);
        }
        const double t = x->NextEnd();
        EXPECT_DOUBLE_EQ(t, w / r);
        double lost = 0;
        for (const auto& e : x->Advance(t))
        {
            EXPECT_DOUBLE_EQ(e.end, (w + b) / r) << b;
            EXPECT_NEAR(x->GetLost(e.transfer), (2 * w - b) / 3, 1e-6) << b;
            lost += x->GetLost(e.transfer);
        }
        EXPECT_NEAR(lost, x->GetLinkQueue(3).overflow, 1e-6) << b;
    }

    // Rates differ: A (NIC 2R) and B (NIC R) send W at once into link 2 (R), port W/2.
    // Offered 3R: full at W/4R; until A's NIC is done at W/2R the port drops 2/3 of
    // what arrives: A loses 2R (2/3) W/4R = W/3, B R (2/3) W/4R = W/6; then offered R,
    // the port stays full and drops nothing. A waits W/2 from W/2R, B from W/R.
    auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {2 * r, r, r}, 0);
    x->SetBuffers({inf, inf, w / 2}, {false, false, true});
    const uint32_t a = x->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
    const uint32_t b = x->Start(0, w, 100, Shares{{1, 1.0}, {2, 1.0}}, 1);
    auto ended = EndsOf(*x); // handle -> (end, lost)
    EXPECT_DOUBLE_EQ(ended[a].first, w / r);
    EXPECT_NEAR(ended[a].second, w / 3, 1e-6);
    EXPECT_DOUBLE_EQ(ended[b].first, 1.5 * w / r);
    EXPECT_NEAR(ended[b].second, w / 6, 1e-6);
    EXPECT_NEAR(x->GetLinkQueue(2).overflow, w / 2, 1e-6);

    // One sender at 3R into a port of R: it loses 2/3 of what it sends once the port
    // is full (at b/2R), (2/3)(W - 3b/2) in all.
    auto one = FluidTransfers::Create(FluidSharing::LINE_RATE, {3 * r, r}, 0);
    one->SetBuffers({inf, w / 4}, {false, true});
    one->Start(0, w, 100, Shares{{0, 1.0}, {1, 1.0}}, 1);
    const double t = one->NextEnd();
    for (const auto& e : one->Advance(t))
    {
        EXPECT_NEAR(one->GetLost(e.transfer), 2.0 / 3 * (w - 1.5 * w / 4), 1e-6);
        EXPECT_DOUBLE_EQ(e.end, w / (3 * r) + w / 4 / r);
    }

    // Two senders through two full ports in a row (links 2 and 3, R, b each): the
    // fluid offers both 2R, so each port drops (W - b)/2 of each sender's bytes; a
    // transfer loses the larger of its losses, not their sum.
    auto chain = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r, r}, 0);
    chain->SetBuffers({inf, inf, w / 4, w / 4}, {false, false, true, true});
    chain->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}, {3, 1.0}}, 1);
    chain->Start(0, w, 100, Shares{{1, 1.0}, {2, 1.0}, {3, 1.0}}, 1);
    const double t1 = chain->NextEnd();
    for (const auto& e : chain->Advance(t1))
    {
        EXPECT_NEAR(chain->GetLost(e.transfer), (w - w / 4) / 2, 1e-6);
    }
    EXPECT_NEAR(chain->GetLinkQueue(3).overflow, w - w / 4, 1e-6);

    // Without drop flags the overflow is only counted: nothing lost.
    auto counted = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r}, 0);
    counted->SetBuffers({inf, inf, w / 2});
    counted->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
    counted->Start(0, w, 100, Shares{{1, 1.0}, {2, 1.0}}, 1);
    for (double t2 = counted->NextEnd(); t2 < inf; t2 = counted->NextEnd())
    {
        for (const auto& e : counted->Advance(t2))
        {
            EXPECT_EQ(counted->GetLost(e.transfer), 0.0);
            EXPECT_DOUBLE_EQ(e.end, 2 * w / r); // the whole backlog W
        }
    }
    EXPECT_NEAR(counted->GetLinkQueue(2).overflow, w / 2, 1e-6);
}

TEST(FluidNetworkTest, LineRateLossRecordsStartEmptyWhenTheirSlotIsReused)
{
    // One sender at 3R into a port of R (W/4) loses (2/3)(W - 3W/8), as above. A
    // transfer after it takes its slot: through a port that does not drop it loses
    // nothing, and through the same full port again (its record reused, one dropping
    // port) or through two full ports in a row (a record of two, then one of one
    // reused) it loses what the first did, not that plus the earlier record's.
    const double r = 1e9;
    const double w = 1e6;
    const double inf = std::numeric_limits<double>::infinity();
    const double once = 2.0 / 3 * (w - 1.5 * w / 4);
    auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {3 * r, r, r, r}, 0);
    x->SetBuffers({inf, w / 4, inf, w / 4}, {false, true, false, true});
    const std::vector<Shares> routes{Shares{{0, 1.0}, {1, 1.0}},
                                     Shares{{0, 1.0}, {2, 1.0}},
                                     Shares{{0, 1.0}, {1, 1.0}},
                                     Shares{{0, 1.0}, {1, 1.0}, {3, 1.0}},
                                     Shares{{0, 1.0}, {1, 1.0}}};
    const std::vector<double> lost{once, 0.0, once, once, once};
    // Its last byte leaves the full port(s) W/4 after its NIC is done; the port that
    // holds everything drains 2W/3 more.
    const double dropping = w / (3 * r) + w / 4 / r;
    const std::vector<double> takes{dropping, w / r, dropping, dropping, dropping};
    std::set<uint32_t> slots;
    double start = 0;
    for (size_t i = 0; i < routes.size(); ++i)
    {
        slots.insert(x->Start(start, w, 100, routes[i], 1));
        const auto ended = EndsOf(*x);
        ASSERT_EQ(ended.size(), 1u) << i;
        EXPECT_NEAR(ended.begin()->second.second, lost[i], 1e-6) << i;
        EXPECT_NEAR(ended.begin()->second.first - start, takes[i], 1e-12) << i;
        start = ended.begin()->second.first + 1e-6; // the ports have drained
    }
    EXPECT_EQ(slots.size(), 1u); // every transfer took the first one's slot
}

TEST(FluidNetworkTest, LineRateBufferFollowsTheBacklogPieceByPiece)
{
    // A sends W from 0, B sends W from W/2R, both into link 2 (R). Offered R, then 2R
    // (the backlog grows at R for W/2R to W/2), then R again while B finishes (held at
    // W/2 for W/2R), then nothing (it drains). A port of W/4 loses W/2 - W/4 = W/4;
    // while the backlog is flat no more is lost, and nothing while it drains.
    const double r = 1e9;
    const double w = 1e6;
    auto x = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r}, 0);
    x->SetBuffers({w, w, w / 4});
    x->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
    EXPECT_DOUBLE_EQ(x->NextEnd(), w / r);
    x->Start(w / (2 * r), w, 100, Shares{{1, 1.0}, {2, 1.0}}, 1);
    // B's last byte leaves its NIC at 3W/2R and waits out the flat W/2 backlog.
    EXPECT_DOUBLE_EQ(DrainLineRate(*x), 2 * w / r);
    EXPECT_DOUBLE_EQ(x->GetLinkQueue(2).peakBacklog, w / 2);
    EXPECT_NEAR(x->GetLinkQueue(2).overflow, w / 4, 1e-6);
    // The port is empty at 2W/R; the same burst again loses as much again.
    x->Start(2 * w / r, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
    EXPECT_DOUBLE_EQ(x->NextEnd(), 3 * w / r);
    x->Start(2.5 * w / r, w, 100, Shares{{1, 1.0}, {2, 1.0}}, 1);
    EXPECT_DOUBLE_EQ(DrainLineRate(*x), 4 * w / r);
    EXPECT_DOUBLE_EQ(x->GetLinkQueue(2).peakBacklog, w / 2);
    EXPECT_NEAR(x->GetLinkQueue(2).overflow, w / 2, 1e-6);
    // Without SetBuffers a buffer is unbounded; max-min never builds a backlog.
    auto unbounded = FluidTransfers::Create(FluidSharing::LINE_RATE, {r, r, r}, 0);
    auto maxMin = FluidTransfers::Create(FluidSharing::MAX_MIN, {r, r, r}, 0);
    for (auto* y : {unbounded.get(), maxMin.get()})
    {
        y->Start(0, w, 100, Shares{{0, 1.0}, {2, 1.0}}, 1);
        y->Start(0, w, 100, Shares{{1, 1.0}, {2, 1.0}}, 1);
        DrainLineRate(*y);
        EXPECT_EQ(y->GetLinkQueue(2).overflow, 0.0);
    }
    EXPECT_DOUBLE_EQ(unbounded->GetLinkQueue(2).peakBacklog, w);
    EXPECT_EQ(maxMin->GetLinkQueue(2).peakBacklog, 0.0);
}
