// SPDX-License-Identifier: GPL-2.0-only
// The installable package as a user meets it: `cmake --install` into a prefix, then
// the tutorial's own scenario (doc/tutorial/my-scenario) configured with
// find_package(mlnet), built against that prefix, and run.
#include "example-process.h"

#include <cstdlib>
#include <filesystem>

namespace
{

/// Run a shell command; return its exit code and append its output to *log.
int
Shell(const std::string& command, std::string* log)
{
    std::string out = ::testing::TempDir() + "/install-" + std::to_string(getpid()) + ".log";
    int raw = std::system((command + " >" + out + " 2>&1").c_str());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    *log += "$ " + command + "\n" + ss.str();
    std::remove(out.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

} // namespace

TEST(InstallPackage, TutorialScenarioBuildsAndRunsAgainstTheInstalledPackage)
{
#ifdef MLNET_SANITIZE
    GTEST_SKIP() << "sanitizer build: an uninstrumented scenario cannot load "
                    "ASan-instrumented libraries; the default build runs this test";
#endif
    namespace fs = std::filesystem;
    fs::path work = fs::path(::testing::TempDir()) / ("mlnet-install-" + std::to_string(getpid()));
    fs::remove_all(work);
    fs::path prefix = work / "prefix";
    fs::path build = work / "build";
    std::string log;
    ASSERT_EQ(
        Shell("cmake --install " + std::string(MLNET_BUILD_DIR) + " --prefix " + prefix.string(),
              &log),
        0)
        << log;
    // What the package promises: libraries, headers, CMake config, programs, data.
    EXPECT_TRUE(fs::exists(prefix / "lib/cmake/mlnet/mlnetConfig.cmake"));
    EXPECT_TRUE(fs::exists(prefix / "include/ns3/mlnet-module.h"));
    EXPECT_TRUE(fs::exists(prefix / "include/ns3/cluster.h"));
    EXPECT_TRUE(fs::exists(prefix / "lib/libmlnet-mlnet.so"));
    EXPECT_TRUE(fs::exists(prefix / "bin/collective-validation"));
    EXPECT_TRUE(fs::exists(prefix / "share/mlnet/workloads/training/mlp-small.json"));
    EXPECT_TRUE(fs::exists(prefix / "share/mlnet/workloads/models/dlrm.json"));
    EXPECT_TRUE(fs::exists(prefix / "share/mlnet/mlnet/data/prices.json"));

    std::string source = std::string(MLNET_SOURCE_DIR) + "/doc/tutorial/my-scenario";
    ASSERT_EQ(Shell("cmake -S " + source + " -B " + build.string() +
                        " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + prefix.string(),
                    &log),
              0)
        << log;
    ASSERT_EQ(Shell("cmake --build " + build.string(), &log), 0) << log;

    // Run it from the build tree: the libraries come from the prefix (RUNPATH).
    std::string out;
    ASSERT_EQ(Shell((build / "my-scenario").string() + " --ranks=4 --bytes=64KiB", &out), 0) << out;
    EXPECT_NE(out.find("alltoall/pairwise of 64KiB on 4 ranks"), std::string::npos) << out;
    EXPECT_NE(out.find("ms alpha-beta"), std::string::npos) << out;
    // The scenario keeps the error contract of the examples.
    std::string bad;
    EXPECT_EQ(Shell((build / "my-scenario").string() + " --collective=gossip", &bad), 1) << bad;
    EXPECT_NE(bad.find("error: unknown collective"), std::string::npos) << bad;
    fs::remove_all(work);
}
