// SPDX-License-Identifier: GPL-2.0-only
// Replicated jobs (JobSet::replicate, JobReplication::Check): copies of a workload that
// share no link and whose routes are laid out alike run exactly as job 0 alone, so job
// 0 simulated once stands for all of them; every other layout is refused by name.
#include "ns3/core-module.h"
#include "ns3/data-file.h"
#include "ns3/fabric-registry.h"
#include "ns3/fault-plan.h"
#include "ns3/job-replication.h"
#include "ns3/training-runner.h"
#include "ns3/transport-choice.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <stdexcept>

using namespace ns3;

namespace
{

class JobReplicationTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// A run of the shipped small workload on a fabric, whole or replicated.
    static TrainingRunResult Run(const FabricRequest& request,
                                 const JobSet& jobs,
                                 RunLevel level,
                                 const std::string& transport = "udp")
    {
        Ptr<Cluster> cluster = FabricRegistry::Build(request);
        TrainingWorkload workload =
            TrainingWorkload::FromFile(DataFile::Find("workloads/training/mlp-small.json"));
        TrainingRunResult r = TrainingRunner::Run(cluster, workload, transport, 2, {}, level, jobs);
        Simulator::Destroy();
        return r;
    }

    /// Why replicating `jobs` on a fabric is refused ("" when it is not).
    static std::string Refusal(const FabricRequest& request,
                               const JobSet& jobs,
                               RunLevel level = RunLevel::FLOW,
                               const std::string& transport = "udp")
    {
        Ptr<Cluster> cluster = FabricRegistry::Build(request);
        Ptr<MessageTransport> t = TransportChoice::Create(transport, level);
        t->Install(cluster);
        std::string why = JobReplication::Check(t, jobs.Placements(cluster->GetNRanks()));
        Simulator::Destroy();
        return why;
    }

    /// A 2-tier fat-tree of 16 ranks, 4 under each ToR (radix 8).
    static FabricRequest FatTree(uint32_t radix = 8)
    {
        FabricRequest r;
        r.fabric = "fattree";
        r.ranks = 16;
        r.radix = radix;
        r.dataPath = "fast";
        return r;
    }

    static JobSet Jobs(uint32_t count, const std::string& placement, bool replicate)
    {
        JobSet j;
        j.count = count;
        j.placement = placement;
        j.replicate = replicate;
        return j;
    }

    /// The replicated run's every job equals the whole run's, to the picosecond, and
    /// so do the byte totals by link class.
    static void ExpectReplicaEqualsWhole(const FabricRequest& request,
                                         uint32_t count,
                                         const std::string& placement,
                                         RunLevel level)
    {
        TrainingRunResult whole = Run(request, Jobs(count, placement, false), level);
        TrainingRunResult replica = Run(request, Jobs(count, placement, true), level);
        ASSERT_EQ(whole.jobIterations.size(), count);
        ASSERT_EQ(replica.jobIterations.size(), count);
        EXPECT_EQ(whole.replication, "off");
        EXPECT_NE(replica.replication.find("exact"), std::string::npos);
        for (uint32_t k = 0; k < count; ++k)
        {
            ASSERT_EQ(whole.jobIterations[k].size(), 2u);
            ASSERT_EQ(replica.jobIterations[k].size(), 2u);
            for (size_t i = 0; i < 2; ++i)
            {
                EXPECT_EQ(replica.jobIterations[k][i].GetDuration(),
                          whole.jobIterations[k][i].GetDuration())
                    << "job " << k << " iteration " << i;
                EXPECT_EQ(replica.jobIterations[k][i].end, whole.jobIterations[k][i].end);
            }
        }
        EXPECT_EQ(replica.bytesByLinkClass, whole.bytesByLinkClass);
        EXPECT_GT(whole.bytesByLinkClass.at("host-tor"), 0u);
        EXPECT_EQ(replica.analyticalIterationS, whole.analyticalIterationS);
    }
};

} // namespace

