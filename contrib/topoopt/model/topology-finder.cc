// SPDX-License-Identifier: GPL-2.0-only
#include "topology-finder.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/max-weight-matching.h"
#include "ns3/totient-perms.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptTopologyFinder");
NS_OBJECT_ENSURE_REGISTERED(TopologyFinder);

namespace
{

constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("TopologyFinder: " + what);
}

/// Ports a ring over a group of size g occupies on every server.
uint32_t
RingCost(uint32_t g)
{
    return g == 2 ? 1 : 2;
}

/// Sets the single path `hops` from s to t unless the plan already routes s to t.
void
SetRoutesIfAbsent(TopologyPlan& plan, uint32_t s, uint32_t t, const std::vector<uint32_t>& hops)
{
    if (!plan.HasRoutes(s, t))
    {
        plan.SetRoutes(s, t, {PlanPath{hops, 1.0}});
    }
}

/// Places rings on the planes of a plan, in plane order: the planes taken so far
/// and the shared spill planes that hold the closing hops of odd rings. While
/// `reserved` > 0 a ring is placed only if it leaves that many fresh planes (the
/// spanning group's guaranteed ring, placed later in group order).
struct RingPlacer
{
    RingPlacer(uint32_t servers, uint32_t degree, const TotientPerms& totientPerms)
        : n(servers),
          d(degree),
          perms(totientPerms)
    {
    }

    /// Places the ring (g, j) on `p`; false (and `p` untouched) if planes run out.
    bool Place(TopologyPlan& p, uint32_t g, uint32_t j)
    {
        TopologyPlan trial = p;
        uint32_t fresh = nextFresh;
        std::vector<uint32_t> spill = spillPlanes;
        const uint32_t base = n / g;
        if (g == 2)
        {
            if (fresh + 1 > d)
            {
                return false;
            }
            for (uint32_t o = 0; o < base; ++o)
            {
                trial.AddCircuit(fresh, o, o + base);
            }
            fresh += 1;
        }
        else
        {
            if (fresh + 2 > d)
            {
                return false;
            }
            const uint32_t a = fresh;
            const uint32_t b = fresh + 1;
            fresh += 2;
            for (uint32_t o = 0; o < base; ++o)
            {
                std::vector<uint32_t> v = perms.RingMembers(g, j, o);
                for (uint32_t t = 0; t < g; ++t)
                {
                    uint32_t x = v[t];
                    uint32_t y = v[(t + 1) % g];
                    if (g % 2 == 0 || t + 1 < g)
                    {
                        trial.AddCircuit(t % 2 == 0 ? a : b, x, y);
                        continue;
                    }
                    // Closing hop of an odd cycle: a shared spill plane.
                    bool placed = false;
                    for (uint32_t s : spill)
                    {
                        if (trial.GetPeer(s, x) < 0 && trial.GetPeer(s, y) < 0)
                        {
                            trial.AddCircuit(s, x, y);
                            placed = true;
                            break;
                        }
                    }
                    if (!placed)
                    {
                        if (fresh + 1 > d)
                        {
                            return false;
                        }
                        spill.push_back(fresh);
                        trial.AddCircuit(fresh, x, y);
                        fresh += 1;
                    }
                }
            }
        }
        if (fresh + reserved > d)
        {
            return false; // it would take the planes kept for the spanning group's ring
        }
        p = trial;
        nextFresh = fresh;
        spillPlanes = spill;
        return true;
    }

    const uint32_t n;                  //!< servers
    const uint32_t d;                  //!< planes
    const TotientPerms& perms;         //!< ring members of each (g, j)
    uint32_t nextFresh{0};             //!< first plane no ring has taken yet
    uint32_t reserved{0};              //!< fresh planes other rings must leave free
    std::vector<uint32_t> spillPlanes; //!< planes holding closing hops of odd rings
};

} // namespace

/// One all-reduce group size after merging, with its allocation.
struct TopologyFinder::GroupWant
{
    uint32_t size{0};
    double bytes{0};
    double traffic{0};    // S (2g - 1)
    uint32_t rings{0};    // rings allocated
    double remainder{0};  // fractional part of the proportional share (in rings)
    size_t inputIndex{0}; // index in the merged list (for the report)
};

