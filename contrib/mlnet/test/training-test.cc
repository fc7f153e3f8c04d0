// SPDX-License-Identifier: GPL-2.0-only
// Tests of IterationGraph, TrainingDriver and TrainingWorkload.
//
// Communication runs over a test transport whose times are exact: a message of
// b bytes sent by rank s starts when s's previous message finished (FIFO per
// sender) and arrives b*8/R + L later. The test collective has every member send
// `bytes` to the next member once; a member is done when its message arrived, so
// with distinct senders the collective takes exactly b*8/R + L.
#include "fixed-rate-test-transport.h"
#include "mlnet-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/cluster.h"
#include "ns3/collective-factory.h"
#include "ns3/collective.h"
#include "ns3/data-file.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/iteration-graph.h"
#include "ns3/message-transport.h"
#include "ns3/node-container.h"
#include "ns3/run-report.h"
#include "ns3/simulator.h"
#include "ns3/training-driver.h"
#include "ns3/training-workload.h"
#include "ns3/udp-message-transport.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;
using namespace mlnettest;

namespace
{

const DataRate kRate("8Gbps"); // 1 byte = 1 ns
const Time kLatency = MicroSeconds(1);

using ExactTransport = FixedRateTestTransport;

/// Every member sends `bytes` to the next member once and is done when its message arrives.
class PassToNext : public Collective
{
public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::TrainingTestPassToNext").SetParent<Collective>().SetGroupName("Mlnet");
        return tid;
    }

    PassToNext(std::string collective, std::string algorithm)
        : m_collective(std::move(collective)),
          m_algorithm(std::move(algorithm))
    {
    }

    std::string GetCollectiveName() const override
    {
        return m_collective;
    }

    std::string GetAlgorithmName() const override
    {
        return m_algorithm;
    }

    std::vector<CollectiveStep> GetSchedule() const override
    {
        CollectiveStep step;
        for (uint32_t i = 0; i < m_ranks.size(); ++i)
        {
            step.messages.push_back({m_ranks[i], m_ranks[(i + 1) % m_ranks.size()], m_bytes});
        }
        return {step};
    }

protected:
    void DoStart() override
    {
        for (uint32_t i = 0; i < m_ranks.size(); ++i)
        {
            SendToMember(i, (i + 1) % m_ranks.size(), 0, m_bytes);
        }
    }

    void HandleMessage(const Message& msg) override
    {
        MemberDone(MemberOf(msg.dst));
    }

private:
    std::string m_collective;
    std::string m_algorithm;
};

Ptr<Collective>
CreateTestCollective(const std::string& collective, const std::string& algorithm)
{
    if (algorithm == "unknown")
    {
        return nullptr;
    }
    return CreateObject<PassToNext>(collective, algorithm);
}

/// Time of a PassToNext collective (or a send) of b bytes on the exact transport.
Time
CommTime(uint64_t bytes)
{
    return kRate.CalculateBytesTxTime(bytes) + kLatency;
}

Ptr<ExactTransport>
MakeTransport(uint32_t ranks)
{
    Ptr<Cluster> cluster = CreateObject<Cluster>();
    NodeContainer nodes;
    nodes.Create(ranks);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        cluster->AddRankNode(nodes.Get(i));
    }
    Ptr<ExactTransport> t = CreateObject<ExactTransport>();
    t->Install(cluster);
    return t;
}

Ptr<TrainingDriver>
MakeDriver(const IterationGraph& g, uint32_t ranks, uint32_t iterations = 1)
{
    Ptr<TrainingDriver> d = CreateObject<TrainingDriver>();
    d->SetAttribute("Iterations", UintegerValue(iterations));
    d->SetGraph(g);
    d->SetTransport(MakeTransport(ranks));
    d->SetCollectiveCreator(&CreateTestCollective);
    return d;
}

/// 4 layers (fwd 100 us, bwd 200 us, 250 kB each), 500 kB buckets, 50 us optimizer.
const char* kFourLayers = R"({
  "name": "four",
  "layers": [
    {"name": "l0", "forward_us": 100, "backward_us": 200, "param_bytes": 250000},
    {"name": "l1", "forward_us": 100, "backward_us": 200, "param_bytes": 250000},
    {"name": "l2", "forward_us": 100, "backward_us": 200, "param_bytes": 250000},
    {"name": "l3", "forward_us": 100, "backward_us": 200, "param_bytes": 250000}
  ],
  "bucket_bytes": 500000,
  "optimizer_us": 50
})";

class TrainingDriverTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

class IterationGraphTest : public TrainingDriverTest
{
};

class TrainingWorkloadTest : public TrainingDriverTest
{
};

} // namespace

TEST_F(TrainingDriverTest, RunsSmallGraphOnItsCriticalPath)
{
    IterationGraph g;
    auto a = g.AddCompute("A", 0, MicroSeconds(100));
    auto b = g.AddCompute("B", 1, MicroSeconds(50));
    auto s = g.AddSend("S", 0, 1, 1000000, {a});
    auto c = g.AddCompute("C", 1, MicroSeconds(30), {b, s});
    auto d = g.AddCompute("D", 1, MicroSeconds(20));
    auto x = g.AddCollective("X", "allreduce", "test", {1, 2}, 500000, {c});
    auto y = g.AddDelay("Y", MicroSeconds(10), {x});
    auto e = g.AddCompute("E", 2, MicroSeconds(1500));
    Ptr<TrainingDriver> drv = MakeDriver(g, 3);
    drv->Start();
    Simulator::Run();
    ASSERT_TRUE(drv->IsDone());

    // By hand (us): A 0-100; S 100 + 1e6 B * 8/8Gbps (1000) + 1 = 1101.
    // Rank 1 stream: B 0-50, then D 50-70 (both ready at 0, lower id first), C 1101-1131.
    // X (500 kB) 1131 + 500 + 1 = 1632; Y 1632-1642. E 0-1500. Iteration: 1642.
    std::map<uint32_t, TaskRecord> rec;
    for (const auto& r : drv->GetTaskRecords())
    {
        rec[r.task] = r;
    }
    EXPECT_EQ(rec[s].end, MicroSeconds(1101));
    EXPECT_EQ(rec[d].start, MicroSeconds(50));
    EXPECT_EQ(rec[d].end, MicroSeconds(70));
    EXPECT_EQ(rec[c].ready, MicroSeconds(1101));
    EXPECT_EQ(rec[c].end, MicroSeconds(1131));
    EXPECT_EQ(rec[x].end, MicroSeconds(1632));
    EXPECT_EQ(rec[y].end, MicroSeconds(1642));
    EXPECT_EQ(rec[e].end, MicroSeconds(1500));
    ASSERT_EQ(drv->GetIterationRecords().size(), 1u);
    EXPECT_EQ(drv->GetIterationRecords()[0].GetDuration(), MicroSeconds(1642));

    // The collective's own record and the analytical executor agree.
    ASSERT_EQ(drv->GetCollectiveRecords().size(), 1u);
    EXPECT_EQ(drv->GetCollectiveRecords()[0].task, x);
    EXPECT_EQ(drv->GetCollectiveRecords()[0].record.end, MicroSeconds(1632));
    auto est = g.Estimate([](const IterationTask& t) { return CommTime(t.bytes); });
    for (const auto& [id, r] : rec)
    {
        EXPECT_EQ(est[id].start, r.start) << r.name;
        EXPECT_EQ(est[id].end, r.end) << r.name;
    }
    (void)y;
}

TEST_F(TrainingDriverTest, ComputeTasksOfOneRankRunOneAtATime)
{
    IterationGraph g;
    auto first = g.AddCompute("first", 0, MicroSeconds(100));
    auto second = g.AddCompute("second", 0, MicroSeconds(50));
    g.AddCompute("other", 1, MicroSeconds(120));
    Ptr<TrainingDriver> drv = CreateObject<TrainingDriver>();
    drv->SetGraph(g); // compute only: no transport needed
    drv->Start();
    Simulator::Run();
    // Rank 0: 100 + 50 in sequence; rank 1 in parallel: max(150, 120) = 150 us.
    EXPECT_EQ(drv->GetIterationRecords().at(0).GetDuration(), MicroSeconds(150));
    for (const auto& r : drv->GetTaskRecords())
    {
        if (r.task == second)
        {
            EXPECT_EQ(r.ready, Time(0));
            EXPECT_EQ(r.start, MicroSeconds(100));
        }
    }
    (void)first;
}

