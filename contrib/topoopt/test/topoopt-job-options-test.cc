// SPDX-License-Identifier: GPL-2.0-only
// TopoOptJobOptions: the size rules and the --model flag shared by topoopt-plan,
// topoopt-cluster and training-cluster. Each rule is checked at its boundary (the
// largest valid degree, the smallest even server count) and every refusal names the
// flag it is about.
#include "mlnet-test-support.h"

#include "ns3/model-profile.h"
#include "ns3/scenario-command-line.h"
#include "ns3/topoopt-cluster-runner.h"
#include "ns3/topoopt-job-options.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;

namespace
{

/// The message CheckSize throws ("no exception" if none).
std::string
SizeError(const std::string& flag, uint32_t servers, uint32_t degree, uint32_t ports = 0)
{
    return InvalidArgumentMessage(
        [&] { TopoOptJobOptions::CheckSize(flag, servers, degree, ports); });
}

/// The message parsing --model=<value> throws ("no exception" if none).
std::string
ModelError(const std::string& value, bool list, std::string* model = nullptr)
{
    std::string m = "dlrm";
    ScenarioCommandLine cmd(__FILE__);
    TopoOptJobOptions::AddModel(cmd, m, list);
    std::string e = InvalidArgumentMessage([&] { cmd.Parse({"prog", "--model=" + value}); });
    if (model)
    {
        *model = m;
    }
    return e;
}

bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST(TopoOptJobOptionsTest, ServersMustBeEvenAndAtLeastTwo)
{
    EXPECT_TRUE(Has(SizeError("--servers", 15, 4), "--servers=15"))
        << SizeError("--servers", 15, 4);
    EXPECT_TRUE(Has(SizeError("--servers", 15, 4), "--servers=16")); // the suggested fix
    EXPECT_TRUE(Has(SizeError("--servers", 0, 1), "--servers=0"));
    EXPECT_TRUE(Has(SizeError("--gpus", 7, 2), "--gpus=7")); // the caller's flag name
    EXPECT_EQ(SizeError("--servers", 2, 1), "no exception"); // smallest valid job
}

TEST(TopoOptJobOptionsTest, DegreeAtMostServersMinusOne)
{
    // A server has no circuit to itself: n servers give at most n-1 peers.
    const std::string e = SizeError("--servers", 8, 8);
    EXPECT_TRUE(Has(e, "--degree=8")) << e;
    EXPECT_TRUE(Has(e, "--servers=8")) << e;
    EXPECT_TRUE(Has(e, "at most 7")) << e;
    EXPECT_EQ(SizeError("--servers", 8, 7), "no exception");
    EXPECT_TRUE(Has(SizeError("--gpus", 16, 16), "(--gpus=16)"));
    EXPECT_TRUE(Has(SizeError("--servers", 16, 0), "--degree"));
}

TEST(TopoOptJobOptionsTest, DegreeAtMostPorts)
{
    const std::string e = SizeError("--servers", 16, 8, 4);
    EXPECT_TRUE(Has(e, "--degree=8")) << e;
    EXPECT_TRUE(Has(e, "--ports")) << e;
    EXPECT_EQ(SizeError("--servers", 16, 4, 4), "no exception");
    EXPECT_EQ(SizeError("--servers", 16, 8, 0), "no exception"); // 0 ports = as many as d
}

TEST(TopoOptJobOptionsTest, ClusterRunnerAppliesTheSameRules)
{
    TopoOptClusterConfig c;
    c.servers = 8;
    c.degree = 8;
    EXPECT_EQ(InvalidArgumentMessage([&] { TopoOptClusterRunner{c}; }),
              SizeError("--servers", 8, 8));
    c.servers = 15;
    c.degree = 4;
    EXPECT_EQ(InvalidArgumentMessage([&] { TopoOptClusterRunner{c}; }),
              SizeError("--servers", 15, 4));
}

TEST(TopoOptJobOptionsTest, ModelIsAShippedProfileName)
{
    const std::string e = ModelError("gpt5", false);
    EXPECT_TRUE(Has(e, "--model=gpt5")) << e;
    for (const auto& name : ModelProfile::KnownModels())
    {
        EXPECT_TRUE(Has(e, name)) << name << ": " << e;
        std::string model;
        EXPECT_EQ(ModelError(name, false, &model), "no exception") << name;
        EXPECT_EQ(model, name);
    }
    // One name, not a list, where the scenario runs one model.
    EXPECT_TRUE(Has(ModelError("dlrm,bert", false), "--model=dlrm,bert"));
}

TEST(TopoOptJobOptionsTest, ModelListNamesTheBadItem)
{
    std::string model;
    EXPECT_EQ(ModelError("dlrm,ncf", true, &model), "no exception");
    EXPECT_EQ(model, "dlrm,ncf");
    const std::string e = ModelError("dlrm,gpt5", true);
    EXPECT_TRUE(Has(e, "--model=gpt5")) << e;
}
