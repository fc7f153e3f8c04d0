// SPDX-License-Identifier: GPL-2.0-only
// Gradient compression (issue 7): codecs, compressed exchanges over the packet
// network with real encoded values, the analytical twin and the compressed trainer.
#include "mlnet-test-support.h"

#include "ns3/bf16-codec.h"
#include "ns3/compressed-exchange.h"
#include "ns3/compressed-trainer.h"
#include "ns3/compression-cost-model.h"
#include "ns3/core-module.h"
#include "ns3/fp32-codec.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/power-sgd-codec.h"
#include "ns3/quantization-codec.h"
#include "ns3/sgd-momentum.h"
#include "ns3/top-k-codec.h"
#include "ns3/udp-message-transport.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <numeric>

using namespace ns3;
using namespace mlnettest;

namespace
{

/// Deterministic test vector: heavy-tailed values like gradients.
Eigen::VectorXf
TestVector(uint64_t d, uint32_t seed)
{
    Eigen::VectorXf v(d);
    for (uint64_t i = 0; i < d; ++i)
    {
        double s = std::sin(0.37 * i + 1.3 * seed) * std::cos(0.011 * i * (seed + 1));
        v[i] = static_cast<float>(s * s * s * 0.01);
    }
    return v;
}

class CompressionTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// Run one exchange of `codec` on n ranks of an ideal switch; returns it when done.
    Ptr<CompressedExchange> Exchange(Ptr<GradientCodec> codec,
                                     uint32_t n,
                                     uint64_t d,
                                     std::vector<Eigen::VectorXf>* inputs = nullptr,
                                     DataRate rate = DataRate("100Gbps"))
    {
        IdealSwitchHelper fabric(n);
        fabric.SetLinkRate(rate);
        Ptr<Cluster> cluster = fabric.Install();
        m_transport = CreateObject<UdpMessageTransport>();
        m_transport->Install(cluster);
        std::vector<uint32_t> ranks(n);
        std::iota(ranks.begin(), ranks.end(), 0);
        std::vector<Eigen::VectorXf> grads;
        for (uint32_t w = 0; w < n; ++w)
        {
            grads.push_back(TestVector(d, w));
        }
        if (inputs)
        {
            *inputs = grads;
        }
        codec->Configure(d, n);
        Ptr<CompressedExchange> ex = CreateObject<CompressedExchange>();
        ex->Setup(m_transport, ranks, 4 * d);
        ex->SetCodec(codec, grads);
        ex->Start();
        Simulator::Run();
        EXPECT_TRUE(ex->IsDone());
        return ex;
    }

    Ptr<UdpMessageTransport> m_transport;
};

Eigen::VectorXf
Sum(const std::vector<Eigen::VectorXf>& v)
{
    Eigen::VectorXf s = Eigen::VectorXf::Zero(v[0].size());
    for (const auto& x : v)
    {
        s += x;
    }
    return s;
}

} // namespace