TEST_F(TrainingDriverTest, BucketsOverlapBackwardAndMatchTheAnalyticalCriticalPath)
{
    TrainingWorkload w = TrainingWorkload::FromString(kFourLayers);
    const uint32_t ranks = 4;
    Ptr<TrainingDriver> drv = MakeDriver(w.BuildGraph(ranks), ranks);
    drv->Start();
    Simulator::Run();
    Time iteration = drv->GetIterationRecords().at(0).GetDuration();

    // By hand (us), all-reduce of 500 kB = 500 + 1 = 501: forward 0-400; backward l3 400-600,
    // l2 600-800 -> bucket 0 all-reduce 800-1301 while l1 800-1000, l0 1000-1200 run;
    // bucket 1 waits for bucket 0: 1301-1802; optimizer 1802-1852.
    EXPECT_EQ(iteration, MicroSeconds(1852));
    Time serial = w.GetComputeTime() + 2 * CommTime(500000); // 1250 + 1002
    EXPECT_LT(iteration, serial);
    EXPECT_EQ(iteration, w.EstimateIterationTime(ranks, &CommTime));
    ASSERT_EQ(drv->GetCollectiveRecords().size(), 2u);
    EXPECT_EQ(drv->GetCollectiveRecords()[0].record.start, MicroSeconds(800));
    EXPECT_EQ(drv->GetCollectiveRecords()[1].record.start, MicroSeconds(1301));
}

TEST_F(TrainingDriverTest, IterationsRunBackToBackWithEqualTimes)
{
    TrainingWorkload w = TrainingWorkload::FromString(kFourLayers);
    Ptr<TrainingDriver> drv = MakeDriver(w.BuildGraph(4), 4, 3);
    std::vector<uint32_t> started;
    std::vector<Time> durations;
    uint32_t tasksFinished = 0;
    bool done = false;
    drv->TraceConnectWithoutContext("IterationStarted",
                                    MakeCallback(+[](std::vector<uint32_t>* v, uint32_t i) {
                                        v->push_back(i);
                                    }).Bind(&started));
    drv->TraceConnectWithoutContext("IterationFinished",
                                    MakeCallback(+[](std::vector<Time>* v, uint32_t, Time d) {
                                        v->push_back(d);
                                    }).Bind(&durations));
    drv->TraceConnectWithoutContext(
        "TaskFinished",
        MakeCallback(+[](uint32_t* n, const TaskRecord&) { ++*n; }).Bind(&tasksFinished));
    drv->SetDoneCallback(
        MakeCallback(+[](bool* flag, Ptr<TrainingDriver>) { *flag = true; }).Bind(&done));
    drv->Start();
    Simulator::Run();

    EXPECT_TRUE(done);
    EXPECT_EQ(started, (std::vector<uint32_t>{0, 1, 2}));
    ASSERT_EQ(durations.size(), 3u);
    const auto& it = drv->GetIterationRecords();
    ASSERT_EQ(it.size(), 3u);
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(it[i].GetDuration(), MicroSeconds(1852)) << "iteration " << i;
        EXPECT_EQ(durations[i], it[i].GetDuration());
        if (i > 0)
        {
            EXPECT_EQ(it[i].start, it[i - 1].end);
        }
    }
    EXPECT_EQ(Simulator::Now(), MicroSeconds(3 * 1852));
    EXPECT_EQ(tasksFinished, 3 * drv->GetGraph().GetNTasks());
    EXPECT_EQ(drv->GetCollectiveRecords().size(), 6u);
    EXPECT_EQ(drv->GetMeanIterationTime(), MicroSeconds(1852));
}

