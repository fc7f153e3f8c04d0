// SPDX-License-Identifier: GPL-2.0-only
/*
 * DcqcnRateControl against DCQCN's arithmetic worked by hand (Zhu et al., SIGCOMM
 * 2015): the first CNP halves the rate (alpha = 1); alpha's moving average with gain g
 * and its decay; fast recovery halves the gap to the target rate in each of F steps;
 * additive and hyper increase add R_AI and i * R_HAI to the target; the rate stays
 * between MinRate and the line rate; bad parameters throw.
 */
#include "ns3/dcqcn-rate-control.h"

#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

constexpr double kLine = 100e9;
constexpr double kG = 1.0 / 256;

DcqcnRateControl::Parameters
Params()
{
    DcqcnRateControl::Parameters p;
    p.lineRate = kLine;
    p.minRate = 100e6;
    p.g = kG;
    p.fastRecoverySteps = 5;
    p.rateAi = 40e6;
    p.rateHai = 400e6;
    p.byteCounter = 1000;
    return p;
}

} // namespace

TEST(DcqcnRateControlTest, StartsAtLineRateAndFirstCnpHalvesIt)
{
    DcqcnRateControl cc(Params());
    EXPECT_EQ(cc.GetRate(), kLine);
    EXPECT_TRUE(cc.IsAtLineRate());
    cc.OnCnp();
    EXPECT_EQ(cc.GetTargetRate(), kLine); // Rt = Rc before the cut
    EXPECT_EQ(cc.GetRate(), kLine / 2);   // Rc (1 - 1/2)
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), 1.0); // (1 - g) 1 + g
    EXPECT_FALSE(cc.IsAtLineRate());
}

TEST(DcqcnRateControlTest, AlphaFollowsItsMovingAverage)
{
    DcqcnRateControl cc(Params());
    cc.OnCnp();
    for (int k = 0; k < 10; ++k)
    {
        cc.OnAlphaTimer();
    }
    double alpha = std::pow(1 - kG, 10);
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), alpha);
    // The next cut is by alpha/2 of the current rate, then alpha rises by g (1 - alpha).
    cc.OnCnp();
    EXPECT_DOUBLE_EQ(cc.GetRate(), kLine / 2 * (1 - alpha / 2));
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), kLine / 2);
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), (1 - kG) * alpha + kG);
}

TEST(DcqcnRateControlTest, FastRecoveryThenAdditiveThenHyperIncrease)
{
    DcqcnRateControl cc(Params());
    cc.OnCnp(); // Rc 50G, Rt 100G, alpha 1
    cc.OnCnp(); // Rt 50G, Rc 25G
    ASSERT_EQ(cc.GetTargetRate(), 50e9);
    ASSERT_EQ(cc.GetRate(), 25e9);
    // Fast recovery: the gap to Rt halves in each of F = 5 timer stages; Rt stays.
    for (int k = 1; k <= 5; ++k)
    {
        cc.OnRateTimer();
        EXPECT_DOUBLE_EQ(cc.GetRate(), 50e9 - 25e9 / std::pow(2, k)) << "stage " << k;
        EXPECT_EQ(cc.GetTargetRate(), 50e9);
    }
    // Stage 6 of the timer (T > F, BC = 0 <= F): additive, Rt += R_AI.
    double rc = 50e9 - 25e9 / 32;
    cc.OnRateTimer();
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), 50e9 + 40e6);
    rc = (50e9 + 40e6 + rc) / 2;
    EXPECT_DOUBLE_EQ(cc.GetRate(), rc);
    // Byte stages 1..5 (T = 6 > F, BC <= F): additive each.
    EXPECT_EQ(cc.OnBytesSent(5 * 1000 + 999), 5u);
    double rt = 50e9 + 6 * 40e6;
    for (int k = 0; k < 5; ++k)
    {
        rc = (50e9 + (2 + k) * 40e6 + rc) / 2;
    }
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), rt);
    EXPECT_DOUBLE_EQ(cc.GetRate(), rc);
    EXPECT_EQ(cc.GetByteStages(), 5u);
    // Byte stage 6 (the 999 bytes carried over + 1): min(T, BC) = 6 > F: hyper, i = 1.
    EXPECT_EQ(cc.OnBytesSent(1), 1u);
    rt += 1 * 400e6;
    rc = (rt + rc) / 2;
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), rt);
    EXPECT_DOUBLE_EQ(cc.GetRate(), rc);
    // Timer stage 7: min(T, BC) = 6 still, i = 1 again; then byte stage 7: i = 2.
    cc.OnRateTimer();
    rt += 400e6;
    rc = (rt + rc) / 2;
    cc.OnBytesSent(1000);
    rt += 2 * 400e6;
    rc = (rt + rc) / 2;
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), rt);
    EXPECT_DOUBLE_EQ(cc.GetRate(), rc);
    // A CNP restarts both counters: back to fast recovery.
    cc.OnCnp();
    EXPECT_EQ(cc.GetTimerStages(), 0u);
    EXPECT_EQ(cc.GetByteStages(), 0u);
    double target = cc.GetTargetRate();
    cc.OnRateTimer();
    EXPECT_EQ(cc.GetTargetRate(), target);
}

TEST(DcqcnRateControlTest, RateStaysBetweenMinRateAndLineRate)
{
    DcqcnRateControl cc(Params());
    for (int k = 0; k < 100; ++k)
    {
        cc.OnCnp();
        EXPECT_GE(cc.GetRate(), 100e6);
    }
    EXPECT_EQ(cc.GetRate(), 100e6); // 100G / 2^10 < MinRate long before 100 cuts
    for (int k = 0; k < 400; ++k)
    {
        cc.OnRateTimer();
        cc.OnBytesSent(1000);
        EXPECT_LE(cc.GetRate(), kLine);
        EXPECT_LE(cc.GetTargetRate(), kLine);
    }
    // Hyper increase has long reached the line rate; the halving gap has closed.
    EXPECT_TRUE(cc.IsAtLineRate());
}

TEST(DcqcnRateControlTest, BadParametersThrow)
{
    DcqcnRateControl::Parameters p = Params();
    p.minRate = 2 * kLine;
    EXPECT_THROW(DcqcnRateControl{p}, std::invalid_argument);
    p = Params();
    p.g = 0;
    EXPECT_THROW(DcqcnRateControl{p}, std::invalid_argument);
    p = Params();
    p.byteCounter = 0;
    EXPECT_THROW(DcqcnRateControl{p}, std::invalid_argument);
    p = Params();
    p.lineRate = 0;
    EXPECT_THROW(DcqcnRateControl{p}, std::invalid_argument);
}
