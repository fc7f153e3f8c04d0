// SPDX-License-Identifier: GPL-2.0-only
#include "topology-plan.h"

#include "ns3/output-files.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
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
GetIndex(const Json& j, const std::string& where)
{
    if (!j.is_number_unsigned())
    {
        if (j.is_number_integer() && j.get<int64_t>() < 0)
        {
            Fail(where + " is negative (" + j.dump() + "); use an index >= 0");
        }
        Fail(where + " must be a non-negative integer, got " + j.dump());
    }
    uint64_t v = j.get<uint64_t>();
    if (v > std::numeric_limits<uint32_t>::max())
    {
        Fail(where + " is too large (" + j.dump() + ")");
    }
    return static_cast<uint32_t>(v);
}

const Json&
Field(const Json& obj, const std::string& key, const std::string& where)
{
    auto it = obj.find(key);
    if (it == obj.end())
    {
        Fail(where + " lacks the field \"" + key + "\"");
    }
    return *it;
}

uint32_t
Gcd(uint32_t a, uint32_t b)
{
    return std::gcd(a, b);
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
    m_routes[{src, dst}] = paths;
}

bool
TopologyPlan::HasRoutes(uint32_t src, uint32_t dst) const
{
    return m_routes.count({src, dst}) > 0;
}

const std::vector<PlanPath>&
TopologyPlan::GetRoutes(uint32_t src, uint32_t dst) const
{
    auto it = m_routes.find({src, dst});
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
    const uint32_t unreached = std::numeric_limits<uint32_t>::max();
    std::vector<std::vector<uint32_t>> nb = Neighbours();
    for (auto& v : nb)
    {
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        std::vector<uint32_t> dist;
        for (uint32_t t = 0; t < m_servers; ++t)
        {
            if (s == t || HasRoutes(s, t) || (want && !want(s, t)))
            {
                continue;
            }
            if (dist.empty())
            {
                dist = Distances(s);
            }
            if (dist[t] == unreached)
            {
                Fail("no path from " + std::to_string(s) + " to " + std::to_string(t) +
                     ": the circuits do not connect them");
            }
            std::vector<uint32_t> rev{t};
            uint32_t v = t;
            while (v != s)
            {
                std::vector<uint32_t> preds;
                for (uint32_t u : nb[v])
                {
                    if (dist[u] + 1 == dist[v])
                    {
                        preds.push_back(u);
                    }
                }
                v = preds[preds.size() == 1 ? 0 : rng->GetInteger(0, preds.size() - 1)];
                rev.push_back(v);
            }
            SetRoutes(s, t, {PlanPath{std::vector<uint32_t>(rev.rbegin(), rev.rend()), 1.0}});
        }
    }
}

const std::map<std::pair<uint32_t, uint32_t>, std::vector<PlanPath>>&
TopologyPlan::GetAllRoutes() const
{
    return m_routes;
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
    BglGraph g(m_servers);
    for (const auto& plane : m_planes)
    {
        for (const auto& c : plane)
        {
            boost::add_edge(c.first, c.second, g);
        }
    }
    std::vector<uint32_t> dist(m_servers, std::numeric_limits<uint32_t>::max());
    dist[src] = 0;
    boost::breadth_first_search(g,
                                boost::vertex(src, g),
                                boost::visitor(boost::make_bfs_visitor(
                                    boost::record_distances(dist.data(), boost::on_tree_edge()))));
    return dist;
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
    uint32_t diameter = 0;
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        for (uint32_t d : Distances(s))
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
    Eigen::MatrixXi counts = CircuitCounts();
    const uint32_t n = m_servers;
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
                    if (counts(i, k) == 0)
                    {
                        Fail(where + " jump " + std::to_string(j) + ": no circuit " +
                             std::to_string(i) + "-" + std::to_string(k) +
                             " for a direct ring hop");
                    }
                }
            }
        }
    }
    for (const auto& [key, paths] : m_routes)
    {
        std::string where =
            "route " + std::to_string(key.first) + "->" + std::to_string(key.second);
        if (key.first >= n || key.second >= n)
        {
            Fail(where + ": server index out of range (servers 0.." + std::to_string(n - 1) + ")");
        }
        if (key.first == key.second)
        {
            Fail(where + " goes from a server to itself");
        }
        if (paths.empty())
        {
            Fail(where + " has no paths");
        }
        double sum = 0;
        for (const PlanPath& p : paths)
        {
            if (p.hops.size() < 2 || p.hops.front() != key.first || p.hops.back() != key.second)
            {
                Fail(where + ": a path must start at the source and end at the destination");
            }
            for (size_t h = 0; h + 1 < p.hops.size(); ++h)
            {
                uint32_t a = p.hops[h];
                uint32_t b = p.hops[h + 1];
                if (a >= n || b >= n)
                {
                    Fail(where + ": hop server index out of range");
                }
                if (counts(a, b) == 0)
                {
                    Fail(where + ": hop " + std::to_string(a) + "-" + std::to_string(b) +
                         " is not a circuit");
                }
            }
            if (!(p.chance > 0) || !std::isfinite(p.chance))
            {
                Fail(where + ": path chance must be > 0, got " + std::to_string(p.chance));
            }
            sum += p.chance;
        }
        if (std::abs(sum - 1.0) > 1e-6)
        {
            Fail(where + ": path chances sum to " + std::to_string(sum) + ", not 1");
        }
    }
}

