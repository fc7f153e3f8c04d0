// SPDX-License-Identifier: GPL-2.0-only
// Distributed runs, as a user starts them: the distributed-collective example as one
// process and under `mpirun -np 2` / `-np 4` (ns-3's distributed simulator over MPI)
// must report the same completion time of every member, to the picosecond, and the
// same bytes on every link class; the partition summary must name the cut links and
// the lookahead the fabric's structure implies; mistakes end with one error line.
// The MPI cases need the MPI-enabled ns-3 (./utils/setup.sh --optimized, tested by
// ./utils/test.sh --optimized); against Debian's package they are skipped.
#include "example-process.h"
#include "mlnet-test-support.h"

#include "ns3/distributed-session.h"

#include <cstdlib>
#include <set>
#include <sstream>

using namespace mlnettest;

namespace
{

/// \return the launcher for n processes (oversubscribed: this machine has 2 cores)
std::string
Mpirun(int n)
{
    return "mpirun --allow-run-as-root --oversubscribe --bind-to none -np " + std::to_string(n);
}

bool
HaveMpirun()
{
    return std::system("command -v mpirun >/dev/null 2>&1") == 0;
}

/// Run the example (optionally under a launcher) into a JSON file and read it.
nlohmann::json
RunToJson(const std::string& flags, const std::string& launcher, const std::string& tag)
{
    std::string json =
        ::testing::TempDir() + "/distributed-" + tag + "-" + std::to_string(getpid()) + ".json";
    ExampleRun run = RunExample("distributed-collective", flags + " --json=" + json, launcher);
    EXPECT_EQ(run.status, 0) << launcher << " " << flags << "\n" << run.err;
    if (run.status != 0)
    {
        return nlohmann::json::object();
    }
    nlohmann::json j = ReadJson(json);
    std::remove(json.c_str());
    // Merged over the processes: every frame one process sent, another received.
    ExpectTrafficConserved(j, 1);
    ExpectRowsHaveHealth(j, "simulated_s", "analytical_s");
    return j;
}

/// Every member's finish time and every link class's bytes agree between two runs.
void
ExpectSameResults(const nlohmann::json& one, const nlohmann::json& many)
{
    ASSERT_TRUE(one.contains("rows") && many.contains("rows"));
    ASSERT_EQ(one["rows"].size(), many["rows"].size());
    for (size_t i = 0; i < one["rows"].size(); ++i)
    {
        const auto& a = one["rows"][i];
        const auto& b = many["rows"][i];
        ASSERT_FALSE(a["member_end_ps"].empty());
        EXPECT_EQ(a["member_end_ps"], b["member_end_ps"]) << "row " << i;
        EXPECT_EQ(a["simulated_s"], b["simulated_s"]) << "row " << i;
        EXPECT_EQ(a["link_bytes"], b["link_bytes"]) << "row " << i;
        EXPECT_EQ(a["bytes_by_link_class"], b["bytes_by_link_class"]) << "row " << i;
    }
}

class DistributedCollectiveTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!ns3::DistributedSession::HasMpi())
        {
            GTEST_SKIP() << "ns-3 without MPI (Debian's package); ./utils/test.sh --optimized "
                            "runs these cases";
        }
        if (!HaveMpirun())
        {
            GTEST_SKIP() << "no mpirun on this machine";
        }
    }
};

} // namespace

// One process: the run needs no MPI, names no partition, and every member finished.
TEST(DistributedCollectiveOneProcess, RunsWithoutMpi)
{
    nlohmann::json j = RunToJson("--ranks=8 --bytes=256KiB", "", "one");
    ASSERT_EQ(j["rows"].size(), 1u);
    EXPECT_EQ(j["meta"]["processes"], 1);
    EXPECT_FALSE(j["meta"]["fabric"].contains("partitions"));
    const auto& ends = j["rows"][0]["member_end_ps"];
    ASSERT_EQ(ends.size(), 8u);
    for (const auto& e : ends)
    {
        EXPECT_GT(e.get<int64_t>(), 0);
    }
}

// 2-tier fat-tree of 16 ranks (radix 8: 4 leaves of 4 hosts, 4 spines) split by leaf
// over 2 processes: leaves 0-1 and spines 0, 2 on process 0, the rest on 1, so each
// leaf has 2 of its 4 uplinks cut: 8 cut links, lookahead = the 1 us link delay. On
// the IPv4 path: exact here because a ring sends one flow out of each leaf, so no two
// frames ever meet in a queue at the same instant (the order of such frames follows
// MPI's message timing unless the fast path orders them; see the next case).
TEST_F(DistributedCollectiveTest, FatTreeByLeafTwoProcessesMatchOneProcess)
{
    std::string flags = "--fabric=fattree --ranks=16 --radix=8 --bytes=1MiB --dataPath=ipv4";
    nlohmann::json one = RunToJson(flags, "", "ft1");
    nlohmann::json two = RunToJson(flags, Mpirun(2), "ft2");
    ExpectSameResults(one, two);
    EXPECT_EQ(two["meta"]["processes"], 2);
    EXPECT_EQ(two["meta"]["fabric"]["partitions"], 2);
    EXPECT_EQ(two["meta"]["fabric"]["cut_links"], 8);
    EXPECT_DOUBLE_EQ(two["meta"]["fabric"]["lookahead_us"].get<double>(), 1.0);
}

