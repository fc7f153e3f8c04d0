// SPDX-License-Identifier: GPL-2.0-only
// Compressed training on both data paths: the same tiny job on the IPv4 path and on
// the fast data path (FastForwarding, no IPv4) gives the same iteration and exchange
// times to the picosecond, the same bytes on every link and bit-identical trained
// models, for every exchange kind (dense 16-bit, TopK all-gather, quantized packed
// all-reduce, PowerSGD); the runner's rows are identical and auto is the fast path.
#include "ns3/compressed-trainer.h"
#include "ns3/compression-runner.h"
#include "ns3/core-module.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/udp-message-transport.h"

#include <array>
#include <cstring>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// What one training run measured.
struct Trained
{
    std::vector<std::array<int64_t, 4>> iterations; //!< start, computeEnd, reduceEnd, end (ps)
    std::vector<int64_t> exchanges;                 //!< each exchange's total time (ps)
    std::vector<std::array<uint64_t, 4>> links;     //!< bytes A->B, B->A, frames A->B, B->A
    Eigen::VectorXf params;                         //!< worker 0's trained parameters
};

Trained
Train(const std::string& dataPath, const std::string& scheme)
{
    IdealSwitchHelper fabric(4);
    fabric.SetDataPath(dataPath);
    fabric.SetLinkRate(DataRate("10Gbps"));
    Ptr<Cluster> cluster = fabric.Install();
    Ptr<UdpMessageTransport> t = CreateObject<UdpMessageTransport>();
    t->Install(cluster);
    Ptr<RealModel> model = CreateObject<RealModel>();
    model->SetAttribute("Inputs", UintegerValue(8));
    model->SetAttribute("Hidden", UintegerValue(16));
    ObjectFactory opt("ns3::SgdMomentum");
    opt.Set("LearningRate", DoubleValue(0.05));
    Ptr<CompressedTrainer> trainer = CreateObject<CompressedTrainer>();
    trainer->SetAttribute("ComputeTime", TimeValue(MicroSeconds(100)));
    trainer->Setup(t, {0, 1, 2, 3}, model, CreateObject<SyntheticDataset>(), opt);
    CompressionConfig c;
    c.scheme = scheme;
    c.density = 0.1;
    c.rank = 2;
    trainer->SetCodec(CompressionRunner::MakeCodec(c));
    trainer->Run(0, 4);
    Simulator::Run();
    Trained out;
    for (const auto& r : trainer->GetRecords())
    {
        out.iterations.push_back({r.start.GetTimeStep(),
                                  r.computeEnd.GetTimeStep(),
                                  r.reduceEnd.GetTimeStep(),
                                  r.end.GetTimeStep()});
    }
    for (const auto& e : trainer->GetExchangeRecords())
    {
        out.exchanges.push_back(e.total.GetTimeStep());
    }
    for (const ClusterLink& l : cluster->GetLinks())
    {
        out.links.push_back({l.bytesAtoB, l.bytesBtoA, l.packetsAtoB, l.packetsBtoA});
    }
    out.params = trainer->GetParameters(0);
    trainer->Dispose();
    Simulator::Destroy();
    return out;
}

class CompressionFastPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

TEST_F(CompressionFastPathTest, EverySchemeTrainsTheSameModelOnBothPaths)
{
    for (const char* scheme : {"bf16", "topk", "quant", "powersgd"})
    {
        Trained ipv4 = Train("ipv4", scheme);
        Trained fast = Train("fast", scheme);
        ASSERT_EQ(ipv4.iterations.size(), 4u) << scheme;
        EXPECT_EQ(ipv4.iterations, fast.iterations) << scheme;
        EXPECT_EQ(ipv4.exchanges, fast.exchanges) << scheme;
        EXPECT_EQ(ipv4.links, fast.links) << scheme;
        uint64_t bytes = 0;
        for (const auto& l : fast.links)
        {
            bytes += l[0] + l[1];
        }
        EXPECT_GT(bytes, 0u) << scheme;
        ASSERT_EQ(ipv4.params.size(), fast.params.size()) << scheme;
        EXPECT_EQ(
            std::memcmp(ipv4.params.data(), fast.params.data(), sizeof(float) * fast.params.size()),
            0)
            << scheme << ": trained models differ";
    }
}

TEST_F(CompressionFastPathTest, RunnerRowsAreIdenticalAndAutoIsFast)
{
    CompressionConfig c;
    EXPECT_EQ(c.dataPath, "auto");
    EXPECT_EQ(c.DataPath(), "fast");
    c.inputs = 8;
    c.hidden = 16;
    c.iterations = 3;
    c.scheme = "topk";
    c.density = 0.1;
    c.dataPath = "ipv4";
    nlohmann::json ipv4 = CompressionRunner::Run(c);
    Simulator::Destroy();
    c.dataPath = "fast";
    nlohmann::json fast = CompressionRunner::Run(c);
    EXPECT_EQ(ipv4, fast);
    c.dataPath = "dpdk";
    EXPECT_THROW(c.Validate(), std::invalid_argument);
}

} // namespace
