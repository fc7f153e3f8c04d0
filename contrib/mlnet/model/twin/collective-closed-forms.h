// SPDX-License-Identifier: GPL-2.0-only
/*
 * CollectiveClosedForms: closed-form times and bounds of collectives from the
 * literature, for reports and as cross-checks of the twin and of packet-level runs.
 *
 * What it models. The alpha-beta costs of the classic MPI algorithms (Thakur,
 * Rabenseifner, Gropp, IJHPCA 2005: ring, recursive doubling/halving, Rabenseifner,
 * scatter + all-gather, Bruck, pairwise exchange; n = total bytes, p ranks, alpha s,
 * beta and gamma s/byte), the all-reduce bandwidth lower bound (Patarasuk & Yuan,
 * JPDC 2009), the torus all-to-all channel-load bound and average hops (Dally &
 * Towles), the Clos all-to-all bound, and the derived formulas of
 * doc/alpha-beta-model.md: oversubscribed two-level Clos all-to-all, bucket and
 * pipelined torus all-reduce, degraded (line) dimensions and meshes. BusBandwidth
 * converts a time to nccl-tests' bus bandwidth.
 *
 * What it leaves out. Everything a fabric adds to the textbook cost: routes, link
 * sharing and contention, packetization (see Packetization and AlphaBetaModel for
 * the fabric-aware twin), per-hop latency beyond alpha; lg p is ceil(log2 p), exact
 * only for powers of two.
 */
#ifndef MLNET_COLLECTIVE_CLOSED_FORMS_H
#define MLNET_COLLECTIVE_CLOSED_FORMS_H

#include "ns3/data-rate.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Closed-form collective times and bounds (static; seconds unless stated).
 */
class CollectiveClosedForms
{
public:
    // alpha s, beta and gamma s/byte, bytes.
    // Sources: Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication
    // Operations in MPICH", IJHPCA 19(1), 2005 (n = total bytes, p ranks).

    /// Ring all-gather: (p-1)alpha + n(p-1)/p beta  [Thakur et al. 2005]
    static double RingAllGatherTime(uint32_t p, double n, double alpha, double beta);
    /// Recursive-doubling all-gather: lg p alpha + n(p-1)/p beta  [Thakur et al. 2005]
    static double RecursiveDoublingAllGatherTime(uint32_t p, double n, double alpha, double beta);
    /// Ring/pairwise reduce-scatter: (p-1)alpha + n(p-1)/p (beta+gamma)  [Thakur et al. 2005]
    static double RingReduceScatterTime(uint32_t p,
                                        double n,
                                        double alpha,
                                        double beta,
                                        double gamma);
    /// Recursive-halving reduce-scatter: lg p alpha + n(p-1)/p (beta+gamma)  [Thakur 2005]
    static double RecursiveHalvingReduceScatterTime(uint32_t p,
                                                    double n,
                                                    double alpha,
                                                    double beta,
                                                    double gamma);
    /// Ring all-reduce: 2(p-1)alpha + 2n(p-1)/p beta + n(p-1)/p gamma  [Thakur et al. 2005]
    static double RingAllReduceTime(uint32_t p, double n, double alpha, double beta, double gamma);
    /// Rabenseifner all-reduce: 2 lg p alpha + 2n(p-1)/p beta + n(p-1)/p gamma  [Thakur 2005]
    static double RabenseifnerAllReduceTime(uint32_t p,
                                            double n,
                                            double alpha,
                                            double beta,
                                            double gamma);
    /// Scatter + ring all-gather broadcast: (lg p + p-1)alpha + 2n(p-1)/p beta  [Thakur 2005]
    static double ScatterAllGatherBroadcastTime(uint32_t p, double n, double alpha, double beta);
    /// Bruck all-to-all: lg p alpha + (n/2) lg p beta  [Thakur et al. 2005]
    static double BruckAllToAllTime(uint32_t p, double n, double alpha, double beta);
    /// Pairwise-exchange all-to-all: (p-1)alpha + n beta  [Thakur et al. 2005]
    static double PairwiseAllToAllTime(uint32_t p, double n, double alpha, double beta);

