// SPDX-License-Identifier: GPL-2.0-only
// ScenarioCommandLine: flags are converted by the strict parsers with their bounds,
// in ns-3's order (last wins, bare booleans toggle), and every argument ns-3 would
// turn into its help text or an abort — an unknown flag, a positional argument, a
// bad --ns3::Type::Attr=, a non-numeric --RngRun — is one std::invalid_argument.
#include "mlnet-test-support.h"

#include "ns3/config.h"
#include "ns3/fabric-options.h"
#include "ns3/global-value.h"
#include "ns3/progress-scheduler.h"
#include "ns3/run-level.h"
#include "ns3/scenario-command-line.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;

namespace
{

/// One flag of every kind, parsed from a list of arguments.
struct Flags
{
    uint32_t ranks{8};
    uint64_t big{1};
    int32_t failNic{-1};
    int64_t failAt{-1};
    double lr{0.01};
    bool ecn{false};
    std::string json;
    std::string bytes{"8MiB"};
    std::string rate{"100Gbps"};
    std::string delay{"1us"};
    Time interval{MicroSeconds(10)};
    std::string transport{"udp"};
    std::string schemes{"bf16,topk"};
    int hooks{0};

    ScenarioCommandLine cmd{__FILE__};

    Flags()
    {
        cmd.AddValue("ranks", "ranks", ranks, 2, 4096);
        cmd.AddValue("big", "a 64-bit count", big, 1, UINT64_MAX);
        cmd.AddValue("failNic", "NIC to fail (-1: none)", failNic, -1, 63);
        cmd.AddValue("failAt", "iteration (-1: never)", failAt, -1, 1000);
        cmd.AddValue("lr", "learning rate", lr, 0, 10, true);
        cmd.AddValue("ecn", "ECN", ecn);
        cmd.AddValue("json", "output", json);
        cmd.AddBytes("bytes", "bytes", bytes, 16ull << 30);
        cmd.AddRate("rate", "rate", rate);
        cmd.AddTime("delay", "delay", delay, Time(0), Seconds(1));
        cmd.AddValue("interval", "interval", interval, Time(0), Seconds(1));
        cmd.AddChoice("transport", "transport", transport, {"udp", "tcp", "dctcp"});
        cmd.AddList("schemes", "schemes", schemes, [](const std::string& f, const std::string& i) {
            ValueParser::Choice(f, i, {"bf16", "topk", "fp32"});
        });
        cmd.OnParsed([this] { ++hooks; });
    }

    /// Parse "prog" + args.
    void Parse(std::vector<std::string> args)
    {
        args.insert(args.begin(), "prog");
        cmd.Parse(args);
    }

