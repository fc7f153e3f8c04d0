// SPDX-License-Identifier: GPL-2.0-only
/*
 * Property test of the TopoOpt topology finder: over a grid of server counts
 * (even n from 4 to 64, plus the cases reported in issue 17) x the degrees the
 * finder accepts for n (2..n-1) x a few all-reduce group mixes (one spanning
 * group; a spanning group plus a group of 3, 2 or n/2, that group light or
 * heavy, so that it is placed after or before the spanning group), with and
 * without MP demand, Find either rejects the input with the finder's own
 * std::invalid_argument (a message prefixed "TopologyFinder: ") or returns a
 * valid plan: every plane a matching without self-circuits, at most d circuits
 * per server, every ring one cycle over its group's members per jump, every
 * recorded route a path over circuits hop by hop. The plan is checked here from
 * its circuits, not by TopologyPlan::Validate, so the test does not trust the
 * code it checks; a broken plan shows the checker can fail.
 *
 * Sampling: the full grid (about 17,000 Finds) takes about a minute, so it is
 * sampled, the same way on every run (about 1,200 Finds, 2 s): n <= 16 runs
 * every degree with every (mix, MP) combination; 18 <= n <= 32 every degree
 * with one combination, rotating with d; n >= 34 every other degree and n - 1,
 * one combination each, rotating.
 *
 * Besides the grid: the traffic of every shipped model profile as the search
 * hands it to the finder (one all-reduce group of n servers, the strategy's MP
 * demand; start strategy and random placements; n = 8..18), and the issue's
 * searched DLRM plan at 18 servers, degree 8.
 *
 * What it leaves out: optimality (diameter, bandwidth) of the plans, and the
 * Bidirectional / Released* attributes (defaults only); golden values are pinned
 * by topology-finder-test.cc.
 */
#include "ns3/core-module.h"
#include "ns3/model-profile.h"
#include "ns3/parallel-strategy.h"
#include "ns3/topology-finder.h"
#include "ns3/topoopt-search.h"

#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// One finder input of the grid.
struct GridCase
{
    uint32_t n;
    uint32_t d;
    std::vector<AllReduceGroup> groups;
    bool demand;           //!< the chain demand below (unless `mp` is given)
    Eigen::MatrixXd mp{};  //!< an explicit MP demand (a shipped profile's strategy)
    std::string traffic{}; //!< where `mp` and `groups` come from

    std::string Name() const
    {
        std::ostringstream os;
        os << "(" << (traffic.empty() ? "" : traffic + ", ") << "n=" << n << ", d=" << d
           << ", groups=";
        for (size_t i = 0; i < groups.size(); ++i)
        {
            os << (i ? "+" : "") << groups[i].size << ":" << groups[i].bytes;
        }
        os << (mp.size() != 0 ? ", profile MP" : (demand ? ", MP" : ", no MP")) << ")";
        return os.str();
    }
};

/// MP demand: a pipeline chain i -> i+1 plus an all-to-all among the first 4
/// servers, deterministic (no random stream), bytes comparable to the groups'.
Eigen::MatrixXd
ChainDemand(uint32_t n)
{
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
    for (uint32_t i = 0; i < n; ++i)
    {
        m(i, (i + 1) % n) = 2e7 + 1e5 * i;
        for (uint32_t j = 0; j < 4 && i < 4; ++j)
        {
            if (i != j)
            {
                m(i, j) += 5e6 * (1 + i + j);
            }
        }
    }
    return m;
}

/// The group mixes of the grid for n servers.
std::vector<std::vector<AllReduceGroup>>
GroupMixes(uint32_t n)
{
    // Light: S (2g-1)/g below the spanning group's, so the spanning ring is placed
    // first; heavy: above it, so the small group's rings are placed first.
    std::vector<std::vector<AllReduceGroup>> mixes{{{n, 1e8}}};
    for (uint32_t g : {3u, 2u, n / 2})
    {
        if (g >= 2 && g < n && n % g == 0)
        {
            mixes.push_back({{g, 4e7}, {n, 1e8}});
            mixes.push_back({{g, 1e10}, {n, 1e8}});
        }
    }
    return mixes;
}

