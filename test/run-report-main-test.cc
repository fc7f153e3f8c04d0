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
#include <array>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>

namespace
{

struct Outcome
{
    int status{-1};
    std::string out;
};

Outcome
RunProgram(const std::string& argument)
{
    const std::string command =
        std::string(MLNET_BUILD_DIR) + "/test/resolution-before-main " + argument + " 2>&1";
    Outcome o;
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 512> buf{};
    while (pipe != nullptr && fgets(buf.data(), buf.size(), pipe) != nullptr)
    {
        o.out += buf.data();
    }
    const int raw = pipe != nullptr ? pclose(pipe) : -1;
    o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return o;
}

TEST(RunReportMainProcessTest, RunsAfterTheProgramSetTheResolution)
{
    const Outcome o = RunProgram("set");
    EXPECT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(o.out, "time record gone\nevent at 720 ns\n");
}

TEST(RunReportMainProcessTest, RunsAfterTheProgramRanASimulation)
{
    const Outcome o = RunProgram("run");
    EXPECT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(o.out, "time record gone\nevent at 720 ns\n");
}

TEST(RunReportMainProcessTest, RunsWhenMainFixesTheResolution)
{
    const Outcome o = RunProgram("");
    EXPECT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(o.out, "time record gone\nevent at 720 ns\n");
}

} // namespace
