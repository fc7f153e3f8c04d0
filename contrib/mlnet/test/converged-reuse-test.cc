// SPDX-License-Identifier: GPL-2.0-only
// Converged-iteration reuse (TrainingDriver::ReuseConverged, TrainingRunner's
// ConvergedReuse): the iterations reported as copies equal the exact run's, the
// shortcut refuses while a timed fault (or any other event) is pending, when a link
// has an error model or several jobs share the fabric, and leaving it off changes
// nothing.
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/fabric-options.h"
#include "ns3/fabric-registry.h"
#include "ns3/training-runner.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// One 4-rank data-parallel iteration: 20 us of compute per rank, a 256 KiB ring
/// all-reduce, 10 us of optimizer step.
IterationGraph
Job(uint32_t first = 0)
{
    IterationGraph g;
    std::vector<IterationGraph::TaskId> forward;
    std::vector<uint32_t> ranks;
    for (uint32_t r = first; r < first + 4; ++r)
    {
        forward.push_back(g.AddCompute("compute", r, MicroSeconds(20)));
        ranks.push_back(r);
    }
    auto ar = g.AddCollective("grads", "allreduce", "ring", ranks, 256 << 10, forward);
    for (uint32_t r = first; r < first + 4; ++r)
    {
        g.AddCompute("step", r, MicroSeconds(10), {ar});
    }
    return g;
}

class ConvergedReuseTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// An 8-rank ideal switch with a UDP transport.
    static Ptr<UdpMessageTransport> Transport()
    {
        FabricRequest r;
        r.fabric = "ideal";
        r.ranks = 8;
        Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
        udp->Install(FabricRegistry::Build(r));
        return udp;
    }

    /// `iterations` of Job() on a fresh fabric; `atStart` as RunGraph takes it.
    static Ptr<TrainingDriver> Run(uint32_t iterations,
                                   const ConvergedReuse& reuse,
                                   const std::function<void()>& atStart = {})
    {
        return TrainingRunner::RunGraph(Transport(), Job(), iterations, atStart, reuse);
    }

    static ConvergedReuse On(uint32_t k = 2)
    {
        ConvergedReuse r;
        r.enabled = true;
        r.iterations = k;
        return r;
    }
};

TEST_F(ConvergedReuseTest, CopiesEqualTheExactIterations)
{
    Ptr<TrainingDriver> exact = Run(8, ConvergedReuse());
    const std::vector<IterationRecord> want = exact->GetIterationRecords();
    const uint64_t exactEvents = Simulator::GetEventCount();
    Simulator::Destroy();
    ASSERT_EQ(want.size(), 8u);
    // The premise: on an idle switch the iterations are identical after the first.
    for (uint32_t i = 2; i < 8; ++i)
    {
        ASSERT_EQ(want[i].GetDuration(), want[1].GetDuration()) << i;
    }

    Ptr<TrainingDriver> fast = Run(8, On(2));
    const std::vector<IterationRecord>& got = fast->GetIterationRecords();
    ASSERT_EQ(got.size(), 8u);
    ASSERT_GT(fast->GetExtrapolatedIterations(), 0u);
    EXPECT_LE(fast->GetExtrapolatedIterations(), 6u); // two iterations must agree first
    const uint32_t simulated = 8 - fast->GetExtrapolatedIterations();
    for (uint32_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(got[i].iteration, i);
        EXPECT_EQ(got[i].start, want[i].start) << i;
        EXPECT_EQ(got[i].end, want[i].end) << i;
        EXPECT_EQ(got[i].extrapolated, i >= simulated) << i;
    }
    EXPECT_TRUE(fast->IsDone());
    // The clock reaches the extrapolated end, the exact run's last iteration end (and
    // goes on through the transport's idle timers, as the exact run's does).
    EXPECT_GE(Simulator::Now(), want.back().end);
    EXPECT_LT(Simulator::GetEventCount(), exactEvents);
    EXPECT_NE(fast->GetReuseNote().find("reused iteration"), std::string::npos)
        << fast->GetReuseNote();
    // Copies have no task records: only the simulated iterations do.
    for (const auto& t : fast->GetTaskRecords())
    {
        EXPECT_LT(t.iteration, simulated);
    }
}

