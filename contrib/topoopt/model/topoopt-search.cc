// SPDX-License-Identifier: GPL-2.0-only
#include "topoopt-search.h"

#include "ns3/boolean.h"
#include "ns3/collective-closed-forms.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/topology-finder.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptTopoOptSearch");
NS_OBJECT_ENSURE_REGISTERED(TopoOptSearch);

TypeId
TopoOptSearch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TopoOptSearch")
            .SetParent<Object>()
            .SetGroupName("Topoopt")
            .AddConstructor<TopoOptSearch>()
            .AddAttribute("Degree",
                          "NIC ports per server d given to the topology finder (ports)",
                          UintegerValue(4),
                          MakeUintegerAccessor(&TopoOptSearch::m_degree),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("LinkRate",
                          "Data rate of one circuit (bit/s)",
                          DataRateValue(DataRate("25Gbps")),
                          MakeDataRateAccessor(&TopoOptSearch::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("HopLatency",
                          "Latency of one hop: fibre delay plus host forwarding (s); the "
                          "reference uses 1 us",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&TopoOptSearch::m_hopLatency),
                          MakeTimeChecker())
            .AddAttribute("Budget",
                          "MCMC steps (candidates); the reference's scripts use 4000",
                          UintegerValue(400),
                          MakeUintegerAccessor(&TopoOptSearch::m_budget),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Alpha",
                          "Metropolis factor: a worse candidate is accepted with probability "
                          "exp(-Alpha * (next - current)), times in ms (1/ms); the fork's "
                          "default is 1.0",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TopoOptSearch::m_alpha),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ResetInterval",
                          "Steps between returns to the best strategy (steps); 0 = "
                          "Budget/100 clamped to [1, 1000] as in the reference",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TopoOptSearch::m_resetInterval),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WallClockLimit",
                          "Stop the search after this much wall-clock time (s); 0 = no "
                          "limit. A run that hits it is not reproducible",
                          DoubleValue(0),
                          MakeDoubleAccessor(&TopoOptSearch::m_wallClockLimit),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ReleasedDegreeSplit",
                          "Pass the released code's d_A = d to the finder (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TopoOptSearch::m_releasedDegreeSplit),
                          MakeBooleanChecker())
            .AddAttribute("ReleasedGroupShare",
                          "Pass the released code's inverted group share to the finder (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TopoOptSearch::m_releasedGroupShare),
                          MakeBooleanChecker())
            .AddAttribute("RouteAllPairs",
                          "Have the finder route every server pair in each plan it builds "
                          "(TopologyFinder::RouteAllPairs); off, pairs without a route are "
                          "timed over a shortest path found on demand (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TopoOptSearch::m_routeAllPairs),
                          MakeBooleanChecker())
            .AddTraceSource("Step",
                            "One MCMC step: (step, candidate cost s, current cost s, accepted)",
                            MakeTraceSourceAccessor(&TopoOptSearch::m_stepTrace),
                            "ns3::TopoOptSearch::StepTracedCallback")
            .AddTraceSource("NewBest",
                            "A better strategy was found: (step, cost s)",
                            MakeTraceSourceAccessor(&TopoOptSearch::m_newBestTrace),
                            "ns3::TracedCallback::Uint32Double")
            .AddTraceSource("TopologyRebuilt",
                            "The topology was rebuilt after an accepted move: (step)",
                            MakeTraceSourceAccessor(&TopoOptSearch::m_rebuildTrace),
                            "ns3::TracedCallback::Uint32");
    return tid;
}

TopoOptSearch::TopoOptSearch()
    : m_routeAllPairs(false),
      m_rng(CreateObject<UniformRandomVariable>())
{
}

TopoOptSearch::~TopoOptSearch() = default;

void
TopoOptSearch::DoDispose()
{
    m_rng = nullptr;
    Object::DoDispose();
}

int64_t
TopoOptSearch::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    m_finderStream = stream + 1;
    return 2;
}