std::string
TopologyPlan::ToJson(int indent) const
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
    for (const auto& [key, paths] : m_routes)
    {
        Json ps = Json::array();
        for (const PlanPath& p : paths)
        {
            ps.push_back({{"hops", p.hops}, {"chance", p.chance}});
        }
        routes.push_back({{"src", key.first}, {"dst", key.second}, {"paths", ps}});
    }
    j["routes"] = routes;
    return j.dump(indent);
}

namespace
{

/// The parsed document, checked to be a plan object of a known format and version.
Json
ParsePlanDocument(const std::string& text)
{
    Json j;
    try
    {
        j = Json::parse(text);
    }
    catch (const Json::exception& e)
    {
        std::string msg = e.what();
        Fail("malformed JSON (" + msg.substr(0, msg.find('\n')) + ")");
    }
    if (!j.is_object())
    {
        Fail("the document must be a JSON object");
    }
    if (j.contains("format") && j["format"] != "topoopt-plan")
    {
        Fail("\"format\" is " + j["format"].dump() + ", expected \"topoopt-plan\"");
    }
    if (j.contains("version") && j["version"] != 1)
    {
        Fail("unsupported \"version\" " + j["version"].dump() + " (this reader knows 1)");
    }
    return j;
}

/// The circuits of "planes" (at most d planes of [a, b] pairs) into the plan.
void
ReadPlanes(const Json& j, uint32_t d, TopologyPlan& plan)
{
    const Json& planes = Field(j, "planes", "the plan");
    if (!planes.is_array())
    {
        Fail("\"planes\" must be an array of planes");
    }
    if (planes.size() > d)
    {
        Fail("\"planes\" has " + std::to_string(planes.size()) + " planes but the degree is " +
             std::to_string(d) + " (degree exceeded)");
    }
    for (size_t p = 0; p < planes.size(); ++p)
    {
        std::string where = "plane " + std::to_string(p);
        if (!planes[p].is_array())
        {
            Fail(where + " must be an array of [a, b] pairs");
        }
        for (const Json& c : planes[p])
        {
            if (!c.is_array() || c.size() != 2)
            {
                Fail(where + ": a circuit must be a pair [a, b], got " + c.dump());
            }
            plan.AddCircuit(p,
                            GetIndex(c[0], where + " circuit"),
                            GetIndex(c[1], where + " circuit"));
        }
    }
}

/// "conn" is derived from "planes": it must declare exactly the plan's circuits.
void
CheckConn(const Json& j, uint32_t n, const TopologyPlan& plan)
{
    const Json& conn = j["conn"];
    if (!conn.is_array())
    {
        Fail("\"conn\" must be an array");
    }
    Eigen::MatrixXi counts = plan.CircuitCounts();
    Eigen::MatrixXi declared = Eigen::MatrixXi::Zero(n, n);
    for (const Json& c : conn)
    {
        if (!c.is_object())
        {
            Fail("\"conn\" entries must be objects {from, to, nconn}");
        }
        uint32_t a = GetIndex(Field(c, "from", "a conn entry"), "conn \"from\"");
        uint32_t b = GetIndex(Field(c, "to", "a conn entry"), "conn \"to\"");
        uint32_t k = GetIndex(Field(c, "nconn", "a conn entry"), "conn \"nconn\"");
        if (a >= n || b >= n || a == b)
        {
            Fail("conn " + std::to_string(a) + "-" + std::to_string(b) +
                 ": server index out of range or a self-loop");
        }
        declared(a, b) += k;
        declared(b, a) += k;
    }
    if (declared != counts)
    {
        Fail("\"conn\" does not match the circuits of \"planes\" (it is derived; drop it "
             "or fix it)");
    }
}

/// One entry of "rings".
PlanRing
ReadRing(const Json& r)
{
    if (!r.is_object())
    {
        Fail("a ring must be an object {size, jumps, bidirectional, direct}");
    }
    PlanRing ring;
    ring.size = GetIndex(Field(r, "size", "a ring"), "ring \"size\"");
    const Json& jumps = Field(r, "jumps", "a ring");
    if (!jumps.is_array())
    {
        Fail("ring \"jumps\" must be an array");
    }
    for (const Json& x : jumps)
    {
        ring.jumps.push_back(GetIndex(x, "ring jump"));
    }
    if (r.contains("bidirectional"))
    {
        if (!r["bidirectional"].is_boolean())
        {
            Fail("ring \"bidirectional\" must be true or false");
        }
        ring.bidirectional = r["bidirectional"].get<bool>();
    }
    if (r.contains("direct"))
    {
        if (!r["direct"].is_boolean())
        {
            Fail("ring \"direct\" must be true or false");
        }
        ring.direct = r["direct"].get<bool>();
    }
    return ring;
}

/// One path of a route's "paths".
PlanPath
ReadPath(const Json& p)
{
    if (!p.is_object())
    {
        Fail("a path must be an object {hops, chance}");
    }
    PlanPath path;
    const Json& hops = Field(p, "hops", "a path");
    if (!hops.is_array())
    {
        Fail("path \"hops\" must be an array of server indices");
    }
    for (const Json& h : hops)
    {
        path.hops.push_back(GetIndex(h, "path hop"));
    }
    if (p.contains("chance"))
    {
        if (!p["chance"].is_number())
        {
            Fail("path \"chance\" must be a number");
        }
        path.chance = p["chance"].get<double>();
    }
    return path;
}

/// The entries of "routes" into the plan (each source-destination pair once).
void
ReadRoutes(const Json& routes, TopologyPlan& plan)
{
    for (const Json& r : routes)
    {
        if (!r.is_object())
        {
            Fail("a route must be an object {src, dst, paths}");
        }
        uint32_t s = GetIndex(Field(r, "src", "a route"), "route \"src\"");
        uint32_t t = GetIndex(Field(r, "dst", "a route"), "route \"dst\"");
        if (plan.HasRoutes(s, t))
        {
            Fail("route " + std::to_string(s) + "->" + std::to_string(t) + " is listed twice");
        }
        const Json& paths = Field(r, "paths", "a route");
        if (!paths.is_array())
        {
            Fail("route \"paths\" must be an array");
        }
        std::vector<PlanPath> ps;
        for (const Json& p : paths)
        {
            ps.push_back(ReadPath(p));
        }
        plan.SetRoutes(s, t, ps);
    }
}

} // namespace