TEST_F(JobReplicationTest, PlacementsAreBlocksOrStrides)
{
    JobSet block = Jobs(2, "block", false);
    EXPECT_EQ(block.Placements(6), (std::vector<std::vector<uint32_t>>{{0, 1, 2}, {3, 4, 5}}));
    JobSet strided = Jobs(2, "strided", false);
    EXPECT_EQ(strided.Placements(6), (std::vector<std::vector<uint32_t>>{{0, 2, 4}, {1, 3, 5}}));
    EXPECT_EQ(Jobs(1, "block", false).Placements(3),
              (std::vector<std::vector<uint32_t>>{{0, 1, 2}}));
    EXPECT_THROW(Jobs(4, "block", false).Placements(6), std::invalid_argument);
    EXPECT_THROW(Jobs(0, "block", false).Placements(6), std::invalid_argument);
    EXPECT_THROW(Jobs(2, "round", false).Placements(6), std::invalid_argument);
}

TEST_F(JobReplicationTest, JobsUnderTheirOwnToRsReplicateExactlyAtFlowLevel)
{
    // Each job of 4 ranks under one ToR: its routes never leave the ToR, and the ToRs
    // are alike.
    ExpectReplicaEqualsWhole(FatTree(), 4, "block", RunLevel::FLOW);
}

TEST_F(JobReplicationTest, JobsUnderTheirOwnToRsReplicateExactlyAtPacketLevel)
{
    // Packets and acknowledgements too: each job's frames meet only its own.
    ExpectReplicaEqualsWhole(FatTree(), 4, "block", RunLevel::PACKET);
}

TEST_F(JobReplicationTest, InterleavedJobsOnAnIdealSwitchReplicateExactly)
{
    FabricRequest r;
    r.fabric = "ideal";
    r.ranks = 8;
    ExpectReplicaEqualsWhole(r, 2, "strided", RunLevel::FLOW);
}

TEST_F(JobReplicationTest, JobsThatShareALinkAreRefusedByName)
{
    // Strided jobs of 4 on 4 ToRs: every job has a rank under every ToR, and their
    // routes meet on the ToR uplinks.
    // The pairs are checked in order, every job's route of a pair before the next pair:
    // the first link two jobs cross is named, whichever two they are.
    const std::string why = Refusal(FatTree(), Jobs(4, "strided", true));
    std::smatch named;
    ASSERT_TRUE(std::regex_search(why, named, std::regex("^jobs ([0-3]) and ([0-3]) share link")))
        << why;
    EXPECT_LT(named[1].str(), named[2].str()) << why;
    EXPECT_NE(why.find("tor-agg"), std::string::npos) << why;
    // The runner refuses the run with that reason.
    EXPECT_THROW(Run(FatTree(), Jobs(4, "strided", true), RunLevel::FLOW), std::invalid_argument);
}

TEST_F(JobReplicationTest, JobsLaidOutDifferentlyAreRefused)
{
    // Radix 6: three ranks under a ToR. The first pair (members 0 -> 1) stays inside a
    // ToR in job 0 (0 -> 1: two links) and job 1 (4 -> 5, ToR of ranks 3-5), and crosses
    // the spine in job 2 (8 -> 9: from the ToR of ranks 6-8 to that of 9-11, four links).
    const std::string why = Refusal(FatTree(6), Jobs(4, "block", true));
    EXPECT_NE(why.find("ranks 8 -> 9 of job 2 cross 4 links where job 0's cross 2"),
              std::string::npos)
        << why;
}

