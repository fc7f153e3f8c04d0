// SPDX-License-Identifier: GPL-2.0-only
// The shared scenario flags whose valid values are names the code registers: --fabric
// (FabricRegistry, plus a scenario's own names), --collective and --algorithm
// (CollectiveFactory). A name outside them is refused by Parse, naming the flag, the
// value and the valid names; every registered name is accepted.
#include "mlnet-test-support.h"

#include "ns3/collective-factory.h"
#include "ns3/collective-runner.h"
#include "ns3/fabric-options.h"
#include "ns3/fabric-registry.h"
#include "ns3/scenario-command-line.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;

namespace
{

/// The message parsing args (after "prog") with FabricOptions and CollectiveRunOptions
/// throws, "no exception" if none; `fabric`/`run` receive the values.
std::string
ParseError(const std::vector<std::string>& args,
           FabricOptions* fabric = nullptr,
           CollectiveRunOptions* run = nullptr,
           const std::vector<std::string>& extraFabrics = {})
{
    FabricOptions f;
    f.extraFabrics = extraFabrics;
    CollectiveRunOptions r;
    ScenarioCommandLine cmd(__FILE__);
    f.AddToCommandLine(cmd);
    r.AddToCommandLine(cmd);
    std::vector<std::string> all{"prog"};
    all.insert(all.end(), args.begin(), args.end());
    std::string e = InvalidArgumentMessage([&] { cmd.Parse(all); });
    if (fabric)
    {
        *fabric = f;
    }
    if (run)
    {
        *run = r;
    }
    return e;
}

/// True when s contains every part.
bool
Holds(const std::string& s, const std::vector<std::string>& parts)
{
    for (const auto& p : parts)
    {
        if (s.find(p) == std::string::npos)
        {
            return false;
        }
    }
    return true;
}

} // namespace

TEST(ScenarioChoicesTest, UnknownFabricNamesTheFlagAndTheRegisteredNames)
{
    const std::string e = ParseError({"--fabric=hypercube"});
    EXPECT_TRUE(Holds(e, {"--fabric=hypercube"})) << e;
    for (const auto& name : FabricRegistry::Names())
    {
        EXPECT_TRUE(Holds(e, {name})) << name << ": " << e;
    }
}

TEST(ScenarioChoicesTest, EveryRegisteredFabricIsAccepted)
{
    ASSERT_FALSE(FabricRegistry::Names().empty());
    for (const auto& name : FabricRegistry::Names())
    {
        FabricOptions f;
        EXPECT_EQ(ParseError({"--fabric=" + name}, &f), "no exception") << name;
        EXPECT_EQ(f.fabric, name);
    }
}

TEST(ScenarioChoicesTest, ScenarioNamesBesideTheRegistryAreAcceptedOnlyWhenGiven)
{
    ASSERT_FALSE(FabricRegistry::Has("railonly"));
    EXPECT_TRUE(Holds(ParseError({"--fabric=railonly"}), {"--fabric=railonly"}));
    FabricOptions f;
    EXPECT_EQ(ParseError({"--fabric=railonly"}, &f, nullptr, {"railonly"}), "no exception");
    EXPECT_EQ(f.fabric, "railonly");
}

TEST(ScenarioChoicesTest, UnknownCollectiveAndAlgorithmNameTheirFlag)
{
    const std::string c = ParseError({"--collective=allsum"});
    EXPECT_TRUE(Holds(c, {"--collective=allsum", "allreduce", "alltoall", "sendrecv"})) << c;
    const std::string a = ParseError({"--algorithm=spiral"});
    EXPECT_TRUE(Holds(a, {"--algorithm=spiral", "ring", "hd", "pairwise"})) << a;
}

TEST(ScenarioChoicesTest, EveryFactoryPairIsAccepted)
{
    for (const auto& [collective, algorithm] : CollectiveFactory::List())
    {
        CollectiveRunOptions r;
        EXPECT_EQ(
            ParseError({"--collective=" + collective, "--algorithm=" + algorithm}, nullptr, &r),
            "no exception")
            << collective << "/" << algorithm;
        EXPECT_EQ(r.collective, collective);
        EXPECT_EQ(r.algorithm, algorithm);
    }
}

TEST(ScenarioChoicesTest, FabricDataPathIsAutoAndEcnOrFlowmonMakeItIpv4)
{
    // Through the flags: the default is auto, and --ecn or --flowmon make it ipv4.
    FabricOptions f;
    EXPECT_EQ(ParseError({}, &f), "no exception");
    EXPECT_EQ(f.dataPath, "auto");
    EXPECT_EQ(f.Request().dataPath, "fast");
    EXPECT_EQ(ParseError({"--ecn=true"}, &f), "no exception");
    EXPECT_EQ(f.Request().dataPath, "ipv4");
    EXPECT_EQ(ParseError({"--flowmon=x.xml"}, &f), "no exception");
    EXPECT_EQ(f.Request().dataPath, "ipv4");
    EXPECT_EQ(ParseError({"--dataPath=fast", "--ecn=true"}, &f), "no exception");
    EXPECT_NE(InvalidArgumentMessage([&] { f.Request(); }).find("--ecn"), std::string::npos);
    f.transport = "tcp";
    f.dataPath = "auto";
    f.ecn = false;
    EXPECT_EQ(f.Request().dataPath, "ipv4");
}
