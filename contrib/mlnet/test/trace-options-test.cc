// SPDX-License-Identifier: GPL-2.0-only
// TraceOptions: pcap files of the chosen devices and a FlowMonitor XML written when
// the simulation is destroyed, holding the flows the collective sent.
#include "ns3/collective-runner.h"
#include "ns3/fabric-options.h"
#include "ns3/simulator.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

class TraceOptionsTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_dir = fs::path(::testing::TempDir()) / ("mlnet-traces-" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        fs::remove_all(m_dir);
    }

    /// Ring all-reduce of 64 KiB on a 4-rank ideal switch with these trace flags.
    void RunRing(FabricOptions f)
    {
        f.fabric = "ideal";
        f.ranks = 4;
        CollectiveRunOptions r;
        r.bytes = "64KiB";
        CollectiveRunner::Run(f.Build(), r);
    }

    fs::path m_dir;
};

std::string
Slurp(const fs::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_F(TraceOptionsTest, FlowMonitorXmlIsWrittenAtDestroyWithEveryRingFlow)
{
    FabricOptions f;
    f.traces.flowmon = (m_dir / "flows.xml").string();
    RunRing(f);
    // Nothing is written while the simulation is still alive.
    EXPECT_FALSE(fs::exists(m_dir / "flows.xml"));
    Simulator::Destroy();
    ASSERT_TRUE(fs::exists(m_dir / "flows.xml"));
    std::string xml = Slurp(m_dir / "flows.xml");
    // Each rank sends its chunks to its ring successor: 4 data flows (the transport's
    // ACKs travel back as 4 more). Every flow delivered all it sent.
    std::regex flow(
        R"re(<Flow flowId="\d+" timeFirstTxPacket[^>]*txBytes="(\d+)"[^>]*rxBytes="(\d+)")re");
    uint32_t flows = 0;
    uint64_t tx = 0;
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), flow); it != std::sregex_iterator();
         ++it)
    {
        ++flows;
        EXPECT_EQ((*it)[1], (*it)[2]) << "flow lost bytes";
        tx += std::stoull((*it)[1]);
    }
    EXPECT_GE(flows, 4u);
    // Ring all-reduce sends 2(n-1)/n of the buffer per rank: the IP bytes carry at
    // least that much payload over all ranks.
    EXPECT_GE(tx, 4u * 2 * 3 * 65536 / 4);
}

TEST_F(TraceOptionsTest, PcapCoversTheRankNicsOrTheChosenLinkClass)
{
    FabricOptions f;
    f.traces.pcap = (m_dir / "nic").string();
    RunRing(f);
    Simulator::Destroy();
    uint32_t files = 0;
    for (const auto& e : fs::directory_iterator(m_dir))
    {
        ++files;
        // Global pcap header (24 B) plus at least one captured frame.
        EXPECT_GT(fs::file_size(e.path()), 24u + 16u) << e.path();
    }
    EXPECT_EQ(files, 4u); // one NIC per rank on the ideal switch

    FabricOptions bad;
    bad.fabric = "ideal";
    bad.ranks = 4;
    bad.traces.pcap = (m_dir / "x").string();
    bad.traces.pcapClass = "spine";
    EXPECT_THROW(bad.Build(), std::invalid_argument);
}

TEST_F(TraceOptionsTest, SeveralSimulationsGetNumberedFlowMonitorFiles)
{
    FabricOptions f;
    f.traces.flowmon = (m_dir / "flows.xml").string();
    RunRing(f);
    Simulator::Destroy();
    FabricOptions copy = f; // copies share the numbering
    RunRing(copy);
    Simulator::Destroy();
    EXPECT_TRUE(fs::exists(m_dir / "flows.xml"));
    EXPECT_TRUE(fs::exists(m_dir / "flows-2.xml"));
    EXPECT_EQ(f.traces.WrittenFiles().size(), 2u);
}

TEST_F(TraceOptionsTest, SeveralSimulationsGetNumberedPcapPrefixes)
{
    FabricOptions f;
    f.traces.pcap = (m_dir / "nic").string();
    RunRing(f);
    Simulator::Destroy();
    RunRing(f);
    Simulator::Destroy();
    uint32_t first = 0;
    uint32_t second = 0;
    for (const auto& e : fs::directory_iterator(m_dir))
    {
        std::string name = e.path().filename().string();
        (name.rfind("nic-sim2-", 0) == 0 ? second : first) += 1;
    }
    // Four rank NICs per simulation; the second run did not overwrite the first.
    EXPECT_EQ(first, 4u);
    EXPECT_EQ(second, 4u);
}

// Two graph fabrics (Lab 1's placements) get different labels: the edge list's stem.
TEST(FabricOptionsLabelTest, GraphFabricsAreLabelledByTheirFile)
{
    FabricOptions f;
    f.fabric = "graph";
    f.graphFile = "doc/labs/lab1/packed.json";
    EXPECT_EQ(f.Label(), "graph(packed)");
    f.graphFile = "scattered.json";
    EXPECT_EQ(f.Label(), "graph(scattered)");
    f.fabric = "torus";
    f.torusDims = "4x4";
    EXPECT_EQ(f.Label(), "torus(4x4)");
}