TEST_F(TrainingDriverTest, RejectsMissingPiecesBeforeScheduling)
{
    IterationGraph g;
    g.AddCollective("ar", "allreduce", "ring", {0, 1}, 1000);
    Ptr<TrainingDriver> noTransport = CreateObject<TrainingDriver>();
    noTransport->SetGraph(g);
    EXPECT_NE(InvalidArgumentMessage([&] { noTransport->Start(); }).find("SetTransport"),
              std::string::npos);

    Ptr<TrainingDriver> noCreator = CreateObject<TrainingDriver>();
    noCreator->SetGraph(g);
    noCreator->SetTransport(MakeTransport(2));
    EXPECT_NE(InvalidArgumentMessage([&] { noCreator->Start(); }).find("SetCollectiveCreator"),
              std::string::npos);

    IterationGraph unknown;
    unknown.AddCollective("ar", "allreduce", "unknown", {0, 1}, 1000);
    Ptr<TrainingDriver> badName = MakeDriver(unknown, 2);
    EXPECT_NE(InvalidArgumentMessage([&] { badName->Start(); }).find("'unknown'"),
              std::string::npos);

    IterationGraph tooWide;
    tooWide.AddCompute("c", 5, MicroSeconds(1));
    tooWide.AddSend("s", 0, 1, 10);
    Ptr<TrainingDriver> wide = MakeDriver(tooWide, 2);
    EXPECT_NE(InvalidArgumentMessage([&] { wide->Start(); }).find("only 2 ranks"),
              std::string::npos);
    EXPECT_EQ(Simulator::GetEventCount(), 0u);
}

TEST_F(IterationGraphTest, RejectsUnknownIdsCyclesAndEmptyGraphs)
{
    IterationGraph g;
    auto a = g.AddCompute("a", 0, MicroSeconds(1));
    EXPECT_NE(InvalidArgumentMessage([&] {
                  g.AddCompute("b", 0, MicroSeconds(1), {7});
              }).find("task id 7"),
              std::string::npos);
    auto b = g.AddCompute("b", 0, MicroSeconds(1), {a});
    auto c = g.AddCompute("c", 0, MicroSeconds(1), {b});
    EXPECT_NO_THROW(g.Validate());
    g.AddDependency(a, c); // a -> b -> c -> a
    std::string msg = InvalidArgumentMessage([&] { g.Validate(); });
    EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
    Ptr<TrainingDriver> drv = CreateObject<TrainingDriver>();
    EXPECT_THROW(drv->SetGraph(g), std::invalid_argument);
    EXPECT_THROW(IterationGraph().Validate(), std::invalid_argument);
    EXPECT_THROW(g.AddSend("self", 1, 1, 10), std::invalid_argument);
    EXPECT_THROW(g.AddCollective("one", "allreduce", "ring", {3}, 10), std::invalid_argument);
    EXPECT_THROW(g.AddCompute("neg", 0, MicroSeconds(-1)), std::invalid_argument);
}

TEST_F(IterationGraphTest, TopologicalOrderPutsDependenciesFirst)
{
    IterationGraph g;
    auto late = g.AddCompute("late", 0, MicroSeconds(1));
    auto early = g.AddCompute("early", 0, MicroSeconds(1));
    g.AddDependency(late, early);
    auto order = g.GetTopologicalOrder();
    ASSERT_EQ(order.size(), 2u);
    EXPECT_EQ(order[0], early);
    EXPECT_EQ(order[1], late);
}

TEST_F(TrainingWorkloadTest, FormsBucketsInBackwardOrder)
{
    auto doc = [](uint64_t bucket) {
        nlohmann::json j = {{"name", "five"},
                            {"bucket_bytes", bucket},
                            {"layers", nlohmann::json::array()}};
        for (uint64_t i = 0; i < 5; ++i)
        {
            j["layers"].push_back({{"name", "l" + std::to_string(i)},
                                   {"forward_us", 1},
                                   {"backward_us", 2},
                                   {"param_bytes", 10 * (i + 1)}});
        }
        return TrainingWorkload::FromJson(j);
    };
    // Params 10, 20, 30, 40, 50; backward visits l4 first.
    // Bucket 60: 50+40 = 90 >= 60 closes {l4,l3}; 30+20+10 = 60 closes {l2,l1,l0}.
    auto b60 = doc(60).GetBuckets();
    ASSERT_EQ(b60.size(), 2u);
    EXPECT_EQ(b60[0].layers, (std::vector<uint32_t>{4, 3}));
    EXPECT_EQ(b60[0].bytes, 90u);
    EXPECT_EQ(b60[1].layers, (std::vector<uint32_t>{2, 1, 0}));
    EXPECT_EQ(b60[1].bytes, 60u);
    // Bucket 45: {l4} 50; {l3,l2} 70; the last one is smaller: {l1,l0} 30.
    auto b45 = doc(45).GetBuckets();
    ASSERT_EQ(b45.size(), 3u);
    EXPECT_EQ(b45[0].layers, (std::vector<uint32_t>{4}));
    EXPECT_EQ(b45[1].layers, (std::vector<uint32_t>{3, 2}));
    EXPECT_EQ(b45[2].layers, (std::vector<uint32_t>{1, 0}));
    EXPECT_EQ(b45[2].bytes, 30u);
    EXPECT_EQ(b45[2].index, 2u);
    // One big bucket holds everything.
    EXPECT_EQ(doc(1000).GetBuckets().size(), 1u);
    EXPECT_EQ(doc(1000).GetBuckets()[0].bytes, 150u);

    // Graph: per rank 5 fwd + 5 bwd, per group one all-reduce per bucket.
    IterationGraph g = doc(45).BuildGraph(4);
    EXPECT_EQ(g.GetNTasks(), 4u * 10 + 3);
    uint32_t collectives = 0;
    for (const auto& t : g.GetTasks())
    {
        if (t.kind == TaskKind::COLLECTIVE)
        {
            EXPECT_EQ(t.collective.ranks, (std::vector<uint32_t>{0, 1, 2, 3}));
            EXPECT_EQ(t.collective.algorithm, "ring");
            EXPECT_EQ(t.bytes, b45[collectives].bytes);
            ++collectives;
        }
    }
    EXPECT_EQ(collectives, 3u);
}

