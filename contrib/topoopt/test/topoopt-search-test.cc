// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the model profiles, the parallelization strategy and TopoOpt's strategy
 * search: shipped profiles load with the byte counts of their published
 * architectures, bad profiles are rejected with a clear message, a strategy's
 * traffic and iteration graph follow from its placements, the search is
 * deterministic under a fixed seed, never returns worse than its start, improves
 * a bad start, and finds the brute-force optimum of a tiny case.
 */
#include "ns3/core-module.h"
#include "ns3/model-profile.h"
#include "ns3/parallel-strategy.h"
#include "ns3/topoopt-search.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

/// A profile with two embedding tables and two dense layers.
const char* kTiny = R"({"format": "topoopt-profile", "name": "tiny", "bucket_bytes": 1000000,
  "layers": [
    {"name": "e0", "forward_us": 10, "backward_us": 10, "param_bytes": 40000000,
     "embedding": true, "activation_bytes": 200000},
    {"name": "e1", "forward_us": 50, "backward_us": 50, "param_bytes": 400000,
     "embedding": true, "activation_bytes": 2000000},
    {"name": "d0", "forward_us": 100, "backward_us": 200, "param_bytes": 4000000},
    {"name": "d1", "forward_us": 100, "backward_us": 200, "param_bytes": 4000000}]})";

Ptr<TopoOptSearch>
MakeSearch(uint32_t degree, uint32_t budget, int64_t stream)
{
    Ptr<TopoOptSearch> s = CreateObject<TopoOptSearch>();
    s->SetAttribute("Degree", UintegerValue(degree));
    s->SetAttribute("Budget", UintegerValue(budget));
    s->AssignStreams(stream);
    return s;
}

void
ExpectThrowsWith(const std::string& text, const std::string& fragment)
{
    try
    {
        ModelProfile::FromString(text);
        ADD_FAILURE() << "accepted: " << text;
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

} // namespace

TEST(ModelProfileTest, ShippedProfilesMatchTheirArchitectures)
{
    for (const auto& name : ModelProfile::KnownModels())
    {
        ModelProfile p = ModelProfile::FromName(name);
        EXPECT_EQ(p.GetName(), name);
        EXPECT_GT(p.GetTotalParamBytes(), 0u) << name;
        EXPECT_GT(p.GetBatchPerGpu(), 0u) << name;
    }
    // VGG16 (configuration D) has 138,357,544 parameters, fp32.
    EXPECT_EQ(ModelProfile::FromName("vgg16").GetTotalParamBytes(), 138357544ull * 4);
    // DLRM: 64 tables of 10M x 128 fp32, each sending 4 GPUs x 128 samples x 128 x 4 B.
    ModelProfile dlrm = ModelProfile::FromName("dlrm");
    ASSERT_EQ(dlrm.GetEmbeddingLayers().size(), 64u);
    const ProfileLayer& t = dlrm.GetLayers()[dlrm.GetEmbeddingLayers()[0]];
    EXPECT_EQ(t.paramBytes, 10000000ull * 128 * 4);
    EXPECT_EQ(t.activationBytes, 4ull * 128 * 128 * 4);
    // BERT-large's word embedding is its only embedding-like layer.
    ModelProfile bert = ModelProfile::FromName("bert");
    ASSERT_EQ(bert.GetEmbeddingLayers().size(), 1u);
    EXPECT_EQ(bert.GetLayers()[0].paramBytes, 30522ull * 1024 * 4);
    // Round trip through JSON keeps every layer.
    ModelProfile again = ModelProfile::FromJson(bert.ToJson());
    ASSERT_EQ(again.GetLayers().size(), bert.GetLayers().size());
    EXPECT_EQ(again.GetTotalParamBytes(), bert.GetTotalParamBytes());
    EXPECT_EQ(again.GetLayers()[5].backward, bert.GetLayers()[5].backward);
}

TEST(ModelProfileTest, BadProfilesAreRejected)
{
    EXPECT_THROW(ModelProfile::FromName("alexnet"), std::invalid_argument);
    try
    {
        ModelProfile::FromName("alexnet");
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("known models are dlrm"), std::string::npos);
    }
    EXPECT_THROW(ModelProfile::FromFile("/nonexistent/profile.json"), std::invalid_argument);
    ExpectThrowsWith("{\"format\": \"topoopt-profile\", ", "malformed JSON");
    ExpectThrowsWith(R"({"name": "x", "layers": []})", "format");
    ExpectThrowsWith(R"({"format": "topoopt-profile", "name": "x", "layers": []})", "layers");
    ExpectThrowsWith(R"({"format": "topoopt-profile", "name": "x", "layerz": []})",
                     "model profile text: top level: unknown key \"layerz\"");
    ExpectThrowsWith(R"({"format": "topoopt-profile", "name": "x", "layers": [
        {"name": "e", "forward_us": 1, "backward_us": 1, "param_bytes": 4, "embedding": true}]})",
                     "activation_bytes");
    ExpectThrowsWith(R"({"format": "topoopt-profile", "name": "x", "layers": [
        {"name": "d", "forward_us": -1, "backward_us": 1, "param_bytes": 4}]})",
                     "forward_us");
}

