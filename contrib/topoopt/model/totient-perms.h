// SPDX-License-Identifier: GPL-2.0-only
/*
 * TotientPerms: the candidate ring permutations of TopoOpt (Wang et al., NSDI'23).
 *
 * What it models. For n servers and every group size g dividing n, with
 * base = n/g, the jumps J_g = { base*k : 1 <= k <= g, gcd(k, g) = 1 } each give
 * the permutation i -> (i + j) mod n, whose cycles are the n/g rings over the
 * groups {o, o+base, o+2*base, ...}; |J_g| = phi(g), Euler's totient. A ring
 * all-reduce moves the same bytes over any of these ring orders, so the
 * topology finder may pick whichever jumps give a low diameter. The geometric
 * selection walks from min(J_g) to max(J_g) by a constant ratio and takes the
 * smallest unused candidate at or above each point; a bidirectional ring with
 * jump j also uses n - j.
 *
 * What it leaves out: which group sizes matter (the finder decides from the
 * traffic) and the physical realization of a ring on circuits.
 */
#ifndef TOPOOPT_TOTIENT_PERMS_H
#define TOPOOPT_TOTIENT_PERMS_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief Candidate ring jumps for every group size dividing n, and their selection.
 */
class TotientPerms
{
public:
    /**
     * \brief Candidates for n servers.
     * \param servers n (>= 1; throws std::invalid_argument otherwise)
     */
    explicit TotientPerms(uint32_t servers);

    /// \brief Number of servers n.
    uint32_t GetServers() const;
    /// \brief Every g dividing n, ascending (1 and n included).
    std::vector<uint32_t> GroupSizes() const;
    /**
     * \brief J_g, ascending: base*k for 1 <= k <= g with gcd(k, g) = 1, base = n/g.
     * For g = 1 this is {n} (the identity). Throws std::invalid_argument if g does
     * not divide n.
     */
    std::vector<uint32_t> Candidates(uint32_t groupSize) const;
    /**
     * \brief Geometric selection of `rings` rings for group size g.
     *
     * Walks v_i = min * ratio^i, i = 0..rings-1, with ratio = (max/min)^(1/rings)
     * when bidirectional and (max/min)^(1/(rings-1)) otherwise, and takes the
     * smallest unused candidate >= v_i (the smallest unused one if none is >= v_i).
     * When bidirectional, n - j is marked used with j.
     * \return the chosen primary jumps j, in selection order (n - j not listed);
     *         fewer than `rings` when the candidates run out
     */
    std::vector<uint32_t> SelectRings(uint32_t groupSize, uint32_t rings, bool bidirectional) const;
    /// \brief Distinct rings group size g can have: phi(g)/2 bidirectional (g >= 3),
    /// phi(g) unidirectional (g >= 3), 1 for g = 2, 0 for g = 1.
    uint32_t MaxRings(uint32_t groupSize, bool bidirectional) const;
    /// \brief The members of the ring with this jump through `offset`, in visiting order.
    std::vector<uint32_t> RingMembers(uint32_t groupSize, uint32_t jump, uint32_t offset) const;
    /// \brief Euler's totient by trial division.
    static uint32_t EulerPhi(uint32_t g);

private:
    void CheckGroupSize(uint32_t g) const;
    uint32_t m_servers;
};

} // namespace ns3

#endif // TOPOOPT_TOTIENT_PERMS_H