TEST_F(ConvergedReuseTest, RefusesWhileATimedFaultIsPending)
{
    // A link failure scheduled after the last iteration would end: nothing may be
    // extrapolated past it, so every iteration is simulated.
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = 8;
    f.fail = "random:1@1s";
    Ptr<Cluster> cluster = f.Build();
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    Ptr<TrainingDriver> d = TrainingRunner::RunGraph(udp, Job(), 5, {}, On(2));
    ASSERT_EQ(d->GetIterationRecords().size(), 5u);
    EXPECT_EQ(d->GetExtrapolatedIterations(), 0u);
    for (const auto& rec : d->GetIterationRecords())
    {
        EXPECT_FALSE(rec.extrapolated);
    }
    EXPECT_NE(d->GetReuseNote().find("pending until 1"), std::string::npos) << d->GetReuseNote();
    EXPECT_EQ(ConvergedReuse::Horizon(cluster), Seconds(1)); // --convergence 0
}

TEST_F(ConvergedReuseTest, ReusesAgainOnceTheFaultIsPast)
{
    // The fault at 300 us (converged at once) is past after a few iterations of
    // ~45 us; the iterations converge again on the new routes and are reused.
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = 8;
    f.fail = "random:1@300us";
    Ptr<Cluster> cluster = f.Build();
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    Ptr<TrainingDriver> d = TrainingRunner::RunGraph(udp, Job(), 40, {}, On(3));
    ASSERT_EQ(d->GetIterationRecords().size(), 40u);
    ASSERT_GT(d->GetExtrapolatedIterations(), 0u);
    const uint32_t simulated = 40 - d->GetExtrapolatedIterations();
    EXPECT_GE(d->GetIterationRecords()[simulated - 1].end, MicroSeconds(300));
}

TEST_F(ConvergedReuseTest, RefusesWhenTheScenarioSchedulesEvents)
{
    Ptr<TrainingDriver> d = Run(5, On(2), [] { Simulator::Schedule(Seconds(1), [] {}); });
    EXPECT_EQ(d->GetExtrapolatedIterations(), 0u);
    EXPECT_NE(d->GetReuseNote().find("events of its own"), std::string::npos);
    EXPECT_EQ(Simulator::Now(), Seconds(1)); // the scenario's event ran; nothing was skipped
}

TEST_F(ConvergedReuseTest, RefusesWithAnErrorModelOrSeveralJobs)
{
    Ptr<UdpMessageTransport> udp = Transport();
    EXPECT_EQ(ConvergedReuse::Blocker(udp->GetCluster()), "");
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetRate(0); // even a loss-free model: the runner cannot tell it never drops
    udp->GetCluster()->GetLinks().front().devB->SetReceiveErrorModel(em);
    EXPECT_NE(ConvergedReuse::Blocker(udp->GetCluster()).find("error model"), std::string::npos);
    Ptr<TrainingDriver> d = TrainingRunner::RunGraph(udp, Job(), 5, {}, On(2));
    EXPECT_EQ(d->GetExtrapolatedIterations(), 0u);
    EXPECT_NE(d->GetReuseNote().find("error model"), std::string::npos) << d->GetReuseNote();
    Simulator::Destroy();

    IterationGraph a = Job(0);
    IterationGraph b = Job(4);
    for (Ptr<TrainingDriver> j : TrainingRunner::RunJobs(Transport(), {a, b}, 5, {}, On(2)))
    {
        EXPECT_EQ(j->GetExtrapolatedIterations(), 0u);
        EXPECT_NE(j->GetReuseNote().find("several jobs"), std::string::npos);
    }
}

TEST_F(ConvergedReuseTest, OffByDefaultAndWithoutConvergenceNothingChanges)
{
    Ptr<TrainingDriver> plain = Run(4, ConvergedReuse());
    const std::vector<IterationRecord> want = plain->GetIterationRecords();
    const uint64_t events = Simulator::GetEventCount();
    EXPECT_EQ(plain->GetReuseNote(), "");
    Simulator::Destroy();
    // Enabled, but 4 iterations never give 5 in a row: the exact run, event for event.
    Ptr<TrainingDriver> never = Run(4, On(5));
    ASSERT_EQ(never->GetIterationRecords().size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
    {
        EXPECT_EQ(never->GetIterationRecords()[i].end, want[i].end);
        EXPECT_FALSE(never->GetIterationRecords()[i].extrapolated);
    }
    EXPECT_EQ(Simulator::GetEventCount(), events);
    EXPECT_NE(never->GetReuseNote().find("no 5 iterations"), std::string::npos);
    // The runner's rows carry the flag only when reuse was asked for.
    TrainingRunResult r;
    r.jobIterations = {want};
    EXPECT_FALSE(r.IterationRows()[0].contains("extrapolated"));
    r.reuse = true;
    EXPECT_EQ(r.IterationRows()[0]["extrapolated"], false);
}

} // namespace
