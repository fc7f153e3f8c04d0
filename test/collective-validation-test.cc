// SPDX-License-Identifier: GPL-2.0-only
// Integration tests of collectives over real fabrics and transports, against
// their analytical models, and of the collective-validation example as a user
// runs it (exit codes, error lines, deterministic JSON).
#include "example-process.h"
#include "mlnet-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-closed-forms.h"
#include "ns3/collective-runner.h"
#include "ns3/fabric-options.h"
#include "ns3/simulator.h"
#include "ns3/transport-choice.h"

#include <cmath>
#include <tuple>

using namespace ns3;
using namespace mlnettest;

namespace
{

class CollectiveValidationTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    CollectiveRunResult Run(FabricOptions f, CollectiveRunOptions r)
    {
        Ptr<Cluster> c = f.Build();
        CollectiveRunResult result = CollectiveRunner::Run(c, r);
        Simulator::Destroy();
        return result;
    }
};

} // namespace

// Ring all-reduce on an ideal switch over UDP: within 2% of the alpha-beta twin.
TEST_F(CollectiveValidationTest, RingAllReduceMatchesTwinOnIdealSwitch)
{
    FabricOptions f;
    f.fabric = "ideal";
    f.ranks = 8;
    CollectiveRunOptions r;
    r.bytes = "4MiB";
    CollectiveRunResult res = Run(f, r);
    EXPECT_GT(res.simulatedS, 0);
    EXPECT_LT(std::abs(res.error), 0.02)
        << "sim " << res.simulatedS << " model " << res.analyticalS;
    // Lower bound 2(N-1)/N * S / B (Patarasuk & Yuan): packet-level sits above it by
    // the headers (59 B per 8943 B payload) and 2(N-1) step latencies of one frame
    // plus two hops: 2(N-1) * (9002 * 8 / R + 2 d).
    double bound = CollectiveClosedForms::AllReduceLowerBound(8, 4 << 20, DataRate("100Gbps"));
    double extra = bound * 59.0 / 8943 + 2 * 7 * (9002 * 8 / 100e9 + 2e-6);
    EXPECT_GT(res.simulatedS, bound);
    EXPECT_NEAR(res.simulatedS, bound + extra, 0.02 * res.simulatedS);
}

// Bytes are conserved: every link's wire bytes add up to the packets the
// transport sent times the hops they crossed (2 on a star).
TEST_F(CollectiveValidationTest, BytesConservedOnStar)
{
    FabricOptions f;
    f.ranks = 4;
    CollectiveRunOptions r;
    r.bytes = "1MiB";
    CollectiveRunResult res = Run(f, r);
    // Ring all-reduce: every rank sends 2(N-1) chunks of S/N; each crosses 2 links.
    uint64_t chunk = (1 << 20) / 4;
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    Ptr<MessageTransport> t = TransportChoice::Create("udp");
    // Packetization as the transport reports it, on the default MTU.
    FabricOptions g;
    g.ranks = 2;
    t->Install(g.Build());
    m->SetPacketization(t);
    uint64_t perRank = 2 * 3 * m->GetWireBytes(chunk);
    EXPECT_GE(res.linkBytes, 2 * 4 * perRank); // + acks from the receivers
    EXPECT_EQ(res.bytesByLinkClass.at("host-tor"), res.linkBytes);
}

// Real-valued all-reduce through packets equals the exact sum.
TEST_F(CollectiveValidationTest, RealAllReduceIsExactOverUdpAndTcp)
{
    for (const char* transport : {"udp", "tcp"})
    {
        for (const char* algorithm : {"ring", "hd"})
        {
            FabricOptions f;
            f.fabric = "fattree";
            f.ranks = 8;
            f.transport = transport; // tcp: the IPv4 data path
            CollectiveRunOptions r;
            r.algorithm = algorithm;
            r.bytes = "256KiB";
            r.real = true;
            r.transport = transport;
            CollectiveRunResult res = Run(f, r);
            EXPECT_EQ(res.realCorrect, 1) << transport << " " << algorithm;
        }
    }
}

// All-to-all on a 4x4 torus vs a Clos of equal injection bandwidth (4 x 100G per
// node = one 400G port on an ideal switch): the packet-level ratio is within 10%
// of the hop-count model N*k*m/(8b) / ((N-1)*m/B).
TEST_F(CollectiveValidationTest, TorusVsClosAllToAllFollowsHopCountModel)
{
    CollectiveRunOptions r;
    r.collective = "alltoall";
    r.algorithm = "direct";
    r.bytes = "256KiB";
    FabricOptions torus;
    torus.fabric = "torus";
    torus.torusDims = "4x4";
    FabricOptions clos;
    clos.fabric = "ideal";
    clos.ranks = 16;
    clos.rate = "400Gbps";
    double tTorus = Run(torus, r).simulatedS;
    double tClos = Run(clos, r).simulatedS;
    double m = 256 * 1024;
    double model = CollectiveClosedForms::TorusAllToAllBound(4, 2, m, DataRate("100Gbps")) /
                   CollectiveClosedForms::ClosAllToAllBound(16, m, DataRate("400Gbps"));
    double ratio = tTorus / tClos;
    EXPECT_NEAR(ratio / model, 1.0, 0.10)
        << "torus " << tTorus << " clos " << tClos << " ratio " << ratio << " model " << model;
}