TEST_F(TrainingWorkloadTest, DataDegreeSplitsRanksIntoConsecutiveGroups)
{
    nlohmann::json j = nlohmann::json::parse(kFourLayers);
    j["parallelism"] = {{"data", 4}};
    j["collective"] = {{"algorithm", "hd"}};
    TrainingWorkload w = TrainingWorkload::FromJson(j);
    auto groups = w.GetDataParallelGroups(8);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[1], (std::vector<uint32_t>{4, 5, 6, 7}));
    IterationGraph g = w.BuildGraph(8);
    uint32_t collectives = 0;
    for (const auto& t : g.GetTasks())
    {
        collectives += t.kind == TaskKind::COLLECTIVE;
        if (t.kind == TaskKind::COLLECTIVE)
        {
            EXPECT_EQ(t.collective.algorithm, "hd");
        }
    }
    EXPECT_EQ(collectives, 4u); // 2 groups x 2 buckets
    // Both groups run side by side: same iteration time as one group of 4.
    EXPECT_EQ(w.EstimateIterationTime(8, &CommTime), MicroSeconds(1852));
    std::string msg = InvalidArgumentMessage([&] { w.BuildGraph(6); });
    EXPECT_NE(msg.find("parallelism.data = 4 does not divide the 6 ranks"), std::string::npos)
        << msg;
}