    /**
     * \brief All-reduce lower bound 2(N-1)/N * S/B [Patarasuk & Yuan, JPDC 69(2), 2009].
     * \param n ranks \param bytes S \param injection B, per-rank injection bandwidth
     */
    static double AllReduceLowerBound(uint32_t n, double bytes, DataRate injection);
    /**
     * \brief Torus all-to-all bound N*k*m/(8b) for a k-ary n-cube (k even), from the
     * worst channel load gamma_max = k/8 per unit injection [Dally & Towles, ch. 3].
     * \param k radix \param n dimensions \param m bytes per pair \param link b per direction
     */
    static double TorusAllToAllBound(uint32_t k, uint32_t n, double m, DataRate link);
    /// Clos all-to-all bound (N-1)*m/B (non-blocking, per-node injection B).
    static double ClosAllToAllBound(uint32_t ranks, double m, DataRate injection);
    /**
     * \brief Average minimal hops of a k-ary n-cube, H_min = nk/4 (k even),
     * n(k^2-1)/(4k) (k odd) [Dally & Towles]; also the torus/Clos all-to-all ratio at
     * equal injection bandwidth (B = 2n b).
     */
    static double TorusHopRatio(uint32_t k, uint32_t n);
    /**
     * \brief Oversubscribed two-level Clos all-to-all (derived):
     * T = M/B * max(1, r (N - n_r)/(N - 1)), M = (N-1) m.
     * \param ranks N \param ranksPerRack n_r \param r oversubscription (1 = non-blocking)
     * \param m bytes per pair \param injection B per node
     */
    static double OversubscribedClosAllToAllTime(uint32_t ranks,
                                                 uint32_t ranksPerRack,
                                                 double r,
                                                 double m,
                                                 DataRate injection);
    /**
     * \brief Torus all-reduce, one bidirectional ring per dimension, dimension by
     * dimension (bucket; Jain & Sabharwal, ICS 2010): 2(N-1)/N S/(2b) + 2n(k-1) alpha.
     */
    static double TorusAllReduceTime(uint32_t k,
                                     uint32_t n,
                                     double bytes,
                                     DataRate link,
                                     double alpha);
    /**
     * \brief Torus all-reduce as n concurrent pipelines on S/n each with rotated
     * dimension orders (derived): 2(N-1)/N S/(2nb) + 2n(k-1) alpha.
     */
    static double TorusPipelinedAllReduceTime(uint32_t k,
                                              uint32_t n,
                                              double bytes,
                                              DataRate link,
                                              double alpha);
    /**
     * \brief Bucket all-reduce on a torus whose dimensions may be degraded (derived).
     *
     * Dimensions are processed in the given order; dimension i reduces S_i =
     * S / prod_{j<i} k_j bytes with beta term 2 (k_i-1)/k_i S_i / (2b), doubled when
     * degraded[i] (a failed link turns its rings into lines; a mesh slice has no
     * wraparound), plus 2 (k_i - 1) alpha. With nothing degraded this equals
     * TorusAllReduceTime.
     * \param dims k per dimension, in processing order
     * \param degraded per dimension: true if that dimension is a line, not a ring
     */
    static double TorusBucketAllReduceTime(const std::vector<uint32_t>& dims,
                                           const std::vector<bool>& degraded,
                                           double bytes,
                                           DataRate link,
                                           double alpha);
    /// Mesh (no wraparound) all-reduce: every dimension's beta term doubles (derived).
    static double MeshAllReduceTime(uint32_t k,
                                    uint32_t n,
                                    double bytes,
                                    DataRate link,
                                    double alpha);

    /**
     * \brief nccl-tests bus bandwidth (doc/PERFORMANCE.md): busbw = S/t * factor.
     * \param collective "allreduce" (2(n-1)/n), "reducescatter", "allgather", "alltoall"
     * ((n-1)/n), "broadcast", "reduce" (1)
     * \param bytes this suite's size (Collective::Setup): S for every collective but
     * all-to-all, whose `bytes` go to each destination, so S = n x bytes (a rank's whole
     * send buffer, as nccl-tests counts it)
     * \return bytes per second
     */
    static double BusBandwidth(const std::string& collective,
                               uint32_t n,
                               uint64_t bytes,
                               double seconds);
};

} // namespace ns3

#endif // MLNET_COLLECTIVE_CLOSED_FORMS_H
