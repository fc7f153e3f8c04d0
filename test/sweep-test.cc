// SPDX-License-Identifier: GPL-2.0-only
// utils/sweep as a user runs it: a 4-point grid over an example's flags, one result
// file per point, resumption after a point is deleted, the merged CSV, and the Slurm
// job array it emits for clusters.
#include "example-process.h"

#include <filesystem>

namespace
{

namespace fs = std::filesystem;

struct Shell
{
    int status;
    std::string out;
};

Shell
RunSweep(const std::string& args)
{
    std::string command = "/usr/bin/python3 " + std::string(MLNET_SOURCE_DIR) +
                          "/utils/sweep --build " + std::string(MLNET_BUILD_DIR) + " " + args +
                          " 2>&1";
    Shell s{};
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buf{};
    while (pipe && fgets(buf.data(), buf.size(), pipe))
    {
        s.out += buf.data();
    }
    int raw = pipe ? pclose(pipe) : -1;
    s.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return s;
}

uint32_t
CountLines(const fs::path& p)
{
    std::ifstream in(p);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
}

const std::string kGrid = "collective-validation --grid bytes=64KiB,128KiB "
                          "--grid fabric=ideal,fattree --set ranks=4 -j 2";

} // namespace

TEST(Sweep, RunsEveryPointResumesAndMerges)
{
    fs::path out = fs::path(::testing::TempDir()) / ("mlnet-sweep-" + std::to_string(getpid()));
    fs::remove_all(out);
    Shell first = RunSweep(kGrid + " --out " + out.string());
    ASSERT_EQ(first.status, 0) << first.out;
    uint32_t points = 0;
    for (const auto& e : fs::directory_iterator(out / "points"))
    {
        ++points;
        // Each point is the example's own results document, for its flags.
        nlohmann::json doc = mlnettest::ReadJson(e.path().string());
        ASSERT_EQ(doc["rows"].size(), 1u) << e.path();
        EXPECT_EQ(doc["rows"][0]["ranks"], 4) << e.path();
    }
    EXPECT_EQ(points, 4u);
    EXPECT_EQ(CountLines(out / "merged.csv"), 1u + 4u) << "header + one row per point";

    // Resume: only the deleted point runs again; the merge has all four rows again.
    fs::path victim = out / "points" / "bytes=128KiB_fabric=fattree.json";
    ASSERT_TRUE(fs::exists(victim));
    nlohmann::json before = mlnettest::ReadJson(victim.string());
    fs::remove(victim);
    Shell second = RunSweep(kGrid + " --out " + out.string());
    ASSERT_EQ(second.status, 0) << second.out;
    EXPECT_EQ(std::count(second.out.begin(), second.out.end(), '\n'), 5) << second.out;
    EXPECT_NE(second.out.find("bytes=128KiB_fabric=fattree: done"), std::string::npos)
        << second.out;
    EXPECT_EQ(second.out.find("bytes=64KiB_fabric=ideal: done"), std::string::npos)
        << "an existing point ran again:\n"
        << second.out;
    // Same flags, same seed: the re-run point reproduces its simulated results.
    nlohmann::json after = mlnettest::ReadJson(victim.string());
    mlnettest::StripWall(before);
    mlnettest::StripWall(after);
    EXPECT_EQ(before["rows"], after["rows"]);
    EXPECT_EQ(CountLines(out / "merged.csv"), 5u);

    // Slurm: one array task per point, and the merge step to run afterwards.
    Shell slurm = RunSweep(kGrid + " --out " + out.string() + " --slurm");
    ASSERT_EQ(slurm.status, 0) << slurm.out;
    std::ifstream script(out / "sweep.slurm");
    std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("#SBATCH --array=0-3"), std::string::npos) << text;
    EXPECT_NE(text.find("--point $SLURM_ARRAY_TASK_ID"), std::string::npos) << text;
    EXPECT_TRUE(fs::exists(out / "merge.sh"));
    fs::remove_all(out);
}

TEST(Sweep, BadSpecGivesOneErrorLine)
{
    fs::path out = fs::path(::testing::TempDir()) / ("mlnet-sweep-bad-" + std::to_string(getpid()));
    for (const std::string& args : {std::string("collective-validation --grid bytes"),
                                    std::string("no-such-example --grid bytes=1KiB"),
                                    std::string("--spec /nonexistent.json"),
                                    std::string("collective-validation --grid json=a,b")})
    {
        Shell s = RunSweep(args + " --out " + out.string());
        EXPECT_EQ(s.status, 1) << args;
        EXPECT_EQ(s.out.rfind("error: ", 0), 0u) << args << ": " << s.out;
        EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 1) << args << ": " << s.out;
    }
    fs::remove_all(out);
}

// Slurm resources: --time, --partition, --mem and --account become #SBATCH lines of
// the generated script; a value not in Slurm's form, or one without --slurm, is one
// error line.
TEST(Sweep, SlurmResourcesReachTheScript)
{
    fs::path out =
        fs::path(::testing::TempDir()) / ("mlnet-sweep-slurm-" + std::to_string(getpid()));
    const std::string grid = "collective-validation --grid bytes=1KiB,2KiB --out " + out.string();
    Shell s = RunSweep(grid + " --slurm --time=02:30:00 --partition=gpu --mem=4G --account=ml-lab");
    ASSERT_EQ(s.status, 0) << s.out;
    std::ifstream script(out / "sweep.slurm");
    std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
    for (const char* line : {"#SBATCH --time=02:30:00\n",
                             "#SBATCH --partition=gpu\n",
                             "#SBATCH --mem=4G\n",
                             "#SBATCH --account=ml-lab\n",
                             "#SBATCH --array=0-1\n"})
    {
        EXPECT_NE(text.find(line), std::string::npos) << line << text;
    }
    // #SBATCH lines count only before the first command.
    EXPECT_LT(text.find("#SBATCH --account"), text.find("set -euo pipefail")) << text;

    // Without the options the script has none of them.
    fs::remove_all(out);
    ASSERT_EQ(RunSweep(grid + " --slurm").status, 0);
    std::ifstream plain(out / "sweep.slurm");
    std::string bare((std::istreambuf_iterator<char>(plain)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bare.find("--time"), std::string::npos) << bare;
    EXPECT_EQ(bare.find("--mem"), std::string::npos) << bare;

    for (const std::string& bad : {std::string(" --slurm --time=2h"),
                                   std::string(" --slurm --mem=lots"),
                                   std::string(" --slurm --partition='a b'"),
                                   std::string(" --time=01:00:00")})
    {
        Shell e = RunSweep(grid + bad);
        EXPECT_EQ(e.status, 1) << bad;
        EXPECT_EQ(e.out.rfind("error: ", 0), 0u) << bad << ": " << e.out;
        EXPECT_EQ(std::count(e.out.begin(), e.out.end(), '\n'), 1) << bad << ": " << e.out;
    }
    fs::remove_all(out);
}

// --help describes every option the sweep takes.
TEST(Sweep, HelpDescribesEveryOption)
{
    Shell h = RunSweep("--help");
    ASSERT_EQ(h.status, 0);
    for (const char* option : {"--spec SPEC.json  ",
                               "--grid FLAG=V1,V2,...\n",
                               "--set FLAG=V  ",
                               "--out DIR  ",
                               "--build DIR  ",
                               "-j N, --jobs N  ",
                               "--slurm  ",
                               "--time T  ",
                               "--partition P  ",
                               "--mem M  ",
                               "--account A  ",
                               "--merge-only  ",
                               "--point K  "})
    {
        EXPECT_NE(h.out.find(option), std::string::npos) << option << h.out;
    }
}
