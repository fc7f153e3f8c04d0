// SPDX-License-Identifier: GPL-2.0-only
// Fault injection as a user drives it (collective-validation --fail, --failLinks,
// --convergence): the results document names each failed element with its time and the
// time its routes converged, the printed output says it in one line, the same flags give
// the same document, both data paths fail the same links for one --RngRun, and the flow
// level loses and repairs what a link failing mid-run takes, as the packet level does.
#include "example-process.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <unistd.h>

using namespace mlnettest;

namespace
{

std::string
JsonPath(const std::string& tag)
{
    return ::testing::TempDir() + "/faults-" + tag + "-" + std::to_string(getpid()) + ".json";
}

nlohmann::json
RunJson(const std::string& flags, const std::string& tag, ExampleRun* run = nullptr)
{
    const std::string path = JsonPath(tag);
    ExampleRun r = RunExample("collective-validation", flags + " --json=" + path);
    EXPECT_EQ(r.status, 0) << flags << ": " << r.err;
    if (run)
    {
        *run = r;
    }
    nlohmann::json doc = r.status == 0 ? ReadJson(path) : nlohmann::json();
    std::remove(path.c_str());
    return doc;
}

/// A scenario whose link fails mid-run, at both levels, and what the flow run repaired.
struct BothLevels
{
    nlohmann::json packet; //!< the packet run's document
    nlohmann::json flow;   //!< the flow run's document

    BothLevels(const std::string& flags, const std::string& tag)
        : packet(RunJson(flags + " --level=packet", tag + "-packet")),
          flow(RunJson(flags + " --level=flow", tag + "-flow"))
    {
    }

    /// \return the packet run's accounting
    const nlohmann::json& Packet() const
    {
        return packet["accounting"][0];
    }

    /// \return the flow run's fluid accounting
    const nlohmann::json& Fluid() const
    {
        return flow["accounting"][0]["fluid"];
    }

    /// \return frames the packet run dropped
    double Dropped() const
    {
        return Packet()["frames"]["dropped"]["frames"].get<double>();
    }

    /// \return frames the flow run lost to the failure and re-sent
    double Repaired() const
    {
        return Fluid()["repaired_after_failures"]["frames"].get<double>();
    }

    /// \return simulated seconds of the packet and the flow run
    std::pair<double, double> Times() const
    {
        return {packet["rows"][0]["simulated_s"].get<double>(),
                flow["rows"][0]["simulated_s"].get<double>()};
    }
};

} // namespace

TEST(FaultInjection, MidRunFailureIsListedWithItsTimesAndLosses)
{
    const std::string flags = "--fabric=fattree --ranks=8 --bytes=1MiB "
                              "--fail=tor-agg:3@40us --convergence=20us";
    ExampleRun run;
    nlohmann::json doc = RunJson(flags, "mid", &run);
    ASSERT_TRUE(doc.contains("failures")) << doc.dump();
    ASSERT_EQ(doc["failures"].size(), 1u);
    const nlohmann::json& f = doc["failures"][0];
    EXPECT_EQ(f["item"], "tor-agg:3@40us");
    EXPECT_EQ(f["element"], "link");
    EXPECT_EQ(f["class"], "tor-agg");
    // 8 host-tor links come first (ids 0..7); ToR k's uplinks follow: tor-agg:3 is link 11,
    // ToR 1 (switch1) to the second aggregation switch (switch5).
    EXPECT_EQ(f["link"], 11);
    EXPECT_EQ(f["endpoints"], "switch1-switch5");
    EXPECT_EQ(f["at_s"].get<double>(), 40e-6);
    EXPECT_EQ(f["routes_converged_s"].get<double>(), 60e-6);
    EXPECT_GT(f["frames_lost"].get<int>(), 0);
    EXPECT_EQ(doc["rows"][0]["failed_links"], 1);
    EXPECT_NE(
        run.out.find("failures: link 11 tor-agg switch1-switch5 at 40.0 us, routes 60.0 us; "),
        std::string::npos)
        << run.out;

    // Same flags, same document (wall-clock fields aside).
    nlohmann::json again = RunJson(flags, "mid2");
    StripWall(doc);
    StripWall(again);
    doc.erase("meta");
    again.erase("meta");
    EXPECT_EQ(doc.dump(), again.dump());
}

