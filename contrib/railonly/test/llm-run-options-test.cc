// SPDX-License-Identifier: GPL-2.0-only
// LlmRunOptions::Validate: railonly-llm's cross-flag rules, checked before any fabric is
// built, with messages naming both flags of each rule. Boundaries: TP = K and TP = 1
// are valid; a product of degrees one off the GPU count is not.
#include "mlnet-test-support.h"

#include "ns3/llm-training-runner.h"
#include "ns3/run-report.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;

namespace
{

/// 2 domains x 4 GPUs, TP 2, PP 1, DP 4: a valid job of 8 GPUs.
LlmRunOptions
Valid()
{
    LlmRunOptions o;
    o.domains = 2;
    o.domainSize = 4;
    o.model.tp = 2;
    o.model.pp = 1;
    o.model.dp = 4;
    return o;
}

std::string
Error(const LlmRunOptions& o)
{
    return InvalidArgumentMessage([&] { o.Validate(); });
}

bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST(LlmRunOptionsTest, ValidDegreesPass)
{
    EXPECT_EQ(Error(Valid()), "no exception");
    LlmRunOptions whole = Valid(); // TP = the whole HB domain
    whole.model.tp = 4;
    whole.model.dp = 2;
    EXPECT_EQ(Error(whole), "no exception");
    LlmRunOptions none = Valid(); // no tensor parallelism
    none.model.tp = 1;
    none.model.dp = 8;
    EXPECT_EQ(Error(none), "no exception");
}

TEST(LlmRunOptionsTest, TensorParallelMustDivideTheDomain)
{
    LlmRunOptions o = Valid();
    o.model.tp = 3;
    const std::string e = Error(o);
    EXPECT_TRUE(Has(e, "--tp=3")) << e;
    EXPECT_TRUE(Has(e, "--domainSize=4")) << e;
    o.model.tp = 8; // larger than the domain: does not divide it either
    o.model.dp = 1;
    EXPECT_TRUE(Has(Error(o), "--tp=8"));
}

TEST(LlmRunOptionsTest, DegreesMustMultiplyToTheGpus)
{
    LlmRunOptions o = Valid();
    o.model.dp = 3; // 2 x 1 x 3 = 6, not 2 x 4 = 8
    const std::string e = Error(o);
    EXPECT_TRUE(Has(e, "--dp")) << e;
    EXPECT_TRUE(Has(e, "= 6")) << e;
    EXPECT_TRUE(Has(e, "8 GPUs of --domains x --domainSize")) << e;
}

TEST(LlmRunOptionsTest, FailuresMustNameARailAndAGpu)
{
    LlmRunOptions o = Valid();
    o.failRailSwitch = 3; // rails 0..3
    o.failNic = 7;        // GPUs 0..7
    EXPECT_EQ(Error(o), "no exception");
    o.failRailSwitch = 4;
    EXPECT_TRUE(Has(Error(o), "--failRailSwitch=4"));
    o.failRailSwitch = -1;
    o.failNic = 8;
    EXPECT_TRUE(Has(Error(o), "--failNic=8"));
}

TEST(LlmRunOptionsTest, RunAllRefusesNamingTheFlag)
{
    LlmRunOptions o = Valid();
    o.model.tp = 3;
    RunReport report("llm-run-options-test");
    EXPECT_TRUE(
        Has(InvalidArgumentMessage([&] { LlmTrainingRunner::RunAll(o, {"rail-only"}, report); }),
            "--tp=3"));
    Simulator::Destroy();
}