TEST(GradientCodecTest, EachCodecRoundTripsWithinItsDocumentedBound)
{
    const uint64_t d = 1000;
    std::vector<Ptr<GradientCodec>> codecs;
    codecs.push_back(CreateObject<Fp32Codec>());
    codecs.push_back(CreateObject<Bf16Codec>());
    Ptr<Bf16Codec> fp16 = CreateObject<Bf16Codec>();
    fp16->SetAttribute("Format", StringValue("fp16"));
    codecs.push_back(fp16);
    for (uint32_t bits : {2u, 4u, 8u})
    {
        Ptr<QuantizationCodec> q = CreateObject<QuantizationCodec>();
        q->SetAttribute("Bits", UintegerValue(bits));
        codecs.push_back(q);
    }
    for (double density : {0.05, 0.5, 1.0})
    {
        Ptr<TopKCodec> t = CreateObject<TopKCodec>();
        t->SetAttribute("Density", DoubleValue(density));
        codecs.push_back(t);
    }
    for (uint32_t rank : {2u, 32u}) // 32 x 32 matrix: 32 is full rank
    {
        Ptr<PowerSgdCodec> p = CreateObject<PowerSgdCodec>();
        p->SetAttribute("Rank", UintegerValue(rank));
        codecs.push_back(p);
    }
    Eigen::VectorXf x = TestVector(d, 3);
    for (auto& c : codecs)
    {
        c->Configure(d, 4);
        Eigen::VectorXf y = c->RoundTrip(x);
        ASSERT_EQ(y.size(), x.size());
        double err = (x - y).cwiseAbs().maxCoeff();
        double bound = c->GetRoundTripBound(x);
        EXPECT_LE(err, bound) << c->GetName();
        if (c->GetName() != "powersgd") // its low-rank bound is ||x||_F, not elementwise
        {
            EXPECT_LT(bound, 2 * x.cwiseAbs().maxCoeff() + 1e-9) << c->GetName();
        }
    }
    // The bounds are not vacuous: bf16 really rounds, quantization really quantizes.
    Ptr<Bf16Codec> b = CreateObject<Bf16Codec>();
    b->Configure(d, 4);
    EXPECT_GT((x - b->RoundTrip(x)).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_NEAR(b->GetRoundTripBound(x), std::ldexp(x.cwiseAbs().maxCoeff(), -8), 1e-12);
}

TEST(GradientCodecTest, BadParametersThrow)
{
    for (double density : {0.0, -0.1, 1.5})
    {
        Ptr<TopKCodec> t = CreateObject<TopKCodec>();
        t->SetAttribute("Density", DoubleValue(density));
        EXPECT_THROW(t->Configure(100, 4), std::invalid_argument);
    }
    for (uint32_t bits : {1u, 3u, 16u})
    {
        Ptr<QuantizationCodec> q = CreateObject<QuantizationCodec>();
        q->SetAttribute("Bits", UintegerValue(bits));
        EXPECT_THROW(q->Configure(100, 4), std::invalid_argument);
    }
    Ptr<PowerSgdCodec> p = CreateObject<PowerSgdCodec>();
    p->SetAttribute("Rank", UintegerValue(11)); // 100 = 10 x 10
    EXPECT_THROW(p->Configure(100, 4), std::invalid_argument);
    p->SetAttribute("Rank", UintegerValue(10));
    EXPECT_NO_THROW(p->Configure(100, 4));
}

TEST(GradientCodecTest, QuantizationWidensTheAggregationLaneSoSumsCannotOverflow)
{
    // 2^w > N (2^b - 1): b=8 on 4 workers needs 10 bits -> 16-bit lanes (BF16's size);
    // b=4: 60 -> 8-bit lanes; b=2: 12 -> 4-bit lanes; b=4 on 32 workers: 480 -> 16 bits.
    struct Case
    {
        uint32_t bits, n, lane;
    };

    for (Case c : {Case{8, 4, 16}, Case{4, 4, 8}, Case{2, 4, 4}, Case{4, 32, 16}, Case{2, 5, 4}})
    {
        Ptr<QuantizationCodec> q = CreateObject<QuantizationCodec>();
        q->SetAttribute("Bits", UintegerValue(c.bits));
        q->Configure(100, c.n);
        EXPECT_EQ(PackedRingAllReduce::LaneBits(q->GetLaneFormat()), c.lane)
            << c.bits << " bits on " << c.n;
    }
}

TEST_F(CompressionTest, QuantizedAllReduceEqualsTheSumOfDequantizedInputs)
{
    Ptr<QuantizationCodec> q = CreateObject<QuantizationCodec>();
    q->SetAttribute("Bits", UintegerValue(4));
    const uint32_t n = 4;
    const uint64_t d = 2001;
    Exchange(q, n, d);
    Eigen::VectorXf levels = Eigen::VectorXf::Zero(d);
    Eigen::VectorXd deq = Eigen::VectorXd::Zero(d);
    for (uint32_t w = 0; w < n; ++w)
    {
        levels += q->GetLevels(w);
        deq += q->GetDequantized(w).cast<double>();
    }
    for (uint32_t w = 0; w < n; ++w)
    {
        Eigen::VectorXf s = q->GetSum(w);
        // float rounding of sum(q) D - N M against the sum of the N float dequantized values
        EXPECT_LT((s.cast<double>() - deq).cwiseAbs().maxCoeff(), 1e-6 * n * 0.01 + 1e-9);
    }
    // The integer lanes carried the exact integer sum (levels <= 4 x 15 = 60 < 256).
    EXPECT_LE(levels.maxCoeff(), 60.0f);
}

TEST_F(CompressionTest, TopKAllGatherDeliversExactlyTheSelectedCoordinates)
{
    Ptr<TopKCodec> t = CreateObject<TopKCodec>();
    t->SetAttribute("Density", DoubleValue(0.03));
    const uint32_t n = 4;
    std::vector<Eigen::VectorXf> in;
    Ptr<CompressedExchange> ex = Exchange(t, n, 1000, &in);
    EXPECT_EQ(t->GetK(), 30u);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t s = 0; s < n; ++s)
        {
            EXPECT_EQ(t->GetReceived(r, s), t->GetSelected(s)) << r << " from " << s;
        }
    }
    // The selected are the 30 largest magnitudes (first exchange: no residual yet).
    for (uint32_t s = 0; s < n; ++s)
    {
        std::vector<float> mags(in[s].data(), in[s].data() + in[s].size());
        for (auto& m : mags)
        {
            m = std::abs(m);
        }
        std::sort(mags.begin(), mags.end(), std::greater<float>());
        for (const auto& e : t->GetSelected(s))
        {
            EXPECT_GE(std::abs(in[s][e.first]), mags[29]);
        }
    }
    EXPECT_EQ(ex->GetExchangeRecord().algorithms.at(0), "allgather/ring");
}

