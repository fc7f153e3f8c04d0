// SPDX-License-Identifier: GPL-2.0-only
#include "topology-plan.h"

#include "ns3/json-reader.h"
#include "ns3/output-files.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

namespace ns3
{

namespace
{

using Json = nlohmann::json;
using BglGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("topology plan: " + what);
}

uint32_t
Gcd(uint32_t a, uint32_t b)
{
    return std::gcd(a, b);
}

/// The circuits as an undirected Boost graph (parallel circuits are parallel edges).
BglGraph
Graph(uint32_t n, const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& planes)
{
    BglGraph g(n);
    for (const auto& plane : planes)
    {
        for (const auto& c : plane)
        {
            boost::add_edge(c.first, c.second, g);
        }
    }
    return g;
}

/// Hop distances from src by Boost BFS (UINT32_MAX: unreachable).
std::vector<uint32_t>
Bfs(const BglGraph& g, uint32_t src)
{
    std::vector<uint32_t> dist(boost::num_vertices(g), std::numeric_limits<uint32_t>::max());
    dist[src] = 0;
    boost::breadth_first_search(g,
                                boost::vertex(src, g),
                                boost::visitor(boost::make_bfs_visitor(
                                    boost::record_distances(dist.data(), boost::on_tree_edge()))));
    return dist;
}

} // namespace

TopologyPlan::TopologyPlan() = default;

TopologyPlan::TopologyPlan(uint32_t servers, uint32_t degree)
    : m_servers(servers),
      m_degree(degree),
      m_planes(degree),
      m_peer(degree, std::vector<int64_t>(servers, -1))
{
    if (servers == 0)
    {
        Fail("0 servers; a plan needs at least 1 server");
    }
}

uint32_t
TopologyPlan::GetServers() const
{
    return m_servers;
}

uint32_t
TopologyPlan::GetDegree() const
{
    return m_degree;
}

void
TopologyPlan::AddCircuit(uint32_t plane, uint32_t a, uint32_t b)
{
    if (plane >= m_degree)
    {
        Fail("plane " + std::to_string(plane) + " out of range: degree " +
             std::to_string(m_degree) + " gives planes 0.." + std::to_string(m_degree) +
             "-1 (degree exceeded)");
    }
    if (a >= m_servers || b >= m_servers)
    {
        Fail("circuit " + std::to_string(a) + "-" + std::to_string(b) + " on plane " +
             std::to_string(plane) + ": server index out of range (servers 0.." +
             std::to_string(m_servers - 1) + ")");
    }
    if (a == b)
    {
        Fail("circuit " + std::to_string(a) + "-" + std::to_string(b) + " on plane " +
             std::to_string(plane) + " connects a server to itself");
    }
    for (uint32_t s : {a, b})
    {
        if (m_peer[plane][s] >= 0)
        {
            Fail("server " + std::to_string(s) + " used twice in plane " + std::to_string(plane) +
                 " (circuits to " + std::to_string(m_peer[plane][s]) + " and to " +
                 std::to_string(s == a ? b : a) + "); a plane is a matching");
        }
    }
    m_peer[plane][a] = b;
    m_peer[plane][b] = a;
    m_planes[plane].emplace_back(std::min(a, b), std::max(a, b));
}

const std::vector<std::pair<uint32_t, uint32_t>>&
TopologyPlan::GetCircuits(uint32_t plane) const
{
    if (plane >= m_degree)
    {
        Fail("plane " + std::to_string(plane) + " out of range (degree " +
             std::to_string(m_degree) + ")");
    }
    return m_planes[plane];
}

int64_t
TopologyPlan::GetPeer(uint32_t plane, uint32_t server) const
{
    if (plane >= m_degree || server >= m_servers)
    {
        Fail("GetPeer(" + std::to_string(plane) + ", " + std::to_string(server) + ") out of range");
    }
    return m_peer[plane][server];
}

uint32_t
TopologyPlan::GetCircuitCount() const
{
    uint32_t c = 0;
    for (const auto& p : m_planes)
    {
        c += p.size();
    }
    return c;
}

void
TopologyPlan::AddRing(const PlanRing& ring)
{
    m_rings.push_back(ring);
}

const std::vector<PlanRing>&
TopologyPlan::GetRings() const
{
    return m_rings;
}

void
TopologyPlan::SetRoutes(uint32_t src, uint32_t dst, const std::vector<PlanPath>& paths)
{
    m_routes[RouteKey(src, dst)] = paths;
}

bool
TopologyPlan::HasRoutes(uint32_t src, uint32_t dst) const
{
    return m_routes.count(RouteKey(src, dst)) > 0;
}