TEST(FaultInjection, TheFlowLevelLosesAndRepairsWhatTheFailedLinkTakes)
{
    // The grid's ring whose tor-agg link fails mid-run (flow-level.md): one message is
    // on the link when it fails, one is sent into it before the routes converge. The
    // flow level loses what they send there and repairs it with UDP's timers; measured
    // 2026-12-06: 66 frames lost and re-sent against 68 dropped at packet level, 2
    // timeouts at both, 1.999 against 1.670 ms (+19.7 %: the messages queued behind the
    // repairs then share the NICs in a different order, flow-level.md; +10.6 % while
    // the caught transfer kept the failed link after the convergence).
    const std::string flags = "--fabric=fattree --tiers=2 --ranks=8 --collective=allreduce "
                              "--algorithm=ring --bytes=4MiB --fail=tor-agg:3@100us "
                              "--convergence=50us";
    const BothLevels run(flags, "repair");
    const nlohmann::json& p = run.Packet();
    const nlohmann::json& f = run.Fluid();
    const double dropped = run.Dropped();
    ASSERT_GT(dropped, 0);
    EXPECT_NEAR(run.Repaired(), dropped, 0.05 * dropped);
    EXPECT_NEAR(f["repaired_after_failures"]["bytes"].get<double>(),
                p["frames"]["resent_bytes"].get<double>(),
                0.05 * p["frames"]["resent_bytes"].get<double>());
    EXPECT_EQ(f["repair_timeouts"], p["timeouts"]);
    EXPECT_EQ(f["caught_by_failures"]["messages"], 0) << "repaired, not kept on the old route";
    EXPECT_EQ(run.flow["failures"][0]["frames_lost"], f["repaired_after_failures"]["frames"])
        << "the fault's line counts the fluid's losses";
    const auto [ps, fs] = run.Times();
    EXPECT_GT(fs, 0.95 * ps) << "without the repair the flow level was 61 % fast";
    EXPECT_FALSE(run.flow["rows"][0]["health"].contains("warning"))
        << run.flow["rows"][0]["health"];
}

TEST(FaultInjection, TheFlowLevelMovesCaughtTransfersOntoTheNewRoutes)
{
    // The grid's direct all-to-all whose tor-agg link fails at 50 us: every message is
    // in flight until about 1.7 ms, so the transfers on the link are still sending when
    // the routes converge (80 us) and send their rest over the ToR's other uplinks, as
    // the packets do. Measured 2026-12-06: 99 frames lost at both levels, 2.085 against
    // 2.212 ms (-5.7 %); -21.2 % while the rests kept the failed link's capacity.
    const std::string flags = "--fabric=fattree --tiers=2 --ranks=16 --collective=alltoall "
                              "--algorithm=direct --bytes=1MiB --fail=tor-agg:3@50us "
                              "--convergence=30us";
    const BothLevels run(flags, "reroute");
    const double dropped = run.Dropped();
    ASSERT_GT(dropped, 0);
    EXPECT_NEAR(run.Repaired(), dropped, 0.05 * dropped);
    EXPECT_EQ(run.Fluid()["caught_by_failures"]["messages"], 0);
    const auto [ps, fs] = run.Times();
    EXPECT_NEAR(fs, ps, 0.10 * ps) << "kept on the failed link, the flow level was 21 % fast";
}

TEST(FaultInjection, BothDataPathsFailTheSameLinks)
{
    const std::string flags = "--fabric=fattree --ranks=16 --bytes=256KiB --failLinks=3 "
                              "--failAt=20us --convergence=10us --RngRun=5";
    nlohmann::json ipv4 = RunJson(flags + " --dataPath=ipv4", "ipv4");
    nlohmann::json fast = RunJson(flags + " --dataPath=fast", "fast");
    ASSERT_EQ(ipv4["failures"].size(), 3u);
    std::vector<int> links;
    for (size_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(ipv4["failures"][i]["link"], fast["failures"][i]["link"]) << i;
        EXPECT_EQ(ipv4["failures"][i]["endpoints"], fast["failures"][i]["endpoints"]) << i;
        EXPECT_EQ(ipv4["failures"][i]["item"], "failLinks=3");
        EXPECT_EQ(ipv4["failures"][i]["at_s"].get<double>(), 20e-6);
        EXPECT_EQ(ipv4["failures"][i]["routes_converged_s"].get<double>(), 30e-6);
    }
    // The fast path is exact: the same completion time as the IPv4 path, failures and all.
    EXPECT_EQ(ipv4["rows"][0]["simulated_s"], fast["rows"][0]["simulated_s"]);
}