TopologyPlan
TopoOptSearch::BuildTopology(const ModelProfile& profile,
                             const ParallelStrategy& s,
                             FinderReport* report) const
{
    Ptr<TopologyFinder> finder = CreateObject<TopologyFinder>();
    finder->SetAttribute("Degree", UintegerValue(m_degree));
    finder->SetAttribute("ReleasedDegreeSplit", BooleanValue(m_releasedDegreeSplit));
    finder->SetAttribute("ReleasedGroupShare", BooleanValue(m_releasedGroupShare));
    finder->SetAttribute("RouteAllPairs", BooleanValue(m_routeAllPairs));
    if (m_finderStream >= 0)
    {
        finder->AssignStreams(m_finderStream);
    }
    uint32_t n = s.GetNServers();
    std::vector<AllReduceGroup> groups;
    uint64_t ar = s.AllReduceBytes(profile);
    if (ar > 0 && n > 1)
    {
        groups.push_back({n, double(ar)});
    }
    Eigen::MatrixXd demand = s.ModelParallelDemand(profile);
    finder->SetPlanCost(
        [&](const TopologyPlan& candidate) { return Estimate(profile, s, candidate).total; });
    TopologyPlan plan = finder->Find(n, groups, demand.isZero() ? Eigen::MatrixXd() : demand);
    if (report)
    {
        *report = finder->GetLastReport();
    }
    finder->Dispose();
    return plan;
}

std::vector<std::vector<uint32_t>>
TopoOptSearch::RingOrders(const TopologyPlan& plan)
{
    uint32_t n = plan.GetServers();
    std::vector<uint32_t> jumps;
    for (const auto& r : plan.GetRings())
    {
        if (r.size == n)
        {
            for (uint32_t j : r.jumps)
            {
                if (std::find(jumps.begin(), jumps.end(), j) == jumps.end())
                {
                    jumps.push_back(j);
                }
            }
        }
    }
    if (jumps.empty())
    {
        jumps = n > 2 ? std::vector<uint32_t>{1, n - 1} : std::vector<uint32_t>{1};
    }
    std::vector<std::vector<uint32_t>> orders;
    for (uint32_t j : jumps)
    {
        std::vector<uint32_t> o;
        for (uint32_t k = 0; k < n; ++k)
        {
            o.push_back(uint64_t(k) * j % n);
        }
        orders.push_back(o);
    }
    return orders;
}

/// What Estimate needs of one plan, kept while the search times candidates on it: the
/// directed circuits (one slot per server and distinct neighbour, O(n d)), BFS distances
/// from the servers asked about, and per model-parallel owner x the load its routes to
/// every other server (out) and from every other server (in) put on each slot, per byte.
/// A candidate moves one table, so all but one owner's loads are reused.
struct TopoOptSearch::PlanLoads
{
    /// Loads of one owner per byte it sends to (out) or receives from (in) each server.
    struct Owner
    {
        std::vector<double> out;
        std::vector<double> in;
        uint32_t outHops{0}; //!< longest route from the owner (hops)
        uint32_t inHops{0};  //!< longest route to the owner (hops)
    };

    /// Loads over a plan the caller keeps alive.
    explicit PlanLoads(const TopologyPlan& p)
        : plan(p),
          n(p.GetServers())
    {
        Index();
    }

    /// Loads over a plan they share.
    explicit PlanLoads(std::shared_ptr<const TopologyPlan> p)
        : owned(std::move(p)),
          plan(*owned),
          n(plan.GetServers())
    {
        Index();
    }

    /// The slots: distinct neighbours per server, with their circuit counts.
    void Index()
    {
        std::vector<std::vector<uint32_t>> nb = plan.Neighbours(); // sorted, with multiplicity
        offs.push_back(0);
        for (uint32_t v = 0; v < n; ++v)
        {
            for (size_t k = 0; k < nb[v].size(); ++k)
            {
                if (k > 0 && nb[v][k] == nb[v][k - 1])
                {
                    ++mult.back();
                }
                else
                {
                    nbr.push_back(nb[v][k]);
                    mult.push_back(1);
                }
            }
            offs.push_back(nbr.size());
        }
    }

