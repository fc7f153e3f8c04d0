// SPDX-License-Identifier: GPL-2.0-only
// The real training task: backpropagation against finite differences, optimizer
// rules by hand and on shards, and data-parallel training over a simulated ideal
// switch with the gradients' real values in the packets: identical workers,
// falling loss, iteration time = compute + ring all-reduce, determinism.
#include "ns3/adamw.h"
#include "ns3/core-module.h"
#include "ns3/data-parallel-trainer.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/real-model.h"
#include "ns3/sgd-momentum.h"
#include "ns3/synthetic-dataset.h"
#include "ns3/udp-message-transport.h"

#include <cstring>
#include <gtest/gtest.h>
#include <numeric>

using namespace ns3;

namespace
{

class TrainerTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// Train `iterations` iterations of a small MLP on `workers` ranks of an ideal switch.
    Ptr<DataParallelTrainer> Train(uint32_t workers,
                                   uint32_t iterations,
                                   const std::string& optimizer = "ns3::AdamW")
    {
        IdealSwitchHelper fabric(workers);
        Ptr<Cluster> cluster = fabric.Install();
        Ptr<UdpMessageTransport> t = CreateObject<UdpMessageTransport>();
        t->Install(cluster);
        Ptr<RealModel> model = CreateObject<RealModel>();
        model->SetAttribute("Inputs", UintegerValue(8));
        model->SetAttribute("Hidden", UintegerValue(16));
        model->SetAttribute("Classes", UintegerValue(4));
        Ptr<SyntheticDataset> data = CreateObject<SyntheticDataset>();
        ObjectFactory opt(optimizer);
        opt.Set("LearningRate", DoubleValue(0.01));
        Ptr<DataParallelTrainer> trainer = CreateObject<DataParallelTrainer>();
        trainer->SetAttribute("ComputeTime", TimeValue(MicroSeconds(100)));
        std::vector<uint32_t> ranks(workers);
        std::iota(ranks.begin(), ranks.end(), 0);
        trainer->Setup(t, ranks, model, data, opt);
        trainer->Run(0, iterations);
        Simulator::Run();
        return trainer;
    }
};

TEST(RealModelTest, GradientMatchesFiniteDifferences)
{
    for (uint32_t hidden : {0u, 5u})
    {
        Ptr<RealModel> model = CreateObject<RealModel>();
        model->SetAttribute("Inputs", UintegerValue(4));
        model->SetAttribute("Hidden", UintegerValue(hidden));
        model->SetAttribute("Classes", UintegerValue(3));
        Ptr<SyntheticDataset> data = CreateObject<SyntheticDataset>();
        data->Generate(4, 3);
        Eigen::MatrixXf x;
        std::vector<uint32_t> y;
        data->GetBatch(0, 1, 0, 8, x, y);
        Eigen::VectorXf p = model->InitialParameters(7);
        Eigen::VectorXf g = model->Gradient(p, x, y);
        ASSERT_EQ(static_cast<uint64_t>(g.size()), model->GetParameterCount());
        // Central differences: (L(p + e) - L(p - e)) / 2e, float parameters.
        const float eps = 1e-2f;
        for (Eigen::Index i = 0; i < p.size(); ++i)
        {
            Eigen::VectorXf a = p;
            Eigen::VectorXf b = p;
            a[i] += eps;
            b[i] -= eps;
            double fd = (model->Loss(a, x, y) - model->Loss(b, x, y)) / (2.0 * eps);
            EXPECT_NEAR(g[i], fd, 2e-3 + 0.02 * std::abs(fd))
                << "hidden " << hidden << " param " << i;
        }
    }
}

TEST(OptimizerTest, FirstStepsMatchTheFormulas)
{
    // SGD with momentum 0.9, lr 0.1: buf1 = g, p1 = p0 - 0.1 g; buf2 = 0.9 g + g.
    Ptr<SgdMomentum> sgd = CreateObject<SgdMomentum>();
    sgd->SetAttribute("LearningRate", DoubleValue(0.1));
    sgd->Initialize(1);
    Eigen::VectorXf p(1);
    p << 1.0f;
    Eigen::VectorXf g(1);
    g << 2.0f;
    sgd->Step(p, g);
    EXPECT_FLOAT_EQ(p[0], 1.0f - 0.1f * 2.0f);
    sgd->Step(p, g);
    EXPECT_FLOAT_EQ(p[0], 0.8f - 0.1f * (0.9f * 2.0f + 2.0f));
    EXPECT_EQ(sgd->GetStep(), 2u);
    // AdamW step 1: m^ = g, v^ = g^2 -> p -= lr (g/(|g|+eps) + wd p) = lr (1 + wd p).
    Ptr<AdamW> adam = CreateObject<AdamW>();
    adam->SetAttribute("LearningRate", DoubleValue(0.01));
    adam->SetAttribute("WeightDecay", DoubleValue(0.1));
    adam->Initialize(1);
    p << 1.0f;
    adam->Step(p, g);
    EXPECT_NEAR(p[0], 1.0 - 0.01 * (1.0 + 0.1 * 1.0), 1e-6);
    // Warm-up and cosine schedule.
    adam->SetAttribute("WarmupSteps", UintegerValue(10));
    adam->SetAttribute("DecaySteps", UintegerValue(100));
    EXPECT_DOUBLE_EQ(adam->GetLearningRate(5), 0.01 * 0.5);
    EXPECT_DOUBLE_EQ(adam->GetLearningRate(10), 0.01);
    EXPECT_NEAR(adam->GetLearningRate(60), 0.01 * 0.5, 1e-12);
}

