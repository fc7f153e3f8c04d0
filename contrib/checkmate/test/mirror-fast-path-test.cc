// SPDX-License-Identifier: GPL-2.0-only
// Checkmate on both data paths: the same job (real gradients, mirroring switches,
// shadows, commit barrier) wired once on the IPv4 path and once on the fast data path
// (FastForwarding, no IPv4) gives identical iteration and commit times to the
// picosecond, identical bytes and frames on every link in each direction, the same
// clones, the same LossRate drops and the same repairs, and bit-identical checkpoints.
// The runner gives the same results document on both paths (every scheme, with a
// failure and its recovery), and its auto choice is the fast path.
#include "ns3/checkmate-helper.h"
#include "ns3/checkmate-runner.h"
#include "ns3/core-module.h"
#include "ns3/fabric-registry.h"
#include "ns3/fast-forwarding.h"
#include "ns3/ipv4.h"
#include "ns3/real-model.h"
#include "ns3/synthetic-dataset.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"
#include "ns3/udp-message-transport.h"

#include <array>
#include <cstring>
#include <gtest/gtest.h>
#include <map>

using namespace ns3;

namespace
{

/// What one run measured, taken before Simulator::Destroy.
struct Outcome
{
    std::vector<std::array<int64_t, 4>> iterations; //!< start, computeEnd, reduceEnd, end (ps)
    std::vector<std::array<uint64_t, 4>> links;     //!< bytes A->B, B->A, frames A->B, B->A
    uint64_t mirroredBytes{0};
    uint64_t mirroredPackets{0};
    uint64_t droppedClones{0};
    uint64_t repairRanges{0};
    uint64_t repairBytes{0};
    uint64_t receivedBytes{0};
    std::map<uint32_t, int64_t> commits; //!< iteration -> commit time (ps)
    Checkpoint checkpoint;               //!< committed, assembled from the shards
    Eigen::VectorXf workerParams;        //!< worker 0 at the end
    TrafficCounts counts;
    int64_t end{0}; //!< simulated end (ps)
};

/// The job: `workers` + 2 shadows, P = 8h + h + 4h + 4 parameters, 2 iterations.
Outcome
RunJob(const std::string& dataPath,
       const std::string& fabricName,
       uint32_t workers,
       uint32_t hidden,
       double lossRate,
       uint32_t tiers = 2,
       const std::string& transportName = "udp")
{
    FabricRequest fabric;
    fabric.fabric = fabricName;
    fabric.tiers = tiers;
    fabric.ranks = workers + 2;
    fabric.dataPath = dataPath;
    fabric.pfc = TransportChoice::Lossless(transportName);
    fabric.ecn = TransportChoice::SwitchEcn(transportName);
    Ptr<Cluster> cluster = FabricRegistry::Build(fabric);
    // roce is a UdpMessageTransport (same packets, hooks and repair) paced by DCQCN.
    Ptr<UdpMessageTransport> transport =
        DynamicCast<UdpMessageTransport>(TransportChoice::Create(transportName));
    transport->Install(cluster);
    Ptr<RealModel> model = CreateObject<RealModel>();
    model->SetAttribute("Inputs", UintegerValue(8));
    model->SetAttribute("Hidden", UintegerValue(hidden));
    model->SetAttribute("Classes", UintegerValue(4));
    Ptr<DataParallelTrainer> trainer = CreateObject<DataParallelTrainer>();
    trainer->SetAttribute("ComputeTime", TimeValue(MicroSeconds(100)));
    std::vector<uint32_t> ranks(workers);
    for (uint32_t w = 0; w < workers; ++w)
    {
        ranks[w] = w;
    }
    trainer->Setup(transport,
                   ranks,
                   model,
                   CreateObject<SyntheticDataset>(),
                   ObjectFactory("ns3::AdamW"));
    CheckmateHelper helper;
    helper.SetMirrorAttribute("LossRate", DoubleValue(lossRate));
    Ptr<ShadowCluster> shadows = helper.Install(trainer, transport, {workers, workers + 1});
    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(cluster, transport);
    trainer->SetStopCallback(DataParallelTrainer::StopCallback(
        [cluster](uint32_t, bool) { cluster->NotifyWorkloadDone(); }));
    trainer->Run(0, 2);
    Simulator::Run();

    Outcome o;
    o.counts = accounting->Close();
    for (const auto& r : trainer->GetRecords())
    {
        o.iterations.push_back({r.start.GetTimeStep(),
                                r.computeEnd.GetTimeStep(),
                                r.reduceEnd.GetTimeStep(),
                                r.end.GetTimeStep()});
    }
    for (const ClusterLink& l : cluster->GetLinks())
    {
        o.links.push_back({l.bytesAtoB, l.bytesBtoA, l.packetsAtoB, l.packetsBtoA});
    }
    for (const auto& m : helper.GetMirrors())
    {
        o.mirroredBytes += m->GetMirroredBytes();
        o.mirroredPackets += m->GetMirroredPackets();
        o.droppedClones += m->GetDroppedPackets();
    }
    o.repairRanges = shadows->GetRepairRanges();
    o.repairBytes = shadows->GetRepairBytes();
    for (const auto& s : shadows->GetShadows())
    {
        o.receivedBytes += s->GetReceivedBytes();
    }
    for (const auto& [it, t] : shadows->GetCommitTimes())
    {
        o.commits[it] = t.GetTimeStep();
    }
    o.checkpoint = shadows->GetCheckpoint();
    o.workerParams = trainer->GetParameters(0);
    o.end = Simulator::Now().GetTimeStep();
    shadows->Dispose();
    trainer->Dispose();
    Simulator::Destroy();
    return o;
}

bool
SameBits(const Eigen::VectorXf& a, const Eigen::VectorXf& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Every measured figure of the two runs is equal; the checkpoints bit for bit.
void
ExpectSame(const Outcome& ipv4, const Outcome& fast)
{
    EXPECT_EQ(fast.counts.dataPath, "fast");
    EXPECT_EQ(ipv4.counts.dataPath, "ipv4");
    ASSERT_EQ(ipv4.iterations.size(), 2u);
    EXPECT_EQ(ipv4.iterations, fast.iterations);
    EXPECT_EQ(ipv4.end, fast.end);
    ASSERT_EQ(ipv4.links.size(), fast.links.size());
    for (size_t l = 0; l < ipv4.links.size(); ++l)
    {
        EXPECT_EQ(ipv4.links[l], fast.links[l]) << "link " << l;
    }
    EXPECT_EQ(ipv4.mirroredBytes, fast.mirroredBytes);
    EXPECT_EQ(ipv4.mirroredPackets, fast.mirroredPackets);
    EXPECT_EQ(ipv4.droppedClones, fast.droppedClones);
    EXPECT_EQ(ipv4.repairRanges, fast.repairRanges);
    EXPECT_EQ(ipv4.repairBytes, fast.repairBytes);
    EXPECT_EQ(ipv4.receivedBytes, fast.receivedBytes);
    EXPECT_EQ(ipv4.commits, fast.commits);
    // Frames: the clones are the switches' own frames on both paths.
    EXPECT_EQ(ipv4.counts.framesMirrored.count, fast.counts.framesMirrored.count);
    EXPECT_EQ(ipv4.counts.framesMirrored.bytes, fast.counts.framesMirrored.bytes);
    EXPECT_EQ(ipv4.counts.framesSent.bytes, fast.counts.framesSent.bytes);
    EXPECT_EQ(ipv4.counts.framesForwarded.bytes, fast.counts.framesForwarded.bytes);
    EXPECT_EQ(ipv4.counts.framesDelivered.bytes, fast.counts.framesDelivered.bytes);
    EXPECT_EQ(ipv4.counts.framesMirrored.count, ipv4.mirroredPackets - ipv4.droppedClones);
    // Checkpoints: the last iteration committed, bit-identical on both paths and to the
    // workers' own state.
    EXPECT_EQ(ipv4.checkpoint.iteration, 1);
    EXPECT_EQ(fast.checkpoint.iteration, 1);
    EXPECT_EQ(ipv4.checkpoint.step, fast.checkpoint.step);
    EXPECT_TRUE(SameBits(ipv4.checkpoint.params, fast.checkpoint.params));
    EXPECT_TRUE(SameBits(fast.checkpoint.params, fast.workerParams));
    ASSERT_EQ(ipv4.checkpoint.state.size(), fast.checkpoint.state.size());
    ASSERT_EQ(fast.checkpoint.state.size(), 2u); // AdamW: m and v
    for (size_t v = 0; v < ipv4.checkpoint.state.size(); ++v)
    {
        EXPECT_TRUE(SameBits(ipv4.checkpoint.state[v], fast.checkpoint.state[v])) << v;
    }
}

class MirrorFastPathTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

TEST_F(MirrorFastPathTest, IdealSwitchIsIdenticalOnBothPaths)
{
    // 4 workers, P = 13 x 16 + 4 = 212: one 212-byte packet per chunk, 4 clones per
    // iteration (replicate once), S = 848 B per iteration.
    Outcome ipv4 = RunJob("ipv4", "ideal", 4, 16, 0);
    Outcome fast = RunJob("fast", "ideal", 4, 16, 0);
    ExpectSame(ipv4, fast);
    EXPECT_EQ(fast.mirroredBytes, 2u * 4 * 212);
    EXPECT_EQ(fast.mirroredPackets, 2u * 4);
    EXPECT_EQ(fast.receivedBytes, 2u * 4 * 212);
    EXPECT_EQ(fast.repairRanges, 0u);
}

// Checkmate on the RDMA transport over a lossless fat-tree: the switches mirror the same
// reduced gradients (the clones ride the job's flow key; the transport's data carries
// priority 3 and ECT(0), which the mirror copies), the shadows commit every iteration,
// and the checkpoint is the workers' state bit for bit; nothing is dropped.
TEST_F(MirrorFastPathTest, RdmaTransportOnALosslessFabricCheckpointsBitIdentical)
{
    Outcome udp = RunJob("fast", "fattree", 8, 20, 0);
    Outcome roce = RunJob("fast", "fattree", 8, 20, 0, 2, "roce");
    EXPECT_EQ(roce.counts.transports, "RoceMessageTransport");
    EXPECT_EQ(roce.checkpoint.iteration, 1);
    EXPECT_TRUE(SameBits(roce.checkpoint.params, roce.workerParams));
    EXPECT_TRUE(SameBits(roce.workerParams, udp.workerParams)) << "same training, any transport";
    EXPECT_EQ(roce.mirroredBytes, udp.mirroredBytes);
    EXPECT_EQ(roce.receivedBytes, udp.receivedBytes);
    EXPECT_EQ(roce.commits.size(), 2u);
    EXPECT_EQ(roce.counts.framesDropped.count, 0u);
    EXPECT_EQ(roce.repairRanges, 0u);
}

TEST_F(MirrorFastPathTest, FatTreeClonesTakeTheSameRoutes)
{
    // 8 workers + 2 shadows on 2- and 3-tier fat-trees: the clones leave the workers'
    // ToRs through uplinks hashed on the switch's address, and (3 tiers) aggregation
    // switches hash them on the ports too (SourcePort, ShadowPort), so equal link bytes
    // prove the fast path's flow key is the one the IPv4 stack writes.
    // P = 13 x 20 + 4 = 264, 8 chunks of 132 B.
    for (uint32_t tiers : {2u, 3u})
    {
        Outcome ipv4 = RunJob("ipv4", "fattree", 8, 20, 0, tiers);
        Outcome fast = RunJob("fast", "fattree", 8, 20, 0, tiers);
        ExpectSame(ipv4, fast);
        EXPECT_EQ(fast.mirroredBytes, 2u * 4 * 264) << tiers;
        EXPECT_GT(fast.counts.framesForwarded.count, fast.counts.framesSent.count)
            << "frames cross more than one switch";
    }
}

TEST_F(MirrorFastPathTest, LossDrawsAndRepairsAreTheSame)
{
    // LossRate draws per clone from the switch's own stream: the same clones are lost
    // on both paths, and the same ranges are repaired from the workers.
    Outcome ipv4 = RunJob("ipv4", "ideal", 4, 16, 0.4);
    Outcome fast = RunJob("fast", "ideal", 4, 16, 0.4);
    ExpectSame(ipv4, fast);
    EXPECT_GT(fast.droppedClones, 0u);
    EXPECT_LT(fast.droppedClones, fast.mirroredPackets);
    EXPECT_GE(fast.repairRanges, 1u);
    EXPECT_EQ(fast.repairBytes + fast.receivedBytes, fast.mirroredBytes)
        << "every lost byte repaired once";
}

TEST_F(MirrorFastPathTest, SwitchAddressIsItsFirstInterface)
{
    // What the fast path puts in a clone's flow key is what the IPv4 stack sends from.
    FabricRequest fabric;
    fabric.fabric = "fattree";
    fabric.ranks = 10;
    Ptr<Cluster> cluster = FabricRegistry::Build(fabric);
    ASSERT_GT(cluster->GetSwitchNodes().GetN(), 1u);
    for (uint32_t i = 0; i < cluster->GetSwitchNodes().GetN(); ++i)
    {
        Ptr<Node> sw = cluster->GetSwitchNodes().Get(i);
        EXPECT_EQ(cluster->GetNodeAddress(sw->GetId()),
                  sw->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal());
    }
    EXPECT_EQ(cluster->GetNodeAddress(100000), Ipv4Address::GetAny());
}

TEST_F(MirrorFastPathTest, RunnerGivesTheSameDocumentOnBothPaths)
{
    // Every scheme, a failure at iteration 2 and the recovery streamed from the shadows.
    CheckmateRunConfig c;
    c.workers = 4;
    c.shadows = 2;
    c.inputs = 8;
    c.hidden = 16;
    c.iterations = 4;
    c.compute = "100us";
    c.mode = "all";
    c.failAt = 2;
    nlohmann::json docs[2];
    const char* paths[2] = {"ipv4", "fast"};
    for (int i = 0; i < 2; ++i)
    {
        c.dataPath = paths[i];
        RunReport report("mirror-fast-path-test");
        docs[i] = CheckmateRunner::Run(c, report);
        EXPECT_EQ(report.ToJson()["meta"]["data_path"], paths[i]);
    }
    EXPECT_EQ(docs[0], docs[1]);
    EXPECT_TRUE(docs[1]["summary"]["shadow_matches_workers"].get<bool>());
    EXPECT_TRUE(docs[1]["summary"]["recovery_state_matches_checkpoint"].get<bool>());
}

TEST_F(MirrorFastPathTest, AutoIsTheFastPathUnlessFlowMonitorIsAsked)
{
    CheckmateRunConfig c;
    EXPECT_EQ(c.dataPath, "auto");
    EXPECT_EQ(c.DataPath(), "fast");
    c.traces.flowmon = "flows.xml";
    EXPECT_EQ(c.DataPath(), "ipv4");
    c.dataPath = "ipv4";
    EXPECT_EQ(c.DataPath(), "ipv4");
    c.dataPath = "dpdk";
    try
    {
        c.Validate();
        ADD_FAILURE() << "an unknown data path is refused";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("--dataPath=dpdk"), std::string::npos) << e.what();
    }
}

} // namespace