    /// Slot of the directed circuit a->b, or -1 when there is none.
    int64_t Slot(uint32_t a, uint32_t b) const
    {
        auto first = nbr.begin() + offs[a];
        auto last = nbr.begin() + offs[a + 1];
        auto it = std::lower_bound(first, last, b);
        return it != last && *it == b ? int64_t(it - nbr.begin()) : -1;
    }

    const std::vector<uint32_t>& Dist(uint32_t v)
    {
        auto it = dist.find(v);
        if (it == dist.end())
        {
            it = dist.emplace(v, plan.Distances(v)).first;
        }
        return it->second;
    }

    /// A shortest path from `from` to `to` along distances `d` measured from `to`, taking
    /// the lowest-index neighbour one hop closer at each step.
    std::vector<uint32_t> Walk(uint32_t from, uint32_t to, const std::vector<uint32_t>& d) const
    {
        if (d[from] == std::numeric_limits<uint32_t>::max())
        {
            throw std::invalid_argument("TopoOptSearch: no path from " + std::to_string(from) +
                                        " to " + std::to_string(to) +
                                        ": the plan's circuits do not connect them");
        }
        std::vector<uint32_t> hops{from};
        for (uint32_t v = from; v != to;)
        {
            for (uint32_t k = offs[v]; k < offs[v + 1]; ++k)
            {
                if (d[nbr[k]] + 1 == d[v])
                {
                    v = nbr[k];
                    break;
                }
            }
            hops.push_back(v);
        }
        return hops;
    }

    /// Call f(hops, chance) for each path src->dst: the circuit if direct, else the
    /// plan's routes, else one shortest path over the distances from `anchor` (src or
    /// dst), so the path chosen does not depend on what was asked before.
    template <typename F>
    void ForEachPath(uint32_t src, uint32_t dst, uint32_t anchor, F f)
    {
        if (Slot(src, dst) >= 0)
        {
            f(std::vector<uint32_t>{src, dst}, 1.0);
            return;
        }
        if (const std::vector<PlanPath>* stored = plan.FindRoutes(src, dst))
        {
            for (const PlanPath& path : *stored)
            {
                f(path.hops, path.chance);
            }
            return;
        }
        if (anchor == dst)
        {
            f(Walk(src, dst, Dist(dst)), 1.0);
            return;
        }
        std::vector<uint32_t> rev = Walk(dst, src, Dist(src));
        f(std::vector<uint32_t>(rev.rbegin(), rev.rend()), 1.0);
    }

    /// Add `bytes` along src->dst to `load`; returns the longest path's hops.
    uint32_t Add(std::vector<double>& load, uint32_t src, uint32_t dst, uint32_t anchor, double b)
    {
        uint32_t hops = 0;
        ForEachPath(src, dst, anchor, [&](const std::vector<uint32_t>& path, double chance) {
            for (size_t h = 0; h + 1 < path.size(); ++h)
            {
                int64_t k = Slot(path[h], path[h + 1]);
                NS_ASSERT_MSG(k >= 0,
                              "route hop " << path[h] << "-" << path[h + 1] << " is not a circuit");
                load[k] += b * chance;
            }
            hops = std::max<uint32_t>(hops, path.size() - 1);
        });
        return hops;
    }

    const Owner& OwnerLoads(uint32_t x)
    {
        auto it = owners.find(x);
        if (it != owners.end())
        {
            return it->second;
        }
        Owner o;
        o.out.assign(nbr.size(), 0.0);
        o.in.assign(nbr.size(), 0.0);
        for (uint32_t b = 0; b < n; ++b)
        {
            if (b != x)
            {
                o.outHops = std::max(o.outHops, Add(o.out, x, b, x, 1.0));
                o.inHops = std::max(o.inHops, Add(o.in, b, x, x, 1.0));
            }
        }
        return owners.emplace(x, std::move(o)).first->second;
    }

