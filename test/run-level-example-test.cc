// SPDX-License-Identifier: GPL-2.0-only
// --level on every example: the implemented levels run, an unknown or unimplemented
// one is one error line; the flow level of collective-validation is the twin alone.
#include "example-process.h"

#include <cstdio>
#include <map>
#include <vector>

using namespace mlnettest;

namespace
{

/// Every example and the level it does not implement (its levels are in the message).
const std::map<std::string, std::pair<std::string, std::string>> kExamples{
    {"checkmate-recovery", {"analytic", "--level=packet"}},
    {"collective-validation", {"analytic", "--level=packet or --level=flow"}},
    {"compression-utility", {"flow", "--level=packet"}},
    {"distributed-collective", {"flow", "--level=packet"}},
    {"railonly-cost", {"packet", "--level=analytic"}},
    {"railonly-llm", {"analytic", "--level=packet"}},
    {"topoopt-cluster", {"flow", "--level=packet"}},
    {"topoopt-plan", {"packet", "--level=analytic"}},
    {"training-cluster", {"flow", "--level=packet"}},
    {"training-workload", {"flow", "--level=packet"}},
};

/// \return the number of lines of a text
size_t
Lines(const std::string& text)
{
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

} // namespace

TEST(RunLevelExample, EveryExampleRejectsAnUnknownLevelInOneLine)
{
    for (const auto& [name, missing] : kExamples)
    {
        ExampleRun run = RunExample(name, "--level=fluid");
        EXPECT_EQ(run.status, 1) << name;
        EXPECT_EQ(Lines(run.err), 1u) << name << ": " << run.err;
        EXPECT_EQ(run.err.rfind("error: --level=fluid is not a run level; use packet, flow or "
                                "analytic",
                                0),
                  0u)
            << name << ": " << run.err;
    }
}

TEST(RunLevelExample, EveryExampleNamesItsLevelsForOneItLacks)
{
    for (const auto& [name, missing] : kExamples)
    {
        const auto& [level, valid] = missing;
        ExampleRun run = RunExample(name, "--level=" + level);
        EXPECT_EQ(run.status, 1) << name;
        EXPECT_EQ(Lines(run.err), 1u) << name << ": " << run.err;
        EXPECT_EQ(run.err,
                  "error: " + name + " has no " + level + " level yet; use " + valid + "\n")
            << name;
    }
}

TEST(RunLevelExample, FlowLevelIsTheTwinWithoutAPacketRun)
{
    const std::string flags =
        "--fabric=fattree --ranks=8 --collective=allreduce --bytes=256KiB --json=";
    std::string dir = ::testing::TempDir();
    std::string packetJson = dir + "/level-packet.json";
    std::string flowJson = dir + "/level-flow.json";
    ASSERT_EQ(RunExample("collective-validation", flags + packetJson).status, 0);
    ExampleRun flow = RunExample("collective-validation", "--level=flow " + flags + flowJson);
    ASSERT_EQ(flow.status, 0) << flow.err;
    nlohmann::json p = ReadJson(packetJson);
    nlohmann::json f = ReadJson(flowJson);
    std::remove(packetJson.c_str());
    std::remove(flowJson.c_str());
    EXPECT_EQ(p["meta"]["level"], "packet");
    EXPECT_EQ(f["meta"]["level"], "flow");
    ASSERT_EQ(f["rows"].size(), 1u);
    const nlohmann::json& fr = f["rows"][0];
    const nlohmann::json& pr = p["rows"][0];
    EXPECT_TRUE(fr["simulated_s"].is_null());
    EXPECT_TRUE(fr["error"].is_null());
    EXPECT_GT(pr["simulated_s"].get<double>(), 0.0);
    // The same twin on the same fabric, routes and packetization, to the bit.
    EXPECT_EQ(fr["analytical_s"].get<double>(), pr["analytical_s"].get<double>());
    EXPECT_EQ(fr["events"].get<uint64_t>(), 0u); // nothing was simulated
    EXPECT_EQ(fr["link_bytes"].get<uint64_t>(), 0u);
    EXPECT_GT(pr["events"].get<uint64_t>(), 0u);
    ExampleRun real = RunExample("collective-validation",
                                 "--level=flow --real --fabric=ideal --ranks=4 --bytes=4KiB");
    EXPECT_EQ(real.status, 1);
    EXPECT_EQ(Lines(real.err), 1u) << real.err;
}