TEST_F(JobReplicationTest, ALinkOfAnotherRateIsRefused)
{
    // Two switches of two ranks each; rank 3's link runs at half the rate.
    const std::string file =
        (std::filesystem::temp_directory_path() / "job-replication-rates.json").string();
    std::ofstream(file) << R"({"ranks": 4, "switches": 2, "links": [
        ["r0", "s0"], ["r1", "s0"], ["r2", "s1"],
        {"a": "r3", "b": "s1", "rate": "50Gbps"}, ["s0", "s1"]]})";
    FabricRequest r;
    r.fabric = "graph";
    r.ranks = 4;
    r.graphFile = file;
    const std::string why = Refusal(r, Jobs(2, "block", true));
    EXPECT_NE(why.find("differs in class, rate, delay or buffer"), std::string::npos) << why;
    // At the same rate the two jobs are copies.
    std::ofstream(file) << R"({"ranks": 4, "switches": 2, "links": [
        ["r0", "s0"], ["r1", "s0"], ["r2", "s1"], ["r3", "s1"], ["s0", "s1"]]})";
    EXPECT_EQ(Refusal(r, Jobs(2, "block", true)), "");
    std::filesystem::remove(file);
}

TEST_F(JobReplicationTest, PathsNoFlowKeyPicksAreRefused)
{
    // Jobs of 8 ranks span two ToRs: their pairs have four spine paths each. TCP picks
    // its ports at connect time, so which path a pair takes is not known ahead (the
    // flow level stands for it and asks the same).
    FabricRequest ipv4 = FatTree();
    ipv4.dataPath = "ipv4"; // TCP's
    const std::string why = Refusal(ipv4, Jobs(2, "block", true), RunLevel::FLOW, "tcp");
    EXPECT_NE(why.find("several paths"), std::string::npos) << why;
    EXPECT_NE(why.find("connect time"), std::string::npos) << why;
    // Inside one ToR every pair has one path, and TCP replicates too.
    EXPECT_EQ(Refusal(ipv4, Jobs(4, "block", true), RunLevel::FLOW, "tcp"), "");
}

TEST_F(JobReplicationTest, LinkJitterAtPacketLevelIsRefused)
{
    FabricRequest r = FatTree();
    r.linkJitter = NanoSeconds(10);
    const std::string why = Refusal(r, Jobs(4, "block", true), RunLevel::PACKET);
    EXPECT_NE(why.find("jitter"), std::string::npos) << why;
}

TEST_F(JobReplicationTest, ALinkFailingDuringTheRunIsRefusedAndOneFailedBeforeIsNot)
{
    for (const std::string item : {"tor-agg:1@1ms", "tor-agg:1"})
    {
        Ptr<Cluster> cluster = FabricRegistry::Build(FatTree());
        Ptr<FaultPlan> plan = CreateObject<FaultPlan>();
        plan->Add(item);
        plan->Apply(cluster, {"tor-agg"});
        Ptr<MessageTransport> t = TransportChoice::Create("udp", RunLevel::FLOW);
        t->Install(cluster);
        const std::string why = JobReplication::Check(t, Jobs(4, "block", true).Placements(16));
        if (item.find('@') != std::string::npos)
        {
            EXPECT_NE(why.find("fails during the run"), std::string::npos) << why;
        }
        else
        {
            // Routed around before the first event, on links no job of one ToR uses.
            EXPECT_EQ(why, "") << item;
        }
        Simulator::Destroy();
    }
}

TEST_F(JobReplicationTest, OverlappingPlacementsAreRefused)
{
    Ptr<Cluster> cluster = FabricRegistry::Build(FatTree());
    Ptr<MessageTransport> t = TransportChoice::Create("udp", RunLevel::FLOW);
    t->Install(cluster);
    EXPECT_NE(JobReplication::Check(t, {{0, 1}, {1, 2}}).find("belongs to another job"),
              std::string::npos);
    EXPECT_NE(JobReplication::Check(t, {{0, 1}, {2}}).find("has 1 ranks where job 0 has 2"),
              std::string::npos);
    EXPECT_NE(JobReplication::Check(t, {{0, 1}, {2, 99}}).find("not a rank of the cluster"),
              std::string::npos);
}