TEST_F(CompressionTest, PowerSgdWithFullRankReproducesTheDenseAllReduce)
{
    Ptr<PowerSgdCodec> p = CreateObject<PowerSgdCodec>();
    p->SetAttribute("Rank", UintegerValue(20)); // 400 = 20 x 20
    std::vector<Eigen::VectorXf> in;
    Exchange(p, 4, 400, &in);
    Eigen::VectorXf exact = Sum(in);
    for (uint32_t w = 0; w < 4; ++w)
    {
        EXPECT_LT((p->GetSum(w) - exact).cwiseAbs().maxCoeff(), 1e-4 * exact.norm());
    }
}

TEST_F(CompressionTest, Bf16AllReduceIsTheSumWithinItsRounding)
{
    Ptr<Bf16Codec> b = CreateObject<Bf16Codec>();
    std::vector<Eigen::VectorXf> in;
    Ptr<CompressedExchange> ex = Exchange(b, 4, 999, &in);
    Eigen::VectorXf exact = Sum(in);
    // 4 input roundings + 3 rounded additions, each <= 2^-8 relative to partial sums.
    double scale = 0;
    for (const auto& x : in)
    {
        scale += x.cwiseAbs().maxCoeff();
    }
    for (uint32_t w = 0; w < 4; ++w)
    {
        EXPECT_LT((b->GetSum(w) - exact).cwiseAbs().maxCoeff(), 7 * std::ldexp(scale, -8));
        EXPECT_EQ(b->GetSum(w), b->GetSum(0)); // every member the same bits
    }
    EXPECT_EQ(ex->GetExchangeRecord().algorithms.at(0), "allreduce/ring-bf16");
}

