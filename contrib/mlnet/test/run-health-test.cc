// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of RunHealth: twin_gap's definition, the warning rule (25 %, signed, the
 * cause named from the counts in their order: drops, re-sends, PFC pauses, timeouts,
 * flow-hash collisions, unexplained), the link imbalance from the link registry, the
 * health object of a real incast run and RunReport printing the warning and the
 * dropped / resent columns only when they are non-zero.
 */
#include "ns3/fat-tree-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/run-health.h"
#include "ns3/run-report.h"
#include "ns3/simulator.h"
#include "ns3/traffic-accounting.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>
#include <limits>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/// Health with the given counts and no imbalance.
RunHealth
Healthy()
{
    RunHealth h;
    h.counts.fabric = "fattree";
    h.linkImbalance = 1.0;
    h.imbalanceClass = "tor-agg";
    return h;
}

TEST(RunHealth, TwinGapIsSignedAndRelativeToTheTwin)
{
    EXPECT_DOUBLE_EQ(RunHealth::TwinGap(1.5, 1.0), 0.5);
    EXPECT_DOUBLE_EQ(RunHealth::TwinGap(0.75, 1.0), -0.25);
    EXPECT_DOUBLE_EQ(RunHealth::TwinGap(2.0, 2.0), 0.0);
    // The "error" column divides by the packet time instead: 0.5 / 1.5 for the first.
    EXPECT_THROW(RunHealth::TwinGap(1.0, 0.0), std::invalid_argument);
    EXPECT_THROW(RunHealth::TwinGap(1.0, -1.0), std::invalid_argument);
}

TEST(RunHealth, WarnsOnlyBeyondAQuarter)
{
    RunHealth h = Healthy();
    EXPECT_EQ(h.Warning("fattree", 1.25, 1.0), "") << "exactly 25 % is not more than 25 %";
    EXPECT_EQ(h.Warning("fattree", 0.75, 1.0), "");
    EXPECT_EQ(h.Warning("fattree", 1.0, 1.0), "");
    EXPECT_EQ(h.Warning("fattree", 1.3, 1.0),
              "fattree: packet-level 1.30 s is +30% off its twin 1.00 s: unexplained (no drops, "
              "re-sends, pauses or timeouts; busiest link 1.00x its class's mean)");
    // No class to compare (a rail fabric: every link has a rank at one end and a switch
    // at the other): no ratio is printed.
    RunHealth none = Healthy();
    none.linkImbalance = 0;
    none.imbalanceClass.clear();
    EXPECT_EQ(none.Cause(),
              "unexplained (no drops, re-sends, pauses or timeouts; no link class where paths "
              "are chosen carried bytes to compare)");
    EXPECT_EQ(h.Warning("fattree", 0.006, 0.01)
                  .find("packet-level 6.00 ms is -40% off its twin "
                        "10.0 ms: "),
              9u);
}

TEST(RunHealth, FlowLevelRunsSayFlowLevelAndNameTheTwinsDifference)
{
    // A flow-level run has no frames: it is not called packet-level, and its cause is
    // not a missing symptom but what the run shares that the per-task twin does not.
    RunHealth h = Healthy();
    h.flowLevel = true;
    h.linkImbalance = 3.0; // a flow run's link bytes name no collision either
    EXPECT_EQ(h.Warning("rail-only (rail-switch 3 failed)", 1.3, 1.0),
              "rail-only (rail-switch 3 failed): flow-level 1.30 s is +30% off its twin 1.00 s: "
              "the flow level shares links among the tasks in flight together; the twin times "
              "each task alone");
    EXPECT_EQ(h.Warning("x", 1.2, 1.0), "");
}

/**
 * A flow-level warning is given at a twin gap of 0 (Warning) and on a row without a
 * twin (Annotate leaves twin_gap null). \return the annotated row, for its fields
 */
nlohmann::json
ExpectWarnedWithoutATwin(const RunHealth& h,
                         const std::string& run,
                         double flowS,
                         const std::string& warning)
{
    EXPECT_EQ(h.Warning(run, flowS, flowS), warning);
    nlohmann::json row;
    h.Annotate(row, run, flowS, 0);
    EXPECT_TRUE(row["twin_gap"].is_null());
    EXPECT_EQ(row["health"]["warning"], warning);
    return row;
}

