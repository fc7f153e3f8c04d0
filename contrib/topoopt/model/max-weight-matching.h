// SPDX-License-Identifier: GPL-2.0-only
/*
 * MaxWeightMatching: maximum-weight perfect matching among a set of servers,
 * through Boost.Graph's maximum_weighted_matching (Edmonds' blossom algorithm).
 *
 * What it models. TopoOpt serves model-parallel demand with repeated
 * maximum-weight perfect matchings (the reference: a Blossom matching on the
 * complete graph, perfect by adding a constant C > sum of demands to every edge).
 *
 * Guards around Boost 1.74 (Debian's). Its maximum_weighted_matching does not
 * terminate on graphs with many equal weights (boostorg/graph#199, #223: a
 * complete graph of 16 vertices with unit weights already hangs), and on dense
 * graphs of 64-128 vertices it hangs, fails an assertion or segfaults even with
 * distinct random weights (boostorg/graph#399; we measured all three; it also
 * returned a sub-optimal matching on 1 of 2000 random 8-vertex graphs). Hence:
 *  (1) Only edges with demand go to Boost: a maximum-weight matching of that
 *      (usually sparse) graph, completed by pairing the leftover servers at
 *      random, is a maximum-weight perfect matching of the complete graph, since
 *      the leftover edges weigh 0. So no constant C is needed; adding C > sum of
 *      demands as the reference does would make every graph complete and dense,
 *      which is where Boost 1.74 fails.
 *  (2) Demands are quantized to integers (2^16 levels of the largest demand;
 *      integer weights are what the algorithm's dual updates expect) and every
 *      edge gets a random tie-breaking jitter from an ns-3 stream (~2^31 levels),
 *      scaled so that the jitter of a whole matching stays below one quantum.
 *  (3) Boost runs in a forked child process with a time limit (2 s + 5e-8 m^3 s;
 *      a fork costs ~10 ms). Small problems used to run in-process, but on the
 *      shipped profiles' dense, tied demand Boost segfaulted (12 and 14 vertices)
 *      or never returned (14 vertices). If it crashes, times out or returns mates
 *      that are no matching (seen at 18 vertices: mate[a] = b but mate[b] != a),
 *      a greedy matching (heaviest edge first) is used instead.
 *      GetBoostFailures() counts those.
 *  (4) The result is improved by 2-opt swaps (a, b)(c, d) -> (a, c)(b, d) /
 *      (a, d)(b, c) on the exact weights until none helps. GetRepairs() counts
 *      the matchings it improved.
 * With no demand at all among the servers the matching is drawn at random
 * (every perfect matching is then optimal) without calling Boost.
 *
 * What it leaves out: odd vertex counts (no perfect matching) and optimality
 * below one quantum (largest demand / 2^20).
 */
#ifndef TOPOOPT_MAX_WEIGHT_MATCHING_H
#define TOPOOPT_MAX_WEIGHT_MATCHING_H

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <Eigen/Dense>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief Maximum-weight perfect matching (Boost blossom, with the guards above).
 */
class MaxWeightMatching
{
public:
    /**
     * \param rng tie-breaking stream (jitter and random matchings); must not be null
     */
    explicit MaxWeightMatching(Ptr<UniformRandomVariable> rng);

    /**
     * \brief Maximum-weight perfect matching of `vertices` under `weight`.
     * \param weight square matrix of non-negative finite weights; weight(i,j) and
     *        weight(j,i) are added (demand in both directions of a circuit)
     * \param vertices an even number of distinct indices into `weight`
     * \return the matched pairs (first < second), sorted
     * Throws std::invalid_argument on an odd count, bad indices or bad weights.
     */
    std::vector<std::pair<uint32_t, uint32_t>> Solve(const Eigen::MatrixXd& weight,
                                                     const std::vector<uint32_t>& vertices);
    /// \brief Sum of weight(i,j) + weight(j,i) over the pairs.
    static double Weight(const Eigen::MatrixXd& weight,
                         const std::vector<std::pair<uint32_t, uint32_t>>& pairs);
    /// \brief How many times the 2-opt pass improved Boost's answer so far.
    uint32_t GetRepairs() const;
    /// \brief How many Boost runs crashed, timed out or returned no matching (greedy +
    /// 2-opt used instead).
    uint32_t GetBoostFailures() const;
    /// \brief How many times Boost was called (random matchings excluded).
    uint32_t GetBoostCalls() const;

private:
    // The phases of Solve().

    /// Checks the input; returns w(a,b) = weight(a,b) + weight(b,a) over `vertices`
    /// (zero diagonal) and sets *wmax to its largest entry.
    static Eigen::MatrixXd SymmetricWeights(const Eigen::MatrixXd& weight,
                                            const std::vector<uint32_t>& vertices,
                                            double* wmax);
    /// No demand: every perfect matching is optimal, so draw one at random.
    void RandomPerfectMatching(std::vector<int64_t>& mate) const;
    /// Boost's matching of the edges with demand (quantized and jittered weights);
    /// greedy by weight if Boost fails. Leaves servers without demand unmatched.
    void BoostMatching(const Eigen::MatrixXd& w, double wmax, std::vector<int64_t>& mate);
    /// True if every mate is -1 or a vertex mated back over an edge of positive weight.
    static bool IsMatching(const Eigen::MatrixXd& w, const std::vector<int64_t>& mate);
    /// Pairs the servers left unmatched (zero demand to each other) at random.
    void PairUnmatched(std::vector<int64_t>& mate) const;
    /// 2-opt repair on the exact weights (boostorg/graph#399); true if it improved `mate`.
    static bool TwoOptRepair(const Eigen::MatrixXd& w, std::vector<int64_t>& mate);
    /// The matching as sorted pairs of the original vertex indices.
    static std::vector<std::pair<uint32_t, uint32_t>> MatchedPairs(
        const std::vector<uint32_t>& vertices,
        const std::vector<int64_t>& mate);

    Ptr<UniformRandomVariable> m_rng;
    uint32_t m_repairs{0};
    uint32_t m_boostCalls{0};
    uint32_t m_boostFailures{0};
};

} // namespace ns3

#endif // TOPOOPT_MAX_WEIGHT_MATCHING_H
