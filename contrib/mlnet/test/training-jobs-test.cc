// SPDX-License-Identifier: GPL-2.0-only
// A set of jobs on one cluster (TrainingRunner::RunJobs, IterationGraph::Placed): jobs
// on disjoint ranks of a non-blocking switch run exactly as each alone; jobs that share
// NICs slow each other down; bad placements fail clearly.
#include "ns3/core-module.h"
#include "ns3/fabric-registry.h"
#include "ns3/training-runner.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

/// One 4-rank data-parallel iteration: 20 us of compute per rank, then a 1 MiB ring
/// all-reduce of the gradients, then 10 us of optimizer step.
IterationGraph
Job()
{
    IterationGraph g;
    std::vector<IterationGraph::TaskId> forward;
    for (uint32_t r = 0; r < 4; ++r)
    {
        forward.push_back(g.AddCompute("compute", r, MicroSeconds(20)));
    }
    auto ar = g.AddCollective("grads", "allreduce", "ring", {0, 1, 2, 3}, 1 << 20, forward);
    for (uint32_t r = 0; r < 4; ++r)
    {
        g.AddCompute("step", r, MicroSeconds(10), {ar});
    }
    return g;
}

class TrainingJobsTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// The iteration times of `jobs`, run together on an 8-rank ideal switch.
    std::vector<std::vector<Time>> Run(const std::vector<IterationGraph>& jobs)
    {
        FabricRequest r;
        r.fabric = "ideal";
        r.ranks = 8;
        Ptr<Cluster> cluster = FabricRegistry::Build(r);
        Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
        udp->Install(cluster);
        std::vector<std::reference_wrapper<const IterationGraph>> refs(jobs.begin(), jobs.end());
        std::vector<std::vector<Time>> out;
        for (Ptr<TrainingDriver> d : TrainingRunner::RunJobs(udp, refs, 2))
        {
            out.emplace_back();
            for (const auto& rec : d->GetIterationRecords())
            {
                out.back().push_back(rec.GetDuration());
            }
        }
        Simulator::Destroy();
        return out;
    }
};

} // namespace

TEST_F(TrainingJobsTest, JobsOnDisjointRanksOfAnIdealSwitchRunAsAlone)
{
    std::vector<Time> alone = Run({Job()}).front();
    ASSERT_EQ(alone.size(), 2u);
    auto both = Run({Job().Placed({0, 1, 2, 3}), Job().Placed({4, 5, 6, 7})});
    ASSERT_EQ(both.size(), 2u);
    // A non-blocking switch with one NIC per rank: no link is shared, to the picosecond.
    EXPECT_EQ(both[0], alone);
    EXPECT_EQ(both[1], alone);
    // Interleaved placements share nothing either.
    auto interleaved = Run({Job().Placed({0, 2, 4, 6}), Job().Placed({1, 3, 5, 7})});
    EXPECT_EQ(interleaved[0], alone);
    EXPECT_EQ(interleaved[1], alone);
}

TEST_F(TrainingJobsTest, JobsSharingNicsSlowEachOtherDown)
{
    std::vector<Time> alone = Run({Job()}).front();
    auto shared = Run({Job(), Job()}); // both on ranks 0..3
    ASSERT_EQ(shared.size(), 2u);
    for (const auto& job : shared)
    {
        ASSERT_EQ(job.size(), 2u);
        // Two all-reduces share every NIC: each is slower than alone, but no slower than
        // the two run one after the other (plus the compute they overlap).
        EXPECT_GT(job[0], alone[0]);
        EXPECT_LE(job[0], alone[0] * 2);
    }
}

TEST_F(TrainingJobsTest, BadPlacementsFailClearly)
{
    EXPECT_THROW(Job().Placed({0, 1, 2}), std::invalid_argument);    // rank 3 unplaced
    EXPECT_THROW(Job().Placed({0, 1, 2, 2}), std::invalid_argument); // a rank twice
    FabricRequest r;
    r.fabric = "ideal";
    r.ranks = 4;
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(FabricRegistry::Build(r));
    EXPECT_THROW(TrainingRunner::RunJobs(udp, {}, 1), std::invalid_argument);
}
