// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopologyPlan: a TopoOpt direct-connect topology, as data.
 *
 * What it models. n servers, each with d NIC ports; port i of every server is
 * cabled to optical device i (a patch panel or an OCS), the "plane" i. A plane
 * realizes a partial matching of bidirectional circuits between servers, so a
 * server has at most one circuit per plane and at most d circuits in all. The
 * union of the planes is the direct-connect multigraph: two circuits between
 * the same pair (on two planes) stay two separate links. The plan also carries
 * the all-reduce rings chosen by the topology finder (group size, jumps) and
 * the routes hosts forward along, per (src, dst): a list of paths (server
 * sequences) with the chance of taking each.
 *
 * Routes are stored on demand: only the pairs someone set (ring hops, routed
 * rings, model-parallel pairs, or every pair when asked) are held, in a hash
 * table keyed by the pair, so a plan of n servers costs O(n d) plus its routes,
 * not O(n^2). A pair without a stored route is routed by the fabric along its
 * shortest paths; "routes" is optional in the file (a plan without it loads and
 * builds the same fabric, since the fabric is built from "planes" alone).
 *
 * JSON schema (see doc/topology-finder.md):
 *   { "format": "topoopt-plan", "version": 1, "servers": n, "degree": d,
 *     "planes": [ [[a, b], ...], ... ],            // at most d planes
 *     "conn": [ {"from": a, "to": b, "nconn": c} ], // derived, optional on input
 *     "rings": [ {"size": g, "jumps": [j, ...], "bidirectional": true,
 *                 "direct": true} ],
 *     "routes": [ {"src": s, "dst": t,
 *                  "paths": [ {"hops": [s, ..., t], "chance": 1.0} ]} ] }
 *
 * What it leaves out: link rates, delays and everything timing-related (the
 * fabric helper decides them); traffic; which optical technology realizes a
 * plane.
 */
#ifndef TOPOOPT_TOPOLOGY_PLAN_H
#define TOPOOPT_TOPOLOGY_PLAN_H

#include "ns3/json-reader.h"
#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief One path of a route: the servers visited from source to destination.
 */
struct PlanPath
{
    std::vector<uint32_t> hops; //!< server sequence, hops.front() = src, hops.back() = dst
    double chance{1.0};         //!< probability of taking this path (sums to 1 per pair)

    bool operator==(const PlanPath& o) const
    {
        return hops == o.hops && chance == o.chance;
    }
};

/**
 * \brief A family of rings over all-reduce groups of one size.
 *
 * With base = n/size, jump j = base*k (gcd(k, size) = 1) visits
 * o, o+j, o+2j, ... (mod n): one ring per offset o in [0, base), each a single
 * cycle over the group {o + m*base}. A direct ring has a circuit for every hop;
 * an indirect ("logical") one is a ring order whose hops are routed over other
 * circuits (coin change).
 */
struct PlanRing
{
    uint32_t size{0};            //!< group size g (divides n)
    std::vector<uint32_t> jumps; //!< directed jumps used (j, and n-j when bidirectional)
    bool bidirectional{true};    //!< ring runs in both directions
    bool direct{true};           //!< every hop is a circuit (false: routed hops)

    bool operator==(const PlanRing& o) const
    {
        return size == o.size && jumps == o.jumps && bidirectional == o.bidirectional &&
               direct == o.direct;
    }
};

/**
 * \brief A direct-connect topology over d planes of circuits, with rings and routes.
 *
 * User mistakes (inconsistent circuits, malformed JSON) throw std::invalid_argument
 * with a one-line message naming the problem.
 */
class TopologyPlan
{
public:
    /// Most servers a plan may have: Validate and the circuit matrix hold n x n entries
    /// (4096^2 ints = 64 MiB).
    static constexpr uint32_t MAX_SERVERS = 4096;

    /// \brief An empty plan (0 servers).
    TopologyPlan();
    /**
     * \brief A plan of n servers of degree d with d empty planes.
     * \param servers number of servers n (>= 1)
     * \param degree NIC ports per server d (= number of planes)
     */
    TopologyPlan(uint32_t servers, uint32_t degree);

    /// \brief Number of servers n.
    uint32_t GetServers() const;
    /// \brief Ports per server d (= number of planes).
    uint32_t GetDegree() const;

    /**
     * \brief Add the circuit a <-> b on plane `plane`.
     *
     * Throws std::invalid_argument if the plane or a server is out of range,
     * a == b, or a or b already has a circuit on this plane.
     */
    void AddCircuit(uint32_t plane, uint32_t a, uint32_t b);
    /// \brief The circuits of one plane, in insertion order (pairs with first < second).
    const std::vector<std::pair<uint32_t, uint32_t>>& GetCircuits(uint32_t plane) const;
    /// \brief The peer of `server` on `plane`, or -1 when its port there is unused.
    int64_t GetPeer(uint32_t plane, uint32_t server) const;
    /// \brief Total number of circuits over all planes.
    uint32_t GetCircuitCount() const;