TEST(FaultInjection, BadFaultsGiveOneErrorLine)
{
    const std::string json = JsonPath("bad");
    for (const char* bad : {"--fail=tor-agg:99",
                            "--fail=spine:0",
                            "--fail=tor-agg:0@-1us",
                            "--fail=host-tor:0",
                            "--fail=tor-agg:0 --convergence=soon",
                            "--failAt=1ms"})
    {
        ExampleRun r = RunExample("collective-validation",
                                  std::string("--fabric=fattree ") + bad + " --json=" + json);
        EXPECT_EQ(r.status, 1) << bad;
        EXPECT_EQ(r.err.rfind("error: --", 0), 0u) << bad << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
        EXPECT_FALSE(std::ifstream(json).good()) << bad << ": no results written";
    }
}

// checkmate-recovery --mirrorLoss: mirrored packets lost at the switch as the flag asks,
// seeded by --RngRun, repaired by the shadows, which still match the workers.
TEST(FaultInjection, MirrorLossFromTheCommandLine)
{
    const std::string small = "checkmate-recovery";
    const std::string flags = "--workers=4 --shadows=2 --inputs=8 --hidden=16 --classes=4 "
                              "--compute=100us --iterations=8 --mirrorLoss=0.2";
    auto summary = [&](const std::string& extra, const std::string& tag) {
        const std::string path = JsonPath(tag);
        ExampleRun r = RunExample(small, flags + extra + " --json=" + path);
        EXPECT_EQ(r.status, 0) << r.err;
        nlohmann::json s = r.status == 0 ? ReadJson(path)["summary"] : nlohmann::json();
        std::remove(path.c_str());
        return s;
    };
    nlohmann::json a = summary("", "cm-a");
    ASSERT_TRUE(a.contains("mirror_lost_packets")) << a.dump();
    // 8 iterations mirror 4 chunks of 212 B each (8 x 4 x 212 bytes, see
    // checkmate-recovery-test.cc), one clone per chunk: 32 clones; at p = 0.2 none is
    // lost with probability 0.8^32 = 0.08 %, all with 0.2^32.
    const uint64_t lost = a["mirror_lost_packets"].get<uint64_t>();
    EXPECT_GT(lost, 0u);
    EXPECT_LT(lost, 32u);
    EXPECT_DOUBLE_EQ(a["mirror_loss_rate"].get<double>(), 0.2);
    EXPECT_GE(a["repaired_packets"].get<uint64_t>(), 1u) << "lost clones are repaired";
    EXPECT_TRUE(a["shadow_matches_workers"].get<bool>());
    EXPECT_EQ(summary("", "cm-b")["mirror_lost_packets"], lost) << "same run, same losses";
    std::set<uint64_t> byRun{lost};
    for (const char* run : {" --RngRun=2", " --RngRun=3", " --RngRun=4"})
    {
        byRun.insert(summary(run, "cm-run")["mirror_lost_packets"].get<uint64_t>());
    }
    EXPECT_GT(byRun.size(), 1u) << "the run number seeds the losses";
    for (const char* bad : {"--mirrorLoss=1.5", "--mirrorLoss=-0.1", "--mirrorLoss=0.1x"})
    {
        ExampleRun r = RunExample(small, flags + " " + bad);
        EXPECT_EQ(r.status, 1) << bad;
        EXPECT_EQ(r.err.rfind("error: --mirrorLoss=", 0), 0u) << bad << ": " << r.err;
    }
}

// A transport that cannot recover ends the run with an error, not a hang: UDP gives up
// after 2 silent timeouts (200 us, then 400 us) long before routes come back (20 ms).
TEST(FaultInjection, UnrecoverableLossEndsWithAnErrorNotAHang)
{
    ExampleRun r = RunExample("collective-validation",
                              "--fabric=fattree --ranks=8 --bytes=1MiB --fail=tor-agg:3@40us "
                              "--convergence=20ms --ns3::UdpMessageTransport::MaxRetries=2");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err.rfind("error: the allreduce did not finish: traffic was lost for good, ", 0),
              0u)
        << r.err;
    EXPECT_NE(r.err.find(" messages abandoned after MaxRetries timeouts"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("error: the allreduce did not finish: traffic was lost for good, 0 "),
              std::string::npos)
        << "something was abandoned: " << r.err;
}