    /// Largest load / capacity over the slots (s).
    double MaxTime(const std::vector<double>& load, double bytesPerSecond) const
    {
        double t = 0;
        for (size_t k = 0; k < load.size(); ++k)
        {
            t = std::max(t, load[k] / (mult[k] * bytesPerSecond));
        }
        return t;
    }

    std::shared_ptr<const TopologyPlan> owned; //!< the plan, when shared
    const TopologyPlan& plan;
    uint32_t n;
    std::vector<uint32_t> offs; //!< slots of server v: [offs[v], offs[v + 1])
    std::vector<uint32_t> nbr;  //!< neighbour of each slot
    std::vector<uint32_t> mult; //!< circuits of each slot
    std::map<uint32_t, std::vector<uint32_t>> dist;
    std::map<uint32_t, Owner> owners;
};

StrategyCost
TopoOptSearch::Estimate(const ModelProfile& profile,
                        const ParallelStrategy& s,
                        const TopologyPlan& plan) const
{
    PlanLoads loads(plan);
    return Estimate(profile, s, loads);
}

StrategyCost
TopoOptSearch::Estimate(const ModelProfile& profile,
                        const ParallelStrategy& s,
                        PlanLoads& loads) const
{
    const TopologyPlan& plan = loads.plan;
    uint32_t n = s.GetNServers();
    if (plan.GetServers() != n)
    {
        throw std::invalid_argument("TopoOptSearch: the plan has " +
                                    std::to_string(plan.GetServers()) + " servers, the strategy " +
                                    std::to_string(n));
    }
    StrategyCost c;
    for (const Time& t : s.ComputeTimes(profile))
    {
        c.compute = std::max(c.compute, t.GetSeconds());
    }
    const double bps = m_rate.GetBitRate() / 8.0;
    const double alpha = m_hopLatency.GetSeconds();

    double ar = s.AllReduceBytes(profile);
    if (ar > 0 && n > 1)
    {
        auto orders = RingOrders(plan);
        double perHop = 2.0 * (n - 1) / n * ar / orders.size();
        std::vector<double> load(loads.nbr.size(), 0.0);
        uint32_t maxHops = 0;
        for (const auto& o : orders)
        {
            for (uint32_t k = 0; k < n; ++k)
            {
                maxHops = std::max(maxHops, loads.Add(load, o[k], o[(k + 1) % n], o[k], perHop));
            }
        }
        // Bottleneck pair: its time is the bandwidth term of the slowest ring; express it
        // as a ring of S/npath bytes at an effective beta.
        double bw = loads.MaxTime(load, bps);
        double share = ar / orders.size();
        double beta = bw / (2.0 * (n - 1) / n * share);
        c.allReduce =
            CollectiveClosedForms::RingAllReduceTime(n, share, alpha * maxHops, beta, 0.0);
    }
    // Model parallel: each placed server sends its tables' activation bytes to every
    // other server (forward) and receives as many back (backward), over the plan's routes.
    std::map<uint32_t, double> owner; // placed server -> bytes to (and from) each other server
    for (uint32_t i = 0; i < s.GetNLayers(); ++i)
    {
        int32_t p = s.GetPlacement(i);
        if (p != ParallelStrategy::DATA_PARALLEL)
        {
            owner[p] += profile.GetLayers()[i].activationBytes;
        }
    }
    for (int phase = 0; phase < 2; ++phase)
    {
        std::vector<double> load(loads.nbr.size(), 0.0);
        uint32_t maxHops = 0;
        bool any = false;
        for (const auto& [x, bytes] : owner)
        {
            if (!(bytes > 0) || n < 2)
            {
                continue;
            }
            const PlanLoads::Owner& o = loads.OwnerLoads(x);
            const std::vector<double>& perByte = phase == 0 ? o.out : o.in;
            for (size_t k = 0; k < load.size(); ++k)
            {
                load[k] += bytes * perByte[k];
            }
            maxHops = std::max(maxHops, phase == 0 ? o.outHops : o.inHops);
            any = true;
        }
        if (any)
        {
            c.modelParallel += loads.MaxTime(load, bps) + alpha * maxHops;
        }
    }
    c.total = c.compute + c.allReduce + c.modelParallel;
    return c;
}