TEST_F(TrainingWorkloadTest, BadInputsNameTheField)
{
    const std::string layer =
        R"({"name": "l0", "forward_us": 1, "backward_us": 2, "param_bytes": 100})";
    auto with = [&layer](const std::string& extra, const std::string& l) {
        return R"({"name": "w", )" + extra + R"("layers": [)" + l + "]}";
    };

    struct Case
    {
        std::string text;
        std::string expected;
    };

    std::vector<Case> cases = {
        {R"({"name": "w", "layers": [})", "malformed JSON"},
        {R"({"name": "w",
            "layers": [})",
         "line 2"},
        {R"([1, 2])", "workload text: top level: expected a workload object"},
        {R"({"layers": [)" + layer + "]}",
         "workload text: name: expected a non-empty string of at most 256 characters, got nothing "
         "(the field is missing)"},
        {R"({"name": "w"})", "layers: expected an array of 1 to 65536 layer objects"},
        {R"({"name": "w", "layers": []})",
         "layers: expected an array of 1 to 65536 layer objects {name, forward_us, backward_us, "
         "param_bytes}, got an array of 0 elements"},
        {with("", R"({"name": "l0", "backward_us": 2, "param_bytes": 1})"),
         "layers[0].forward_us: expected a number of microseconds in (0, 1e+09], got nothing"},
        {with("", R"({"name": "l0", "forward_us": 0, "backward_us": 2, "param_bytes": 1})"),
         "layers[0].forward_us: expected a number of microseconds in (0, 1e+09], got number 0"},
        {with("",
              layer + R"(, {"name": "l1", "forward_us": 1, "backward_us": -2, "param_bytes": 1})"),
         "layers[1].backward_us: expected a number of microseconds in (0, 1e+09], got number -2"},
        {with("", R"({"name": "l0", "forward_us": 1, "backward_us": "2", "param_bytes": 1})"),
         "layers[0].backward_us: expected a number of microseconds in (0, 1e+09], got string "
         "\"2\""},
        {with("", R"({"name": "l0", "forward_us": 1, "backward_us": 2, "param_bytes": 1.5})"),
         "layers[0].param_bytes: expected a whole number of bytes in [0, 2^50], got number 1.5"},
        {with("", R"({"name": "l0", "forward_us": 1, "backward_us": 2, "param_bytes": -4})"),
         "layers[0].param_bytes: expected a whole number of bytes in [0, 2^50], got number -4"},
        {with("", R"({"name": "l0", "forward_us": 1, "backward_us": 2})"),
         "layers[0].param_bytes: expected a whole number of bytes in [0, 2^50], got nothing"},
        {with(
             "",
             R"({"name": "l0", "fwd_us": 1, "forward_us": 1, "backward_us": 2, "param_bytes": 1})"),
         "layers[0]: unknown key \"fwd_us\"; known keys are backward_us, forward_us, name, "
         "param_bytes"},
        {with("", layer + "," + layer), "layers[1].name: 'l0' is used twice"},
        {with(R"("bucket_size": 5, )", layer), "top level: unknown key \"bucket_size\""},
        {with(R"("bucket_bytes": 0, )", layer),
         "bucket_bytes: expected a whole number of bytes in [1, 2^50], got number 0"},
        {with(R"("optimizer_us": -1, )", layer),
         "optimizer_us: expected a number of microseconds in [0, 1e+09], got number -1"},
        {with(R"("parallelism": {"data": 0}, )", layer),
         "parallelism.data: expected a whole number of ranks in [1, 2^20], got number 0"},
        {with(R"("parallelism": {"tensor": 2}, )", layer), "parallelism: unknown key \"tensor\""},
        {with(R"("collective": {"algorithm": ""}, )", layer),
         "collective.algorithm: expected a non-empty string of at most 256 characters, got string "
         "\"\""},
    };
    for (const auto& c : cases)
    {
        std::string msg = InvalidArgumentMessage([&] { TrainingWorkload::FromString(c.text); });
        EXPECT_NE(msg.find(c.expected), std::string::npos)
            << "input: " << c.text << "\nmessage: " << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
    }
    std::string missing =
        InvalidArgumentMessage([] { TrainingWorkload::FromFile("/nonexistent/w.json"); });
    EXPECT_EQ(missing, "/nonexistent/w.json: no such file; check the path");
    // Comments are allowed in hand-written files.
    EXPECT_NO_THROW(TrainingWorkload::FromString(with("// a comment\n", layer)));
}

TEST_F(TrainingWorkloadTest, ShippedExampleWorkloadsParse)
{
    std::string dir = DataFile::Find("workloads/training") + "/";
    for (const char* name : {"mlp-small.json", "transformer-medium.json"})
    {
        TrainingWorkload w = TrainingWorkload::FromFile(dir + name);
        EXPECT_GT(w.GetBuckets().size(), 1u) << name << " should exercise overlap";
        IterationGraph g = w.BuildGraph(8);
        EXPECT_NO_THROW(g.Validate());
    }
    // A file with an error names itself.
    std::string path = ::testing::TempDir() + "mlnet-bad-workload.json";
    std::ofstream(path) << "{\"name\": \"x\", \"layers\": [1]}";
    std::string msg = InvalidArgumentMessage([&] { TrainingWorkload::FromFile(path); });
    EXPECT_EQ(msg.rfind(path + ": layers[0]: expected a layer object", 0), 0u) << msg;
    std::remove(path.c_str());
}