/// Checks the plan from its circuits; returns "" or what is wrong.
std::string
PlanProblem(const TopologyPlan& plan, uint32_t n, uint32_t d)
{
    std::ostringstream err;
    if (plan.GetServers() != n || plan.GetDegree() != d)
    {
        err << "plan has " << plan.GetServers() << " servers, degree " << plan.GetDegree();
        return err.str();
    }
    std::vector<uint32_t> degree(n, 0);
    std::vector<std::multiset<uint32_t>> adj(n);
    for (uint32_t p = 0; p < d; ++p)
    {
        std::vector<bool> used(n, false);
        for (const auto& [a, b] : plan.GetCircuits(p))
        {
            if (a >= n || b >= n || a == b)
            {
                err << "plane " << p << " has circuit " << a << "-" << b;
                return err.str();
            }
            if (used[a] || used[b])
            {
                err << "plane " << p << " uses server " << (used[a] ? a : b) << " twice";
                return err.str();
            }
            used[a] = used[b] = true;
            ++degree[a];
            ++degree[b];
            adj[a].insert(b);
            adj[b].insert(a);
        }
    }
    for (uint32_t s = 0; s < n; ++s)
    {
        if (degree[s] > d)
        {
            err << "server " << s << " has " << degree[s] << " circuits > degree " << d;
            return err.str();
        }
    }
    auto routed = [&](uint32_t a, uint32_t b) {
        if (!plan.HasRoutes(a, b))
        {
            return false;
        }
        for (const PlanPath& path : plan.GetRoutes(a, b))
        {
            if (path.hops.empty() || path.hops.front() != a || path.hops.back() != b)
            {
                return false;
            }
        }
        return true;
    };
    for (const PlanRing& r : plan.GetRings())
    {
        if (r.size < 2 || n % r.size != 0 || r.jumps.empty())
        {
            err << "ring of size " << r.size << " with " << r.jumps.size() << " jumps";
            return err.str();
        }
        const uint32_t base = n / r.size;
        for (uint32_t j : r.jumps)
        {
            for (uint32_t o = 0; o < base; ++o)
            {
                std::set<uint32_t> members;
                uint32_t v = o;
                for (uint32_t t = 0; t < r.size; ++t)
                {
                    const uint32_t next = (v + j) % n;
                    if (v % base != o || !members.insert(v).second)
                    {
                        err << "ring size " << r.size << " jump " << j << " from " << o
                            << " is not one cycle over its group";
                        return err.str();
                    }
                    if (r.direct ? adj[v].count(next) == 0 : !routed(v, next))
                    {
                        err << "ring size " << r.size << " jump " << j << ": hop " << v << "->"
                            << next << (r.direct ? " has no circuit" : " has no route");
                        return err.str();
                    }
                    v = next;
                }
                if (v != o)
                {
                    err << "ring size " << r.size << " jump " << j << " does not close at " << o;
                    return err.str();
                }
            }
        }
    }
    for (const auto& [key, paths] : plan.GetAllRoutes())
    {
        for (const PlanPath& path : paths)
        {
            if (path.hops.size() < 2 || path.hops.front() != key.first ||
                path.hops.back() != key.second)
            {
                err << "route " << key.first << "->" << key.second << " has a bad path";
                return err.str();
            }
            for (size_t h = 0; h + 1 < path.hops.size(); ++h)
            {
                const uint32_t a = path.hops[h];
                const uint32_t b = path.hops[h + 1];
                if (a >= n || b >= n || adj[a].count(b) == 0)
                {
                    err << "route " << key.first << "->" << key.second << ": hop " << a << "-" << b
                        << " is not a circuit";
                    return err.str();
                }
            }
        }
    }
    return "";
}

/// Runs one case; returns "" when Find rejects it properly or its plan is valid.
std::string
RunCase(const GridCase& c)
{
    Ptr<TopologyFinder> finder = CreateObject<TopologyFinder>();
    finder->SetAttribute("Degree", UintegerValue(c.d));
    finder->AssignStreams(7);
    const Eigen::MatrixXd demand =
        c.mp.size() != 0 ? c.mp : (c.demand ? ChainDemand(c.n) : Eigen::MatrixXd());
    try
    {
        return PlanProblem(finder->Find(c.n, c.groups, demand), c.n, c.d);
    }
    catch (const std::invalid_argument& e)
    {
        const std::string what = e.what();
        if (what.rfind("TopologyFinder: ", 0) == 0 && what.size() > 20)
        {
            return ""; // the finder's own input check, with a message
        }
        return std::string("internal std::invalid_argument: ") + what;
    }
    catch (const std::exception& e)
    {
        return std::string("uncaught exception: ") + e.what();
    }
}

/// The sampled grid: degrees Find accepts for n, 2 .. n-1 (degree 1 only for n = 2).
std::vector<GridCase>
Grid()
{
    std::vector<uint32_t> sizes;
    for (uint32_t n = 4; n <= 64; n += 2)
    {
        sizes.push_back(n);
    }
    std::vector<GridCase> grid;
    for (uint32_t n : sizes)
    {
        std::vector<GridCase> combos; // every (mix, MP) for n
        for (const auto& groups : GroupMixes(n))
        {
            for (bool mp : {false, true})
            {
                combos.push_back({n, 0, groups, mp});
            }
        }
        for (uint32_t d = 2; d < n; ++d)
        {
            // n <= 16: every combination; n <= 32: one per degree, rotating; larger
            // n: every other degree (and n - 1), one combination each, rotating.
            if (n > 32 && (d + n / 2) % 2 != 0 && d + 1 != n)
            {
                continue;
            }
            for (size_t k = 0; k < combos.size(); ++k)
            {
                if (n <= 16 || k == (d + n / 2) % combos.size())
                {
                    grid.push_back(combos[k]);
                    grid.back().d = d;
                }
            }
        }
    }
    return grid;
}