const std::vector<PlanPath>*
TopologyPlan::FindRoutes(uint32_t src, uint32_t dst) const
{
    auto it = m_routes.find(RouteKey(src, dst));
    return it == m_routes.end() ? nullptr : &it->second;
}

const std::vector<PlanPath>&
TopologyPlan::GetRoutes(uint32_t src, uint32_t dst) const
{
    auto it = m_routes.find(RouteKey(src, dst));
    if (it == m_routes.end())
    {
        Fail("no route from " + std::to_string(src) + " to " + std::to_string(dst));
    }
    return it->second;
}

void
TopologyPlan::AddShortestPathRoutes(Ptr<UniformRandomVariable> rng,
                                    const std::function<bool(uint32_t, uint32_t)>& want)
{
    // One graph and one BFS per source that has a pair to route: O(n (n + n d)) for
    // all pairs, O(sources * n d) for a few. The draws (one per hop with several
    // predecessors, sources and destinations ascending) do not depend on how the
    // distances are computed.
    const uint32_t unreached = std::numeric_limits<uint32_t>::max();
    std::vector<std::vector<uint32_t>> nb = Neighbours();
    for (auto& v : nb)
    {
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    const BglGraph g = Graph(m_servers, m_planes);
    std::vector<uint32_t> preds;
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        std::vector<uint32_t> dist;
        for (uint32_t t = 0; t < m_servers; ++t)
        {
            if (s == t || (want && !want(s, t)) || HasRoutes(s, t))
            {
                continue;
            }
            if (dist.empty())
            {
                dist = Bfs(g, s);
            }
            if (dist[t] == unreached)
            {
                Fail("no path from " + std::to_string(s) + " to " + std::to_string(t) +
                     ": the circuits do not connect them");
            }
            std::vector<uint32_t> hops(dist[t] + 1);
            uint32_t v = t;
            hops[dist[t]] = t;
            while (v != s)
            {
                preds.clear();
                for (uint32_t u : nb[v])
                {
                    if (dist[u] + 1 == dist[v])
                    {
                        preds.push_back(u);
                    }
                }
                v = preds[preds.size() == 1 ? 0 : rng->GetInteger(0, preds.size() - 1)];
                hops[dist[v]] = v;
            }
            m_routes[RouteKey(s, t)] = {PlanPath{std::move(hops), 1.0}};
        }
    }
}

std::map<std::pair<uint32_t, uint32_t>, std::vector<PlanPath>>
TopologyPlan::GetAllRoutes() const
{
    std::map<std::pair<uint32_t, uint32_t>, std::vector<PlanPath>> all;
    for (const auto& [key, paths] : m_routes)
    {
        all.emplace(std::make_pair(uint32_t(key >> 32), uint32_t(key)), paths);
    }
    return all;
}

size_t
TopologyPlan::GetRouteCount() const
{
    return m_routes.size();
}

void
TopologyPlan::ClearRoutes()
{
    m_routes.clear();
}

std::vector<uint32_t>
TopologyPlan::Degrees() const
{
    std::vector<uint32_t> deg(m_servers, 0);
    for (const auto& plane : m_planes)
    {
        for (const auto& c : plane)
        {
            deg[c.first]++;
            deg[c.second]++;
        }
    }
    return deg;
}

Eigen::MatrixXi
TopologyPlan::CircuitCounts() const
{
    Eigen::MatrixXi m = Eigen::MatrixXi::Zero(m_servers, m_servers);
    for (const auto& plane : m_planes)
    {
        for (const auto& c : plane)
        {
            m(c.first, c.second)++;
            m(c.second, c.first)++;
        }
    }
    return m;
}

std::vector<std::vector<uint32_t>>
TopologyPlan::Neighbours() const
{
    std::vector<std::vector<uint32_t>> nb(m_servers);
    for (const auto& plane : m_planes)
    {
        for (const auto& c : plane)
        {
            nb[c.first].push_back(c.second);
            nb[c.second].push_back(c.first);
        }
    }
    for (auto& v : nb)
    {
        std::sort(v.begin(), v.end());
    }
    return nb;
}

std::vector<uint32_t>
TopologyPlan::Distances(uint32_t src) const
{
    if (src >= m_servers)
    {
        Fail("Distances: server " + std::to_string(src) + " out of range");
    }
    return Bfs(Graph(m_servers, m_planes), src);
}