TEST(ParallelStrategyTest, TrafficAndGraphFollowThePlacements)
{
    ModelProfile p = ModelProfile::FromString(kTiny);
    const uint32_t n = 4;
    ParallelStrategy s = ParallelStrategy::Initial(p, n); // e0 on 0, e1 on 1
    EXPECT_EQ(s.GetPlacement(0), 0);
    EXPECT_EQ(s.GetPlacement(1), 1);
    EXPECT_EQ(s.GetPlacement(2), ParallelStrategy::DATA_PARALLEL);
    EXPECT_EQ(s.AllReduceBytes(p), 8000000u);
    Eigen::MatrixXd d = s.ModelParallelDemand(p);
    EXPECT_DOUBLE_EQ(d(0, 3), 200000.0); // forward e0
    EXPECT_DOUBLE_EQ(d(3, 0), 200000.0); // backward e0
    EXPECT_DOUBLE_EQ(d(1, 2), 2000000.0);
    EXPECT_DOUBLE_EQ(d(0, 1), 2000000.0 + 200000.0); // e1 backward from 0 + e0 forward to 1
    EXPECT_DOUBLE_EQ(d(2, 2), 0.0);
    // Compute: dense 600 us everywhere; the owner of e1 looks up n batches: 4 x 100 us.
    std::vector<Time> c = s.ComputeTimes(p);
    EXPECT_EQ(c[1], MicroSeconds(600 + 4 * 100));
    EXPECT_EQ(c[0], MicroSeconds(600 + 4 * 20));
    EXPECT_EQ(c[2], MicroSeconds(600));

    std::vector<int64_t> phase;
    IterationGraph g = s.BuildGraph(p, {{0, 1, 2, 3}, {0, 3, 2, 1}}, &phase);
    uint32_t sends = 0;
    uint32_t collectives = 0;
    for (const auto& t : g.GetTasks())
    {
        sends += t.kind == TaskKind::SEND ? 1 : 0;
        collectives += t.kind == TaskKind::COLLECTIVE ? 1 : 0;
        if (t.kind == TaskKind::SEND)
        {
            EXPECT_GE(phase[t.id], 0);
        }
    }
    EXPECT_EQ(sends, 2u * 3 * 2);   // 2 tables x 3 peers x (forward, backward)
    EXPECT_EQ(collectives, 2u * 2); // d1 and d0 (4 MB each) close a bucket each; 2 rings
    // Free communication: the iteration is the slowest server's compute path.
    Time t = g.EstimateIterationTime([](const IterationTask&) { return Time(0); });
    EXPECT_EQ(t, MicroSeconds(600 + 4 * 100));
    EXPECT_THROW(s.BuildGraph(p, {{0, 1, 1, 3}}), std::invalid_argument);
    // JSON round trip and bad placements.
    EXPECT_EQ(ParallelStrategy::FromJson(s.ToJson(p), p), s);
    EXPECT_THROW(s.SetPlacement(0, 4), std::invalid_argument);
    EXPECT_THROW(ParallelStrategy::FromJson(nlohmann::json::parse(R"({"servers": 4, "placements": [
                         {"layer": "d0", "server": 1}]})"),
                                            p),
                 std::invalid_argument);
}