/// The traffic of the shipped model profiles, as TopoOptSearch hands it to the
/// finder: one all-reduce group of all n servers with the data-parallel bytes and
/// the strategy's MP demand matrix (dense when tables are spread over servers,
/// with many equal entries), for the start strategy and two random placements.
std::vector<GridCase>
ProfileCases()
{
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(3);
    std::vector<GridCase> cases;
    for (const std::string& name : ModelProfile::KnownModels())
    {
        const ModelProfile profile = ModelProfile::FromName(name);
        for (uint32_t n : {8u, 12u, 16u, 18u})
        {
            std::vector<ParallelStrategy> strategies{ParallelStrategy::Initial(profile, n)};
            for (int k = 0; k < 2; ++k)
            {
                ParallelStrategy s = strategies.front();
                for (uint32_t layer : profile.GetEmbeddingLayers())
                {
                    s.SetPlacement(layer, static_cast<int32_t>(rng->GetInteger(0, n)) - 1);
                }
                strategies.push_back(s);
            }
            std::set<uint32_t> degrees;
            for (uint32_t d : {2u, 4u, 8u, 14u, 15u, 17u, n - 1})
            {
                if (d >= 2 && d < n)
                {
                    degrees.insert(d);
                }
            }
            for (size_t k = 0; k < strategies.size(); ++k)
            {
                const ParallelStrategy& s = strategies[k];
                std::vector<AllReduceGroup> groups;
                if (s.AllReduceBytes(profile) > 0)
                {
                    groups.push_back({n, double(s.AllReduceBytes(profile))});
                }
                const Eigen::MatrixXd mp = s.ModelParallelDemand(profile);
                for (uint32_t d : degrees)
                {
                    cases.push_back(
                        {n, d, groups, false, mp, name + (k == 0 ? " start" : " random")});
                }
            }
        }
    }
    return cases;
}

TEST(TopologyFinderProperty, ReportedCases)
{
    // Issue 17: 18 servers at degree 8, 14, 15, 17 (a plane using a server twice)
    // and 12 servers, degree 4, groups of 3 and 12 (an uncaught exception; it
    // needs the group of 3 to be placed first: the heavy mix). Every mix of the
    // grid for each.
    std::vector<GridCase> reported;
    for (uint32_t d : {8u, 14u, 15u, 17u})
    {
        for (const auto& groups : GroupMixes(18))
        {
            reported.push_back({18, d, groups, false});
            reported.push_back({18, d, groups, true});
        }
    }
    for (const auto& groups : GroupMixes(12))
    {
        reported.push_back({12, 4, groups, false});
        reported.push_back({12, 4, groups, true});
    }
    for (const GridCase& c : reported)
    {
        EXPECT_EQ(RunCase(c), "") << c.Name();
    }
}

TEST(TopologyFinderProperty, HeavyOddGroupBesideSpanningGroup)
{
    // 12 servers, degree 4, no MP: d_A = 4. The group of 3 (S (2g-1)/g = 1.7e10
    // above the 12-group's 1.9e8) is placed first; its ring takes two planes for
    // alternate hops and a third for the closing hops, leaving one plane, but
    // the 12-group's guaranteed ring (jump 1) needs two. The ring of 3 yields
    // (its ports become matchings, its all-reduce is routed over jumps 1, 11)
    // and the plan keeps the connecting ring.
    Ptr<TopologyFinder> finder = CreateObject<TopologyFinder>();
    finder->SetAttribute("Degree", UintegerValue(4));
    finder->AssignStreams(7);
    TopologyPlan plan = finder->Find(12, {{3, 1e10}, {12, 1e8}}, Eigen::MatrixXd());
    EXPECT_EQ(PlanProblem(plan, 12, 4), "");
    bool spanningDirect = false;
    bool threeRouted = false;
    for (const PlanRing& r : plan.GetRings())
    {
        spanningDirect |= r.size == 12 && r.direct && r.jumps == std::vector<uint32_t>{1, 11};
        threeRouted |= r.size == 3 && !r.direct;
    }
    EXPECT_TRUE(spanningDirect);
    EXPECT_TRUE(threeRouted);
    EXPECT_TRUE(plan.IsConnected());
}

