// SPDX-License-Identifier: GPL-2.0-only
// DataPathChoice: auto is the fast data path for the udp transport and IPv4 for TCP,
// DCTCP and FlowMonitor; fast with TCP/DCTCP and unknown names are errors naming
// --dataPath; a scenario's flags (ResolveFromFlags) keep the devices at the flow level
// when they read them, IPv4 when they need it.
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

TEST(DataPathChoiceTest, AScenariosFlagsDecideWhatTheFlowLevelKeeps)
{
    const RunLevel flow = RunLevel::FLOW;
    TraceOptions none;
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "udp", none, flow), "none");
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "roce", none, flow), "none");
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "udp", none, RunLevel::PACKET), "fast");
    // --ecn: RED in a queue disc (IPv4) with udp/tcp/dctcp, the fast path's marker with
    // roce; --pfc pauses devices.
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "udp", none, flow, true), "ipv4");
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "dctcp", none, flow, true), "ipv4");
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "roce", none, flow, true), "fast");
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "udp", none, flow, false, true), "fast");
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "tcp", none, flow, false, true), "ipv4");
    EXPECT_THROW(DataPathChoice::ResolveFromFlags("fast", "udp", none, flow, true),
                 std::invalid_argument);
    TraceOptions flowmon;
    flowmon.flowmon = "flows.xml";
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "udp", flowmon, flow), "ipv4");
    EXPECT_THROW(DataPathChoice::ResolveFromFlags("auto", "roce", flowmon, flow),
                 std::invalid_argument);
    TraceOptions pcap;
    pcap.pcap = "trace";
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "udp", pcap, flow), "fast");
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "tcp", pcap, flow), "ipv4");
    TraceOptions links;
    links.monitors.linkMonitor = "links.csv";
    EXPECT_EQ(DataPathChoice::ResolveFromFlags("auto", "roce", links, flow), "fast");
}

} // namespace