TEST(RunHealth, FlowLevelWarnsOfItsOverflowWhateverTheTwinGap)
{
    // Frames the fluid could not fit in a port are warned about at any twin gap, with
    // what a packet run does instead at a switch's port and at a forwarding rank's.
    RunHealth h = Healthy();
    h.flowLevel = true;
    EXPECT_EQ(h.OverflowWarning("x", 1.0), "");
    h.counts.fluidPeakBacklogBytes = 25404474;
    h.counts.fluidOverflows = {{"tor-agg", TrafficCounts::SWITCH_BUFFER, {6933, 62410866}}};
    h.counts.fluidOverflow = {6933, 62410866};
    const std::string atSwitch =
        "fattree/alltoall/direct: flow-level 3.31 ms is optimistic: the fluid's backlogs "
        "outgrew the ports' buffers by 6933 frames (tor-agg switch buffer 6933; peak backlog "
        "2.54e+07 bytes): a packet-level run drops and repairs what overfills a switch port "
        "(or holds it back by PFC)";
    EXPECT_EQ(h.OverflowWarning("fattree/alltoall/direct", 3.31e-3), atSwitch);
    const nlohmann::json row =
        ExpectWarnedWithoutATwin(h, "fattree/alltoall/direct", 3.31e-3, atSwitch);
    EXPECT_EQ(row["health"]["fluid_overflow"], 6933);
    EXPECT_EQ(row["health"]["fluid_overflows"]["tor-agg"], 6933);
    h.counts.fluidOverflows.push_back({"torus", TrafficCounts::RANK_BUFFER, {10, 90000}});
    EXPECT_NE(h.OverflowWarning("t", 1.0).find(
                  "(or holds it back by PFC), and holds a forwarding rank's own sends back "
                  "while its port is full"),
              std::string::npos);
    h.counts.fluidOverflows.erase(h.counts.fluidOverflows.begin());
    EXPECT_NE(h.OverflowWarning("t", 1.0).find(
                  "(torus rank buffer 10; peak backlog 2.54e+07 bytes): a packet-level run "
                  "holds a forwarding rank's own sends back while its port is full"),
              std::string::npos);
    // Overflow a port dropped (and the transport repaired) is not warned about; beside
    // it, another transport's switch overflow held back still is, and the health sums
    // a link class's causes.
    h.counts.fluidOverflows = {{"tor-agg", TrafficCounts::SWITCH_DROP, {1914, 17230444}}};
    h.counts.fluidOverflow = {1914, 17230444};
    EXPECT_EQ(h.OverflowWarning("t", 1.0), "");
    h.counts.fluidOverflows.push_back({"tor-agg", TrafficCounts::SWITCH_BUFFER, {6, 54012}});
    h.counts.fluidOverflow = {1920, 17284456};
    EXPECT_NE(h.OverflowWarning("t", 1.0).find("by 1920 frames (tor-agg switch drop 1914, "
                                               "tor-agg switch buffer 6; "),
              std::string::npos);
    EXPECT_EQ(h.ToJson()["fluid_overflows"]["tor-agg"], 1920);
    // A packet-level run's health carries the fields, and never this warning.
    h.flowLevel = false;
    EXPECT_EQ(h.OverflowWarning("t", 1.0), "");
}

TEST(RunHealth, FlowLevelWarnsOfMessagesALinkFailureCaughtInFlight)
{
    // A ring whose tor-agg link fails mid-run, standing in for a transport whose repair
    // the flow level does not model (TCP): one message of 527,769 wire bytes was
    // crossing it. Warned about at any twin gap, after an overflow if any.
    RunHealth h = Healthy();
    h.flowLevel = true;
    EXPECT_EQ(h.FailureWarning("x", 1.0), "");
    h.counts.fluidCaught = {1, 527769};
    const std::string caught =
        "fattree/allreduce/ring: flow-level 653 us is optimistic: 1 messages (5.28e+05 wire "
        "bytes) were crossing a link when it failed and kept their route; a packet-level "
        "run loses what they send into it until the routes converge, and repairs it";
    EXPECT_EQ(h.FailureWarning("fattree/allreduce/ring", 653e-6), caught);
    const nlohmann::json row =
        ExpectWarnedWithoutATwin(h, "fattree/allreduce/ring", 653e-6, caught);
    EXPECT_EQ(row["health"]["fluid_caught_by_failures"], 1);
    h.counts.fluidOverflows = {{"tor-agg", TrafficCounts::SWITCH_BUFFER, {5, 45000}}};
    h.counts.fluidOverflow = {5, 45000};
    EXPECT_EQ(h.FluidWarning("fattree/allreduce/ring", 653e-6),
              h.OverflowWarning("fattree/allreduce/ring", 653e-6) + "; " + caught);
    h.flowLevel = false;
    EXPECT_EQ(h.FailureWarning("x", 1.0), "");
}