bool
TopologyPlan::IsConnected() const
{
    if (m_servers <= 1)
    {
        return true;
    }
    for (uint32_t d : Distances(0))
    {
        if (d == std::numeric_limits<uint32_t>::max())
        {
            return false;
        }
    }
    return true;
}

uint32_t
TopologyPlan::Diameter() const
{
    const BglGraph g = Graph(m_servers, m_planes);
    uint32_t diameter = 0;
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        for (uint32_t d : Bfs(g, s))
        {
            diameter = std::max(diameter, d);
        }
    }
    return diameter;
}

void
TopologyPlan::Validate() const
{
    // Degree exceeded cannot happen through AddCircuit (one circuit per plane and
    // server); the per-plane matching was checked there.
    const uint32_t n = m_servers;
    const std::vector<std::vector<uint32_t>> nb = Neighbours(); // sorted: binary search
    auto circuit = [&](uint32_t a, uint32_t b) {
        return std::binary_search(nb[a].begin(), nb[a].end(), b);
    };
    for (const PlanRing& r : m_rings)
    {
        std::string where = "ring of size " + std::to_string(r.size);
        if (r.size < 2 || n % r.size != 0)
        {
            Fail(where + ": size must be >= 2 and divide the " + std::to_string(n) + " servers");
        }
        if (r.jumps.empty())
        {
            Fail(where + " has no jumps");
        }
        const uint32_t base = n / r.size;
        for (uint32_t j : r.jumps)
        {
            if (j == 0 || j >= n || j % base != 0 || Gcd(j / base, r.size) != 1)
            {
                Fail(where + ": jump " + std::to_string(j) + " is not base*k with base " +
                     std::to_string(base) + ", 1 <= k < size and gcd(k, size) = 1");
            }
            if (r.direct)
            {
                for (uint32_t i = 0; i < n; ++i)
                {
                    uint32_t k = (i + j) % n;
                    if (!circuit(i, k))
                    {
                        Fail(where + " jump " + std::to_string(j) + ": no circuit " +
                             std::to_string(i) + "-" + std::to_string(k) +
                             " for a direct ring hop");
                    }
                }
            }
        }
    }
    // Routes: one pass in storage order; only when it finds a problem, a sorted pass
    // names the first one, so the message does not depend on hashing.
    auto checkRoute = [&](uint64_t routeKey, const std::vector<PlanPath>& paths) -> std::string {
        const uint32_t src = uint32_t(routeKey >> 32);
        const uint32_t dst = uint32_t(routeKey);
        auto where = [&] { return "route " + std::to_string(src) + "->" + std::to_string(dst); };
        if (src >= n || dst >= n)
        {
            return where() + ": server index out of range (servers 0.." + std::to_string(n - 1) +
                   ")";
        }
        if (src == dst)
        {
            return where() + " goes from a server to itself";
        }
        if (paths.empty())
        {
            return where() + " has no paths";
        }
        double sum = 0;
        for (const PlanPath& p : paths)
        {
            if (p.hops.size() < 2 || p.hops.front() != src || p.hops.back() != dst)
            {
                return where() + ": a path must start at the source and end at the destination";
            }
            for (size_t h = 0; h + 1 < p.hops.size(); ++h)
            {
                uint32_t a = p.hops[h];
                uint32_t b = p.hops[h + 1];
                if (a >= n || b >= n)
                {
                    return where() + ": hop server index out of range";
                }
                if (!std::binary_search(nb[a].begin(), nb[a].end(), b))
                {
                    return where() + ": hop " + std::to_string(a) + "-" + std::to_string(b) +
                           " is not a circuit";
                }
            }
            if (!(p.chance > 0) || !std::isfinite(p.chance))
            {
                return where() + ": path chance must be > 0, got " + std::to_string(p.chance);
            }
            sum += p.chance;
        }
        if (std::abs(sum - 1.0) > 1e-6)
        {
            return where() + ": path chances sum to " + std::to_string(sum) + ", not 1";
        }
        return "";
    };
    bool bad = false;
    for (const auto& [routeKey, paths] : m_routes)
    {
        if (!checkRoute(routeKey, paths).empty())
        {
            bad = true;
            break;
        }
    }
    if (bad)
    {
        std::vector<uint64_t> keys;
        for (const auto& entry : m_routes)
        {
            keys.push_back(entry.first);
        }
        std::sort(keys.begin(), keys.end());
        for (uint64_t routeKey : keys)
        {
            std::string problem = checkRoute(routeKey, m_routes.at(routeKey));
            if (!problem.empty())
            {
                Fail(problem);
            }
        }
    }
}

std::string
TopologyPlan::ToJson(int indent) const
{
    return ToJsonValue().dump(indent);
}

