// SPDX-License-Identifier: GPL-2.0-only
/*
 * PcapCapture and the pcap part of TraceOptions: fast-path frames are written as the
 * IPv4/UDP frames they stand for (checked with tshark, the decoder users read them
 * with, where it is installed, and always against ns-3's own IPv4 and UDP headers),
 * the fast and IPv4 paths give the same decoded capture, timestamps are nanoseconds
 * (a back-to-back train at 100 Gb/s is 720 ns per jumbo frame), the snap length cuts
 * records but not their length, bad snap lengths throw, and the results JSON names
 * every capture file with its fabric and simulation.
 */
#include "ns3/capture-log.h"
#include "ns3/collective-runner.h"
#include "ns3/fabric-options.h"
#include "ns3/ipv4-header.h"
#include "ns3/pcap-capture.h"
#include "ns3/pcap-file.h"
#include "ns3/run-report.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/// One record of a pcap file, as ns-3's PcapFile reads it.
struct Record
{
    uint64_t ns;      //!< timestamp (ns): the file is in nanosecond mode
    uint32_t inclLen; //!< bytes kept
    uint32_t origLen; //!< the frame's length
    std::vector<uint8_t> bytes;
};

/// The file's records; the file must be PPP, in nanosecond mode, with `snapLen`.
std::vector<Record>
ReadPcap(const std::string& file, uint32_t snapLen)
{
    PcapFile f;
    f.Open(file, std::ios::in);
    EXPECT_FALSE(f.Fail()) << file;
    EXPECT_TRUE(f.IsNanoSecMode()) << file;
    EXPECT_EQ(f.GetDataLinkType(), 9u) << "PPP";
    EXPECT_EQ(f.GetSnapLen(), snapLen) << file;
    std::vector<Record> out;
    std::vector<uint8_t> buf(65536);
    for (;;)
    {
        uint32_t sec = 0;
        uint32_t ns = 0;
        uint32_t incl = 0;
        uint32_t orig = 0;
        uint32_t read = 0;
        f.Read(buf.data(), buf.size(), sec, ns, incl, orig, read);
        if (f.Eof() || f.Fail())
        {
            break;
        }
        out.push_back({uint64_t(sec) * 1000000000 + ns,
                       incl,
                       orig,
                       std::vector<uint8_t>(buf.begin(), buf.begin() + incl)});
    }
    return out;
}

/// The IPv4 and UDP headers behind a record's 2-byte PPP header.
std::pair<Ipv4Header, UdpHeader>
Decode(const Record& r)
{
    Buffer b;
    b.AddAtStart(28);
    b.Begin().Write(r.bytes.data() + 2, 28);
    Ipv4Header ip;
    ip.EnableChecksum();
    ip.Deserialize(b.Begin());
    Buffer::Iterator u = b.Begin();
    u.Next(20);
    UdpHeader udp;
    udp.Deserialize(u);
    return {ip, udp};
}

bool
HaveTshark()
{
    return std::system("tshark --version >/dev/null 2>&1") == 0;
}

/// tshark's fields of every frame of a file, one line per frame, tab-separated.
std::vector<std::string>
Tshark(const std::string& file, const std::string& fields)
{
    std::string command = "tshark -n -r '" + file + "' -T fields " + fields + " 2>/dev/null";
    std::vector<std::string> lines;
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buf{};
    while (pipe && fgets(buf.data(), buf.size(), pipe))
    {
        std::string l = buf.data();
        lines.push_back(l.substr(0, l.find('\n')));
    }
    EXPECT_EQ(pipe ? pclose(pipe) : -1, 0) << command;
    return lines;
}

class PcapCaptureTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_dir = fs::path(::testing::TempDir()) / ("mlnet-pcap-" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        fs::remove_all(m_dir);
    }

    /**
     * Ring all-reduce of `bytes` on a 4-rank 100 Gb/s ideal switch, rank NICs captured
     * with prefix `name`; the simulation is destroyed (files complete) on return.
     * \return the capture file of each rank, and the rank addresses
     */
    std::vector<std::pair<std::string, Ipv4Address>> RunRing(const std::string& dataPath,
                                                             const std::string& name,
                                                             uint32_t snapLen = 64,
                                                             const std::string& bytes = "64KiB")
    {
        FabricOptions f;
        f.fabric = "ideal";
        f.ranks = 4;
        f.dataPath = dataPath;
        f.traces.pcap = (m_dir / name).string();
        f.traces.pcapSnapLen = snapLen;
        std::size_t first = CaptureLog::Count();
        Ptr<Cluster> cluster = f.Build();
        CollectiveRunOptions r;
        r.bytes = bytes;
        CollectiveRunner::Run(cluster, r);
        std::vector<std::pair<std::string, Ipv4Address>> files;
        for (uint32_t rank = 0; rank < 4; ++rank)
        {
            for (const CaptureFile& c : CaptureLog::Since(first))
            {
                if (c.node == cluster->GetRankNode(rank)->GetId())
                {
                    files.emplace_back(c.file, cluster->GetRankAddress(rank));
                }
            }
        }
        EXPECT_EQ(files.size(), 4u) << "one NIC per rank";
        Simulator::Destroy();
        return files;
    }

    fs::path m_dir;
};

} // namespace

