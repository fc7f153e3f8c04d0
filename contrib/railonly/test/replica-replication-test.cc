// SPDX-License-Identifier: GPL-2.0-only
// Replica replication (LlmWorkload::ReplicateReplicas, railonly-llm --replicateReplicas):
// the graph keeps DP replica 0's pipeline (compute, TP collectives, pipeline sends) and
// every DP all-reduce with all its members. When a TP group fills its HB domain the
// replicas share no link before the DP all-reduce, so on one-switch rails the replica's
// iteration equals the full run's at flow and at packet level, alone and with rail
// replication; the byte totals are rebuilt (exact at the flow level, the replicas'
// ACKs left out at packet level). Two-tier rails are replica 0's hash draw. The flags
// it needs are refused by name.
#include "mlnet-test-support.h"
#include "small-llm-options.h"

#include "ns3/boolean.h"
#include "ns3/llm-training-runner.h"
#include "ns3/llm-workload.h"
#include "ns3/run-report.h"
#include "ns3/simulator.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;
using railtest::SmallOptions;

namespace
{

/// The small run with 8 DP replicas (16 HB domains of 4 GPUs, TP 4, PP 2).
LlmRunOptions
EightReplicas()
{
    LlmRunOptions o = SmallOptions();
    o.domains = 16;
    o.model.dp = 8;
    return o;
}

struct Counts
{
    uint32_t sends{0};       //!< pipeline sends
    uint32_t compute{0};     //!< compute tasks
    uint32_t domain{0};      //!< collectives inside one HB domain
    uint32_t dp{0};          //!< DP all-reduces
    uint32_t dpMembers{0};   //!< their members, summed
    bool offReplica0{false}; //!< a send or HB-domain task of another replica
};

Counts
Count(const IterationGraph& g, Ptr<LlmWorkload> w)
{
    Counts c;
    Ptr<MegatronMapper> mapper = w->GetMapper();
    auto replica = [&](uint32_t rank) { return mapper->GetDpIndex(rank); };
    for (const IterationTask& t : g.GetTasks())
    {
        if (t.kind == TaskKind::COMPUTE)
        {
            ++c.compute;
            c.offReplica0 = c.offReplica0 || replica(t.rank) != 0;
        }
        else if (t.kind == TaskKind::SEND)
        {
            ++c.sends;
            c.offReplica0 = c.offReplica0 || replica(t.rank) != 0 || replica(t.dst) != 0;
        }
        else if (t.name.rfind("dp-ar", 0) == 0)
        {
            ++c.dp;
            c.dpMembers += static_cast<uint32_t>(t.collective.ranks.size());
        }
        else
        {
            ++c.domain;
            c.offReplica0 = c.offReplica0 || replica(t.collective.ranks[0]) != 0;
        }
    }
    return c;
}

Counts
CountGraph(const LlmRunOptions& o, bool replicate)
{
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    w->SetAttribute("ReplicateReplicas", BooleanValue(replicate));
    w->Setup(o.model, o.domains * o.domainSize, o.domainSize);
    return Count(w->BuildGraph(), w);
}

/// Run the options full and with replicated replicas (and rails when asked).
std::pair<LlmRunResult, LlmRunResult>
FullAndReplica(LlmRunOptions o, bool rails = false)
{
    LlmRunResult full = LlmTrainingRunner::Run(o, "rail-only", false);
    Simulator::Destroy();
    o.replicateReplicas = true;
    o.replicateRails = rails;
    LlmRunResult replica = LlmTrainingRunner::Run(o, "rail-only", false);
    Simulator::Destroy();
    return {full, replica};
}

class ReplicaReplicationTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

} // namespace

TEST_F(ReplicaReplicationTest, GraphKeepsReplicaZerosPipelineAndEveryDpAllReduceMember)
{
    const LlmRunOptions o = EightReplicas();
    const Counts full = CountGraph(o, false);
    const Counts replica = CountGraph(o, true);
    const uint32_t p = o.model.pp, m = o.model.microBatches, d = o.model.dp, t = o.model.tp;
    // Pipeline sends: p-1 hops x 2 directions x m micro-batches x d replicas x t ranks.
    EXPECT_EQ(full.sends, (p - 1) * 2 * m * d * t);
    EXPECT_EQ(replica.sends, full.sends / d);
    // Compute and HB-domain collectives: one replica's.
    EXPECT_EQ(replica.compute * d, full.compute);
    EXPECT_EQ(replica.domain * d, full.domain);
    // The DP all-reduces, one per (stage, TP index), keep all d members.
    EXPECT_EQ(full.dp, p * t);
    EXPECT_EQ(replica.dp, full.dp);
    EXPECT_EQ(replica.dpMembers, full.dp * d);
    EXPECT_TRUE(full.offReplica0);
    EXPECT_FALSE(replica.offReplica0);
}

TEST_F(ReplicaReplicationTest, ReplicaEqualsTheFullRunAtFlowLevel)
{
    for (bool rails : {false, true})
    {
        const LlmRunOptions o = EightReplicas();
        auto [full, replica] = FullAndReplica(o, rails);
        ASSERT_EQ(full.iterations.size(), 1u);
        ASSERT_EQ(replica.iterations.size(), 1u);
        EXPECT_EQ(replica.dpReplicas, o.model.dp);
        EXPECT_EQ(replica.Row()["replica_replication"], "exact: one switch per rail");
        EXPECT_EQ(full.Row()["replica_replication"], "off");
        EXPECT_EQ(full.Row()["dp_replicas"], 1);
        EXPECT_EQ(replica.iterations[0].GetDuration(), full.iterations[0].GetDuration())
            << "rails " << rails;
        EXPECT_EQ(replica.twinIterationS, full.twinIterationS);
        EXPECT_LT(replica.tasks * 4, full.tasks);
        EXPECT_LT(replica.health.counts.messagesSent.count, full.health.counts.messagesSent.count);
        EXPECT_EQ(replica.health.counts.messagesDelivered.count,
                  replica.health.counts.messagesSent.count);
        // The fluid counts a message's wire bytes on every link it crosses: the totals
        // rebuilt from replica 0 are the full run's to the byte.
        EXPECT_EQ(replica.bytesByLinkClass["nvlink"], full.bytesByLinkClass["nvlink"]);
        EXPECT_EQ(replica.bytesByLinkClass["rail"], full.bytesByLinkClass["rail"]);
    }
}