TEST(OptimizerTest, ShardUpdatesAreBitIdenticalToTheFullVector)
{
    // What a Checkmate shadow relies on: an optimizer on a slice computes exactly
    // the full-vector optimizer's values on that slice, step after step.
    for (const char* type : {"ns3::AdamW", "ns3::SgdMomentum"})
    {
        ObjectFactory f(type);
        f.Set("WarmupSteps", UintegerValue(3));
        Ptr<Optimizer> full = f.Create<Optimizer>();
        Ptr<Optimizer> part = f.Create<Optimizer>();
        const Eigen::Index n = 1001;
        const Eigen::Index off = 333;
        const Eigen::Index len = 517;
        full->Initialize(n);
        part->Initialize(len);
        Eigen::VectorXf p = Eigen::VectorXf::LinSpaced(n, -1.0f, 1.0f);
        Eigen::VectorXf q = p.segment(off, len);
        for (int s = 0; s < 5; ++s)
        {
            Eigen::VectorXf g = (p.array() * 3.0f + static_cast<float>(s)).sin().matrix();
            full->Step(p, g);
            Eigen::VectorXf gs = g.segment(off, len);
            part->Step(q, gs);
            ASSERT_EQ(std::memcmp(q.data(), p.data() + off, len * sizeof(float)), 0) << type;
            for (uint32_t v = 0; v < full->GetStateVectors(); ++v)
            {
                ASSERT_EQ(std::memcmp(part->GetState()[v].data(),
                                      full->GetState()[v].data() + off,
                                      len * sizeof(float)),
                          0)
                    << type;
            }
        }
    }
}

TEST_F(TrainerTest, WorkersStayIdenticalAndTheLossFalls)
{
    Ptr<DataParallelTrainer> trainer = Train(4, 30);
    const auto& rec = trainer->GetRecords();
    ASSERT_EQ(rec.size(), 30u);
    for (uint32_t w = 1; w < 4; ++w)
    {
        const Eigen::VectorXf& a = trainer->GetParameters(0);
        const Eigen::VectorXf& b = trainer->GetParameters(w);
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << w;
        EXPECT_EQ(trainer->GetOptimizer(w)->GetStep(), 30u);
    }
    double first = (rec[0].loss + rec[1].loss + rec[2].loss) / 3;
    double last = (rec[27].loss + rec[28].loss + rec[29].loss) / 3;
    EXPECT_LT(last, 0.8 * first);
    EXPECT_GT(rec.back().accuracy, 0.5); // 4 classes: chance is 0.25
}

TEST_F(TrainerTest, IterationTimeIsComputePlusRingAllReduce)
{
    Ptr<DataParallelTrainer> trainer = Train(4, 3, "ns3::SgdMomentum");
    ASSERT_EQ(trainer->GetModel()->GetParameterCount(), 212u);
    const auto& rec = trainer->GetRecords();
    // P = 8*16 + 16 + 4*16 + 4 = 212 floats = 848 bytes; 4 chunks of 212 bytes,
    // 2(N-1) = 6 ring steps. Each step: two store-and-forward hops of a frame of
    // 212 + 29 + 8 + 20 + 2 = 271 bytes at 100 Gbps (21.68 ns) plus 1 us each.
    // (ACK frames of 59 bytes share the ports: allow one per step, 4.72 ns.)
    double hop = 271 * 8 / 100e9 + 1e-6;
    double ring = 6 * 2 * hop;
    for (const auto& r : rec)
    {
        EXPECT_EQ(r.computeEnd - r.start, MicroSeconds(100));
        EXPECT_NEAR((r.reduceEnd - r.computeEnd).GetSeconds(), ring, 6 * 59 * 8 / 100e9);
    }
}

TEST_F(TrainerTest, RunsAreDeterministic)
{
    Eigen::VectorXf a = Train(3, 5)->GetParameters(0);
    Simulator::Destroy();
    Eigen::VectorXf b = Train(3, 5)->GetParameters(2);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

} // namespace