TEST_F(PcapCaptureTest, FastFrameBecomesAValidIpv4UdpHeader)
{
    FastFrameHeader h;
    h.srcRank = 0;
    h.dstRank = 1;
    h.srcAddr = Ipv4Address("10.0.0.1").Get();
    h.dstAddr = Ipv4Address("10.0.0.5").Get();
    h.srcPort = 9000;
    h.dstPort = 9001;
    // A 9000-byte MTU frame: IPv4 total length 9000, UDP length 9000 - 20 = 8980.
    std::array<uint8_t, 28> out{};
    PcapCapture::WriteIpv4Udp(h, 9000, out.data());
    EXPECT_EQ(out[0], 0x45) << "version 4, 5 words";
    EXPECT_EQ((out[2] << 8) | out[3], 9000);
    EXPECT_EQ(out[8], 64) << "TTL";
    EXPECT_EQ(out[9], 17) << "UDP";
    // RFC 1071: the one's-complement sum of a header with a valid checksum is 0xffff.
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        sum += (out[i] << 8) | out[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    EXPECT_EQ(sum, 0xffffu);
    EXPECT_EQ((out[12] << 24) | (out[13] << 16) | (out[14] << 8) | out[15], 0x0a000001);
    EXPECT_EQ((out[16] << 24) | (out[17] << 16) | (out[18] << 8) | out[19], 0x0a000005);
    EXPECT_EQ((out[20] << 8) | out[21], 9000) << "source port";
    EXPECT_EQ((out[22] << 8) | out[23], 9001) << "destination port";
    EXPECT_EQ((out[24] << 8) | out[25], 8980) << "UDP length";
    EXPECT_EQ((out[26] << 8) | out[27], 0) << "no UDP checksum";
}

TEST_F(PcapCaptureTest, FastPathRecordsHoldTheRankAddressesAndLengths)
{
    for (const auto& [file, self] : RunRing("fast", "fast"))
    {
        std::vector<Record> records = ReadPcap(file, 64);
        ASSERT_GT(records.size(), 4u) << file;
        for (const Record& r : records)
        {
            // Headers only: 64 bytes of every frame longer than that, its length intact.
            EXPECT_EQ(r.inclLen, std::min<uint32_t>(r.origLen, 64));
            auto [ip, udp] = Decode(r);
            EXPECT_TRUE(ip.IsChecksumOk());
            EXPECT_EQ(ip.GetProtocol(), 17);
            EXPECT_EQ(ip.GetPayloadSize() + 20u + 2u, r.origLen) << "IPv4 total length";
            // The NIC of a rank sees only frames from or to that rank.
            EXPECT_TRUE(ip.GetSource() == self || ip.GetDestination() == self)
                << ip.GetSource() << " -> " << ip.GetDestination() << " on " << self;
            EXPECT_NE(ip.GetSource(), ip.GetDestination());
            EXPECT_EQ(udp.GetSourcePort(), udp.GetDestinationPort());
        }
    }
}

TEST_F(PcapCaptureTest, FastPathDecodesAsIpv4UdpInTshark)
{
    if (!HaveTshark())
    {
        GTEST_SKIP() << "tshark is not installed (utils/setup.sh installs it)";
    }
    auto files = RunRing("fast", "fast");
    std::set<std::string> ranks;
    for (const auto& f : files)
    {
        std::ostringstream os;
        os << f.second;
        ranks.insert(os.str());
    }
    for (const auto& [file, self] : files)
    {
        std::vector<std::string> lines =
            Tshark(file, "-e frame.len -e ip.version -e ip.src -e ip.dst -e udp.length");
        ASSERT_GT(lines.size(), 4u) << file;
        for (const std::string& line : lines)
        {
            std::istringstream in(line);
            uint32_t frameLen = 0;
            uint32_t version = 0;
            std::string src;
            std::string dst;
            uint32_t udpLen = 0;
            ASSERT_TRUE(in >> frameLen >> version >> src >> dst >> udpLen)
                << file << ": not IPv4/UDP: '" << line << "'";
            EXPECT_EQ(version, 4u);
            EXPECT_TRUE(ranks.count(src) && ranks.count(dst)) << line;
            // PPP (2) + IPv4 (20) in front of the UDP datagram.
            EXPECT_EQ(udpLen, frameLen - 22) << line;
        }
    }
}

TEST_F(PcapCaptureTest, FastAndIpv4PathsDecodeToTheSameCapture)
{
    if (!HaveTshark())
    {
        GTEST_SKIP() << "tshark is not installed (utils/setup.sh installs it)";
    }
    // The fast path times every frame as the IPv4 path does, so the decoded captures
    // of a rank NIC agree frame by frame (TTL aside: the fast path has none).
    const std::string fields =
        "-e frame.time_epoch -e frame.len -e frame.cap_len -e ip.src -e ip.dst -e udp.length";
    auto fast = RunRing("fast", "fast");
    auto ipv4 = RunRing("ipv4", "ipv4");
    std::vector<std::string> a = Tshark(fast[0].first, fields);
    std::vector<std::string> b = Tshark(ipv4[0].first, fields);
    ASSERT_GT(a.size(), 4u);
    EXPECT_EQ(a, b);
}

TEST_F(PcapCaptureTest, BackToBackTrainHasStrictlyIncreasingNanosecondTimes)
{
    // 1 MiB over 4 ranks: 256 KiB chunks, each a train of 9002-byte frames sent back
    // to back: (9000 + 2) * 8 / 100 Gb/s = 720.16 ns apart.
    auto files = RunRing("fast", "train", 64, "1MiB");
    const auto& [file, self] = files[0];
    std::vector<uint64_t> sent;
    for (const Record& r : ReadPcap(file, 64))
    {
        if (Decode(r).first.GetSource() == self && r.origLen == 9002)
        {
            sent.push_back(r.ns);
        }
    }
    ASSERT_GT(sent.size(), 20u);
    uint32_t backToBack = 0;
    bool sameMicrosecond = false;
    for (size_t i = 1; i < sent.size(); ++i)
    {
        ASSERT_GT(sent[i], sent[i - 1]) << "frame " << i;
        if (sent[i] - sent[i - 1] < 1000)
        {
            ++backToBack;
            EXPECT_NEAR(double(sent[i] - sent[i - 1]), 9002 * 8 / 100e9 * 1e9, 1.0) << i;
            sameMicrosecond |= sent[i] / 1000 == sent[i - 1] / 1000;
        }
    }
    EXPECT_GT(backToBack, 20u);
    EXPECT_TRUE(sameMicrosecond) << "the train would not need nanoseconds";
}

TEST_F(PcapCaptureTest, SnapLengthCutsRecordsNotTheirLength)
{
    for (uint32_t snap : {0u, 30u, 100u})
    {
        auto files = RunRing("fast", "snap" + std::to_string(snap), snap);
        uint32_t kept = snap == 0 ? PcapCapture::WHOLE_FRAMES : snap;
        std::vector<Record> records = ReadPcap(files[1].first, kept);
        ASSERT_FALSE(records.empty());
        uint32_t longest = 0;
        for (const Record& r : records)
        {
            EXPECT_EQ(r.inclLen, std::min(r.origLen, kept)) << "snap " << snap;
            longest = std::max(longest, r.origLen);
        }
        EXPECT_EQ(longest, 9002u) << "an MTU frame keeps its length";
    }
}

TEST_F(PcapCaptureTest, BadSnapLengthThrowsBeforeAnyFileIsWritten)
{
    for (uint32_t snap : {1u, 29u, 65536u})
    {
        FabricOptions f;
        f.fabric = "ideal";
        f.ranks = 4;
        f.traces.pcap = (m_dir / "bad").string();
        f.traces.pcapSnapLen = snap;
        try
        {
            f.Build();
            ADD_FAILURE() << "snap " << snap << " accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find("--pcapSnapLen=" + std::to_string(snap)),
                      std::string::npos)
                << e.what();
        }
        Simulator::Destroy();
    }
    EXPECT_TRUE(fs::is_empty(m_dir));
}

