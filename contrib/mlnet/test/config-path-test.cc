// SPDX-License-Identifier: GPL-2.0-only
// Every mlnet model with trace sources is reachable by an ns-3 Config path (the table
// in doc/mlnet.md): one trace of each is connected by path and must fire with the
// path as its context. Names are per simulation: cleared at Simulator::Destroy.
#include "mlnet-test-support.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/cluster.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/config.h"
#include "ns3/data-parallel-trainer.h"
#include "ns3/double.h"
#include "ns3/fabric-registry.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/iteration-graph.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/real-model.h"
#include "ns3/simulator.h"
#include "ns3/synthetic-dataset.h"
#include "ns3/trace-names.h"
#include "ns3/training-runner.h"
#include "ns3/udp-message-transport.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <map>
#include <numeric>

using namespace ns3;
using namespace mlnettest;

namespace
{

class ConfigPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    void SetUp() override
    {
        g_traceCalls.clear();
    }
};

Ptr<Cluster>
Ideal(uint32_t ranks, const std::string& dataPath = "ipv4")
{
    FabricRequest r;
    r.fabric = "ideal";
    r.ranks = ranks;
    r.dataPath = dataPath;
    return FabricRegistry::Build(r);
}

} // namespace

TEST_F(ConfigPathTest, CollectiveRunReachesClusterTransportCollectiveAndRouting)
{
    Ptr<Cluster> cluster = Ideal(4);
    // Connect at time 0, after the runner has set everything up (the ns-3 idiom for
    // objects a helper creates and runs in one call).
    Simulator::ScheduleNow([] {
        Config::Connect("/Names/Cluster/WorkloadDone", MakeCallback(&CountTraceCall<>));
        Config::Connect("/Names/Transport/PacketSent",
                        MakeCallback(&CountTraceCall<uint32_t, uint32_t, uint32_t, uint32_t>));
        Config::Connect("/Names/Transport/Deliver", MakeCallback(&CountTraceCall<const Message&>));
        Config::Connect("/Names/Collective/Done",
                        MakeCallback(&CountTraceCall<Ptr<const Collective>>));
        Config::Connect("/Names/Collective/MemberStep",
                        MakeCallback(&CountTraceCall<uint32_t, uint32_t, uint32_t>));
    });
    CollectiveRunOptions o;
    o.bytes = "64KiB";
    CollectiveRunner::Run(cluster, o);

    EXPECT_EQ(g_traceCalls["/Names/Cluster/WorkloadDone"], 1u);
    EXPECT_EQ(g_traceCalls["/Names/Collective/Done"], 1u);
    // Ring all-reduce on 4 ranks: 2(n-1) = 6 steps per member, one message per step.
    EXPECT_EQ(g_traceCalls["/Names/Collective/MemberStep"], 4u * 6u);
    EXPECT_EQ(g_traceCalls["/Names/Transport/Deliver"], 4u * 6u);
    EXPECT_GE(g_traceCalls["/Names/Transport/PacketSent"], 4u * 6u);
    EXPECT_EQ(g_traceCalls.size(), 5u) << "no other context may appear";

    // Every node's routing protocol has a name; a trace of it connects by path.
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        std::string path = "/Names/Routing-" + std::to_string(i);
        EXPECT_EQ(Config::LookupMatches(path).GetN(), 1u) << path;
        EXPECT_TRUE(Config::ConnectFailSafe(
            path + "/NoRoute",
            MakeCallback(&CountTraceCall<Ptr<const Packet>, const Ipv4Header&>)));
    }
}

TEST_F(ConfigPathTest, FastPathForwardingIsAggregatedToEveryNode)
{
    Ptr<Cluster> cluster = Ideal(4, "fast");
    Config::MatchContainer m = Config::LookupMatches("/NodeList/*/$ns3::FastForwarding");
    EXPECT_EQ(m.GetN(), NodeList::GetNNodes());
    EXPECT_EQ(m.GetMatchedPath(2), "/NodeList/2/$ns3::FastForwarding/");
    EXPECT_TRUE(
        Config::ConnectFailSafe("/NodeList/*/$ns3::FastForwarding/Drop",
                                MakeCallback(&CountTraceCall<Ptr<const Packet>, uint32_t>)));
}

