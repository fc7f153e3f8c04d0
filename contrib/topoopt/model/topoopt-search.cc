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
#include <map>
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
    : m_rng(CreateObject<UniformRandomVariable>())
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

namespace
{

/// Directed loads between server pairs (bytes), and the longest path seen (hops).
struct Loads
{
    std::map<std::pair<uint32_t, uint32_t>, double> bytes;
    uint32_t maxHops{0};

    /// Add `b` bytes from src to dst: over a circuit if direct, else over the plan's routes.
    void Add(const TopologyPlan& plan,
             const Eigen::MatrixXi& circuits,
             uint32_t src,
             uint32_t dst,
             double b)
    {
        if (circuits(src, dst) > 0)
        {
            bytes[{src, dst}] += b;
            maxHops = std::max(maxHops, 1u);
            return;
        }
        for (const auto& path : plan.GetRoutes(src, dst))
        {
            for (size_t h = 0; h + 1 < path.hops.size(); ++h)
            {
                bytes[{path.hops[h], path.hops[h + 1]}] += b * path.chance;
            }
            maxHops = std::max<uint32_t>(maxHops, path.hops.size() - 1);
        }
    }

    /// Largest bytes / capacity over the pairs (s).
    double MaxTime(const Eigen::MatrixXi& circuits, double bytesPerSecond) const
    {
        double t = 0;
        for (const auto& [pair, b] : bytes)
        {
            t = std::max(t, b / (circuits(pair.first, pair.second) * bytesPerSecond));
        }
        return t;
    }
};

} // namespace

StrategyCost
TopoOptSearch::Estimate(const ModelProfile& profile,
                        const ParallelStrategy& s,
                        const TopologyPlan& plan) const
{
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
    Eigen::MatrixXi circuits = plan.CircuitCounts();

    double ar = s.AllReduceBytes(profile);
    if (ar > 0 && n > 1)
    {
        auto orders = RingOrders(plan);
        double perHop = 2.0 * (n - 1) / n * ar / orders.size();
        Loads loads;
        for (const auto& o : orders)
        {
            for (uint32_t k = 0; k < n; ++k)
            {
                loads.Add(plan, circuits, o[k], o[(k + 1) % n], perHop);
            }
        }
        // Bottleneck pair: its time is the bandwidth term of the slowest ring; express it
        // as a ring of S/npath bytes at an effective beta.
        double bw = loads.MaxTime(circuits, bps);
        double share = ar / orders.size();
        double beta = bw / (2.0 * (n - 1) / n * share);
        c.allReduce =
            CollectiveClosedForms::RingAllReduceTime(n, share, alpha * loads.maxHops, beta, 0.0);
    }
    Eigen::MatrixXd fwd = Eigen::MatrixXd::Zero(n, n);
    for (uint32_t i = 0; i < s.GetNLayers(); ++i)
    {
        int32_t p = s.GetPlacement(i);
        if (p != ParallelStrategy::DATA_PARALLEL)
        {
            for (uint32_t d = 0; d < n; ++d)
            {
                if (d != uint32_t(p))
                {
                    fwd(p, d) += profile.GetLayers()[i].activationBytes;
                }
            }
        }
    }
    for (int phase = 0; phase < 2; ++phase)
    {
        Loads loads;
        for (uint32_t a = 0; a < n; ++a)
        {
            for (uint32_t b = 0; b < n; ++b)
            {
                double bytes = phase == 0 ? fwd(a, b) : fwd(b, a);
                if (bytes > 0)
                {
                    loads.Add(plan, circuits, a, b, bytes);
                }
            }
        }
        if (!loads.bytes.empty())
        {
            c.modelParallel += loads.MaxTime(circuits, bps) + alpha * loads.maxHops;
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
    TopologyPlan plan = BuildTopology(profile, start, &finder);
    r.finder = finder;
    r.startCost = Estimate(profile, start, plan);
    r.strategy = start;
    r.plan = plan;
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
            plan = r.plan;
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
        double candCost = Estimate(profile, cand, plan).total;
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
        plan = BuildTopology(profile, current, &finder);
        ++r.rebuilds;
        m_rebuildTrace(step);
        StrategyCost cost = Estimate(profile, current, plan);
        currentCost = cost.total;
        if (cost.total < r.cost.total)
        {
            r.strategy = current;
            r.plan = plan;
            r.cost = cost;
            r.finder = finder;
            m_newBestTrace(step, cost.total);
        }
    }
    NS_LOG_INFO("search: " << r.steps << " steps, " << r.accepted << " accepted, best "
                           << r.cost.total << " s (start " << r.startCost.total << " s)");
    return r;
}

} // namespace ns3