TypeId
TopologyFinder::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TopologyFinder")
            .SetParent<Object>()
            .SetGroupName("Topoopt")
            .AddConstructor<TopologyFinder>()
            .AddAttribute("Degree",
                          "NIC ports per server d (= number of optical planes; ports)",
                          UintegerValue(4),
                          MakeUintegerAccessor(&TopologyFinder::m_degree),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Bidirectional",
                          "All-reduce rings run in both directions: a chosen jump j also "
                          "uses n-j (bool)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TopologyFinder::m_bidirectional),
                          MakeBooleanChecker())
            .AddAttribute("ReleasedDegreeSplit",
                          "Reproduce the released code: every port goes to all-reduce "
                          "rings (d_A = d) instead of round(d*T_AR/(T_AR+T_MP)) (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TopologyFinder::m_releasedDegreeSplit),
                          MakeBooleanChecker())
            .AddAttribute("ReleasedGroupShare",
                          "Reproduce the released code's inverted per-group share "
                          "total*d_A/traffic_g (the first group takes every port) instead "
                          "of the proportional d_A*traffic_g/total (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TopologyFinder::m_releasedGroupShare),
                          MakeBooleanChecker())
            .AddAttribute("RouteAllPairs",
                          "Also give every server pair without a ring or MP route a BFS "
                          "shortest path, so the plan alone defines forwarding (bool)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TopologyFinder::m_routeAllPairs),
                          MakeBooleanChecker())
            .AddAttribute("CompareReleasedSplit",
                          "With a plan cost (SetPlanCost) and a fixed split d_A < d, also "
                          "build the released split's plan (d_A = d) and return the one "
                          "with the lower cost, the fixed one on a tie; false keeps the "
                          "fixed split (bool)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TopologyFinder::m_compareReleasedSplit),
                          MakeBooleanChecker())
            .AddTraceSource("RingChosen",
                            "A ring was placed: (group size, jump)",
                            MakeTraceSourceAccessor(&TopologyFinder::m_ringChosen),
                            "ns3::TracedCallback::Uint32Uint32")
            .AddTraceSource("MatchingAdded",
                            "A plane received matching circuits: (plane, circuits)",
                            MakeTraceSourceAccessor(&TopologyFinder::m_matchingAdded),
                            "ns3::TracedCallback::Uint32Uint32");
    return tid;
}

TopologyFinder::TopologyFinder()
    : m_degree(4),
      m_bidirectional(true),
      m_releasedDegreeSplit(false),
      m_releasedGroupShare(false),
      m_routeAllPairs(true),
      m_compareReleasedSplit(true),
      m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TopologyFinder::~TopologyFinder() = default;

void
TopologyFinder::DoDispose()
{
    m_rng = nullptr;
    m_planCost = nullptr;
    Object::DoDispose();
}

int64_t
TopologyFinder::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    m_stream = stream;
    return 1;
}

void
TopologyFinder::SetPlanCost(PlanCost cost)
{
    m_planCost = std::move(cost);
}

const FinderReport&
TopologyFinder::GetLastReport() const
{
    return m_report;
}

double
TopologyFinder::AllReduceBytesPerRing(uint32_t g, double bytes, uint32_t paths)
{
    if (g == 0 || paths == 0)
    {
        throw std::invalid_argument("AllReduceBytesPerRing: group size and ring count must be "
                                    ">= 1");
    }
    return 2.0 * (g - 1) / g * bytes / paths;
}

uint32_t
TopologyFinder::RingPaths(const TopologyPlan& plan, uint32_t g)
{
    std::set<uint32_t> jumps;
    for (const PlanRing& r : plan.GetRings())
    {
        if (r.size == g)
        {
            jumps.insert(r.jumps.begin(), r.jumps.end());
        }
    }
    return jumps.size();
}

