// SPDX-License-Identifier: GPL-2.0-only
// The installable package as a user meets it: `cmake --install` into a prefix, the
// prefix moved elsewhere, and then -- with the source tree and the build tree hidden
// (a private mount namespace with an empty tmpfs over each, so a program that still
// read a compiled-in source path would fail) -- the tutorial's own scenario
// (doc/tutorial/my-scenario) configured with find_package(mlnet), built and run, and
// the installed example programs run, writing their results and PNGs from the
// package's own share/mlnet.
#include "example-process.h"

#include <cstdlib>
#include <filesystem>

namespace
{

namespace fs = std::filesystem;

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

/// The whole text of a file ("" when it is missing).
std::string
ReadText(const fs::path& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A shell word: the text in single quotes.
std::string
Quote(const std::string& s)
{
    return "'" + s + "'";
}

/**
 * The command that runs a script with the source and build trees hidden: unshare
 * with a private mount namespace (as an unprivileged user through a user namespace,
 * else as root), or "" when this machine allows neither (e.g. a container without
 * the capability).
 */
std::string
Hider(const fs::path& work)
{
    fs::path probe = work / "probe";
    fs::create_directories(probe);
    std::string log;
    for (std::string unshare : {"unshare --mount --map-root-user", "unshare --mount"})
    {
        if (Shell(unshare + " sh -c " +
                      Quote("mount -t tmpfs mlnet-probe " + probe.string() + " && touch " +
                            probe.string() + "/x"),
                  &log) == 0 &&
            !fs::exists(probe / "x"))
        {
            return unshare;
        }
    }
    return "";
}

/// The lines a script starts with to hide the build tree, then the source tree. The
/// ns-3 the package was built against stays visible where it is, even when it lives
/// inside the source tree (the optimized build in third_party/ns3-opt): it is bound to
/// `work`/ns3 before the trees are hidden and bound back after.
std::string
HideTrees(const fs::path& work)
{
    std::string source = fs::canonical(MLNET_SOURCE_DIR).string();
    std::string build = fs::canonical(MLNET_BUILD_DIR).string();
    std::string ns3 = fs::canonical(MLNET_NS3_LOCATION).string();
    auto inside = [](const std::string& path, const std::string& tree) {
        return path.rfind(tree + "/", 0) == 0;
    };
    const bool keepNs3 = inside(ns3, source) || inside(ns3, build);
    std::string kept = (work / "ns3").string();
    std::string s = "set -eu\n";
    if (keepNs3)
    {
        s +=
            "mkdir -p " + Quote(kept) + " && mount --bind " + Quote(ns3) + " " + Quote(kept) + "\n";
    }
    // A build tree inside the source tree goes with it.
    if (!inside(build, source))
    {
        s += "mount -t tmpfs mlnet-hidden " + Quote(build) + "\n";
    }
    s += "mount -t tmpfs mlnet-hidden " + Quote(source) + "\n";
    if (keepNs3)
    {
        s += "mkdir -p " + Quote(ns3) + " && mount --bind " + Quote(kept) + " " + Quote(ns3) + "\n";
    }
    // The proof holds only if the trees are really out of reach.
    s += "test ! -e " + Quote(source + "/README.md") + "\n";
    s += "test ! -e " + Quote(build + "/CMakeCache.txt") + "\n";
    return s;
}

/**
 * Install the package into work/staging and move it to work/prefix, so neither the
 * compiled-in install prefix nor the build tree's paths are where the programs are.
 */
void
InstallMoved(const fs::path& work, const fs::path& prefix)
{
    std::string log;
    fs::path staging = work / "staging";
    ASSERT_EQ(
        Shell("cmake --install " + std::string(MLNET_BUILD_DIR) + " --prefix " + staging.string(),
              &log),
        0)
        << log;
    fs::rename(staging, prefix);
}

class InstallPackage : public ::testing::Test
{
protected:
    void SetUp() override
    {
#ifdef MLNET_SANITIZE
        GTEST_SKIP() << "sanitizer build: an uninstrumented program cannot load "
                        "ASan-instrumented libraries; the default build runs this test";
#endif
        m_work = fs::path(::testing::TempDir()) /
                 ("mlnet-install-" + std::to_string(getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_work);
        fs::create_directories(m_work);
        m_prefix = m_work / "prefix";
        InstallMoved(m_work, m_prefix);
        if (HasFatalFailure())
        {
            return;
        }
        m_hider = Hider(m_work);
    }

    void TearDown() override
    {
        if (!m_work.empty())
        {
            fs::remove_all(m_work);
        }
    }

    /**
     * Run a script with the source and build trees hidden; if this machine cannot
     * hide them, run it as it is and mark the test skipped afterwards (it then proves
     * that the package works, not that it never reads the source tree).
     */
    int RunHidden(const std::string& script, std::string* log)
    {
        fs::path file = m_work / "run.sh";
        std::ofstream(file) << (m_hider.empty() ? "set -eu\n" : HideTrees(m_work)) << script;
        return Shell((m_hider.empty() ? "" : m_hider + " ") + "sh " + file.string(), log);
    }

    fs::path m_work;
    fs::path m_prefix;
    std::string m_hider;
};

/// True if the file exists and starts with the PNG signature.
bool
IsPng(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    char magic[8] = {};
    in.read(magic, sizeof(magic));
    return in && std::string(magic + 1, 3) == "PNG";
}

} // namespace

TEST_F(InstallPackage, TutorialScenarioBuildsAndRunsAgainstTheInstalledPackage)
{
    // What the package promises: libraries, headers, CMake config, programs, data.
    EXPECT_TRUE(fs::exists(m_prefix / "lib/cmake/mlnet/mlnetConfig.cmake"));
    EXPECT_TRUE(fs::exists(m_prefix / "include/ns3/mlnet-module.h"));
    EXPECT_TRUE(fs::exists(m_prefix / "include/ns3/cluster.h"));
    EXPECT_TRUE(fs::exists(m_prefix / "lib/libmlnet-mlnet.so"));
    EXPECT_TRUE(fs::exists(m_prefix / "bin/collective-validation"));
    EXPECT_TRUE(fs::exists(m_prefix / "share/mlnet/workloads/training/mlp-small.json"));
    EXPECT_TRUE(fs::exists(m_prefix / "share/mlnet/workloads/models/dlrm.json"));
    EXPECT_TRUE(fs::exists(m_prefix / "share/mlnet/mlnet/data/prices.json"));
    EXPECT_TRUE(fs::exists(m_prefix / "share/mlnet/utils/plot.py"));

    // The user's project lives outside the source tree: copy the tutorial's files.
    fs::path project = m_work / "my-scenario";
    fs::copy(fs::path(MLNET_SOURCE_DIR) / "doc/tutorial/my-scenario", project);
    fs::path build = m_work / "my-build";
    std::string bin = Quote((build / "my-scenario").string());
    std::string script =
        "cmake -S " + Quote(project.string()) + " -B " + Quote(build.string()) +
        " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + Quote(m_prefix.string()) + "\n" +
        "cmake --build " + Quote(build.string()) + "\n" +
        // The libraries come from the prefix (RUNPATH).
        bin + " --ranks=4 --bytes=64KiB > " + Quote((m_work / "ok").string()) + "\n" +
        // The scenario keeps the error contract of the examples.
        "if " + bin + " --collective=gossip 2> " + Quote((m_work / "bad").string()) +
        "; then exit 3; fi\n";
    std::string log;
    ASSERT_EQ(RunHidden(script, &log), 0) << log;
    std::string out = ReadText((m_work / "ok").string());
    EXPECT_NE(out.find("alltoall/pairwise of 64KiB on 4 ranks"), std::string::npos) << out;
    EXPECT_NE(out.find("ms alpha-beta"), std::string::npos) << out;
    std::string bad = ReadText((m_work / "bad").string());
    EXPECT_NE(bad.find("error: unknown collective"), std::string::npos) << bad;
    if (m_hider.empty())
    {
        GTEST_SKIP() << "no private mount namespace here (unshare): ran with the source tree "
                        "visible";
    }
}

TEST_F(InstallPackage, InstalledProgramsRunWithTheSourceTreeHidden)
{
    fs::path bin = m_prefix / "bin";
    fs::path res = m_work / "results";
    // One program: its output into work/<name>.out.
    auto run = [&](const std::string& program, const std::string& flags, const std::string& name) {
        return Quote((bin / program).string()) + " " + flags + " > " +
               Quote((m_work / (name + ".out")).string()) + " 2>&1";
    };
    // Small and valid: 8 GPUs, 1 % of BERT, one iteration, every fabric and the
    // Checkmate run (model profile, price table and plot.py all read), about 2 s.
    std::string script =
        run("training-cluster",
            "--gpus=8 --hbDomain=4 --scale=0.01 --iterations=1 --checkmateIterations=2 --out=" +
                Quote((res / "tc").string()),
            "tc") +
        "\n" +
        run("topoopt-plan",
            "--servers=8 --degree=2 --model=dlrm --budget=20 --json=" +
                Quote((res / "plan/plan.json").string()),
            "plan") +
        "\n" +
        run("training-workload",
            "--ranks=4 --iterations=1 --json=" + Quote((res / "train.json").string()),
            "train") +
        "\n";
    if (!m_hider.empty())
    {
        // The control: pointed at the hidden source tree, a program finds nothing (with
        // the tree visible it would find workloads/models there and succeed).
        script += "if MLNET_DATA_DIR=" + Quote(MLNET_SOURCE_DIR) + " " +
                  run("topoopt-plan", "--servers=8", "control") + "; then exit 4; fi\n";
    }
    std::string log;
    int status = RunHidden(script, &log);
    std::string tc = ReadText((m_work / "tc.out").string());
    ASSERT_EQ(status, 0) << log << tc << ReadText((m_work / "plan.out").string())
                         << ReadText((m_work / "train.out").string());

    // training-cluster: all three fabrics, results and its PNG by the installed plot.py.
    nlohmann::json doc = mlnettest::ReadJson((res / "tc/training-cluster.json").string());
    EXPECT_EQ(doc["rows"].size(), 3u) << doc.dump();
    EXPECT_TRUE(IsPng(res / "tc/training-cluster.png")) << tc;
    EXPECT_NE(tc.find("plot: " + (res / "tc/training-cluster.png").string()), std::string::npos)
        << tc;
    // topoopt-plan: the shipped profile read from the package; the JSON's folder made.
    nlohmann::json plan = mlnettest::ReadJson((res / "plan/plan.json").string());
    EXPECT_EQ(plan["rows"][0]["model"], "dlrm") << plan.dump();
    EXPECT_GT(plan["rows"][0]["predicted_iteration_s"].get<double>(), 0.0);
    // training-workload: its default workload is the package's mlp-small.json.
    nlohmann::json train = mlnettest::ReadJson((res / "train.json").string());
    EXPECT_EQ(train["rows"][0]["workload"], "mlp-small") << train.dump();
    // The control failed because the data was not there, with one error line.
    std::string control = ReadText(m_work / "control.out");
    if (!m_hider.empty())
    {
        EXPECT_NE(control.find("error: shipped data file 'workloads/models' not found (looked at " +
                               std::string(MLNET_SOURCE_DIR) + "/workloads/models)"),
                  std::string::npos)
            << control;
    }
    else
    {
        GTEST_SKIP() << "no private mount namespace here (unshare): ran with the source tree "
                        "visible";
    }
}