TEST_F(CompressionTest, BytesOnTheWireMatchEachSchemesFormula)
{
    const uint32_t n = 4;
    const uint64_t d = 1000;
    auto scheduled = [](Ptr<CompressedExchange> ex) {
        uint64_t total = 0;
        for (const auto& s : ex->GetSchedule())
        {
            for (const auto& m : s.messages)
            {
                total += m.bytes;
            }
        }
        return total;
    };
    // BF16: ring all-reduce of 2 bytes/coordinate, 2(N-1) S.
    Ptr<Bf16Codec> b = CreateObject<Bf16Codec>();
    Ptr<CompressedExchange> ex = Exchange(b, n, d);
    EXPECT_EQ(b->GetBytesOnWire(), 2 * (n - 1) * (2 * d));
    EXPECT_EQ(scheduled(ex), b->GetBytesOnWire());
    EXPECT_EQ(ex->GetExchangeRecord().bytesOnWire, b->GetBytesOnWire());
    Simulator::Destroy();
    // FP32: 2(N-1) 4d.
    Ptr<Fp32Codec> f = CreateObject<Fp32Codec>();
    ex = Exchange(f, n, d);
    EXPECT_EQ(scheduled(ex), 2 * (n - 1) * (4 * d));
    Simulator::Destroy();
    // TopK, k = 50, 16-bit value + 16-bit index: all-gather of N x 4k, (N-1) N 4k.
    Ptr<TopKCodec> t = CreateObject<TopKCodec>();
    t->SetAttribute("Density", DoubleValue(0.05));
    ex = Exchange(t, n, d);
    EXPECT_EQ(scheduled(ex), (n - 1) * n * 4 * 50);
    EXPECT_EQ(t->GetBytesOnWire(), (n - 1) * n * 4 * 50);
    Simulator::Destroy();
    // Quantization, 4 bits on 4 workers: 8-bit lanes (d bytes) + all-gather of N floats.
    Ptr<QuantizationCodec> q = CreateObject<QuantizationCodec>();
    ex = Exchange(q, n, d);
    EXPECT_EQ(scheduled(ex), 2 * (n - 1) * d + (n - 1) * 4 * n);
    EXPECT_EQ(q->GetBytesOnWire(), 2 * (n - 1) * d + (n - 1) * 4 * n);
    Simulator::Destroy();
    // PowerSGD rank 2 on 32 x 32 (1000 padded to 1024): 2(N-1) 4 r (a + c).
    Ptr<PowerSgdCodec> p = CreateObject<PowerSgdCodec>();
    p->SetAttribute("Rank", UintegerValue(2));
    ex = Exchange(p, n, d);
    EXPECT_EQ(scheduled(ex), 2 * (n - 1) * 4 * 2 * (32 + 32));
    EXPECT_EQ(ex->GetExchangeRecord().algorithms.size(), 2u);
}

TEST_F(CompressionTest, CodecTimeIsChargedEvenWithoutWireSaving)
{
    // FP32 with 8 bytes/coordinate of encode traffic at 1e9 B/s: 8 us before the first send.
    const uint64_t d = 1000;
    Ptr<Fp32Codec> plain = CreateObject<Fp32Codec>();
    Time bare = Exchange(plain, 4, d)->GetDuration();
    Simulator::Destroy();
    Ptr<Fp32Codec> costly = CreateObject<Fp32Codec>();
    costly->SetAttribute("EncodeBytesPerCoordinate", DoubleValue(8));
    costly->SetAttribute("DecodeBytesPerCoordinate", DoubleValue(2));
    costly->SetAttribute("DeviceMemoryBandwidth", DoubleValue(1e9));
    Ptr<CompressedExchange> ex = Exchange(costly, 4, d);
    EXPECT_EQ(ex->GetExchangeRecord().encode, NanoSeconds(8000));
    EXPECT_EQ(ex->GetExchangeRecord().decode, NanoSeconds(2000));
    EXPECT_EQ(ex->GetDuration(), bare + NanoSeconds(10000));
}