std::vector<uint32_t>
TopologyFinder::CoinChange(uint32_t n,
                           const std::vector<uint32_t>& coins,
                           uint32_t target,
                           Ptr<UniformRandomVariable> rng)
{
    if (n == 0)
    {
        throw std::invalid_argument("CoinChange: n must be >= 1");
    }
    target %= n;
    std::set<uint32_t> uniq;
    for (uint32_t c : coins)
    {
        if (c % n != 0)
        {
            uniq.insert(c % n);
        }
    }
    std::vector<uint32_t> dist(n, kUnreached);
    std::deque<uint32_t> queue{0};
    dist[0] = 0;
    while (!queue.empty())
    {
        uint32_t v = queue.front();
        queue.pop_front();
        for (uint32_t c : uniq)
        {
            uint32_t u = (v + c) % n;
            if (dist[u] == kUnreached)
            {
                dist[u] = dist[v] + 1;
                queue.push_back(u);
            }
        }
    }
    if (dist[target] == kUnreached)
    {
        throw std::invalid_argument("CoinChange: jump " + std::to_string(target) +
                                    " is not reachable with the given coins modulo " +
                                    std::to_string(n));
    }
    std::vector<uint32_t> rev;
    uint32_t v = target;
    while (v != 0)
    {
        std::vector<uint32_t> options;
        for (uint32_t c : uniq)
        {
            uint32_t u = (v + n - c) % n;
            if (dist[u] + 1 == dist[v])
            {
                options.push_back(c);
            }
        }
        NS_ASSERT(!options.empty());
        uint32_t c =
            options[(rng && options.size() > 1) ? rng->GetInteger(0, options.size() - 1) : 0];
        rev.push_back(c);
        v = (v + n - c) % n;
    }
    return std::vector<uint32_t>(rev.rbegin(), rev.rend());
}

TopologyPlan
TopologyFinder::Find(uint32_t n,
                     const std::vector<AllReduceGroup>& groups,
                     const Eigen::MatrixXd& mpDemand)
{
    NS_LOG_FUNCTION(this << n << groups.size());
    const uint32_t d = m_degree;
    CheckServersAndDegree(n, d);
    const Eigen::MatrixXd demand = CheckedDemand(n, mpDemand);
    const std::map<uint32_t, double> merged = MergedGroups(n, groups);

    double tAr = 0;
    for (const auto& w : GroupWants(merged))
    {
        tAr += w.traffic;
    }
    const double tMp = demand.sum();
    const uint32_t dFixed = SplitDegree(n, tAr, tMp, false);
    const uint32_t dA = m_releasedDegreeSplit ? SplitDegree(n, tAr, tMp, true) : dFixed;
    const bool compare =
        !m_releasedDegreeSplit && m_compareReleasedSplit && m_planCost && dFixed < d;
    if (compare && m_stream >= 0)
    {
        m_rng->SetStream(m_stream); // both candidates start where a new finder starts
    }
    TopologyPlan plan = BuildPlan(n, merged, demand, dA);
    m_report.degreeAllReduceFixed = dFixed;
    m_report.releasedSplitChosen = dA == d && dFixed < d;
    if (!compare)
    {
        return plan;
    }
    // The fixed split can predict a slower iteration than the released one (NCF,
    // 16 servers, degree 8: 0.706 vs 0.609 ms): build both, keep the cheaper.
    const double fixedCost = m_planCost(plan);
    const FinderReport fixedReport = m_report;
    if (m_stream >= 0)
    {
        m_rng->SetStream(m_stream);
    }
    TopologyPlan released = BuildPlan(n, merged, demand, SplitDegree(n, tAr, tMp, true));
    const double releasedCost = m_planCost(released);
    NS_LOG_INFO("degree split: fixed d_A=" << dFixed << " costs " << fixedCost
                                           << " s, released d_A=" << d << " costs " << releasedCost
                                           << " s");
    if (releasedCost < fixedCost)
    {
        plan = released;
        m_report.degreeAllReduceFixed = dFixed;
        m_report.releasedSplitChosen = true;
    }
    else
    {
        m_report = fixedReport;
    }
    m_report.splitsCompared = true;
    m_report.fixedSplitCost = fixedCost;
    m_report.releasedSplitCost = releasedCost;
    return plan;
}