    /// The message Parse throws for args ("no exception" if none).
    static std::string Error(const std::vector<std::string>& args)
    {
        Flags f;
        return InvalidArgumentMessage([&] { f.Parse(args); });
    }
};

/// True when s contains part.
bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST(ScenarioCommandLineTest, ValidFlagsSetTheirVariablesAndUnsetOnesKeepTheirDefaults)
{
    Flags f;
    f.Parse({"--ranks=16",
             "--big=18446744073709551615",
             "--failNic=-1",
             "--failAt=12",
             "--lr=2e-3",
             "--ecn=1",
             "--json=out dir/r.json",
             "--bytes=16GiB",
             "--rate=25Gbps",
             "--interval=5us",
             "--transport=dctcp",
             "--schemes=fp32"});
    EXPECT_EQ(f.ranks, 16u);
    EXPECT_EQ(f.big, UINT64_MAX);
    EXPECT_EQ(f.failNic, -1);
    EXPECT_EQ(f.failAt, 12);
    EXPECT_DOUBLE_EQ(f.lr, 2e-3);
    EXPECT_TRUE(f.ecn);
    EXPECT_EQ(f.json, "out dir/r.json"); // the whole value (ns-3 kept the first word)
    EXPECT_EQ(f.bytes, "16GiB");
    EXPECT_EQ(f.rate, "25Gbps");
    EXPECT_EQ(f.delay, "1us"); // not given: untouched
    EXPECT_EQ(f.interval, MicroSeconds(5));
    EXPECT_EQ(f.transport, "dctcp");
    EXPECT_EQ(f.schemes, "fp32");
    EXPECT_EQ(f.hooks, 1);
}

TEST(ScenarioCommandLineTest, LastOccurrenceWinsAndABareBooleanToggles)
{
    Flags f;
    f.Parse({"--ranks=4", "--ranks=6", "--ecn", "-json=a.json"});
    EXPECT_EQ(f.ranks, 6u);
    EXPECT_TRUE(f.ecn);
    EXPECT_EQ(f.json, "a.json"); // one dash, as ns-3 takes it
    Flags g;
    g.Parse({"--ecn", "--ecn"});
    EXPECT_FALSE(g.ecn);
}

TEST(ScenarioCommandLineTest, BadValuesNameTheFlagTheValueAndTheRange)
{
    // What ns-3 read silently wrong: -1 as 4294967295, 4abc as 4, 0x10 as 0.
    EXPECT_EQ(Flags::Error({"--ranks=-1"}),
              "--ranks=-1: not an unsigned decimal integer; give a whole number in [2, 4096]");
    EXPECT_TRUE(Has(Flags::Error({"--ranks=4abc"}), "--ranks=4abc: not an unsigned"));
    EXPECT_TRUE(Has(Flags::Error({"--ranks=0x10"}), "--ranks=0x10: not an unsigned"));
    EXPECT_TRUE(Has(Flags::Error({"--ranks=1"}), "--ranks=1: out of range"));
    EXPECT_TRUE(Has(Flags::Error({"--ranks"}), "--ranks=: not an unsigned"));
    EXPECT_TRUE(Has(Flags::Error({"--bytes=17179869185GiB"}), "--bytes=17179869185GiB: too large"));
    EXPECT_TRUE(Has(Flags::Error({"--delay=100000000s"}), "--delay=100000000s: out of range"));
    EXPECT_TRUE(Has(Flags::Error({"--interval=2s"}), "--interval=2s: out of range"));
    EXPECT_TRUE(
        Has(Flags::Error({"--lr=-0.5"}), "--lr=-0.5: out of range; give a number in (0, 10]"));
    EXPECT_TRUE(Has(Flags::Error({"--failNic=-2"}), "--failNic=-2: out of range"));
    EXPECT_TRUE(Has(Flags::Error({"--ecn=maybe"}), "--ecn=maybe: not a boolean"));
    EXPECT_TRUE(Has(Flags::Error({"--rate=0Gbps"}), "--rate=0Gbps: zero"));
    EXPECT_EQ(Flags::Error({"--transport=quic"}), "--transport=quic: not one of udp | tcp | dctcp");
    EXPECT_TRUE(Has(Flags::Error({"--schemes=,"}), "--schemes=,: empty item"));
    EXPECT_EQ(Flags::Error({"--schemes=bf16,gzip"}),
              "--schemes=gzip: not one of bf16 | topk | fp32");
    // An over-long value is cut in the message.
    std::string m = Flags::Error({"--ranks=" + std::string(10000, '9')});
    EXPECT_TRUE(Has(m, std::string(ValueParser::MAX_ECHO, '9') + "…")) << m;
    EXPECT_LT(m.size(), 200u);
}

TEST(ScenarioCommandLineTest, UnknownFlagsAndPositionalArgumentsAreRejected)
{
    EXPECT_EQ(Flags::Error({"--foo=1"}), "--foo: unknown flag; see --help");
    EXPECT_EQ(Flags::Error({"--rnaks=4"}),
              "--rnaks: unknown flag; see --help (did you mean --ranks?)");
    EXPECT_EQ(Flags::Error({"--Ranks=4"}),
              "--Ranks: unknown flag; see --help (did you mean --ranks?)");
    EXPECT_EQ(Flags::Error({"16"}),
              "'16': unexpected argument; flags take the form --name=value (see --help)");
    // The check runs before any value is converted: nothing is half-applied.
    Flags f;
    EXPECT_THROW(f.Parse({"--ranks=16", "--nope"}), std::invalid_argument);
    EXPECT_EQ(f.ranks, 8u);
    EXPECT_EQ(f.hooks, 0);
    std::string longName = Flags::Error({"--" + std::string(500, 'z') + "=1"});
    EXPECT_LT(longName.size(), 200u) << longName;
}

TEST(ScenarioCommandLineTest, Ns3AttributesAndGlobalsAreCheckedBeforeNs3SetsThem)
{
    EXPECT_TRUE(Has(Flags::Error({"--ns3::NoSuchType::X=1"}), "no type ns3::NoSuchType"));
    EXPECT_TRUE(Has(Flags::Error({"--ns3::TcpSocket::NoSuchAttribute=1"}),
                    "ns3::TcpSocket has no attribute NoSuchAttribute"));
    EXPECT_TRUE(Has(Flags::Error({"--ns3::TcpSocket::SegmentSize=-1"}),
                    "--ns3::TcpSocket::SegmentSize=-1: not an unsigned"));
    // In range of the parser, out of the attribute's own checker (uint32).
    EXPECT_TRUE(
        Has(Flags::Error({"--ns3::TcpSocket::SegmentSize=4294967296"}),
            "not a valid value (uint32_t 0:4294967295); see --PrintAttributes=ns3::TcpSocket"));
    EXPECT_TRUE(Has(Flags::Error({"--ns3::TcpSocket::ConnTimeout=3x"}), "not a duration"));
    EXPECT_TRUE(Has(Flags::Error({"--ns3::TcpSocket::ConnTimeout="}), "not a duration"));
    EXPECT_TRUE(
        Has(Flags::Error({"--RngRun=abc"}), "--RngRun=abc: not an unsigned decimal integer"));
    EXPECT_TRUE(Has(Flags::Error({"--RngRun=-1"}), "--RngRun=-1: not an unsigned"));
    EXPECT_TRUE(Has(Flags::Error({"--RngSeed=0"}),
                    "--RngSeed=0: out of range; give a whole number in [1, "));
    EXPECT_TRUE(
        Has(Flags::Error({"--SchedulerType=ns3::Node"}), "not a type derived from ns3::Scheduler"));
    EXPECT_TRUE(Has(Flags::Error({"--SimulatorImplementationType=nope"}),
                    "not a type derived from ns3::SimulatorImpl"));
    EXPECT_TRUE(
        Has(Flags::Error({"--ChecksumEnabled=sure"}), "--ChecksumEnabled=sure: not a boolean"));
    EXPECT_TRUE(Has(Flags::Error({"--PrintAttributes=ns3::NoSuchType"}), "no such type"));

    // Valid ones reach ns-3.
    Flags f;
    f.Parse({"--ns3::TcpSocket::SegmentSize=1448", "--RngRun=7"});
    UintegerValue segment;
    UintegerValue run;
    GlobalValue::GetValueByName("RngRun", run);
    EXPECT_EQ(run.Get(), 7u);
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(536));
    Config::SetGlobal("RngRun", UintegerValue(1));
}