TEST_F(CompressionTest, TopKBreakEvenDensityMatchesThePacketLevelCrossing)
{
    // d = 65536 (16-bit indices), 10 Gb/s ideal switch, N = 4 and 8: the beta-only
    // threshold is 32 / (N (16 + 16)) = 1/N; the twin with alpha and codec times
    // predicts rho*. The packet-level crossing (bisection on measured exchange times)
    // must be within 5% of rho*, and it falls with N as the formula says.
    const uint64_t d = 65536;
    DataRate rate("10Gbps");
    double previous = 1;
    for (uint32_t n : {4u, 8u})
    {
        Ptr<Bf16Codec> base = CreateObject<Bf16Codec>();
        Time tBase = Exchange(base, n, d, nullptr, rate)->GetDuration();
        uint32_t payload = m_transport->GetMaxPayload();
        uint32_t overhead = m_transport->GetPerPacketOverhead();
        Simulator::Destroy();
        Ptr<CompressionCostModel> model = CreateObject<CompressionCostModel>();
        model->FromLink(rate, MicroSeconds(1), payload, overhead);
        Ptr<TopKCodec> probe = CreateObject<TopKCodec>();
        probe->Configure(d, n);
        double predicted = model->TopKBreakEvenDensity(probe, base);
        double betaOnly = CompressionCostModel::TopKBreakEvenDensityBeta(n, 16, 16);
        EXPECT_NEAR(betaOnly, 1.0 / n, 1e-12);
        EXPECT_GT(predicted, 0.8 * betaOnly);
        EXPECT_LT(predicted, 1.4 * betaOnly);
        double lo = 0.2 * betaOnly;
        double hi = 2.4 * betaOnly;
        for (int it = 0; it < 7; ++it)
        {
            double mid = 0.5 * (lo + hi);
            Ptr<TopKCodec> t = CreateObject<TopKCodec>();
            t->SetAttribute("Density", DoubleValue(mid));
            Time tt = Exchange(t, n, d, nullptr, rate)->GetDuration();
            Simulator::Destroy();
            (tt < tBase ? lo : hi) = mid;
        }
        double measured = 0.5 * (lo + hi);
        std::cout << "N=" << n << " TopK break-even density: twin " << predicted
                  << ", packet level " << measured << ", beta-only " << betaOnly << std::endl;
        EXPECT_NEAR(measured, predicted, 0.05 * predicted);
        EXPECT_LT(measured, previous);
        previous = measured;
    }
}

TEST(CompressionCostModelTest, QuantBreakEvenRatioFollowsTheFormula)
{
    // dW = 2 (N-1)/N (16 - w)/8: N=4, w=8 -> 1.5 bytes saved per coordinate.
    EXPECT_NEAR(CompressionCostModel::QuantBreakEvenRatio(4, 8, 12), 12 / 1.5, 1e-12);
    EXPECT_TRUE(std::isinf(CompressionCostModel::QuantBreakEvenRatio(4, 16, 12)));
}

TEST_F(CompressionTest, CompressedTrainerLearnsAndIsDeterministic)
{
    auto train = [](Ptr<GradientCodec> codec) {
        IdealSwitchHelper fabric(4);
        Ptr<Cluster> cluster = fabric.Install();
        Ptr<UdpMessageTransport> t = CreateObject<UdpMessageTransport>();
        t->Install(cluster);
        Ptr<RealModel> model = CreateObject<RealModel>();
        model->SetAttribute("Inputs", UintegerValue(8));
        model->SetAttribute("Hidden", UintegerValue(16));
        Ptr<SyntheticDataset> data = CreateObject<SyntheticDataset>();
        ObjectFactory opt("ns3::SgdMomentum");
        opt.Set("LearningRate", DoubleValue(0.05));
        Ptr<CompressedTrainer> trainer = CreateObject<CompressedTrainer>();
        trainer->SetAttribute("ComputeTime", TimeValue(MicroSeconds(100)));
        trainer->Setup(t, {0, 1, 2, 3}, model, data, opt);
        trainer->SetCodec(codec);
        trainer->Run(0, 30);
        Simulator::Run();
        Eigen::VectorXf p = trainer->GetParameters(0);
        EXPECT_EQ(p, trainer->GetParameters(3));
        const auto& rec = trainer->GetRecords();
        EXPECT_EQ(rec.size(), 30u);
        EXPECT_LT(rec.back().loss, 0.9 * rec.front().loss) << codec->GetName();
        EXPECT_EQ(trainer->GetExchangeRecords().size(), 30u);
        // The exchange occupies the timeline from compute end to update.
        EXPECT_EQ(rec[5].reduceEnd - rec[5].computeEnd, trainer->GetExchangeRecords()[5].total);
        Simulator::Destroy();
        return p;
    };
    for (std::string scheme : {"topk", "quant", "powersgd"})
    {
        auto make = [&]() -> Ptr<GradientCodec> {
            if (scheme == "topk")
            {
                Ptr<TopKCodec> c = CreateObject<TopKCodec>();
                c->SetAttribute("Density", DoubleValue(0.1));
                return c;
            }
            if (scheme == "quant")
            {
                return CreateObject<QuantizationCodec>();
            }
            Ptr<PowerSgdCodec> c = CreateObject<PowerSgdCodec>();
            c->SetAttribute("Rank", UintegerValue(2));
            return c;
        };
        Eigen::VectorXf a = train(make());
        Eigen::VectorXf b = train(make());
        EXPECT_EQ(a, b) << scheme;
    }
}