TEST_F(PcapCaptureTest, ReportNamesEveryCaptureWithFabricAndSimulation)
{
    RunReport before("before");
    before.Add({{"x", 1}});
    EXPECT_FALSE(before.ToJson().contains("captures"));

    RunReport report("pcap");
    FabricOptions f;
    f.fabric = "ideal";
    f.ranks = 4;
    f.dataPath = "fast";
    f.traces.pcap = (m_dir / "nic").string();
    for (int sim = 0; sim < 2; ++sim)
    {
        CollectiveRunOptions r;
        r.bytes = "16KiB";
        CollectiveRunner::Run(f.Build(), r); // copies of the options share the numbering
        Simulator::Destroy();
    }
    nlohmann::json captures = report.ToJson()["captures"];
    ASSERT_EQ(captures.size(), 8u) << captures;
    for (size_t i = 0; i < captures.size(); ++i)
    {
        const nlohmann::json& c = captures[i];
        EXPECT_EQ(c["fabric"], "ideal");
        EXPECT_EQ(c["data_path"], "fast");
        EXPECT_EQ(c["link_class"], "host-tor");
        EXPECT_EQ(c["snap_length"], 64);
        EXPECT_EQ(c["simulation"], i < 4 ? 1 : 2);
        std::string name = c["file"];
        EXPECT_TRUE(fs::exists(name)) << name;
        EXPECT_EQ(name.substr(name.rfind('/') + 1),
                  (i < 4 ? "nic-" : "nic-sim2-") + std::to_string(c["node"].get<int>()) + "-" +
                      std::to_string(c["device"].get<int>()) + ".pcap");
    }
    EXPECT_THROW(report.Set("captures", 1), std::invalid_argument);
}
