// SPDX-License-Identifier: GPL-2.0-only
/*
 * CollectiveClosedForms: see collective-closed-forms.h for what is modelled and what
 * is left out.
 */
#include "collective-closed-forms.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
{

/// lg p as a step count: ceil(log2 p); exact for powers of two.
double
Lg(uint32_t p)
{
    return std::ceil(std::log2(static_cast<double>(p)));
}

void
CheckRanks(uint32_t p, const char* who)
{
    if (p < 1)
    {
        throw std::invalid_argument(std::string(who) + ": the number of ranks must be >= 1");
    }
}

double
BytesPerSecond(DataRate rate)
{
    return static_cast<double>(rate.GetBitRate()) / 8.0;
}

} // namespace

double
CollectiveClosedForms::RingAllGatherTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "RingAllGatherTime");
    return (p - 1) * alpha + n * (p - 1) / p * beta;
}

double
CollectiveClosedForms::RecursiveDoublingAllGatherTime(uint32_t p,
                                                      double n,
                                                      double alpha,
                                                      double beta)
{
    CheckRanks(p, "RecursiveDoublingAllGatherTime");
    return Lg(p) * alpha + n * (p - 1) / p * beta;
}

double
CollectiveClosedForms::RingReduceScatterTime(uint32_t p,
                                             double n,
                                             double alpha,
                                             double beta,
                                             double gamma)
{
    CheckRanks(p, "RingReduceScatterTime");
    return (p - 1) * alpha + n * (p - 1) / p * (beta + gamma);
}

double
CollectiveClosedForms::RecursiveHalvingReduceScatterTime(uint32_t p,
                                                         double n,
                                                         double alpha,
                                                         double beta,
                                                         double gamma)
{
    CheckRanks(p, "RecursiveHalvingReduceScatterTime");
    return Lg(p) * alpha + n * (p - 1) / p * (beta + gamma);
}

double
CollectiveClosedForms::RingAllReduceTime(uint32_t p,
                                         double n,
                                         double alpha,
                                         double beta,
                                         double gamma)
{
    CheckRanks(p, "RingAllReduceTime");
    return 2.0 * (p - 1) * alpha + 2.0 * n * (p - 1) / p * beta + n * (p - 1) / p * gamma;
}

double
CollectiveClosedForms::RabenseifnerAllReduceTime(uint32_t p,
                                                 double n,
                                                 double alpha,
                                                 double beta,
                                                 double gamma)
{
    CheckRanks(p, "RabenseifnerAllReduceTime");
    return 2.0 * Lg(p) * alpha + 2.0 * n * (p - 1) / p * beta + n * (p - 1) / p * gamma;
}

double
CollectiveClosedForms::ScatterAllGatherBroadcastTime(uint32_t p,
                                                     double n,
                                                     double alpha,
                                                     double beta)
{
    CheckRanks(p, "ScatterAllGatherBroadcastTime");
    return (Lg(p) + p - 1) * alpha + 2.0 * n * (p - 1) / p * beta;
}

double
CollectiveClosedForms::BruckAllToAllTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "BruckAllToAllTime");
    return Lg(p) * alpha + n / 2.0 * Lg(p) * beta;
}

double
CollectiveClosedForms::PairwiseAllToAllTime(uint32_t p, double n, double alpha, double beta)
{
    CheckRanks(p, "PairwiseAllToAllTime");
    return (p - 1) * alpha + n * beta;
}

double
CollectiveClosedForms::AllReduceLowerBound(uint32_t n, double bytes, DataRate injection)
{
    CheckRanks(n, "AllReduceLowerBound");
    return 2.0 * (n - 1) / n * bytes / BytesPerSecond(injection);
}

double
CollectiveClosedForms::TorusAllToAllBound(uint32_t k, uint32_t n, double m, DataRate link)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusAllToAllBound: need k >= 2 and n >= 1");
    }
    double ranks = std::pow(static_cast<double>(k), static_cast<double>(n));
    return ranks * k * m / (8.0 * BytesPerSecond(link));
}

double
CollectiveClosedForms::ClosAllToAllBound(uint32_t ranks, double m, DataRate injection)
{
    CheckRanks(ranks, "ClosAllToAllBound");
    return (ranks - 1) * m / BytesPerSecond(injection);
}

double
CollectiveClosedForms::TorusHopRatio(uint32_t k, uint32_t n)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusHopRatio: need k >= 2 and n >= 1");
    }
    if (k % 2 == 0)
    {
        return n * k / 4.0;
    }
    return n * (static_cast<double>(k) * k - 1.0) / (4.0 * k);
}