TEST(TopologyFinderProperty, CheckerRejectsBrokenPlans)
{
    // The checker is what the grid trusts: each broken plan must be reported.
    TopologyPlan ok(4, 2);
    ok.AddCircuit(0, 0, 1);
    ok.AddCircuit(0, 2, 3);
    ok.AddCircuit(1, 1, 2);
    ok.AddCircuit(1, 3, 0);
    ok.AddRing({4, {1, 3}, true, true});
    ok.SetRoutes(0, 2, {PlanPath{{0, 1, 2}, 1.0}});
    EXPECT_EQ(PlanProblem(ok, 4, 2), "");

    TopologyPlan missingHop = ok;
    missingHop.AddRing({4, {1, 3}, true, false}); // routed hops, none recorded
    EXPECT_NE(PlanProblem(missingHop, 4, 2).find("has no route"), std::string::npos);

    TopologyPlan notCycle(4, 2);
    notCycle.AddCircuit(0, 0, 2);
    notCycle.AddCircuit(0, 1, 3);
    notCycle.AddRing({4, {2}, true, true}); // jump 2 splits 4 servers into two cycles
    EXPECT_NE(PlanProblem(notCycle, 4, 2).find("not one cycle"), std::string::npos);

    TopologyPlan badRoute = ok;
    badRoute.SetRoutes(0, 2, {PlanPath{{0, 2}, 1.0}}); // 0-2 is no circuit
    EXPECT_NE(PlanProblem(badRoute, 4, 2).find("is not a circuit"), std::string::npos);

    TopologyPlan noCircuit(4, 2);
    noCircuit.AddCircuit(0, 0, 1);
    noCircuit.AddRing({4, {1, 3}, true, true});
    EXPECT_NE(PlanProblem(noCircuit, 4, 2).find("has no circuit"), std::string::npos);
}

TEST(TopologyFinderProperty, ShippedProfileTraffic)
{
    // The grid's chain demand is sparse; the search hands the finder the dense,
    // tied demand of spread embedding tables. On it Boost 1.74 segfaulted when it
    // ran in-process (DLRM random placement, n = 12, d = 11: the test binary
    // died) and, in the child, returned mates that are no matching (a server
    // twice on one plane, SearchedPlansAt18Servers).
    std::vector<std::string> failures;
    const std::vector<GridCase> cases = ProfileCases();
    for (const GridCase& c : cases)
    {

        std::string problem = RunCase(c);
        if (!problem.empty())
        {
            failures.push_back(c.Name() + ": " + problem);
        }
    }
    EXPECT_GT(cases.size(), 300u);
    EXPECT_TRUE(failures.empty()) << failures.size() << " of " << cases.size()
                                  << " cases fail, first: " << failures.front();
}

TEST(TopologyFinderProperty, SearchedPlansAt18Servers)
{
    // Issue 17 as the user ran it: topoopt-plan --servers=18 --degree=8 (14, 15,
    // 17) --model=dlrm --RngRun=1 (budget 100) stopped with "server 3 used twice
    // in plane 7": during the search Boost answered mate[2] = 3, mate[3] = 5.
    // Every searched plan must now be valid.
    const uint64_t run = RngSeedManager::GetRun();
    RngSeedManager::SetRun(1);
    const ModelProfile dlrm = ModelProfile::FromName("dlrm");
    // Degree 8 only: the bad answer came at plane 7 for all four degrees, and the
    // others cost seconds of Boost time-outs (measured with topoopt-plan instead).
    for (uint32_t d : {8u})
    {
        Ptr<TopoOptSearch> search = CreateObject<TopoOptSearch>();
        search->SetAttribute("Degree", UintegerValue(d));
        search->SetAttribute("Budget", UintegerValue(100));
        search->AssignStreams(0);
        try
        {
            SearchResult r = search->Run(dlrm, 18);
            EXPECT_EQ(PlanProblem(r.plan, 18, d), "") << "d=" << d;
            EXPECT_GT(r.rebuilds, 0u) << "d=" << d;
        }
        catch (const std::exception& e)
        {
            ADD_FAILURE() << "d=" << d << ": " << e.what();
        }
    }
    RngSeedManager::SetRun(run);
}

TEST(TopologyFinderProperty, Grid)
{
    std::vector<GridCase> grid = Grid();
    std::vector<std::string> failures;
    for (const GridCase& c : grid)
    {
        std::string problem = RunCase(c);
        if (!problem.empty())
        {
            failures.push_back(c.Name() + ": " + problem);
        }
    }
    std::ostringstream all;
    for (const std::string& f : failures)
    {
        all << f << "\n";
    }
    EXPECT_GT(grid.size(), 1000u); // the sample: every n, most degrees
    EXPECT_TRUE(failures.empty()) << failures.size() << " of " << grid.size() << " cases fail:\n"
                                  << all.str();
}

} // namespace
