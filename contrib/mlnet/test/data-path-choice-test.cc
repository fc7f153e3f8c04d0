// SPDX-License-Identifier: GPL-2.0-only
// DataPathChoice: auto is the fast data path for the udp transport and IPv4 for TCP,
// DCTCP and FlowMonitor; fast with TCP/DCTCP and unknown names are errors naming
// --dataPath.
#include "ns3/data-path-choice.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

/// The message of the std::invalid_argument `choice` gives with `transport`.
std::string
ErrorOf(const std::string& choice, const std::string& transport)
{
    try
    {
        DataPathChoice::Resolve(choice, transport);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TEST(DataPathChoiceTest, AutoIsFastWhereItIsExact)
{
    EXPECT_EQ(DataPathChoice::Resolve("auto", "udp"), "fast");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "udp", {"--flowmon"}), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "tcp"), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("auto", "dctcp"), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("ipv4", "udp"), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("ipv4", "tcp"), "ipv4");
    EXPECT_EQ(DataPathChoice::Resolve("fast", "udp"), "fast");
    EXPECT_EQ(DataPathChoice::Choices(), (std::vector<std::string>{"auto", "ipv4", "fast"}));
}

TEST(DataPathChoiceTest, FastWithTcpAndUnknownNamesAreRefused)
{
    for (const char* transport : {"tcp", "dctcp"})
    {
        std::string e = ErrorOf("fast", transport);
        EXPECT_EQ(e.rfind("--dataPath=fast", 0), 0u) << e;
        EXPECT_NE(e.find(transport), std::string::npos) << e;
    }
    try
    {
        DataPathChoice::Resolve("fast", "udp", {"--ecn"});
        ADD_FAILURE() << "fast with --ecn accepted";
    }
    catch (const std::invalid_argument& ecn)
    {
        EXPECT_NE(std::string(ecn.what()).find("--ecn"), std::string::npos) << ecn.what();
    }
    std::string e = ErrorOf("dpdk", "udp");
    EXPECT_EQ(e.rfind("unknown --dataPath=dpdk", 0), 0u) << e;
}

} // namespace
