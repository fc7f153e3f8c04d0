// SPDX-License-Identifier: GPL-2.0-only
// CompressionConfig::Validate: the settings compression-utility's flags give are
// checked before anything is simulated, with messages naming the flag. --bits is
// checked for every scheme, so a sweep's later quant row cannot fail mid-sweep.
#include "mlnet-test-support.h"

#include "ns3/compression-runner.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::InvalidArgumentMessage;

TEST(CompressionConfigTest, DefaultIsValid)
{
    EXPECT_NO_THROW(CompressionConfig().Validate());
}

TEST(CompressionConfigTest, BitsAreTwoFourOrEight)
{
    for (uint32_t bits = 0; bits <= 16; ++bits)
    {
        CompressionConfig c;
        c.bits = bits;
        const bool valid = bits == 2 || bits == 4 || bits == 8;
        const std::string e = InvalidArgumentMessage([&] { c.Validate(); });
        if (valid)
        {
            EXPECT_EQ(e, "no exception") << bits;
        }
        else
        {
            EXPECT_NE(e.find("--bits=" + std::to_string(bits)), std::string::npos) << e;
        }
    }
}

TEST(CompressionConfigTest, RunAndSweepRefuseBeforeSimulating)
{
    CompressionConfig c;
    c.scheme = "quant";
    c.bits = 3;
    EXPECT_NE(InvalidArgumentMessage([&] { CompressionRunner::Run(c); }).find("--bits=3"),
              std::string::npos);
    c.scheme = "bf16"; // the quant row would come second
    uint32_t runs = 0;
    EXPECT_NE(InvalidArgumentMessage([&] {
                  CompressionRunner::Sweep(c, {DataRate("10Gbps")}, {"bf16", "quant"}, [&runs] {
                      ++runs;
                  });
              }).find("--bits=3"),
              std::string::npos);
    EXPECT_EQ(runs, 0u); // refused before the bf16 row was simulated
    Simulator::Destroy();
}

TEST(CompressionConfigTest, OtherSettingsNameTheirFlag)
{
    auto error = [](auto change) {
        CompressionConfig c;
        change(c);
        return InvalidArgumentMessage([&] { c.Validate(); });
    };
    EXPECT_NE(error([](CompressionConfig& c) { c.iterations = 0; }).find("--iterations"),
              std::string::npos);
    EXPECT_NE(error([](CompressionConfig& c) { c.workers = 1; }).find("--workers"),
              std::string::npos);
    EXPECT_NE(error([](CompressionConfig& c) { c.targetAccuracy = 0; }).find("--targetAccuracy"),
              std::string::npos);
}
