// SPDX-License-Identifier: GPL-2.0-only
// RoutePreference hook of RoutePlanner: narrows multi-link next-hop sets to what the
// preference keeps, never adds links, and leaves sets alone when its answer is empty.
#include "ns3/cluster.h"
#include "ns3/core-module.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/route-planner.h"
#include "ns3/route-preference.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Keeps the lowest link id (Mode 0), answers nothing (1), or answers a foreign link (2).
class TestPreference : public RoutePreference
{
public:
    int mode{0};
    mutable uint32_t calls{0};
    mutable uint32_t smallestSet{UINT32_MAX};

    std::vector<uint32_t> Select(const Cluster& cluster,
                                 uint32_t nodeId,
                                 uint32_t dstRank,
                                 const std::vector<uint32_t>& candidates) const override
    {
        ++calls;
        smallestSet = std::min<uint32_t>(smallestSet, candidates.size());
        if (mode == 1)
        {
            return {};
        }
        if (mode == 2)
        {
            return {static_cast<uint32_t>(cluster.GetLinks().size()) + 7};
        }
        return {*std::min_element(candidates.begin(), candidates.end())};
    }
};

class RoutePreferenceTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// 8 ranks on a 2-tier fat-tree of radix 4: 4 ToRs of 2 hosts, 2 spines.
    Ptr<Cluster> Build()
    {
        FatTreeHelper fabric(8);
        fabric.SetRadix(4);
        return fabric.Install();
    }

    /// Largest next-hop set anywhere in the planner's tables.
    static size_t LargestSet(const RoutePlanner& planner, Ptr<Cluster> c)
    {
        size_t largest = 0;
        NodeContainer all = c->GetAllNodes();
        for (uint32_t n = 0; n < all.GetN(); ++n)
        {
            for (uint32_t r = 0; r < c->GetNRanks(); ++r)
            {
                largest = std::max(largest, planner.NextLinks(all.Get(n)->GetId(), r).size());
            }
        }
        return largest;
    }
};

TEST_F(RoutePreferenceTest, NarrowsSetsWithoutLengtheningRoutes)
{
    Ptr<Cluster> c = Build();
    RoutePlanner plain(c);
    plain.Compute();
    ASSERT_EQ(LargestSet(plain, c), 2u); // a ToR has 2 spines towards another ToR

    auto pref = CreateObject<TestPreference>();
    c->SetRoutePreference(pref);
    RoutePlanner narrowed(c);
    narrowed.Compute();
    EXPECT_GT(pref->calls, 0u);
    EXPECT_EQ(pref->smallestSet, 2u); // consulted only where there is a choice
    EXPECT_EQ(LargestSet(narrowed, c), 1u);
    for (uint32_t a = 0; a < 8; ++a)
    {
        for (uint32_t b = 0; b < 8; ++b)
        {
            EXPECT_EQ(narrowed.Hops(a, b), plain.Hops(a, b));
            if (a != b)
            {
                // One path: every link on it carries the whole flow.
                for (const auto& [key, share] : narrowed.LinkShares(a, b))
                {
                    EXPECT_DOUBLE_EQ(share, 1.0);
                }
            }
        }
    }
    // The kept link is the lowest-numbered candidate.
    NodeContainer all = c->GetAllNodes();
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        uint32_t id = all.Get(n)->GetId();
        for (uint32_t r = 0; r < 8; ++r)
        {
            const auto& before = plain.NextLinks(id, r);
            const auto& after = narrowed.NextLinks(id, r);
            if (!before.empty())
            {
                ASSERT_EQ(after.size(), 1u);
                EXPECT_EQ(after[0], *std::min_element(before.begin(), before.end()));
            }
        }
    }
}

TEST_F(RoutePreferenceTest, EmptyOrForeignAnswerKeepsEveryCandidate)
{
    for (int mode : {1, 2})
    {
        Ptr<Cluster> c = Build();
        auto pref = CreateObject<TestPreference>();
        pref->mode = mode;
        c->SetRoutePreference(pref);
        RoutePlanner planner(c);
        planner.Compute();
        EXPECT_GT(pref->calls, 0u);
        EXPECT_EQ(LargestSet(planner, c), 2u) << "mode " << mode;
        Simulator::Destroy();
    }
}

TEST_F(RoutePreferenceTest, ClearingThePreferenceRestoresEcmp)
{
    Ptr<Cluster> c = Build();
    c->SetRoutePreference(CreateObject<TestPreference>());
    EXPECT_TRUE(c->GetRoutePreference());
    c->SetRoutePreference(nullptr);
    RoutePlanner planner(c);
    planner.Compute();
    EXPECT_EQ(LargestSet(planner, c), 2u);
}

} // namespace