TEST(RunHealth, NamesTheFirstMeasuredCause)
{
    RunHealth h = Healthy();
    h.linkImbalance = 1.5;
    EXPECT_EQ(h.Cause(),
              "flow-hash collisions: the busiest tor-agg link carried 1.50x its class's "
              "mean bytes");
    h.counts.timeouts = 7;
    EXPECT_EQ(h.Cause(), "7 transport timeouts") << "timeouts explain it before collisions";
    h.counts.pfcPausesSent = 12;
    h.counts.pfcPausesReceived = 12;
    h.counts.pfcPausedSeconds = 250e-6;
    EXPECT_EQ(h.Cause(), "12 PFC pauses, 250 us paused");
    h.counts.framesResent = 40;
    h.counts.bytesResent = 360000;
    EXPECT_EQ(h.Cause(), "40 re-sent (360000 bytes), 7 timeouts");
    h.counts.framesDropped = {40, 360000};
    h.counts.drops = {{"agg-core", "queue", {30, 270000}}, {"tor-agg", "queue", {10, 90000}}};
    EXPECT_EQ(h.Cause(),
              "40 frames dropped (agg-core queue 30, tor-agg queue 10), 40 re-sent (360000 "
              "bytes), 7 timeouts");
}

TEST(RunHealth, AnnotateAddsTwinGapHealthAndWarning)
{
    RunHealth h = Healthy();
    h.counts.framesDropped = {3, 27000};
    h.counts.drops = {{"host-tor", "queue", {3, 27000}}};
    h.counts.maxQueueBytes = 9000;
    nlohmann::json row = {{"fabric", "fattree"}};
    h.Annotate(row, "fattree", 2.0, 1.0);
    EXPECT_DOUBLE_EQ(row["twin_gap"].get<double>(), 1.0);
    EXPECT_EQ(row["health"]["dropped"], 3);
    EXPECT_EQ(row["health"]["drops"]["host-tor queue"], 3);
    EXPECT_EQ(row["health"]["max_queue_bytes"], 9000);
    EXPECT_EQ(row["health"]["warning"],
              "fattree: packet-level 2.00 s is +100% off its twin 1.00 s: 3 frames dropped "
              "(host-tor queue 3)");
    nlohmann::json close = {{"fabric", "fattree"}};
    h.Annotate(close, "fattree", 1.1, 1.0);
    EXPECT_FALSE(close["health"].contains("warning"));
    nlohmann::json noTwin;
    h.Annotate(noTwin, "checkmate", 1.0, 0.0);
    EXPECT_TRUE(noTwin["twin_gap"].is_null());
    EXPECT_FALSE(noTwin["health"].contains("warning"));
}

class RunHealthRunTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

TEST_F(RunHealthRunTest, LinkImbalanceIsBusiestOverMeanOfItsClass)
{
    // A 2-tier fat-tree of 8 ranks: host links (rank to ToR) and ToR-spine links.
    FatTreeHelper fabric(8);
    Ptr<Cluster> cluster = fabric.Install();
    const uint32_t none = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> between;   // links between two switches
    std::vector<uint32_t> hostLinks; // a rank's link to its switch
    for (uint32_t l = 0; l < cluster->GetLinks().size(); ++l)
    {
        const ClusterLink& link = cluster->GetLink(l);
        bool rankA = cluster->GetRankOfNode(link.nodeA) != none;
        bool rankB = cluster->GetRankOfNode(link.nodeB) != none;
        (rankA == rankB ? between : hostLinks).push_back(l);
    }
    ASSERT_GE(between.size(), 4u);
    ASSERT_FALSE(hostLinks.empty());
    const std::string cls = cluster->GetLink(between[0]).linkClass;
    EXPECT_EQ(RunHealth::LinkImbalance(cluster), 0.0) << "nothing carried: no class qualifies";
    // Switch-to-switch links of one class: 100, 100, 100 and 300 bytes (split over the
    // directions), the class's other links 150 each: busiest 300 x links / total bytes.
    const uint64_t bytes[4][2] = {{60, 40}, {100, 0}, {0, 100}, {200, 100}};
    uint64_t total = 0;
    uint32_t links = 0;
    for (uint32_t i = 0; i < between.size(); ++i)
    {
        if (cluster->GetLink(between[i]).linkClass != cls)
        {
            continue;
        }
        uint64_t a = links < 4 ? bytes[links][0] : 75;
        uint64_t b = links < 4 ? bytes[links][1] : 75;
        cluster->SetLinkCounters(between[i], a, b, 1, 1);
        total += a + b;
        ++links;
    }
    // A host link far busier than any: the workload's own traffic, not counted.
    cluster->SetLinkCounters(hostLinks[0], 1000000, 0, 1, 1);
    std::string which;
    EXPECT_DOUBLE_EQ(RunHealth::LinkImbalance(cluster, &which), 300.0 * links / total);
    EXPECT_EQ(which, cls);
    EXPECT_GT(RunHealth::LinkImbalance(cluster), 1.25);
    // Counting only some links (what a replicated run simulated): leave out the idle
    // ones and the busiest, and the rest are 100, 100, 100 bytes: balanced.
    std::vector<bool> counted(cluster->GetLinks().size(), false);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < between.size(); ++i)
    {
        if (cluster->GetLink(between[i]).linkClass == cls && kept < 3)
        {
            counted[between[i]] = true;
            ++kept;
        }
    }
    EXPECT_DOUBLE_EQ(RunHealth::LinkImbalance(cluster, &which, &counted), 1.0);
}

