// SPDX-License-Identifier: GPL-2.0-only
/*
 * EcnMarker: the RED profile DCQCN specifies (0 at or below Kmin, the linear ramp to
 * Pmax at Kmax, 1 above), the ramp's marking frequency over many draws within a
 * binomial tolerance, the same marks for the same stream, bad attributes; and
 * FabricHelper::SetSwitchEcn on a fast fabric giving every switch (no rank) a marker.
 */
#include "ns3/core-module.h"
#include "ns3/ecn-marker.h"
#include "ns3/fabric-options.h"
#include "ns3/fast-forwarding.h"
#include "ns3/network-module.h"

#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>

using namespace ns3;

namespace
{
/// A marker with the DCQCN paper's 40 Gbps profile: Kmin 5 KB, Kmax 200 KB, Pmax 1%.
Ptr<EcnMarker>
PaperMarker()
{
    Ptr<EcnMarker> m = CreateObject<EcnMarker>();
    m->SetAttribute("Kmin", UintegerValue(5000));
    m->SetAttribute("Kmax", UintegerValue(200000));
    m->SetAttribute("Pmax", DoubleValue(0.01));
    return m;
}
} // namespace

TEST(EcnMarkerTest, DefaultsAreHpccs100GbpsProfile)
{
    Ptr<EcnMarker> m = CreateObject<EcnMarker>(); // Kmin 400 KB, Kmax 1600 KB, Pmax 0.2
    EXPECT_EQ(m->GetProbability(400000), 0.0);
    EXPECT_DOUBLE_EQ(m->GetProbability(1000000), 0.1); // half way up the ramp
    EXPECT_DOUBLE_EQ(m->GetProbability(1600000), 0.2);
    EXPECT_EQ(m->GetProbability(1600001), 1.0);
}

TEST(EcnMarkerTest, ProfileOfTheDcqcnPaper)
{
    Ptr<EcnMarker> m = PaperMarker();
    EXPECT_EQ(m->GetProbability(0), 0.0);
    EXPECT_EQ(m->GetProbability(5000), 0.0);
    EXPECT_DOUBLE_EQ(m->GetProbability(102500), 0.005); // half way up the ramp
    EXPECT_DOUBLE_EQ(m->GetProbability(200000), 0.01);
    EXPECT_EQ(m->GetProbability(200001), 1.0);
    for (int i = 0; i < 1000; ++i)
    {
        EXPECT_FALSE(m->ShouldMark(5000));
        EXPECT_TRUE(m->ShouldMark(300000));
    }
    EXPECT_EQ(m->GetMarks(), 1000u);
}

TEST(EcnMarkerTest, RampFrequencyWithinBinomialTolerance)
{
    Ptr<EcnMarker> m = CreateObject<EcnMarker>();
    m->SetAttribute("Kmin", UintegerValue(0));
    m->SetAttribute("Kmax", UintegerValue(1000));
    m->SetAttribute("Pmax", DoubleValue(0.5));
    m->AssignStreams(11);
    const int n = 20000;
    const double p = 0.25; // q = 500: 0.5 * 500 / 1000
    ASSERT_DOUBLE_EQ(m->GetProbability(500), p);
    int marks = 0;
    for (int i = 0; i < n; ++i)
    {
        marks += m->ShouldMark(500) ? 1 : 0;
    }
    // 4 standard deviations of Binomial(n, p): sqrt(20000 * 0.25 * 0.75) = 61.2.
    double sd = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(marks, n * p, 4 * sd);
    EXPECT_EQ(m->GetMarks(), static_cast<uint64_t>(marks));
}

TEST(EcnMarkerTest, SameStreamSameMarks)
{
    auto draws = [](int64_t stream) {
        Ptr<EcnMarker> m = PaperMarker();
        m->SetAttribute("Pmax", DoubleValue(0.5));
        m->AssignStreams(stream);
        std::vector<bool> marks;
        for (int i = 0; i < 500; ++i)
        {
            marks.push_back(m->ShouldMark(150000));
        }
        return marks;
    };
    EXPECT_EQ(draws(3), draws(3));
    EXPECT_NE(draws(3), draws(4));
}

TEST(EcnMarkerTest, BadThresholdsThrow)
{
    Ptr<EcnMarker> m = PaperMarker();
    m->SetAttribute("Kmin", UintegerValue(200000));
    EXPECT_THROW(m->GetProbability(1000), std::invalid_argument);
    m->SetAttribute("Kmin", UintegerValue(0));
    m->SetAttribute("Pmax", DoubleValue(0.0));
    EXPECT_THROW(m->ShouldMark(1000), std::invalid_argument);
}

TEST(EcnMarkerTest, FastFabricWithEcnMarksAtEverySwitch)
{
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = 8;
    f.dataPath = "fast";
    f.ecn = true;
    f.transport = "roce"; // --ecn with roce: EcnMarker on the fast path
    Ptr<Cluster> cluster = f.Build();
    uint32_t switches = 0;
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        Ptr<Node> node = NodeList::GetNode(i);
        Ptr<FastForwarding> ff = node->GetObject<FastForwarding>();
        ASSERT_TRUE(ff);
        bool rank = cluster->GetRankOfNode(node->GetId()) != UINT32_MAX;
        EXPECT_EQ(ff->GetEcnMarker() != nullptr, !rank) << "node " << i;
        switches += rank ? 0 : 1;
    }
    EXPECT_GT(switches, 1u);
    Simulator::Destroy();
    f.ecn = false;
    f.transport = "udp"; // roce would turn marking on by itself (TransportChoice::SwitchEcn)
    cluster = f.Build();
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        EXPECT_FALSE(NodeList::GetNode(i)->GetObject<FastForwarding>()->GetEcnMarker());
    }
    Simulator::Destroy();
}