// Oversubscription 3 at the ToR slows all-to-all by max(1, r (N - n_r) / (N - 1)).
TEST_F(CollectiveValidationTest, OversubscribedAllToAllSlowdownFollowsModel)
{
    CollectiveRunOptions r;
    r.collective = "alltoall";
    r.algorithm = "direct";
    r.bytes = "128KiB";
    FabricOptions full;
    full.fabric = "fattree";
    full.ranks = 24;
    full.radix = 8;
    FabricOptions over = full;
    over.oversubscription = 3;
    double t1 = Run(full, r).simulatedS;
    double t3 = Run(over, r).simulatedS;
    double model = std::max(1.0, 3.0 * (24 - 6) / (24 - 1));
    EXPECT_NEAR((t3 / t1) / model, 1.0, 0.10) << "t1 " << t1 << " t3 " << t3;
}

// The example: a table and JSON with the documented fields.
// Bus bandwidth as nccl-tests defines it is what makes collectives comparable: the rate a
// bandwidth-bound collective drives each NIC at. On an ideal switch at 100 Gbps the ring
// all-gather of S = 8 MiB over 8 ranks takes 7 steps of one chunk c = S/8 each:
//   step = W(c)*8/R + F1*8/R + 2d,  W(c) = c + ceil(c/P)*O,  F1 = P + O
// (P = 8972 payload bytes, O = 30 bytes of IPv4/UDP/PPP, d = 1 us, two hops), and
// busbw = S/t * 7/8. Every other collective's busbw must come out the same (within 0.5%),
// all-to-all included (S = 8 blocks of 1 MiB per rank).
TEST_F(CollectiveValidationTest, BusBandwidthIsTheSameLinkRateForEveryCollective)
{
    const double R = 100e9;
    const double c = 1048576;
    const double P = 8972;
    const double O = 30;
    const double step = (c + std::ceil(c / P) * O) * 8 / R + (P + O) * 8 / R + 2e-6;
    const double expectedGbps = 8 * c / (7 * step) * 7.0 / 8 * 8e-9;
    FabricOptions f;
    f.fabric = "ideal";
    f.ranks = 8;
    f.dataPath = "fast";
    for (auto [collective, algorithm, bytes] : {std::tuple{"allgather", "ring", "8MiB"},
                                                std::tuple{"allreduce", "ring", "8MiB"},
                                                std::tuple{"reducescatter", "ring", "8MiB"},
                                                std::tuple{"alltoall", "pairwise", "1MiB"}})
    {
        CollectiveRunOptions r;
        r.collective = collective;
        r.algorithm = algorithm;
        r.bytes = bytes;
        CollectiveRunResult result = Run(f, r);
        EXPECT_NEAR(result.busBandwidthGbps, expectedGbps, 0.005 * expectedGbps) << collective;
    }
}

TEST(CollectiveValidationExample, WritesRowsWithDocumentedFields)
{
    std::string json = ::testing::TempDir() + "/cv-a.json";
    ExampleRun e = RunExample("collective-validation",
                              "--fabric=torus --torusDims=2x2 --collective=allreduce "
                              "--algorithm=torus --bytes=64KiB --json=" +
                                  json);
    ASSERT_EQ(e.status, 0) << e.err;
    nlohmann::json doc = ReadJson(json);
    ExpectTrafficConserved(doc, 1);
    ExpectRowsHaveHealth(doc, "simulated_s", "analytical_s");
    ASSERT_EQ(doc["rows"].size(), 1u);
    for (const char* k : {"fabric",
                          "collective",
                          "algorithm",
                          "ranks",
                          "bytes",
                          "simulated_s",
                          "analytical_s",
                          "error"})
    {
        EXPECT_TRUE(doc["rows"][0].contains(k)) << k;
    }
    EXPECT_EQ(doc["rows"][0]["ranks"], 4);
}

// Same flags, same JSON (wall-clock fields aside).
TEST(CollectiveValidationExample, SameFlagsGiveIdenticalJson)
{
    std::string a = ::testing::TempDir() + "/cv-det-a.json";
    std::string b = ::testing::TempDir() + "/cv-det-b.json";
    std::string flags = "--fabric=fattree --ranks=8 --collective=alltoall --algorithm=pairwise "
                        "--bytes=32KiB --failLinks=1 --RngRun=3 --json=";
    ASSERT_EQ(RunExample("collective-validation", flags + a).status, 0);
    ASSERT_EQ(RunExample("collective-validation", flags + b).status, 0);
    nlohmann::json ja = ReadJson(a);
    nlohmann::json jb = ReadJson(b);
    StripWall(ja);
    StripWall(jb);
    ja.erase("meta");
    jb.erase("meta");
    EXPECT_EQ(ja.dump(), jb.dump());
}

// Bad input: one line "error: ...", non-zero exit, no JSON written.
TEST(CollectiveValidationExample, BadInputGivesOneErrorLine)
{
    std::string json = ::testing::TempDir() + "/cv-bad.json";
    std::remove(json.c_str());
    const char* bad[] = {
        "--fabric=hypercube",
        "--fabric=torus --torusDims=4x4x",
        "--rate=0Gbps",
        "--rate=fast",
        "--bytes=12abc",
        "--algorithm=hd --ranks=6",
        "--collective=allreduce --real=1 --bytes=1023",
        "--collective=gossip",
        "--fabric=graph --graph=/nonexistent.json",
        "--fabric=torus --torusDims=4x4 --ranks=8",
        "--mtu=100",
        "--dataPath=dpdk",
        "--dataPath=fast --transport=tcp",
        "--dataPath=fast --ecn=1",
    };
    for (const char* flags : bad)
    {
        ExampleRun e = RunExample("collective-validation", std::string(flags) + " --json=" + json);
        EXPECT_NE(e.status, 0) << flags;
        EXPECT_EQ(e.err.rfind("error: ", 0), 0u) << flags << " -> " << e.err;
        EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << flags << " -> " << e.err;
        EXPECT_FALSE(std::ifstream(json).good()) << flags;
    }
}
