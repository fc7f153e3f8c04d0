// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of CollectiveClosedForms: the closed forms against textbook numbers and
 * against each other (the step model's agreement with them is in
 * alpha-beta-model-test.cc).
 */
#include "ns3/collective-closed-forms.h"
#include "ns3/data-rate.h"

#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(CollectiveClosedFormsTest, ThakurClosedFormsTextbookNumbers)
{
    const double a = 1e-6; // alpha 1 us
    const double b = 1e-9; // beta 1 ns/B (1 GB/s)
    const double g = 2e-10;
    const double n = 1e6; // 1 MB
    // Ring all-reduce, p = 4: 2*3*a + 2*n*3/4*b + n*3/4*g = 6 us + 1.5 ms + 150 us
    EXPECT_NEAR(CollectiveClosedForms::RingAllReduceTime(4, n, a, b, g),
                6e-6 + 1.5e-3 + 1.5e-4,
                1e-15);
    // Rabenseifner, p = 8: 2*3*a + 2*n*7/8*b + n*7/8*g = 6 us + 1.75 ms + 175 us
    EXPECT_NEAR(CollectiveClosedForms::RabenseifnerAllReduceTime(8, n, a, b, g),
                6e-6 + 1.75e-3 + 1.75e-4,
                1e-15);
    // Ring all-gather p = 8: 7a + n*7/8*b; recursive doubling: 3a + n*7/8*b
    EXPECT_NEAR(CollectiveClosedForms::RingAllGatherTime(8, n, a, b), 7e-6 + 8.75e-4, 1e-15);
    EXPECT_NEAR(CollectiveClosedForms::RecursiveDoublingAllGatherTime(8, n, a, b),
                3e-6 + 8.75e-4,
                1e-15);
    // Bruck, p = 16: 4a + n/2*4*b = 4 us + 2 ms; pairwise: 15a + n*b = 15 us + 1 ms
    EXPECT_NEAR(CollectiveClosedForms::BruckAllToAllTime(16, n, a, b), 4e-6 + 2e-3, 1e-15);
    EXPECT_NEAR(CollectiveClosedForms::PairwiseAllToAllTime(16, n, a, b), 15e-6 + 1e-3, 1e-15);
    // Broadcast p = 8: (3 + 7)a + 2n*7/8*b
    EXPECT_NEAR(CollectiveClosedForms::ScatterAllGatherBroadcastTime(8, n, a, b),
                1e-5 + 1.75e-3,
                1e-15);

    // Composition: all-reduce = reduce-scatter + all-gather, for both families.
    for (uint32_t p : {2u, 4u, 8u, 64u})
    {
        EXPECT_NEAR(CollectiveClosedForms::RingAllReduceTime(p, n, a, b, g),
                    CollectiveClosedForms::RingReduceScatterTime(p, n, a, b, g) +
                        CollectiveClosedForms::RingAllGatherTime(p, n, a, b),
                    1e-15);
        EXPECT_NEAR(CollectiveClosedForms::RabenseifnerAllReduceTime(p, n, a, b, g),
                    CollectiveClosedForms::RecursiveHalvingReduceScatterTime(p, n, a, b, g) +
                        CollectiveClosedForms::RecursiveDoublingAllGatherTime(p, n, a, b),
                    1e-15);
    }
}

TEST(CollectiveClosedFormsTest, RingMeetsAllReduceLowerBound)
{
    // Patarasuk & Yuan: T >= 2(N-1)/N * S/B; a bandwidth-only ring (alpha = gamma = 0,
    // beta = 1/B) meets it. 100 Gb/s = 12.5 GB/s; N = 16, S = 1 GB -> 0.15 s.
    DataRate b("100Gbps");
    EXPECT_NEAR(CollectiveClosedForms::AllReduceLowerBound(16, 1e9, b),
                2.0 * 15 / 16 * 1e9 / 12.5e9,
                1e-12);
    EXPECT_NEAR(CollectiveClosedForms::RingAllReduceTime(16, 1e9, 0, 1 / 12.5e9, 0),
                CollectiveClosedForms::AllReduceLowerBound(16, 1e9, b),
                1e-12);
}

TEST(CollectiveClosedFormsTest, TorusVersusClosAllToAll)
{
    // Torus bound N*k*m/(8b); Clos bound (N-1)*m/B. At equal injection B = 2n*b the
    // ratio is nk/4 * N/(N-1), i.e. H_min (Dally & Towles) up to the self-traffic term.
    DataRate b("100Gbps");
    const double m = 1e6;
    // 8x8x8: N = 512, k = 8: 512*8*1e6/(8*12.5e9) = 0.04096 s
    EXPECT_NEAR(CollectiveClosedForms::TorusAllToAllBound(8, 3, m, b), 0.04096, 1e-12);
    EXPECT_DOUBLE_EQ(CollectiveClosedForms::TorusHopRatio(8, 3), 6.0);
    EXPECT_DOUBLE_EQ(CollectiveClosedForms::TorusHopRatio(5, 2), 2.0 * 24 / 20); // n(k^2-1)/(4k)
    for (uint32_t k : {4u, 8u, 16u})
    {
        for (uint32_t n : {1u, 2u, 3u})
        {
            double nodes = std::pow(k, n);
            DataRate injection(2 * n * b.GetBitRate());
            double ratio = CollectiveClosedForms::TorusAllToAllBound(k, n, m, b) /
                           CollectiveClosedForms::ClosAllToAllBound(nodes, m, injection);
            EXPECT_NEAR(ratio,
                        CollectiveClosedForms::TorusHopRatio(k, n) * nodes / (nodes - 1),
                        1e-9)
                << "k=" << k << " n=" << n;
        }
    }
}

