// SPDX-License-Identifier: GPL-2.0-only
// ValueParser: the strict command-line value readers. Accepted values are checked
// against the arithmetic they stand for, rejected ones for the message (flag, value,
// what is valid), and every category the issue found: trailing garbage, a sign on an
// unsigned value, hex, overflow when a unit is applied, out of range, an empty list
// item, an unknown enumeration value and an over-long value.
#include "mlnet-test-support.h"

#include "ns3/value-parser.h"

#include <gtest/gtest.h>
#include <limits>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;

namespace
{

/// True when s contains part.
bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST(ValueParserTest, UnsignedTakesDecimalDigitsOnlyWithinTheRange)
{
    EXPECT_EQ(ValueParser::Unsigned("ranks", "16", 2, 4096), 16u);
    EXPECT_EQ(ValueParser::Unsigned("ranks", "2", 2, 4096), 2u);
    EXPECT_EQ(ValueParser::Unsigned("ranks", "4096", 2, 4096), 4096u);
    EXPECT_EQ(ValueParser::Unsigned("r", "18446744073709551615", 0, UINT64_MAX), UINT64_MAX);
    // istringstream reads "-1" as 2^32-1, "4abc" as 4, "0x10" as 0: all refused here.
    for (const char* bad : {"-1", "4abc", "0x10", "+4", " 4", "4 ", "", "1e3", "4.0"})
    {
        std::string m =
            InvalidArgumentMessage([bad] { ValueParser::Unsigned("ranks", bad, 2, 4096); });
        EXPECT_TRUE(Has(m, "--ranks=" + std::string(bad) + ": not an unsigned decimal integer"))
            << bad << ": " << m;
        EXPECT_TRUE(Has(m, "[2, 4096]")) << m;
    }
    for (const char* bad : {"1", "4097", "18446744073709551616", "99999999999999999999999"})
    {
        std::string m =
            InvalidArgumentMessage([bad] { ValueParser::Unsigned("ranks", bad, 2, 4096); });
        EXPECT_TRUE(Has(m, ": out of range; give a whole number in [2, 4096]")) << bad << m;
    }
}

TEST(ValueParserTest, SignedTakesAMinusAndTheFullInt64Range)
{
    EXPECT_EQ(ValueParser::Signed("failAt", "-1", -1, 100), -1);
    EXPECT_EQ(ValueParser::Signed("failAt", "100", -1, 100), 100);
    EXPECT_EQ(ValueParser::Signed("x", "-9223372036854775808", INT64_MIN, INT64_MAX), INT64_MIN);
    EXPECT_EQ(ValueParser::Signed("x", "9223372036854775807", INT64_MIN, INT64_MAX), INT64_MAX);
    EXPECT_THROW(ValueParser::Signed("x", "9223372036854775808", INT64_MIN, INT64_MAX),
                 std::invalid_argument);
    EXPECT_THROW(ValueParser::Signed("x", "-9223372036854775809", INT64_MIN, INT64_MAX),
                 std::invalid_argument);
    // A negative failure index used to mean "no failure" silently.
    EXPECT_TRUE(Has(InvalidArgumentMessage([] { ValueParser::Signed("failNic", "-2", -1, 63); }),
                    "--failNic=-2: out of range; give a whole number in [-1, 63]"));
    for (const char* bad : {"--1", "-", "1-", "+1", "0x1", "1.5"})
    {
        EXPECT_THROW(ValueParser::Signed("x", bad, -10, 10), std::invalid_argument) << bad;
    }
}

TEST(ValueParserTest, RealIsFiniteAndBounded)
{
    EXPECT_DOUBLE_EQ(ValueParser::Real("lr", "0.01", 0, 10, true), 0.01);
    EXPECT_DOUBLE_EQ(ValueParser::Real("bw", "2e10", 0, 1e15, true), 2e10);
    EXPECT_DOUBLE_EQ(ValueParser::Real("x", ".5", 0, 1), 0.5);
    EXPECT_DOUBLE_EQ(ValueParser::Real("x", "1", 0, 1), 1.0);
    EXPECT_DOUBLE_EQ(ValueParser::Real("x", "0", 0, 1), 0.0); // closed below
    // (0, 10]: zero and negatives are refused (a negative learning rate aborted in ns-3).
    for (const char* bad : {"0", "-0.1", "10.5"})
    {
        std::string m =
            InvalidArgumentMessage([bad] { ValueParser::Real("lr", bad, 0, 10, true); });
        EXPECT_TRUE(Has(m, "--lr=" + std::string(bad) + ": out of range; give a number in (0, 10]"))
            << m;
    }
    for (const char* bad : {"nan", "inf", "-inf", "0x10", "1.5abc", "", "1e", "e5", "1,5"})
    {
        std::string m =
            InvalidArgumentMessage([bad] { ValueParser::Real("lr", bad, 0, 10, true); });
        EXPECT_TRUE(Has(m, "not a decimal number")) << bad << ": " << m;
    }
    EXPECT_TRUE(Has(InvalidArgumentMessage([] { ValueParser::Real("x", "1e400", 0, 1e300); }),
                    "out of range"));
}

TEST(ValueParserTest, BoolTakesTheUsualSpellingsOnly)
{
    for (const char* t : {"true", "1", "yes", "t"})
    {
        EXPECT_TRUE(ValueParser::Bool("ecn", t)) << t;
    }
    for (const char* f : {"false", "0", "no", "f"})
    {
        EXPECT_FALSE(ValueParser::Bool("ecn", f)) << f;
    }
    for (const char* bad : {"2", "on", "True1", "", "yess"})
    {
        EXPECT_TRUE(Has(InvalidArgumentMessage([bad] { ValueParser::Bool("ecn", bad); }),
                        "not a boolean; give true or false"))
            << bad;
    }
}

TEST(ValueParserTest, BytesApplyTheUnitWithoutOverflow)
{
    EXPECT_EQ(ValueParser::Bytes("bytes", "4096"), 4096u);
    EXPECT_EQ(ValueParser::Bytes("bytes", "8MiB"), 8u << 20);
    EXPECT_EQ(ValueParser::Bytes("bytes", "3M"), 3u << 20);
    EXPECT_EQ(ValueParser::Bytes("bytes", "10KB"), 10000u);
    EXPECT_EQ(ValueParser::Bytes("bytes", "1GB"), 1000000000u);
    EXPECT_EQ(ValueParser::Bytes("bytes", "1TiB"), ValueParser::MAX_BYTES); // the bound itself
    EXPECT_EQ(ParseByteSize("64KiB"), 64u << 10);                           // the old name forwards
    // 17179869185 GiB = (2^34 + 1) * 2^30 wraps to 2^30 in 64 bits: it ran as 1 GiB.
    std::string m = InvalidArgumentMessage([] { ValueParser::Bytes("bytes", "17179869185GiB"); });
    EXPECT_TRUE(Has(m, "--bytes=17179869185GiB: too large")) << m;
    EXPECT_TRUE(Has(m, "at most 1099511627776 bytes")) << m;
    EXPECT_THROW(ValueParser::Bytes("bytes", "1025GiB"), std::invalid_argument); // > 1 TiB
    EXPECT_EQ(ValueParser::Bytes("bytes", "16GiB", 16ull << 30), 16ull << 30);
    EXPECT_THROW(ValueParser::Bytes("bytes", "16GiB1", 16ull << 30), std::invalid_argument);
    EXPECT_THROW(ValueParser::Bytes("bytes", "17179869185", 16ull << 30), std::invalid_argument);
    for (const char* bad : {"12abc", "-1", "0x10", "8 MiB", "8mib", "", "MiB", "1.5MiB"})
    {
        EXPECT_TRUE(Has(InvalidArgumentMessage([bad] { ValueParser::Bytes("bytes", bad); }),
                        "not a byte size"))
            << bad;
    }
    EXPECT_TRUE(Has(InvalidArgumentMessage([] { ValueParser::Bytes("bytes", "0KiB"); }), "zero"));
}

TEST(ValueParserTest, RatesArePositiveAndBounded)
{
    EXPECT_EQ(ValueParser::Rate("rate", "100Gbps").GetBitRate(), 100000000000u);
    EXPECT_EQ(ValueParser::Rate("rate", "25Gb/s").GetBitRate(), 25000000000u);
    EXPECT_EQ(ValueParser::Rate("rate", "1.5Gbps").GetBitRate(), 1500000000u);
    EXPECT_EQ(ParseDataRate("10Gbps").GetBitRate(), 10000000000u);
    EXPECT_TRUE(Has(InvalidArgumentMessage([] { ValueParser::Rate("rate", "0Gbps"); }),
                    "--rate=0Gbps: zero"));
    // 10^20 Gbps does not fit ns-3's uint64 bit rate: refused before ns-3 converts it.
    EXPECT_TRUE(
        Has(InvalidArgumentMessage([] { ValueParser::Rate("rate", "99999999999999999999Gbps"); }),
            "too large"));
    EXPECT_TRUE(
        Has(InvalidArgumentMessage([] { ValueParser::Rate("rate", "100001Gbps"); }), "too large"));
    for (const char* bad : {"fast", "100", "-1Gbps", "100 Gbps", "100Gbpsx", "0x10Gbps", ""})
    {
        EXPECT_TRUE(Has(InvalidArgumentMessage([bad] { ValueParser::Rate("rate", bad); }),
                        "not a data rate"))
            << bad;
    }
}

TEST(ValueParserTest, TimesAreNonNegativeAndAtMostAnHourByDefault)
{
    EXPECT_EQ(ValueParser::Duration("delay", "1us"), MicroSeconds(1));
    EXPECT_EQ(ValueParser::Duration("delay", "1.5ms"), MicroSeconds(1500));
    EXPECT_EQ(ValueParser::Duration("delay", "0s"), Time(0));
    EXPECT_EQ(ValueParser::Duration("delay", "3600s"), Seconds(3600)); // the bound itself
    EXPECT_EQ(ParseTime("200us"), MicroSeconds(200));
    std::string m = InvalidArgumentMessage([] { ValueParser::Duration("delay", "3601s"); });
    EXPECT_TRUE(Has(m, "--delay=3601s: out of range; give a duration in [0 s, 3600 s]")) << m;
    // Huge values would overflow ns-3's picosecond int64 (and hang the run): refused.
    EXPECT_THROW(ValueParser::Duration("delay", "99999999999999999999s"), std::invalid_argument);
    EXPECT_THROW(ValueParser::Duration("delay", "2ms", Time(0), MilliSeconds(1)),
                 std::invalid_argument);
    EXPECT_THROW(ValueParser::Duration("interval", "0s", PicoSeconds(1), Seconds(1)),
                 std::invalid_argument);
    for (const char* bad : {"1", "1h", "-1s", "1 us", "us", "1e3us", "abc", ""})
    {
        EXPECT_TRUE(Has(InvalidArgumentMessage([bad] { ValueParser::Duration("delay", bad); }),
                        "not a duration"))
            << bad;
    }
}

TEST(ValueParserTest, ListsRejectEmptyItemsAndEmptyLists)
{
    EXPECT_EQ(ValueParser::List("schemes", "bf16,topk"),
              (std::vector<std::string>{"bf16", "topk"}));
    EXPECT_EQ(ValueParser::List("schemes", "bf16"), (std::vector<std::string>{"bf16"}));
    EXPECT_TRUE(ValueParser::List("schemes", "", true).empty());
    // "--schemes=," ran zero rows and succeeded.
    for (const char* bad : {",", "a,,b", "a,", ",a"})
    {
        EXPECT_TRUE(
            Has(InvalidArgumentMessage([bad] { ValueParser::List("schemes", bad); }), "empty item"))
            << bad;
    }
    EXPECT_TRUE(Has(InvalidArgumentMessage([] { ValueParser::List("schemes", ""); }),
                    "--schemes=: empty list"));
}

TEST(ValueParserTest, ChoicesNameTheValidValues)
{
    EXPECT_EQ(ValueParser::Choice("transport", "tcp", {"udp", "tcp", "dctcp"}), "tcp");
    EXPECT_EQ(InvalidArgumentMessage([] {
                  ValueParser::Choice("transport", "quic", {"udp", "tcp", "dctcp"});
              }),
              "--transport=quic: not one of udp | tcp | dctcp");
    EXPECT_THROW(ValueParser::Choice("transport", "UDP", {"udp"}), std::invalid_argument);
}

TEST(ValueParserTest, QueueSizesAreCheckedBeforeNs3ReadsThem)
{
    EXPECT_EQ(ValueParser::Queue("queue", "1000p"), QueueSize("1000p"));
    EXPECT_EQ(ValueParser::Queue("queue", "10MB"), QueueSize("10MB"));
    for (const char* bad : {"1000", "0p", "10GB", "p", "-5p", "12345678901p"})
    {
        EXPECT_TRUE(Has(InvalidArgumentMessage([bad] { ValueParser::Queue("queue", bad); }),
                        "not a queue size"))
            << bad;
    }
}

TEST(ValueParserTest, LongValuesAreCutInTheMessage)
{
    const std::string digits(5000, '7');
    std::string m = InvalidArgumentMessage([&] { ValueParser::Unsigned("ranks", digits, 2, 9); });
    EXPECT_TRUE(Has(m, "--ranks=" + std::string(ValueParser::MAX_ECHO, '7') + "…: ")) << m;
    EXPECT_LT(m.size(), 200u) << m;
    const std::string garbage(300, 'x');
    for (const auto& f :
         std::vector<std::function<void()>>{[&] { ValueParser::Bytes("bytes", garbage); },
                                            [&] { ValueParser::Rate("rate", garbage); },
                                            [&] { ValueParser::Duration("delay", garbage); },
                                            [&] { ValueParser::Choice("mode", garbage, {"a"}); },
                                            [&] { ValueParser::Real("lr", garbage, 0, 1); },
                                            [&] { ValueParser::Bool("ecn", garbage); }})
    {
        std::string msg = InvalidArgumentMessage(f);
        EXPECT_TRUE(Has(msg, std::string(ValueParser::MAX_ECHO, 'x') + "…")) << msg;
        EXPECT_FALSE(Has(msg, std::string(ValueParser::MAX_ECHO + 1, 'x'))) << msg;
    }
    EXPECT_EQ(ValueParser::Echo("short"), "short");
    EXPECT_EQ(ValueParser::Subject("", "v"), "'v'");
}