TEST_F(RunHealthRunTest, MeasureTakesTheClosedRunAndTheReportWarns)
{
    // A 3-to-1 incast into a 4-frame switch queue, timed against a made-up twin of half
    // its time: drops at host-tor, repaired; the row warns naming them.
    IdealSwitchHelper fabric(4);
    fabric.SetQueueSize(QueueSize("4p"));
    fabric.SetDataPath("fast");
    Ptr<Cluster> cluster = fabric.Install();
    Ptr<UdpMessageTransport> udp = CreateObject<UdpMessageTransport>();
    udp->Install(cluster);
    uint32_t channel = udp->RegisterChannel(Callback<void, const Message&>([](const Message&) {}));
    EXPECT_THROW(RunHealth::Measure(cluster), std::logic_error) << "no accounting yet";
    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(cluster, udp);
    EXPECT_THROW(RunHealth::Measure(cluster), std::logic_error) << "not closed yet";
    for (uint32_t r = 1; r < 4; ++r)
    {
        udp->Send(r, 0, channel, 0, 50ull * udp->GetMaxPayload());
    }
    RunReport report("health-test");
    Simulator::Run();
    TrafficCounts closed = accounting->Close();
    RunHealth h = RunHealth::Measure(cluster);
    EXPECT_EQ(h.counts.ToJson(), closed.ToJson());
    ASSERT_GT(h.counts.framesDropped.count, 0u);
    EXPECT_EQ(h.counts.timeouts, udp->GetTimeouts());
    EXPECT_EQ(h.counts.bytesResent, udp->GetBytesResent());
    const double packet = Simulator::Now().GetSeconds();
    nlohmann::json row = {{"fabric", "ideal"}, {"time_s", packet}};
    h.Annotate(row, "ideal", packet, packet / 2);
    EXPECT_DOUBLE_EQ(row["twin_gap"].get<double>(), 1.0);
    EXPECT_EQ(row["health"]["resent"], udp->GetRetransmissions());
    report.SetColumns({"fabric", "time_s"});
    report.Add(row);
    nlohmann::json quiet = {{"fabric", "quiet"}, {"time_s", 1.0}};
    Healthy().Annotate(quiet, "quiet", 1.0, 1.0);
    report.Add(quiet);
    std::ostringstream out;
    report.Finish(out, "");
    const std::string text = out.str();
    std::istringstream lines(text);
    std::string header;
    std::getline(lines, header);
    EXPECT_NE(header.find("dropped"), std::string::npos) << text;
    EXPECT_NE(header.find("resent"), std::string::npos) << text;
    const std::string warning = "warning: ideal: packet-level " + RunReport::FormatSeconds(packet) +
                                " is +100% off its twin " + RunReport::FormatSeconds(packet / 2) +
                                ": " + std::to_string(h.counts.framesDropped.count) +
                                " frames dropped (host-tor queue " +
                                std::to_string(h.counts.framesDropped.count) + ")";
    EXPECT_NE(text.find(warning), std::string::npos) << text;
    EXPECT_EQ(text.find("warning: quiet"), std::string::npos) << text;
}

TEST(RunHealth, TableHasNoDropColumnsWhenNothingDropped)
{
    RunReport report("health-quiet");
    report.SetColumns({"fabric"});
    nlohmann::json row = {{"fabric", "fattree"}};
    Healthy().Annotate(row, "fattree", 1.0, 1.0);
    report.Add(row);
    std::ostringstream out;
    report.Print(out);
    EXPECT_EQ(out.str().find("dropped"), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find("resent"), std::string::npos) << out.str();
}

} // namespace