TEST_F(ConfigPathTest, TwinDriverAndTrainerByName)
{
    Ptr<Cluster> cluster = Ideal(4);
    Ptr<UdpMessageTransport> transport = CreateObject<UdpMessageTransport>();
    transport->Install(cluster);
    Ptr<AlphaBetaModel> twin = CreateObject<AlphaBetaModel>();
    twin->SetCluster(cluster);
    Config::Connect("/Names/AlphaBetaModel/MessagePredicted",
                    MakeCallback(&CountTraceCall<const MessageTiming&>));
    Ptr<Collective> ring = CollectiveFactory::Create("allreduce", "ring");
    ring->Setup(transport, {0, 1, 2, 3}, 4096);
    twin->Predict(ring);
    EXPECT_EQ(g_traceCalls["/Names/AlphaBetaModel/MessagePredicted"], 4u * 6u);

    IterationGraph graph;
    auto c = graph.AddCompute("fwd", 0, MicroSeconds(10));
    graph.AddCollective("ar", "allreduce", "ring", {0, 1, 2, 3}, 4096, {c});
    TrainingRunner::RunGraph(transport, graph, 2, [] {
        Config::Connect("/Names/TrainingDriver/IterationFinished",
                        MakeCallback(&CountTraceCall<uint32_t, Time>));
    });
    EXPECT_EQ(g_traceCalls["/Names/TrainingDriver/IterationFinished"], 2u);

    // A trainer on the same transport is reachable by its own name.
    Ptr<RealModel> model = CreateObject<RealModel>();
    model->SetAttribute("Inputs", UintegerValue(4));
    model->SetAttribute("Hidden", UintegerValue(0));
    model->SetAttribute("Classes", UintegerValue(2));
    Ptr<DataParallelTrainer> trainer = CreateObject<DataParallelTrainer>();
    trainer->Setup(transport,
                   {0, 1, 2, 3},
                   model,
                   CreateObject<SyntheticDataset>(),
                   ObjectFactory("ns3::SgdMomentum"));
    Config::Connect("/Names/Trainer/IterationDone",
                    MakeCallback(&CountTraceCall<uint32_t, double, double, Time>));
    trainer->Run(0, 3);
    Simulator::Run();
    EXPECT_EQ(g_traceCalls["/Names/Trainer/IterationDone"], 3u);
}

TEST_F(ConfigPathTest, NamesAreUniqueWithinASimulationAndClearedAtDestroy)
{
    Ptr<Cluster> first = Ideal(2);
    Ptr<UdpMessageTransport> a = CreateObject<UdpMessageTransport>();
    a->Install(first);
    Ptr<UdpMessageTransport> b = CreateObject<UdpMessageTransport>();
    b->SetAttribute("Port", UintegerValue(9001));
    b->Install(first);
    EXPECT_EQ(TraceNames::PathOf(a), "/Names/Transport");
    EXPECT_EQ(TraceNames::PathOf(b), "/Names/Transport-2");
    EXPECT_EQ(TraceNames::PathOf(first), "/Names/Cluster");
    // Registering again keeps the name.
    EXPECT_EQ(TraceNames::Register(a, "Transport"), "/Names/Transport");
    Simulator::Destroy();

    // The next simulation in the same process starts from the same names, and nothing
    // of the first one is reachable any more.
    EXPECT_FALSE(Names::Find<Object>("Transport"));
    EXPECT_FALSE(Names::Find<Object>("Cluster"));
    Ptr<Cluster> second = Ideal(2);
    Ptr<UdpMessageTransport> c = CreateObject<UdpMessageTransport>();
    c->Install(second);
    EXPECT_EQ(TraceNames::PathOf(c), "/Names/Transport");
    EXPECT_EQ(TraceNames::PathOf(second), "/Names/Cluster");
    EXPECT_EQ(TraceNames::PathOf(a), "");
}