nlohmann::json
TopologyPlan::ToJsonValue() const
{
    Json j;
    j["format"] = "topoopt-plan";
    j["version"] = 1;
    j["servers"] = m_servers;
    j["degree"] = m_degree;
    Json planes = Json::array();
    for (const auto& plane : m_planes)
    {
        Json p = Json::array();
        for (const auto& c : plane)
        {
            p.push_back({c.first, c.second});
        }
        planes.push_back(p);
    }
    j["planes"] = planes;
    Json conn = Json::array();
    Eigen::MatrixXi counts = CircuitCounts();
    for (uint32_t a = 0; a < m_servers; ++a)
    {
        for (uint32_t b = a + 1; b < m_servers; ++b)
        {
            if (counts(a, b) > 0)
            {
                conn.push_back({{"from", a}, {"to", b}, {"nconn", counts(a, b)}});
            }
        }
    }
    j["conn"] = conn;
    Json rings = Json::array();
    for (const PlanRing& r : m_rings)
    {
        rings.push_back({{"size", r.size},
                         {"jumps", r.jumps},
                         {"bidirectional", r.bidirectional},
                         {"direct", r.direct}});
    }
    j["rings"] = rings;
    Json routes = Json::array();
    for (const auto& [key, paths] : GetAllRoutes()) // sorted: the file does not depend on hashing
    {
        Json ps = Json::array();
        for (const PlanPath& p : paths)
        {
            ps.push_back({{"hops", p.hops}, {"chance", p.chance}});
        }
        routes.push_back({{"src", key.first}, {"dst", key.second}, {"paths", ps}});
    }
    j["routes"] = routes;
    return j;
}

namespace
{

/// Largest plan read (TopologyPlan::MAX_SERVERS).
constexpr uint32_t kMaxPlanServers = TopologyPlan::MAX_SERVERS;
/// Most ports per server (planes) a plan may have.
constexpr uint32_t kMaxPlanDegree = 256;

/// A server index (range against the plan's size is checked where it is used).
uint32_t
Index(const JsonField& f)
{
    return f.AsUint32(0, kMaxPlanServers, "servers");
}

/// Run a plan operation that may throw "topology plan: ...", naming the field instead.
template <typename F>
void
At(const JsonField& f, F op)
{
    try
    {
        op();
    }
    catch (const std::invalid_argument& e)
    {
        const std::string prefix = "topology plan: ";
        std::string msg = e.what();
        f.Fail(msg.rfind(prefix, 0) == 0 ? msg.substr(prefix.size()) : msg);
    }
}

/// The circuits of "planes" (at most d planes of [a, b] pairs) into the plan.
void
ReadPlanes(const JsonField& j, uint32_t d, TopologyPlan& plan)
{
    const JsonField planes = j.At("planes");
    if (planes.IsArray() && planes.Raw().size() > d)
    {
        planes.Fail("has " + std::to_string(planes.Raw().size()) + " planes but the degree is " +
                    std::to_string(d) + " (degree exceeded)");
    }
    const std::vector<JsonField> list = planes.AsArray(d, 0, "planes");
    for (size_t p = 0; p < list.size(); ++p)
    {
        for (const JsonField& c : list[p].AsArray(kMaxPlanServers, 0, "circuits [a, b]"))
        {
            c.AsArray(2, 2, "server indices (a circuit is a pair [a, b])");
            uint32_t a = Index(c.At(size_t(0)));
            uint32_t b = Index(c.At(size_t(1)));
            At(c, [&] { plan.AddCircuit(p, a, b); });
        }
    }
}

/// "conn" is derived from "planes": it must declare exactly the plan's circuits.
void
CheckConn(const JsonField& conn, uint32_t n, const TopologyPlan& plan)
{
    Eigen::MatrixXi counts = plan.CircuitCounts();
    Eigen::MatrixXi declared = Eigen::MatrixXi::Zero(n, n);
    const uint64_t maxEntries = uint64_t(n) * n;
    for (const JsonField& c : conn.AsArray(maxEntries, 0, "entries {from, to, nconn}"))
    {
        c.CheckKeys({"from", "to", "nconn"});
        uint32_t a = c.At("from").AsUint32(0, n - 1, "servers");
        uint32_t b = c.At("to").AsUint32(0, n - 1, "servers");
        uint32_t k = c.At("nconn").AsUint32(0, kMaxPlanDegree, "circuits");
        if (a == b)
        {
            c.Fail("conn " + std::to_string(a) + "-" + std::to_string(b) + " is a self-loop");
        }
        declared(a, b) += k;
        declared(b, a) += k;
    }
    if (declared != counts)
    {
        conn.Fail("does not match the circuits of \"planes\" (it is derived; drop it or fix it)");
    }
}

/// One entry of "rings".
PlanRing
ReadRing(const JsonField& r)
{
    r.CheckKeys({"size", "jumps", "bidirectional", "direct"});
    PlanRing ring;
    ring.size = Index(r.At("size"));
    for (const JsonField& x : r.At("jumps").AsArray(kMaxPlanServers, 0, "jumps"))
    {
        ring.jumps.push_back(Index(x));
    }
    if (auto b = r.Optional("bidirectional"))
    {
        ring.bidirectional = b->AsBool();
    }
    if (auto d = r.Optional("direct"))
    {
        ring.direct = d->AsBool();
    }
    return ring;
}

/// One path of a route's "paths".
PlanPath
ReadPath(const JsonField& p)
{
    p.CheckKeys({"hops", "chance"});
    PlanPath path;
    for (const JsonField& h : p.At("hops").AsArray(kMaxPlanServers + 1, 0, "server indices"))
    {
        path.hops.push_back(Index(h));
    }
    if (auto c = p.Optional("chance"))
    {
        path.chance = c->AsDouble(0, 1, "", true);
    }
    return path;
}

/// The entries of "routes" into the plan (each source-destination pair once).
void
ReadRoutes(const JsonField& routes, TopologyPlan& plan)
{
    const uint64_t n = plan.GetServers();
    for (const JsonField& r : routes.AsArray(n * n, 0, "routes {src, dst, paths}"))
    {
        r.CheckKeys({"src", "dst", "paths"});
        uint32_t s = Index(r.At("src"));
        uint32_t t = Index(r.At("dst"));
        if (plan.HasRoutes(s, t))
        {
            r.Fail("route " + std::to_string(s) + "->" + std::to_string(t) + " is listed twice");
        }
        std::vector<PlanPath> ps;
        for (const JsonField& p : r.At("paths").AsArray(65536, 0, "paths {hops, chance}"))
        {
            ps.push_back(ReadPath(p));
        }
        plan.SetRoutes(s, t, ps);
    }
}

} // namespace