TEST_F(ReplicaReplicationTest, ReplicaEqualsTheFullRunAtPacketLevelOverIterations)
{
    LlmRunOptions o = EightReplicas();
    o.level = RunLevel::PACKET;
    o.iterations = 2;
    auto [full, replica] = FullAndReplica(o);
    ASSERT_EQ(full.iterations.size(), 2u);
    ASSERT_EQ(replica.iterations.size(), 2u);
    for (size_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(replica.iterations[i].GetDuration(), full.iterations[i].GetDuration()) << i;
    }
    EXPECT_EQ(replica.health.counts.framesDropped.count, 0u);
    EXPECT_EQ(replica.bytesByLinkClass["nvlink"], full.bytesByLinkClass["nvlink"]);
    // Rails: the replicas' pipeline sends are rebuilt from their wire bytes, without the
    // ACK the udp transport returns for each message: one header-only frame (the
    // per-packet overhead, 59 B) over the same two rail links, per send of replicas
    // 1..d-1 and iteration.
    const uint64_t sendsPerReplica =
        (o.model.pp - 1) * 2 * o.model.microBatches * uint64_t(o.model.tp);
    const uint64_t ack = CreateObject<UdpMessageTransport>()->GetPerPacketOverhead();
    EXPECT_EQ(ack, 59u);
    EXPECT_EQ(full.bytesByLinkClass["rail"] - replica.bytesByLinkClass["rail"],
              (o.model.dp - 1) * sendsPerReplica * o.iterations * 2 * ack);
}

TEST_F(ReplicaReplicationTest, TwoTierRailsSayTheReplicaSamplesReplicaZerosHashChoices)
{
    // 32 domains of 8 at radix 16: each rail is a leaf-spine whose flows hash over its
    // spines; the other replicas' pipeline sends are missing from the spines the DP
    // all-reduces cross. Measured: the replica 3.9 % under the full run.
    LlmRunOptions o = SmallOptions();
    o.domains = 32;
    o.domainSize = 8;
    o.radix = 16;
    o.model = LlmModelConfig{};
    o.model.tp = 8;
    o.model.pp = 4;
    o.model.dp = 8;
    auto [full, replica] = FullAndReplica(o);
    EXPECT_EQ(replica.Row()["replica_replication"],
              "two-tier rails: replica 0's flow-hash choices stand for every replica's");
    EXPECT_LT(replica.IterationS(), full.IterationS());
    EXPECT_NEAR(replica.IterationS() / full.IterationS(), 1.0, 0.05);
    // Every path between two leaves has the same hops: the bytes are still exact.
    EXPECT_EQ(replica.bytesByLinkClass["rail"], full.bytesByLinkClass["rail"]);
}

TEST_F(ReplicaReplicationTest, RefusesWhereTheReplicasDoNotRunAlike)
{
    LlmRunOptions o = EightReplicas();
    o.replicateReplicas = true;
    EXPECT_NO_THROW(o.Validate());
    auto has = [](const std::string& s, const std::string& part) {
        return s.find(part) != std::string::npos;
    };
    LlmRunOptions tp = o;
    tp.model.tp = 2;
    tp.model.dp = 16;
    std::string e = InvalidArgumentMessage([&] { tp.Validate(); });
    EXPECT_TRUE(has(e, "--replicateReplicas") && has(e, "--tp=2")) << e;
    LlmRunOptions failed = o;
    failed.failRailSwitch = 1;
    e = InvalidArgumentMessage([&] { failed.Validate(); });
    EXPECT_TRUE(has(e, "--replicateReplicas") && has(e, "--failRailSwitch")) << e;
    LlmRunOptions moe = o;
    moe.model.experts = 32;
    moe.model.moeEvery = 1;
    e = InvalidArgumentMessage([&] { moe.Validate(); });
    EXPECT_TRUE(has(e, "--replicateReplicas") && has(e, "MoE")) << e;
    for (const char* fabric : {"rail-optimized", "fat-tree"})
    {
        RunReport report("replica-replication-test");
        e = InvalidArgumentMessage([&] { LlmTrainingRunner::RunAll(o, {fabric}, report); });
        EXPECT_TRUE(has(e, "--replicateReplicas") && has(e, "--fabric=rail-only")) << e;
        Simulator::Destroy();
    }
    // The workload refuses on its own too.
    Ptr<LlmWorkload> w = CreateObject<LlmWorkload>();
    w->SetAttribute("ReplicateReplicas", BooleanValue(true));
    w->Setup(tp.model, 64, 4);
    EXPECT_THROW(w->BuildGraph(), std::invalid_argument);
    Ptr<LlmWorkload> dense = CreateObject<LlmWorkload>();
    dense->SetAttribute("ReplicateReplicas", BooleanValue(true));
    dense->Setup(moe.model, 64, 4);
    EXPECT_THROW(dense->BuildGraph(), std::invalid_argument);
}