SearchResult
TopoOptSearch::Run(const ModelProfile& profile, uint32_t servers)
{
    return Run(profile, ParallelStrategy::Initial(profile, servers));
}

SearchResult
TopoOptSearch::Run(const ModelProfile& profile, const ParallelStrategy& start)
{
    auto wallStart = std::chrono::steady_clock::now();
    SearchResult r;
    r.start = start;
    FinderReport finder;
    // Plans are shared, not copied, between the walk and the best so far, each with what
    // Estimate learnt of it (a reset returns to the best plan and its loads).
    auto build = [&](const ParallelStrategy& s) {
        return std::make_shared<PlanLoads>(
            std::make_shared<const TopologyPlan>(BuildTopology(profile, s, &finder)));
    };
    std::shared_ptr<PlanLoads> plan = build(start);
    std::shared_ptr<PlanLoads> best = plan;
    r.finder = finder;
    r.startCost = Estimate(profile, start, *plan);
    r.strategy = start;
    r.cost = r.startCost;
    ParallelStrategy current = start;
    double currentCost = r.startCost.total;

    std::vector<uint32_t> movable = profile.GetEmbeddingLayers();
    const uint32_t n = start.GetNServers();
    uint32_t reset =
        m_resetInterval > 0 ? m_resetInterval : std::clamp<uint32_t>(m_budget / 100, 1, 1000);
    for (uint32_t step = 1; step <= m_budget && !movable.empty(); ++step)
    {
        if (m_wallClockLimit > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count() >
                m_wallClockLimit)
        {
            r.wallClockLimitHit = true;
            break;
        }
        r.steps = step;
        if (step % reset == 0 && current != r.strategy)
        {
            current = r.strategy;
            plan = best;
            currentCost = r.cost.total;
            ++r.resets;
        }
        // One move: a random embedding layer to a random other placement.
        uint32_t layer = movable[m_rng->GetInteger(0, movable.size() - 1)];
        int32_t now = current.GetPlacement(layer);
        // Choices: DATA_PARALLEL and 0..n-1, minus the current one.
        int32_t pick = m_rng->GetInteger(0, n - 1); // n choices left
        int32_t choice = pick - 1;                  // -1 .. n-2
        if (choice >= now)
        {
            ++choice; // skip the current placement
        }
        ParallelStrategy cand = current;
        cand.SetPlacement(layer, choice);
        double candCost = Estimate(profile, cand, *plan).total;
        double u = m_rng->GetValue();
        bool accept =
            candCost < currentCost || u < std::exp(-m_alpha * (candCost - currentCost) * 1e3);
        m_stepTrace(step, candCost, currentCost, accept);
        if (!accept)
        {
            continue;
        }
        ++r.accepted;
        current = cand;
        plan = build(current);
        ++r.rebuilds;
        m_rebuildTrace(step);
        StrategyCost cost = Estimate(profile, current, *plan);
        currentCost = cost.total;
        if (cost.total < r.cost.total)
        {
            r.strategy = current;
            best = plan;
            r.cost = cost;
            r.finder = finder;
            m_newBestTrace(step, cost.total);
        }
    }
    r.plan = best->plan;
    NS_LOG_INFO("search: " << r.steps << " steps, " << r.accepted << " accepted, best "
                           << r.cost.total << " s (start " << r.startCost.total << " s)");
    return r;
}

} // namespace ns3
