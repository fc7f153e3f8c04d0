// SPDX-License-Identifier: GPL-2.0-only
/*
 * RunReport::Main in a process of its own (test/support/resolution-before-main.cc):
 * a program that set ns-3's resolution or ran a simulation before Main (ns-3's
 * tutorial idiom `Time::SetResolution(Time::NS)` at the top of main) runs its
 * scenario; ns-3 3.37 allows one SetResolution and none after a run, so Main must not
 * make its own then. One that did neither has Main fix the resolution, which ends
 * ns-3's record of every Time made before the body runs (the program reads the
 * record's pointer: "time record gone").
 */
#include "example-process.h"

using namespace mlnettest;

namespace
{

ExampleRun
RunProgram(const std::string& argument)
{
    return RunProgramIn("test/resolution-before-main", argument, RunSettings{});
}

TEST(RunReportMainProcessTest, RunsAfterTheProgramSetTheResolution)
{
    const ExampleRun o = RunProgram("set");
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out, "time record gone\nevent at 720 ns\n");
}

TEST(RunReportMainProcessTest, RunsAfterTheProgramRanASimulation)
{
    const ExampleRun o = RunProgram("run");
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out, "time record gone\nevent at 720 ns\n");
}

TEST(RunReportMainProcessTest, RunsWhenMainFixesTheResolution)
{
    const ExampleRun o = RunProgram("");
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out, "time record gone\nevent at 720 ns\n");
}

} // namespace
