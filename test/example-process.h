// SPDX-License-Identifier: GPL-2.0-only
// Helpers for integration tests that run an example binary as a user would:
// capture its exit status, stdout and stderr (optionally in a given working directory,
// with extra environment and a kill timeout), list what a run left in a folder, read its
// JSON, and compare runs with the wall-clock fields removed.
#ifndef MLNET_TEST_EXAMPLE_PROCESS_H
#define MLNET_TEST_EXAMPLE_PROCESS_H

#include "mlnet-test-support.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace mlnettest
{

/// \brief What one run of an example produced.
struct ExampleRun
{
    int status;           //!< exit code (-1 when the process did not exit normally)
    std::string out;      //!< everything written to stdout
    std::string err;      //!< everything written to stderr
    bool timedOut{false}; //!< killed by the timeout of RunExampleIn (a hang)
    double wallS{0};      //!< wall seconds from start to exit
};

/// \brief Where and how RunExampleIn runs an example.
struct RunSettings
{
    std::string launcher; //!< in front of the program, e.g. "mpirun -np 2"
    std::string workDir;  //!< working directory of the run; empty = the test's
    std::string env;      //!< environment assignments, e.g. "MLNET_PRICE_TABLE=p.json"
    unsigned timeoutS{0}; //!< kill the run (SIGKILL) after this many seconds; 0 = never
};

/**
 * \brief Run a program of the build (a path under the build folder, e.g.
 * "test/resolution-before-main") with flags as RunSettings say; capture stdout and
 * stderr (stderr goes to a file outside the working directory). A run the timeout
 * killed has timedOut set and status -1.
 */
inline ExampleRun
RunProgramIn(const std::string& program, const std::string& flags, const RunSettings& how)
{
    std::string bin = std::string(MLNET_BUILD_DIR) + "/" + program;
    // ctest runs test cases in parallel processes: one stderr file per process.
    std::string errFile = ::testing::TempDir() + "/" +
                          std::filesystem::path(program).filename().string() + "-stderr-" +
                          std::to_string(getpid()) + ".txt";
    std::string command =
        (how.workDir.empty() ? "" : "cd '" + how.workDir + "' && ") +
        (how.env.empty() ? "" : "env " + how.env + " ") +
        (how.timeoutS ? "timeout -s KILL " + std::to_string(how.timeoutS) + " " : "") +
        (how.launcher.empty() ? "" : how.launcher + " ") + bin + " " + flags + " </dev/null 2>" +
        errFile;
    ExampleRun e{};
    auto start = std::chrono::steady_clock::now();
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buf{};
    while (pipe && fgets(buf.data(), buf.size(), pipe))
    {
        e.out += buf.data();
    }
    int raw = pipe ? pclose(pipe) : -1;
    e.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    e.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    // timeout(1) exits 137 (128 + SIGKILL) when it killed the program.
    if (how.timeoutS && e.status == 137 && e.wallS >= how.timeoutS)
    {
        e.timedOut = true;
        e.status = -1;
    }
    std::ifstream in(errFile);
    std::stringstream ss;
    ss << in.rdbuf();
    e.err = ss.str();
    std::remove(errFile.c_str());
    return e;
}

/**
 * \brief Run build/examples/<name>/<name> with flags as RunSettings say (RunProgramIn).
 */
inline ExampleRun
RunExampleIn(const std::string& name, const std::string& flags, const RunSettings& how)
{
    return RunProgramIn("examples/" + name + "/" + name, flags, how);
}

/**
 * \brief Run build/examples/<name>/<name> with flags; capture stdout and stderr.
 * A launcher (e.g. "mpirun -np 2") goes in front of the program.
 */
inline ExampleRun
RunExample(const std::string& name, const std::string& flags, const std::string& launcher = "")
{
    RunSettings how;
    how.launcher = launcher;
    return RunExampleIn(name, flags, how);
}

/// \brief Parse a JSON file (throws when it is missing or malformed).
inline nlohmann::json
ReadJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

/// \brief Drop wall-clock fields, which differ from run to run.
inline void
StripWall(nlohmann::json& j)
{
    if (j.is_object())
    {
        for (const char* k : {"wall_s", "events_per_s", "events_per_wall_s", "wall_seconds"})
        {
            j.erase(k);
        }
        for (auto& [k, v] : j.items())
        {
            StripWall(v);
        }
    }
    else if (j.is_array())
    {
        for (auto& v : j)
        {
            StripWall(v);
        }
    }
}

/// \brief The user-error contract: exit code 1 and exactly one line "error: ...".
inline void
ExpectOneErrorLine(const ExampleRun& run, const std::string& what)
{
    EXPECT_EQ(run.status, 1) << what;
    EXPECT_EQ(run.err.rfind("error: ", 0), 0u) << what << ": " << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << what << ": " << run.err;
}

} // namespace mlnettest

#endif // MLNET_TEST_EXAMPLE_PROCESS_H