TopologyPlan
TopologyPlan::FromJson(const std::string& text)
{
    const Json j = ParsePlanDocument(text);
    uint32_t n = GetIndex(Field(j, "servers", "the plan"), "\"servers\"");
    uint32_t d = GetIndex(Field(j, "degree", "the plan"), "\"degree\"");
    if (n == 0)
    {
        Fail("\"servers\" is 0; a plan needs at least 1 server");
    }
    TopologyPlan plan(n, d);
    ReadPlanes(j, d, plan);
    if (j.contains("conn"))
    {
        CheckConn(j, n, plan);
    }
    if (j.contains("rings"))
    {
        if (!j["rings"].is_array())
        {
            Fail("\"rings\" must be an array");
        }
        for (const Json& r : j["rings"])
        {
            plan.AddRing(ReadRing(r));
        }
    }
    if (j.contains("routes"))
    {
        if (!j["routes"].is_array())
        {
            Fail("\"routes\" must be an array");
        }
        ReadRoutes(j["routes"], plan);
    }
    plan.Validate();
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
    std::ifstream in(path);
    if (!in)
    {
        Fail("cannot read \"" + path + "\"");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return FromJson(ss.str());
}

bool
TopologyPlan::operator==(const TopologyPlan& o) const
{
    return m_servers == o.m_servers && m_degree == o.m_degree && m_planes == o.m_planes &&
           m_rings == o.m_rings && m_routes == o.m_routes;
}

} // namespace ns3