// 3-tier fat-tree of 16 ranks (radix 4: 4 pods) split by pod over 4 processes, an
// all-to-all on the fast data path, 2 us links. Flows collide on the uplinks here, and
// frames meeting at a switch at the same instant are ordered by device
// (FastForwarding's OrderSimultaneousArrivals, which the example turns on); without
// it, 5 of 6 runs under mpirun differed from one process by up to 1.2 us. Each pod's
// 4 aggregation-core links reach the 4 cores (one per process): 3 cut per pod.
TEST_F(DistributedCollectiveTest, FatTreeByPodFourProcessesMatchOneProcess)
{
    std::string flags = "--fabric=fattree --tiers=3 --ranks=16 --collective=alltoall "
                        "--algorithm=pairwise --bytes=64KiB --delay=2us";
    nlohmann::json one = RunToJson(flags, "", "pod1");
    nlohmann::json four = RunToJson(flags, Mpirun(4), "pod4");
    ExpectSameResults(one, four);
    // and again: the distributed run is deterministic
    ExpectSameResults(four, RunToJson(flags, Mpirun(4), "pod4b"));
    EXPECT_EQ(four["meta"]["fabric"]["partitions"], 4);
    EXPECT_EQ(four["meta"]["fabric"]["cut_links"], 12);
    EXPECT_DOUBLE_EQ(four["meta"]["fabric"]["lookahead_us"].get<double>(), 2.0);
}

// Rail-only fabric split by HB domain: one ring all-reduce per rail, concurrently,
// with real values (checked exact in every process's members; MTU 1500, the largest
// whose frames fit ns-3's 2000-byte MPI messages). NVLink never crosses processes;
// every cut link is a GPU-rail-switch link.
TEST_F(DistributedCollectiveTest, RailOnlyByHbDomainTwoProcessesMatchOneProcess)
{
    std::string flags = "--fabric=railonly --domains=4 --domainSize=4 --communicators=rails "
                        "--bytes=256KiB --real --mtu=1500";
    nlohmann::json one = RunToJson(flags, "", "rail1");
    nlohmann::json two = RunToJson(flags, Mpirun(2), "rail2");
    ExpectSameResults(one, two);
    ASSERT_EQ(two["rows"].size(), 4u);
    for (const auto& row : two["rows"])
    {
        EXPECT_EQ(row["real_result_exact"], true);
    }
    // 4 rail switches, 2 per process; each has 4 GPU links, 2 of them to the other
    // process's domains: 8 cut links.
    EXPECT_EQ(two["meta"]["fabric"]["cut_links"], 8);
}

// Mistakes under mpirun: the same one-line error from the processes, a failed launch.
TEST_F(DistributedCollectiveTest, BadPartitionsFailWithOneErrorLine)
{
    // A torus has no partitioning.
    ExampleRun torus = RunExample("distributed-collective", "--fabric=torus", Mpirun(2));
    EXPECT_NE(torus.status, 0);
    EXPECT_NE(torus.err.find("error: this fabric cannot be split"), std::string::npos) << torus.err;
    // Real payloads in MTU 9000 frames do not fit ns-3's MPI messages.
    ExampleRun real =
        RunExample("distributed-collective", "--ranks=16 --radix=8 --real", Mpirun(2));
    EXPECT_NE(real.status, 0);
    EXPECT_NE(real.err.find("error: real payloads cross MPI processes"), std::string::npos)
        << real.err;
    // 4 leaves cannot feed 5 processes.
    ExampleRun five = RunExample("distributed-collective", "--ranks=16 --radix=8", Mpirun(5));
    EXPECT_NE(five.status, 0);
    EXPECT_NE(five.err.find("error: this fabric has 4 groups"), std::string::npos) << five.err;
    // Every process says the same one-line error (mpirun stops the job when the first
    // exits, so some may not get to say it).
    for (const ExampleRun* r : {&torus, &real, &five})
    {
        std::istringstream lines(r->err);
        std::set<std::string> errors;
        for (std::string line; std::getline(lines, line);)
        {
            if (line.rfind("error: ", 0) == 0)
            {
                errors.insert(line);
            }
        }
        EXPECT_EQ(errors.size(), 1u) << r->err;
    }
}

// Mistakes in one process: one error line, exit code 1.
TEST(DistributedCollectiveOneProcess, BadInputFailsWithOneErrorLine)
{
    ExpectOneErrorLine(RunExample("distributed-collective", "--communicators=rails"),
                       "rails on a fat-tree");
    ExpectOneErrorLine(RunExample("distributed-collective", "--fabric=railonly --domains=0"),
                       "no domains");
}

// Started by mpirun against an ns-3 without MPI: the run refuses with the fix.
TEST(DistributedCollectiveOneProcess, MpirunWithoutMpiSaysHowToGetIt)
{
    if (ns3::DistributedSession::HasMpi() || !HaveMpirun())
    {
        GTEST_SKIP() << "needs mpirun and an ns-3 without MPI";
    }
    ExampleRun run = RunExample("distributed-collective", "--ranks=8", Mpirun(2));
    EXPECT_NE(run.status, 0);
    EXPECT_NE(run.err.find("error: started as 2 MPI processes"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("setup.sh --optimized"), std::string::npos) << run.err;
}