TopologyPlan
TopologyFinder::BuildPlan(uint32_t n,
                          const std::map<uint32_t, double>& merged,
                          const Eigen::MatrixXd& demand,
                          uint32_t dA)
{
    m_report = FinderReport();
    TotientPerms perms(n);
    std::vector<GroupWant> want = GroupWants(merged);
    for (const auto& w : want)
    {
        m_report.trafficAllReduce += w.traffic;
    }
    m_report.trafficModelParallel = demand.sum();
    m_report.degreeAllReduce = dA;
    m_report.degreeModelParallel = m_degree - dA;

    std::vector<GroupWant*> active = ActiveGroups(want);
    GroupWant* spanning = ShareRings(n, dA, active, perms);

    TopologyPlan plan(n, m_degree);
    m_report.groupRings.assign(want.size(), 0);
    PlaceRings(plan, active, perms);
    AddMatchings(plan, demand);
    AddRoutes(plan, active, spanning, demand, perms);
    CheckPlan(plan, dA);
    return plan;
}

void
TopologyFinder::CheckServersAndDegree(uint32_t n, uint32_t d)
{
    if (n < 2)
    {
        Fail(std::to_string(n) + " servers: a topology needs at least 2 servers");
    }
    if (n % 2 != 0)
    {
        Fail(std::to_string(n) +
             " servers: n must be even, because every optical plane is a matching of "
             "bidirectional circuits and an odd n leaves a port dark on each plane");
    }
    if (d == 0)
    {
        Fail("degree 0: each server needs at least 1 port");
    }
    if (d > n - 1)
    {
        Fail("degree " + std::to_string(d) + " is larger than the " + std::to_string(n - 1) +
             " other servers the ports can serve; use Degree <= " + std::to_string(n - 1) +
             " or more servers");
    }
    if (d < 2 && n > 2)
    {
        Fail("degree 1 cannot carry a bidirectional ring over " + std::to_string(n) +
             " servers (a plane is a matching, so the plan would be disconnected); use "
             "Degree >= 2");
    }
}

Eigen::MatrixXd
TopologyFinder::CheckedDemand(uint32_t n, const Eigen::MatrixXd& mpDemand)
{
    Eigen::MatrixXd demand = Eigen::MatrixXd::Zero(n, n);
    if (mpDemand.size() != 0)
    {
        if (mpDemand.rows() != n || mpDemand.cols() != n)
        {
            Fail("the MP demand matrix is " + std::to_string(mpDemand.rows()) + "x" +
                 std::to_string(mpDemand.cols()) + "; it must be " + std::to_string(n) + "x" +
                 std::to_string(n) + " (or empty for no MP traffic)");
        }
        // One vectorized check; the scan that names the first bad entry only on failure.
        if (!mpDemand.allFinite() || (mpDemand.array() < 0).any())
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                for (uint32_t j = 0; j < n; ++j)
                {
                    double x = mpDemand(i, j);
                    if (!std::isfinite(x) || x < 0)
                    {
                        Fail("MP demand(" + std::to_string(i) + "," + std::to_string(j) +
                             ") = " + std::to_string(x) + "; demands must be finite bytes >= 0");
                    }
                }
            }
        }
        demand = mpDemand;
        demand.diagonal().setZero();
    }
    return demand;
}

std::map<uint32_t, double>
TopologyFinder::MergedGroups(uint32_t n, const std::vector<AllReduceGroup>& groups)
{
    std::map<uint32_t, double> merged;
    for (const AllReduceGroup& g : groups)
    {
        if (g.size == 0 || n % g.size != 0)
        {
            Fail("all-reduce group size " + std::to_string(g.size) + " does not divide the " +
                 std::to_string(n) +
                 " servers; use a divisor of n (TopoOpt places a group "
                 "with stride n/g)");
        }
        if (!std::isfinite(g.bytes) || g.bytes < 0)
        {
            Fail("all-reduce group of size " + std::to_string(g.size) + " has " +
                 std::to_string(g.bytes) + " bytes; use finite bytes >= 0");
        }
        merged[g.size] += g.bytes;
    }
    return merged;
}

std::vector<TopologyFinder::GroupWant>
TopologyFinder::GroupWants(const std::map<uint32_t, double>& merged)
{
    std::vector<GroupWant> want;
    for (const auto& [size, bytes] : merged)
    {
        GroupWant w;
        w.size = size;
        w.bytes = bytes;
        w.traffic = (size >= 2) ? bytes * (2.0 * size - 1.0) : 0.0;
        w.inputIndex = want.size();
        want.push_back(w);
    }
    return want;
}