TopologyPlan
TopologyPlan::FromJson(const std::string& text, const std::string& name)
{
    return Read(JsonReader::FromText(text, name).Root());
}

TopologyPlan
TopologyPlan::Read(const JsonField& j)
{
    if (!j.IsObject())
    {
        j.Expected("a JSON object {\"format\": \"topoopt-plan\", \"servers\": n, \"degree\": d, "
                   "\"planes\": [...]}");
    }
    j.CheckKeys({"format", "version", "servers", "degree", "planes", "conn", "rings", "routes"});
    if (auto f = j.Optional("format"))
    {
        if (!f->IsString() || f->Raw() != "topoopt-plan")
        {
            f->Expected("\"topoopt-plan\"");
        }
    }
    if (auto v = j.Optional("version"))
    {
        if (!v->IsNumber() || v->Raw() != 1)
        {
            v->Expected("1 (the only version this reader knows)");
        }
    }
    uint32_t n = j.At("servers").AsUint32(1, kMaxPlanServers, "servers");
    uint32_t d = j.At("degree").AsUint32(0, kMaxPlanDegree, "ports per server");
    TopologyPlan plan(n, d);
    ReadPlanes(j, d, plan);
    if (auto conn = j.Optional("conn"))
    {
        CheckConn(*conn, n, plan);
    }
    if (auto rings = j.Optional("rings"))
    {
        for (const JsonField& r : rings->AsArray(kMaxPlanServers, 0, "rings"))
        {
            plan.AddRing(ReadRing(r));
        }
    }
    if (auto routes = j.Optional("routes"))
    {
        ReadRoutes(*routes, plan);
    }
    At(j, [&] { plan.Validate(); });
    return plan;
}

void
TopologyPlan::WriteFile(const std::string& path) const
{
    // Atomic, and staged with the run's other files inside a run (OutputFiles).
    OutputFiles::WriteText(path, ToJson() + "\n");
}

TopologyPlan
TopologyPlan::ReadFile(const std::string& path)
{
    return Read(JsonReader::FromFile(path).Root());
}

bool
TopologyPlan::operator==(const TopologyPlan& o) const
{
    return m_servers == o.m_servers && m_degree == o.m_degree && m_planes == o.m_planes &&
           m_rings == o.m_rings && m_routes == o.m_routes;
}

} // namespace ns3