TEST(CollectiveClosedFormsTest, OversubscribedClosAllToAll)
{
    DataRate b("8Gbps"); // 1 GB/s
    const double m = 1e6;
    // Non-blocking: M/B = 7 ms for N = 8.
    EXPECT_NEAR(CollectiveClosedForms::OversubscribedClosAllToAllTime(8, 4, 1, m, b), 7e-3, 1e-15);
    // r = 4, n_r = 4: r*(N-n_r)/(N-1) = 16/7 -> 16 ms (16 cross-rack pairs per uplink).
    EXPECT_NEAR(CollectiveClosedForms::OversubscribedClosAllToAllTime(8, 4, 4, m, b), 16e-3, 1e-15);
    // r = 1.5: r*f = 6/7 < 1, no slowdown.
    EXPECT_NEAR(CollectiveClosedForms::OversubscribedClosAllToAllTime(8, 4, 1.5, m, b),
                7e-3,
                1e-15);
    EXPECT_THROW(CollectiveClosedForms::OversubscribedClosAllToAllTime(8, 9, 1, m, b),
                 std::invalid_argument);
}

TEST(CollectiveClosedFormsTest, TorusAllReduceFailuresAndMesh)
{
    DataRate link("8Gbps"); // b = 1 GB/s
    const double s = 64e6;
    const double a = 2e-6;
    // 4x4x4: 2(N-1)/N * S/(2b) + 2n(k-1)a = 2*63/64*32e-3 + 18*2e-6
    const double healthy = 2.0 * 63 / 64 * 32e-3 + 18 * 2e-6;
    EXPECT_NEAR(CollectiveClosedForms::TorusAllReduceTime(4, 3, s, link, a), healthy, 1e-12);
    // n pipelines on S/n with rotated orders meet the lower bound at injection 2nb.
    EXPECT_NEAR(CollectiveClosedForms::TorusPipelinedAllReduceTime(4, 3, s, link, 0),
                CollectiveClosedForms::AllReduceLowerBound(64, s, DataRate(6 * link.GetBitRate())),
                1e-12);
    // Per-dimension beta terms: 2*(3/4)*S_i/(2b) with S_i = S, S/4, S/16.
    const double beta0 = 1.5 * s / 2e9;
    const double beta1 = beta0 / 4;
    const double beta2 = beta0 / 16;
    EXPECT_NEAR(beta0 + beta1 + beta2 + 18 * a, healthy, 1e-12);
    // A failed link in the first-processed dimension doubles its (largest) beta term;
    // processed last, it doubles the smallest. Mesh: every term doubles.
    EXPECT_NEAR(CollectiveClosedForms::TorusBucketAllReduceTime({4, 4, 4},
                                                                {true, false, false},
                                                                s,
                                                                link,
                                                                a),
                healthy + beta0,
                1e-12);
    EXPECT_NEAR(CollectiveClosedForms::TorusBucketAllReduceTime({4, 4, 4},
                                                                {false, false, true},
                                                                s,
                                                                link,
                                                                a),
                healthy + beta2,
                1e-12);
    EXPECT_NEAR(CollectiveClosedForms::MeshAllReduceTime(4, 3, s, link, a),
                healthy + beta0 + beta1 + beta2,
                1e-12);
}

TEST(CollectiveClosedFormsTest, BusBandwidthFactors)
{
    // nccl-tests: busbw = S/t * factor.
    EXPECT_DOUBLE_EQ(CollectiveClosedForms::BusBandwidth("allreduce", 8, 1000000000, 1.0), 1.75e9);
    EXPECT_DOUBLE_EQ(CollectiveClosedForms::BusBandwidth("allgather", 8, 1000000000, 1.0), 0.875e9);
    EXPECT_DOUBLE_EQ(CollectiveClosedForms::BusBandwidth("reducescatter", 8, 1000000000, 2.0),
                     0.4375e9);
    // All-to-all: 1e9 bytes to each of 4 ranks is S = 4e9 (nccl-tests' send buffer).
    EXPECT_DOUBLE_EQ(CollectiveClosedForms::BusBandwidth("alltoall", 4, 1000000000, 1.0), 3e9);
    EXPECT_DOUBLE_EQ(CollectiveClosedForms::BusBandwidth("broadcast", 8, 1000000000, 1.0), 1e9);
    EXPECT_THROW(CollectiveClosedForms::BusBandwidth("allreduse", 8, 1, 1.0),
                 std::invalid_argument);
}