uint32_t
TopologyFinder::SplitDegree(uint32_t n, double tAr, double tMp, bool released) const
{
    const uint32_t d = m_degree;
    // ---- Degree split (fix 1).
    uint32_t dA = d;
    if (!released)
    {
        if (tAr == 0)
        {
            dA = 0;
        }
        else if (tMp > 0)
        {
            dA = static_cast<uint32_t>(std::lround(d * tAr / (tAr + tMp)));
        }
    }
    // A size-n ring keeps the plan connected: at least its ports go to rings.
    return std::min(d, std::max(dA, RingCost(n)));
}

std::vector<TopologyFinder::GroupWant*>
TopologyFinder::ActiveGroups(std::vector<GroupWant>& want)
{
    std::vector<GroupWant*> active;
    for (auto& w : want)
    {
        if (w.size >= 2 && w.traffic > 0)
        {
            active.push_back(&w);
        }
    }
    // The reference sorts by S (2g - 1) / g (the larger first); ties: larger group first.
    std::stable_sort(active.begin(), active.end(), [](const GroupWant* a, const GroupWant* b) {
        double ka = a->traffic / a->size;
        double kb = b->traffic / b->size;
        return ka != kb ? ka > kb : a->size > b->size;
    });
    return active;
}

TopologyFinder::GroupWant*
TopologyFinder::ShareRings(uint32_t n,
                           uint32_t dA,
                           const std::vector<GroupWant*>& active,
                           const TotientPerms& perms)
{
    // ---- Rings per group (fix 2).
    GroupWant* spanning = nullptr;
    for (GroupWant* w : active)
    {
        if (w->size == n)
        {
            spanning = w;
        }
    }
    uint32_t budget = dA - RingCost(n);
    if (spanning)
    {
        spanning->rings = 1;
    }
    else
    {
        m_report.connectivityRing = true;
    }
    double totalTraffic = 0;
    for (const GroupWant* w : active)
    {
        totalTraffic += w->traffic;
    }
    if (m_releasedGroupShare)
    {
        ShareRingsReleased(active, totalTraffic, budget, perms);
    }
    else if (totalTraffic > 0)
    {
        ShareRingsProportional(active, totalTraffic, budget, perms);
    }
    return spanning;
}

uint32_t
TopologyFinder::RingCapacity(const GroupWant* w, const TotientPerms& perms) const
{
    return perms.MaxRings(w->size, m_bidirectional) - w->rings;
}

void
TopologyFinder::ShareRingsReleased(const std::vector<GroupWant*>& active,
                                   double totalTraffic,
                                   uint32_t budget,
                                   const TotientPerms& perms) const
{
    const uint32_t budget0 = budget;
    // Released: share = total * d_A / traffic_g >= d_A, clamped to what is left.
    for (GroupWant* w : active)
    {
        double share = totalTraffic * budget0 / w->traffic;
        uint32_t ports = static_cast<uint32_t>(std::min<double>(budget, std::floor(share)));
        uint32_t add = std::min(ports / RingCost(w->size), RingCapacity(w, perms));
        w->rings += add;
        budget -= add * RingCost(w->size);
    }
}

void
TopologyFinder::ShareRingsProportional(const std::vector<GroupWant*>& active,
                                       double totalTraffic,
                                       uint32_t budget,
                                       const TotientPerms& perms) const
{
    const uint32_t budget0 = budget;
    for (GroupWant* w : active)
    {
        double ideal = budget0 * w->traffic / totalTraffic / RingCost(w->size);
        uint32_t add =
            std::min<uint32_t>(static_cast<uint32_t>(std::floor(ideal)), RingCapacity(w, perms));
        add = std::min(add, budget / RingCost(w->size));
        w->rings += add;
        w->remainder = ideal - std::floor(ideal);
        budget -= add * RingCost(w->size);
    }
    // Largest remainder first, then keep offering leftover ports in that order
    // until no group can take another ring.
    std::vector<GroupWant*> byRemainder = active;
    std::stable_sort(
        byRemainder.begin(),
        byRemainder.end(),
        [](const GroupWant* a, const GroupWant* b) { return a->remainder > b->remainder; });
    bool progress = true;
    while (progress)
    {
        progress = false;
        for (GroupWant* w : byRemainder)
        {
            if (RingCapacity(w, perms) > 0 && budget >= RingCost(w->size))
            {
                w->rings++;
                budget -= RingCost(w->size);
                progress = true;
            }
        }
    }
}