double
CollectiveClosedForms::OversubscribedClosAllToAllTime(uint32_t ranks,
                                                      uint32_t ranksPerRack,
                                                      double r,
                                                      double m,
                                                      DataRate injection)
{
    if (ranks < 2 || ranksPerRack < 1 || ranksPerRack > ranks || r <= 0)
    {
        throw std::invalid_argument("OversubscribedClosAllToAllTime: need ranks >= 2, "
                                    "1 <= ranksPerRack <= ranks and oversubscription r > 0");
    }
    double bigM = (ranks - 1) * m;
    double f = static_cast<double>(ranks - ranksPerRack) / (ranks - 1);
    return bigM / BytesPerSecond(injection) * std::max(1.0, r * f);
}

double
CollectiveClosedForms::TorusAllReduceTime(uint32_t k,
                                          uint32_t n,
                                          double bytes,
                                          DataRate link,
                                          double alpha)
{
    return TorusBucketAllReduceTime(std::vector<uint32_t>(n, k),
                                    std::vector<bool>(n, false),
                                    bytes,
                                    link,
                                    alpha);
}

double
CollectiveClosedForms::TorusPipelinedAllReduceTime(uint32_t k,
                                                   uint32_t n,
                                                   double bytes,
                                                   DataRate link,
                                                   double alpha)
{
    if (k < 2 || n < 1)
    {
        throw std::invalid_argument("TorusPipelinedAllReduceTime: need k >= 2 and n >= 1");
    }
    double ranks = std::pow(static_cast<double>(k), static_cast<double>(n));
    return 2.0 * (ranks - 1) / ranks * bytes / (2.0 * n * BytesPerSecond(link)) +
           2.0 * n * (k - 1) * alpha;
}

double
CollectiveClosedForms::TorusBucketAllReduceTime(const std::vector<uint32_t>& dims,
                                                const std::vector<bool>& degraded,
                                                double bytes,
                                                DataRate link,
                                                double alpha)
{
    if (dims.empty() || degraded.size() != dims.size())
    {
        throw std::invalid_argument("TorusBucketAllReduceTime: give k for at least one "
                                    "dimension and one degraded flag per dimension");
    }
    double b = BytesPerSecond(link);
    double perPhase = bytes; // bytes reduced in the current dimension
    double t = 0;
    for (size_t i = 0; i < dims.size(); ++i)
    {
        uint32_t k = dims[i];
        if (k < 2)
        {
            throw std::invalid_argument("TorusBucketAllReduceTime: every dimension needs k >= 2");
        }
        // Reduce-scatter then all-gather on a bidirectional ring of k: each half-ring
        // moves (k-1)/k of its half at rate b, twice. A line carries one
        // unidirectional ring only: the beta term doubles.
        double beta = 2.0 * (k - 1) / k * perPhase / (2.0 * b);
        t += (degraded[i] ? 2.0 : 1.0) * beta + 2.0 * (k - 1) * alpha;
        perPhase /= k;
    }
    return t;
}

double
CollectiveClosedForms::MeshAllReduceTime(uint32_t k,
                                         uint32_t n,
                                         double bytes,
                                         DataRate link,
                                         double alpha)
{
    return TorusBucketAllReduceTime(std::vector<uint32_t>(n, k),
                                    std::vector<bool>(n, true),
                                    bytes,
                                    link,
                                    alpha);
}

double
CollectiveClosedForms::BusBandwidth(const std::string& collective,
                                    uint32_t n,
                                    uint64_t bytes,
                                    double seconds)
{
    if (n < 1 || seconds <= 0)
    {
        throw std::invalid_argument("BusBandwidth: need n >= 1 ranks and a positive time");
    }
    double factor = 0;
    // nccl-tests' S: the whole vector for all-reduce, reduce-scatter (input),
    // all-gather (output) and broadcast; for all-to-all, a rank's whole send buffer,
    // n blocks of `bytes` (this suite's all-to-all size is per destination).
    double size = static_cast<double>(bytes);
    if (collective == "allreduce")
    {
        factor = 2.0 * (n - 1) / n;
    }
    else if (collective == "reducescatter" || collective == "allgather")
    {
        factor = static_cast<double>(n - 1) / n;
    }
    else if (collective == "alltoall")
    {
        size *= n;
        factor = static_cast<double>(n - 1) / n;
    }
    else if (collective == "broadcast" || collective == "reduce")
    {
        factor = 1.0;
    }
    else
    {
        throw std::invalid_argument("BusBandwidth: unknown collective '" + collective +
                                    "'; use allreduce, reducescatter, allgather, alltoall, "
                                    "broadcast or reduce");
    }
    return size / seconds * factor;
}

} // namespace ns3
