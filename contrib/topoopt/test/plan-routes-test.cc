// SPDX-License-Identifier: GPL-2.0-only
/*
 * Routes on demand in a TopologyPlan: a plan written without routes loads and builds
 * the same direct-connect fabric; all-pairs routes (what topoopt-plan --routes writes)
 * follow the routes the fabric installs; the search times a plan without routes
 * over shortest paths, and the same as with routes when those are its shortest paths.
 */
#include "ns3/core-module.h"
#include "ns3/direct-connect-helper.h"
#include "ns3/model-profile.h"
#include "ns3/route-planner.h"
#include "ns3/topology-finder.h"
#include "ns3/topology-plan.h"
#include "ns3/topoopt-search.h"

#include <gtest/gtest.h>
#include <set>

using namespace ns3;

namespace
{

class PlanRoutesTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// A 16-server degree-4 plan for a DLRM-like strategy (rings and MP routes).
    static TopologyPlan Plan(bool allPairs)
    {
        Ptr<TopologyFinder> f = CreateObject<TopologyFinder>();
        f->SetAttribute("Degree", UintegerValue(4));
        f->SetAttribute("RouteAllPairs", BooleanValue(allPairs));
        f->AssignStreams(5);
        Eigen::MatrixXd demand = Eigen::MatrixXd::Zero(16, 16);
        for (uint32_t s = 1; s < 16; ++s)
        {
            demand(0, s) = demand(s, 0) = 1e6; // a table on server 0
        }
        return f->Find(16, {{16, 1e8}}, demand);
    }

    /// Each link of a fabric as its (node, node) pair, A < B, with multiplicity.
    static std::multiset<std::pair<uint32_t, uint32_t>> Links(Ptr<Cluster> c)
    {
        std::multiset<std::pair<uint32_t, uint32_t>> out;
        for (const auto& l : c->GetLinks())
        {
            out.emplace(std::min(l.nodeA, l.nodeB), std::max(l.nodeA, l.nodeB));
        }
        return out;
    }
};

TEST_F(PlanRoutesTest, WithoutRoutesLoadsAndBuildsTheSameFabric)
{
    TopologyPlan full = Plan(true);
    ASSERT_EQ(full.GetRouteCount(), 16u * 15);
    TopologyPlan bare = full;
    bare.ClearRoutes();
    nlohmann::json doc = nlohmann::json::parse(bare.ToJson());
    EXPECT_TRUE(doc["routes"].empty());
    doc.erase("routes"); // optional on input
    TopologyPlan loaded = TopologyPlan::FromJson(doc.dump());
    EXPECT_EQ(loaded, bare);
    EXPECT_EQ(loaded.GetRouteCount(), 0u);
    EXPECT_EQ(loaded.GetRings(), full.GetRings());
    EXPECT_EQ(loaded.Diameter(), full.Diameter());
    // A plan with every route still loads, unchanged.
    EXPECT_EQ(TopologyPlan::FromJson(full.ToJson()), full);

    Ptr<Cluster> a = DirectConnectHelper(full).Install();
    auto withRoutes = Links(a);
    Simulator::Destroy();
    Ptr<Cluster> b = DirectConnectHelper(loaded).Install();
    EXPECT_EQ(Links(b), withRoutes);
    EXPECT_EQ(withRoutes.size(), 16u * 4 / 2); // every port of every plane has a circuit
}

TEST_F(PlanRoutesTest, AllPairsRoutesFollowTheFabricsRoutes)
{
    TopologyPlan plan = Plan(false);
    const size_t finderRoutes = plan.GetRouteCount();
    EXPECT_LT(finderRoutes, 16u * 15); // rings and the table's pairs only
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(2);
    plan.AddShortestPathRoutes(rng); // what topoopt-plan --routes adds
    ASSERT_EQ(plan.GetRouteCount(), 16u * 15);
    plan.Validate();

    Ptr<Cluster> cluster = DirectConnectHelper(plan).Install();
    RoutePlanner planner(cluster);
    planner.Compute();
    uint32_t hops = 0;
    for (const auto& [pair, paths] : plan.GetAllRoutes())
    {
        const auto [src, dst] = pair;
        for (const PlanPath& path : paths)
        {
            // Shortest in the fabric, and every hop one the fabric forwards on to dst.
            EXPECT_EQ(path.hops.size() - 1, planner.Hops(src, dst)) << src << "->" << dst;
            for (size_t h = 0; h + 1 < path.hops.size(); ++h)
            {
                const uint32_t from = cluster->GetRankNode(path.hops[h])->GetId();
                const uint32_t to = cluster->GetRankNode(path.hops[h + 1])->GetId();
                bool forwarded = false;
                ++hops;
                for (uint32_t id : planner.NextLinks(from, dst))
                {
                    const ClusterLink& l = cluster->GetLink(id);
                    forwarded |=
                        (l.nodeA == from && l.nodeB == to) || (l.nodeB == from && l.nodeA == to);
                }
                EXPECT_TRUE(forwarded)
                    << src << "->" << dst << " hop " << path.hops[h] << "-" << path.hops[h + 1];
            }
        }
    }
}

TEST_F(PlanRoutesTest, SearchTimesAPlanWithoutRoutes)
{
    ModelProfile profile = ModelProfile::FromName("dlrm").Scaled(0.01, 1.0);
    Ptr<TopoOptSearch> search = CreateObject<TopoOptSearch>();
    search->SetAttribute("Degree", UintegerValue(4));
    search->SetAttribute("Budget", UintegerValue(30));
    search->AssignStreams(4);
    SearchResult r = search->Run(profile, 16);
    TopologyPlan bare = r.plan;
    bare.ClearRoutes();
    // The finder's routes are shortest paths here, so loads over the on-demand paths
    // differ only in which of several shortest paths a pair takes: same hop counts,
    // same compute; the time is finite and of the same order.
    StrategyCost withRoutes = search->Estimate(profile, r.strategy, r.plan);
    StrategyCost without = search->Estimate(profile, r.strategy, bare);
    EXPECT_DOUBLE_EQ(withRoutes.total, r.cost.total);
    EXPECT_EQ(without.compute, withRoutes.compute);
    EXPECT_GT(without.total, 0);
    EXPECT_LT(without.total, 2 * withRoutes.total);
    EXPECT_GT(without.total, 0.5 * withRoutes.total);
    // Deterministic: the same plan gives the same time.
    EXPECT_EQ(search->Estimate(profile, r.strategy, bare).total, without.total);
}

} // namespace