TEST_F(TrainingDriverTest, PipelineSendsOverUdpOnAnIdealSwitchFollowTheWireFormula)
{
    Ptr<Cluster> cluster = IdealSwitchHelper(4).Install();
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    const uint32_t mp = udp->GetMaxPayload();
    const uint32_t oh = udp->GetPerPacketOverhead();
    const uint64_t bytes = 3ull * mp + 500;

    IterationGraph g;
    auto c0 = g.AddCompute("stage0", 0, MicroSeconds(100));
    auto s01 = g.AddSend("act01", 0, 1, bytes, {c0});
    auto c1 = g.AddCompute("stage1", 1, MicroSeconds(50), {s01});
    auto s12 = g.AddSend("act12", 1, 2, bytes, {c1});
    g.AddCompute("stage2", 2, MicroSeconds(20), {s12});
    g.AddCompute("idle", 3, MicroSeconds(10));
    Ptr<TrainingDriver> drv = CreateObject<TrainingDriver>();
    drv->SetAttribute("Iterations", UintegerValue(2));
    drv->SetGraph(g);
    drv->SetTransport(udp);
    RunReport report("pipeline");
    report.Start();
    drv->Start();
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    report.Stop();
    ASSERT_TRUE(drv->IsDone());

    // One message over 2 hops, stored and forwarded per packet: W*8/R + F*8/R + 2d, with
    // W = bytes + packets * overhead the wire bytes and F = mp + oh the first (full) frame.
    const FabricSpec& spec = cluster->GetFabricSpec();
    uint64_t wire = bytes + 4 * oh;
    Time msg = spec.linkRate.CalculateBytesTxTime(wire) +
               spec.linkRate.CalculateBytesTxTime(mp + oh) + 2 * spec.linkDelay;
    Time golden = MicroSeconds(100 + 50 + 20) + 2 * msg;
    for (const auto& it : drv->GetIterationRecords())
    {
        EXPECT_EQ(it.GetDuration(), golden) << "iteration " << it.iteration;
    }
    EXPECT_EQ(drv->GetIterationRecords().size(), 2u);
    for (const auto& r : drv->GetTaskRecords())
    {
        if (r.task == s01 || r.task == s12)
        {
            EXPECT_EQ(r.end - r.start, msg) << r.name;
        }
    }

    report.Add("udp", {{"iteration_us", golden.ToDouble(Time::US)}});
    report.Set("bytes_by_link_class", RunReport::ToJson(cluster->GetBytesByLinkClass()));
    nlohmann::json doc = report.ToJson();
    // 2 iterations x 2 messages x 2 hops of data, plus acknowledgements.
    EXPECT_GT(doc["bytes_by_link_class"]["host-tor"].get<uint64_t>(), 8 * wire);
    EXPECT_GT(doc["events"].get<uint64_t>(), 0u);
}

TEST_F(TrainingWorkloadTest, MlpSmallAtPacketLevelMatchesItsAnalyticalTwin)
{
    TrainingWorkload w =
        TrainingWorkload::FromFile(DataFile::Find("workloads/training/mlp-small.json"));
    const uint32_t ranks = 8;
    Ptr<Cluster> cluster = IdealSwitchHelper(ranks).Install(); // 100 Gb/s, 1 us links
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    Ptr<AlphaBetaModel> twin = CreateObject<AlphaBetaModel>();
    twin->SetCluster(cluster);
    twin->SetPacketization(udp);
    auto group = w.GetDataParallelGroups(ranks).at(0);
    // Analytical: the same graph, each bucket's ring all-reduce timed by the alpha-beta twin.
    Time analytical = w.EstimateIterationTime(ranks, [&](uint64_t bytes) {
        Ptr<Collective> c = CollectiveFactory::Create("allreduce", w.GetAlgorithm());
        c->Setup(udp, group, bytes);
        return twin->Predict(c);
    });
    Ptr<TrainingDriver> drv = CreateObject<TrainingDriver>();
    drv->SetGraph(w.BuildGraph(ranks));
    drv->SetTransport(udp);
    drv->SetCollectiveCreator(&CollectiveFactory::Create);
    drv->Start();
    Simulator::Run();
    Time packet = drv->GetIterationRecords().at(0).GetDuration();
    // Compute alone is 3.7 ms; two 8 MiB all-reduces of ~1.22 ms, the first hidden.
    EXPECT_GT(packet, w.GetComputeTime());
    EXPECT_LT(packet,
              w.GetComputeTime() + 2 * drv->GetCollectiveRecords().at(0).record.end -
                  2 * drv->GetCollectiveRecords().at(0).record.start);
    EXPECT_NEAR(packet.GetSeconds(), analytical.GetSeconds(), 1e-3 * analytical.GetSeconds())
        << "packet " << packet.As(Time::US) << " analytical " << analytical.As(Time::US);
}