TEST(TopoOptSearchTest, DeterministicUnderFixedSeed)
{
    ModelProfile p = ModelProfile::FromName("dlrm").Scaled(0.01, 1.0);
    auto run = [&](int64_t stream) {
        SearchResult r = MakeSearch(4, 60, stream)->Run(p, 8);
        return r.plan.ToJson() + r.strategy.ToJson(p).dump();
    };
    std::string a = run(7);
    EXPECT_EQ(a, run(7));
    EXPECT_NE(a, run(8));
}

TEST(TopoOptSearchTest, NeverWorseThanItsStartAndImprovesABadOne)
{
    for (const std::string name : {"dlrm", "ncf", "bert"})
    {
        ModelProfile p = ModelProfile::FromName(name).Scaled(0.01, 0.01);
        for (int64_t stream : {1, 2, 3})
        {
            SearchResult r = MakeSearch(4, 80, stream)->Run(p, 8);
            EXPECT_LE(r.cost.total, r.startCost.total) << name;
            EXPECT_TRUE(r.plan.IsConnected());
            // The reported cost is the strategy's cost on the reported plan.
            Ptr<TopoOptSearch> s = MakeSearch(4, 0, stream);
            EXPECT_DOUBLE_EQ(s->Estimate(p, r.strategy, r.plan).total, r.cost.total);
        }
    }
    // BERT's word embedding placed on one server must send each server 134 MB: the
    // search moves it back to data parallel.
    ModelProfile bert = ModelProfile::FromName("bert");
    SearchResult r = MakeSearch(4, 40, 1)->Run(bert, 8);
    EXPECT_EQ(r.start.GetPlacement(0), 0);
    EXPECT_EQ(r.strategy.GetPlacement(0), ParallelStrategy::DATA_PARALLEL);
    EXPECT_LT(r.cost.total, 0.8 * r.startCost.total);
}

TEST(TopoOptSearchTest, FindsTheBruteForceOptimumOfATinyCase)
{
    ModelProfile p = ModelProfile::FromString(kTiny);
    const uint32_t n = 4;
    const uint32_t d = 3;
    Ptr<TopoOptSearch> oracle = MakeSearch(d, 0, 11);
    // Brute force: every placement of e0 and e1 (data parallel or one of 4 servers),
    // each timed on the topology built for it.
    double best = 1e9;
    ParallelStrategy bestStrategy;
    for (int32_t a = -1; a < int32_t(n); ++a)
    {
        for (int32_t b = -1; b < int32_t(n); ++b)
        {
            ParallelStrategy s(p.GetLayers().size(), n);
            s.SetPlacement(0, a);
            s.SetPlacement(1, b);
            double c = oracle->Estimate(p, s, oracle->BuildTopology(p, s)).total;
            if (c < best)
            {
                best = c;
                bestStrategy = s;
            }
        }
    }
    Ptr<TopoOptSearch> search = MakeSearch(d, 300, 11);
    search->SetAttribute("Alpha", DoubleValue(2.0));
    SearchResult r = search->Run(p, n);
    EXPECT_DOUBLE_EQ(r.cost.total, best);
    EXPECT_GT(r.startCost.total, best); // the start (round-robin) is not the optimum
    EXPECT_GT(r.accepted, 0u);
}