std::vector<uint32_t>
TopologyFinder::DirectedJumps(uint32_t n, uint32_t j) const
{
    std::vector<uint32_t> js{j};
    if (m_bidirectional && n - j != j)
    {
        js.push_back(n - j);
    }
    return js;
}

void
TopologyFinder::PlaceRings(TopologyPlan& plan,
                           const std::vector<GroupWant*>& active,
                           const TotientPerms& perms)
{
    // ---- Place the rings on planes.
    const uint32_t n = plan.GetServers();
    RingPlacer placer(n, m_degree, perms);
    // The spanning group's first ring (jump 1) keeps the plan connected, as the
    // connectivity ring does: ShareRings counts its ports outside the budget, but
    // an odd ring placed before it in group order takes a third (spill) plane the
    // budget does not count, so its planes are kept free until it is placed.
    auto spanning = std::find_if(active.begin(), active.end(), [n](const GroupWant* w) {
        return w->size == n && w->rings > 0;
    });
    if (spanning != active.end())
    {
        placer.reserved = RingCost(n);
    }
    if (m_report.connectivityRing)
    {
        bool ok = placer.Place(plan, n, 1);
        NS_ASSERT_MSG(ok, "no room for the connectivity ring");
        m_report.ringPortsUsed += RingCost(n);
        PlanRing ring{n, DirectedJumps(n, 1), m_bidirectional, true};
        plan.AddRing(ring);
        m_ringChosen(n, 1);
    }
    for (GroupWant* w : active)
    {
        if (w->rings == 0)
        {
            continue;
        }
        std::vector<uint32_t> chosen = perms.SelectRings(w->size, w->rings, m_bidirectional);
        if (w->size == n)
        {
            placer.reserved = 0; // its first ring takes the kept planes
        }
        PlanRing ring{w->size, {}, m_bidirectional, true};
        for (uint32_t j : chosen)
        {
            if (!placer.Place(plan, w->size, j))
            {
                NS_LOG_WARN("no plane left for ring size " << w->size << " jump " << j
                                                           << "; its ports become matchings");
                continue;
            }
            m_report.ringPortsUsed += RingCost(w->size);
            m_report.groupRings[w->inputIndex]++;
            for (uint32_t x : DirectedJumps(n, j))
            {
                ring.jumps.push_back(x);
            }
            m_ringChosen(w->size, j);
        }
        w->rings = m_report.groupRings[w->inputIndex];
        if (!ring.jumps.empty())
        {
            plan.AddRing(ring);
        }
    }
}

void
TopologyFinder::AddMatchings(TopologyPlan& plan, const Eigen::MatrixXd& demand)
{
    // ---- Matchings on the remaining ports.
    const uint32_t n = plan.GetServers();
    const uint32_t d = m_degree;
    MaxWeightMatching matcher(m_rng);
    Eigen::MatrixXd residual = demand;
    Eigen::MatrixXi counts = plan.CircuitCounts();
    // Planes in index order: partially used ring planes (odd rings leave one
    // server per cycle free on their two alternating planes and fill a shared
    // spill plane only partly) come before the untouched ones.
    std::vector<uint32_t> order(d);
    std::iota(order.begin(), order.end(), 0);
    for (uint32_t p : order)
    {
        std::vector<uint32_t> freeServers;
        for (uint32_t s = 0; s < n; ++s)
        {
            if (plan.GetPeer(p, s) < 0)
            {
                freeServers.push_back(s);
            }
        }
        if (freeServers.empty())
        {
            continue;
        }
        auto pairs = matcher.Solve(residual, freeServers);
        for (const auto& [a, b] : pairs)
        {
            plan.AddCircuit(p, a, b);
            int c = ++counts(a, b);
            counts(b, a) = c;
            double decay = static_cast<double>(c) / (c + 1);
            residual(a, b) *= decay;
            residual(b, a) *= decay;
        }
        m_report.matchingPlanes++;
        m_matchingAdded(p, pairs.size());
    }
    m_report.boostMatchings = matcher.GetBoostCalls();
    m_report.matchingRepairs = matcher.GetRepairs();
    m_report.boostFailures = matcher.GetBoostFailures();
}