TEST_F(CompressionTest, QuantizedBetaTermScalesWithTheLaneWidth)
{
    // Reference requirement: in packet-level runs the beta term scales by w/16 (w: the
    // aggregation lane bits on the wire) and the alpha term does not. The slope of the
    // communication time over d (beta) of 4-bit quantization on 4 workers (w = 8) is
    // half BF16's; the constant parts cancel in the difference of two sizes.
    auto comm = [this](Ptr<GradientCodec> c, uint64_t d) {
        Time t = Exchange(c, 4, d, nullptr, DataRate("10Gbps"))->GetExchangeRecord().communication;
        Simulator::Destroy();
        return t.GetSeconds();
    };
    double bf16 = comm(CreateObject<Bf16Codec>(), 131072) - comm(CreateObject<Bf16Codec>(), 65536);
    double quant = comm(CreateObject<QuantizationCodec>(), 131072) -
                   comm(CreateObject<QuantizationCodec>(), 65536);
    EXPECT_NEAR(quant / bf16, 8.0 / 16.0, 0.01);
}

TEST(GradientCodecTest, TopKUsesThirtyTwoBitIndicesAboveSixtyFiveThousandCoordinates)
{
    Ptr<TopKCodec> t = CreateObject<TopKCodec>();
    t->SetAttribute("Density", DoubleValue(0.001));
    const uint64_t d = 70000;
    t->Configure(d, 4);
    EXPECT_EQ(t->GetIndexBits(), 32u);
    EXPECT_EQ(t->GetK(), 70u);
    // 70 entries of 6 bytes = 105 words per worker.
    EXPECT_EQ(t->GetRoundBytes().at(0), 4u * 4 * 105);
    Eigen::VectorXf x = TestVector(d, 5);
    x[69999] = 1.0f; // the largest coordinate sits above index 65535
    Eigen::VectorXf y = t->RoundTrip(x);
    EXPECT_EQ(y[69999], 1.0f);
    EXPECT_LE((x - y).cwiseAbs().maxCoeff(), t->GetRoundTripBound(x));
}

// compression.md's table: a compressed trainer is the job's Trainer; its Exchange
// re-exposes each iteration's CompressedExchange (created per iteration).
TEST_F(CompressionTest, TrainerExchangeIsReachableByConfigPath)
{
    g_traceCalls.clear();
    IdealSwitchHelper fabric(4);
    Ptr<Cluster> cluster = fabric.Install();
    Ptr<UdpMessageTransport> t = CreateObject<UdpMessageTransport>();
    t->Install(cluster);
    Ptr<RealModel> model = CreateObject<RealModel>();
    model->SetAttribute("Inputs", UintegerValue(4));
    model->SetAttribute("Hidden", UintegerValue(0));
    Ptr<CompressedTrainer> trainer = CreateObject<CompressedTrainer>();
    trainer->Setup(t,
                   {0, 1, 2, 3},
                   model,
                   CreateObject<SyntheticDataset>(),
                   ObjectFactory("ns3::SgdMomentum"));
    trainer->SetCodec(CreateObject<QuantizationCodec>());
    Config::Connect("/Names/Trainer/Exchange",
                    MakeCallback(&CountTraceCall<const CompressedExchangeRecord&>));
    Config::Connect("/Names/Trainer/IterationDone",
                    MakeCallback(&CountTraceCall<uint32_t, double, double, Time>));
    trainer->Run(0, 3);
    Simulator::Run();
    EXPECT_EQ(g_traceCalls["/Names/Trainer/Exchange"], 3u);
    EXPECT_EQ(g_traceCalls["/Names/Trainer/IterationDone"], 3u);
    EXPECT_EQ(g_traceCalls.size(), 2u);
}