TEST(ScenarioCommandLineTest, RunLevelOptionPushesQuietAndProgressIntervalAfterParse)
{
    const bool quiet = ProgressScheduler::IsQuiet();
    const double interval = ProgressScheduler::GetInterval();
    {
        ScenarioCommandLine cmd(__FILE__);
        RunLevelOption level("demo", {RunLevel::PACKET, RunLevel::FLOW});
        level.AddToCommandLine(cmd);
        cmd.Parse(
            std::vector<std::string>{"prog", "--quiet", "--progressInterval=0.5", "--level=flow"});
        EXPECT_EQ(ProgressScheduler::IsQuiet(), !quiet);
        EXPECT_DOUBLE_EQ(ProgressScheduler::GetInterval(), 0.5);
        EXPECT_EQ(level.Get(), RunLevel::FLOW);
    }
    {
        ScenarioCommandLine cmd(__FILE__);
        RunLevelOption level("demo", {RunLevel::PACKET});
        level.AddToCommandLine(cmd);
        EXPECT_TRUE(Has(InvalidArgumentMessage([&] {
                            cmd.Parse(std::vector<std::string>{"prog", "--progressInterval=0"});
                        }),
                        "--progressInterval=0: out of range; give a number in (0, 86400]"));
    }
    ProgressScheduler::SetQuiet(quiet);
    ProgressScheduler::SetInterval(interval);
    EXPECT_EQ(ScenarioCommandLine(__FILE__).GetNames().size(), 0u);
}

TEST(ScenarioCommandLineTest, RankProductsAreBoundedLikeRanks)
{
    // 32768 = FabricOptions::MAX_RANKS is the largest run; a product of two flags that
    // are each in range may still exceed it (1024 domains x 64 GPUs = 65536).
    FabricOptions::CheckRankCount("--domains x --domainSize", 32768);
    EXPECT_EQ(InvalidArgumentMessage(
                  [] { FabricOptions::CheckRankCount("--domains x --domainSize", 1024 * 64); }),
              "--domains x --domainSize = 65536 ranks; at most 32768 fit a run here");
}