void
TopologyFinder::AddRoutes(TopologyPlan& plan,
                          const std::vector<GroupWant*>& active,
                          const GroupWant* spanning,
                          const Eigen::MatrixXd& demand,
                          const TotientPerms& perms)
{
    // ---- Routing.
    std::set<uint32_t> coinSet;
    for (const PlanRing& r : plan.GetRings())
    {
        coinSet.insert(r.jumps.begin(), r.jumps.end());
    }
    const std::vector<uint32_t> coins(coinSet.begin(), coinSet.end());
    AddRingHopRoutes(plan, spanning);
    AddCoinChangeRoutes(plan, active, coins, perms);
    // MP pairs, then (optionally) every other pair: random shortest paths.
    plan.AddShortestPathRoutes(m_rng, [&](uint32_t s, uint32_t t) { return demand(s, t) > 0; });
    if (m_routeAllPairs)
    {
        plan.AddShortestPathRoutes(m_rng);
    }
}

void
TopologyFinder::AddRingHopRoutes(TopologyPlan& plan, const GroupWant* spanning) const
{
    const uint32_t n = plan.GetServers();
    // Direct ring hops.
    for (const PlanRing& r : std::vector<PlanRing>(plan.GetRings()))
    {
        if (r.size == n && m_report.connectivityRing && !spanning)
        {
            continue; // the connectivity ring carries no group of its own
        }
        for (uint32_t j : r.jumps)
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                SetRoutesIfAbsent(plan, i, (i + j) % n, {i, (i + j) % n});
            }
        }
    }
}

void
TopologyFinder::AddCoinChangeRoutes(TopologyPlan& plan,
                                    const std::vector<GroupWant*>& active,
                                    const std::vector<uint32_t>& coins,
                                    const TotientPerms& perms)
{
    const uint32_t n = plan.GetServers();
    // Groups without rings: the ring order whose hop needs the fewest coins.
    for (GroupWant* w : active)
    {
        if (w->rings > 0)
        {
            continue;
        }
        std::vector<uint32_t> cand = perms.Candidates(w->size);
        std::vector<uint32_t> best;
        size_t bestHops = std::numeric_limits<size_t>::max();
        for (uint32_t t : cand)
        {
            size_t h = CoinChange(n, coins, t, nullptr).size();
            if (m_bidirectional)
            {
                h = std::max(h, CoinChange(n, coins, n - t, nullptr).size());
            }
            if (h < bestHops)
            {
                bestHops = h;
                best.clear();
            }
            if (h == bestHops)
            {
                best.push_back(t);
            }
        }
        uint32_t t = best[best.size() == 1 ? 0 : m_rng->GetInteger(0, best.size() - 1)];
        PlanRing ring{w->size, DirectedJumps(n, t), m_bidirectional, false};
        plan.AddRing(ring);
        for (uint32_t u : ring.jumps)
        {
            std::vector<uint32_t> seq = CoinChange(n, coins, u, m_rng);
            for (uint32_t i = 0; i < n; ++i)
            {
                std::vector<uint32_t> hops{i};
                uint32_t v = i;
                for (uint32_t c : seq)
                {
                    v = (v + c) % n;
                    hops.push_back(v);
                }
                SetRoutesIfAbsent(plan, i, (i + u) % n, hops);
            }
        }
    }
}

void
TopologyFinder::CheckPlan(const TopologyPlan& plan, uint32_t dA) const
{
    const uint32_t d = m_degree;
    for (uint32_t deg : plan.Degrees())
    {
        NS_ASSERT_MSG(deg == d, "server degree " << deg << " != " << d);
    }
    NS_ASSERT_MSG(plan.IsConnected(), "the plan is not connected");
    plan.Validate();
    NS_LOG_INFO("plan: n=" << plan.GetServers() << " d=" << d << " d_A=" << dA
                           << " rings ports=" << m_report.ringPortsUsed
                           << " matching planes=" << m_report.matchingPlanes);
}

} // namespace ns3