    /// \brief Record a ring family (validated against the circuits by Validate()).
    void AddRing(const PlanRing& ring);
    /// \brief Ring families, in insertion order.
    const std::vector<PlanRing>& GetRings() const;

    /// \brief Set the paths from src to dst (replaces previous ones).
    void SetRoutes(uint32_t src, uint32_t dst, const std::vector<PlanPath>& paths);
    /// \brief True if a route from src to dst is set.
    bool HasRoutes(uint32_t src, uint32_t dst) const;
    /// \brief The paths from src to dst, or null when none is stored (one lookup).
    const std::vector<PlanPath>* FindRoutes(uint32_t src, uint32_t dst) const;
    /// \brief The paths from src to dst (throws std::invalid_argument if none).
    const std::vector<PlanPath>& GetRoutes(uint32_t src, uint32_t dst) const;
    /**
     * \brief Give pairs without a route one BFS shortest path (chance 1).
     * \param rng picks uniformly among the shortest-path predecessors at each hop
     * \param want which (src, dst) pairs to route (default: every pair)
     */
    void AddShortestPathRoutes(Ptr<UniformRandomVariable> rng,
                               const std::function<bool(uint32_t, uint32_t)>& want = nullptr);
    /// \brief All routes, keyed by (src, dst): a sorted copy of the stored routes (O(routes)).
    std::map<std::pair<uint32_t, uint32_t>, std::vector<PlanPath>> GetAllRoutes() const;
    /// \brief Number of (src, dst) pairs with a stored route.
    size_t GetRouteCount() const;
    /// \brief Drop every stored route (circuits and rings stay; the fabric is unchanged).
    void ClearRoutes();

    /// \brief Circuits per server (its degree in the multigraph).
    std::vector<uint32_t> Degrees() const;
    /// \brief n x n matrix of circuit counts per pair (parallel circuits counted).
    Eigen::MatrixXi CircuitCounts() const;
    /// \brief Neighbour lists with multiplicity (a pair with 2 circuits appears twice).
    std::vector<std::vector<uint32_t>> Neighbours() const;
    /// \brief Hop distances from src by BFS over the circuits (UINT32_MAX: unreachable).
    std::vector<uint32_t> Distances(uint32_t src) const;
    /// \brief True if every server reaches every other.
    bool IsConnected() const;
    /// \brief Largest hop distance between two servers; UINT32_MAX if disconnected.
    uint32_t Diameter() const;

    /**
     * \brief Check the plan's consistency: rings realizable on its circuits
     * (direct rings) and well formed, routes follow circuits, chances sum to 1.
     * Throws std::invalid_argument naming the first problem.
     */
    void Validate() const;

    /// \brief The plan as JSON text (schema in the file comment).
    std::string ToJson(int indent = 2) const;
    /// \brief The plan as a JSON value (what ToJson() dumps), to embed in a report.
    nlohmann::json ToJsonValue() const;
    /**
     * \brief Parse and validate a plan (the entry point for fuzzing); `name` stands
     * for the file in messages. Throws std::invalid_argument "<name>: <field>: ...".
     */
    static TopologyPlan FromJson(const std::string& text, const std::string& name = "plan text");
    /// \brief Read and validate a plan from a field of a parsed document.
    static TopologyPlan Read(const JsonField& doc);
    /// \brief Write ToJson() to a file, atomically (OutputFiles::WriteText; throws
    /// std::invalid_argument on I/O failure).
    void WriteFile(const std::string& path) const;
    /// \brief Read and validate a plan from a file (every message names the file).
    static TopologyPlan ReadFile(const std::string& path);

    bool operator==(const TopologyPlan& o) const;

    bool operator!=(const TopologyPlan& o) const
    {
        return !(*this == o);
    }

private:
    /// Key of the pair (src, dst) in m_routes.
    static uint64_t RouteKey(uint32_t src, uint32_t dst)
    {
        return (uint64_t(src) << 32) | dst;
    }

    uint32_t m_servers{0};
    uint32_t m_degree{0};
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> m_planes; //!< circuits per plane
    std::vector<std::vector<int64_t>> m_peer;                         //!< peer per plane, server
    std::vector<PlanRing> m_rings;
    std::unordered_map<uint64_t, std::vector<PlanPath>> m_routes; //!< by RouteKey(src, dst)
};

} // namespace ns3

#endif // TOPOOPT_TOPOLOGY_PLAN_H
