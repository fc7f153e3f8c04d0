// SPDX-License-Identifier: GPL-2.0-only
// TransportChoice: the names of --transport, the transport each makes, the data path
// each needs (consistent with DataPathChoice), and DCTCP switching ECN marking on
// unless --ecn=false is given (through FabricOptions' flags).
#include "ns3/data-path-choice.h"
#include "ns3/fabric-options.h"
#include "ns3/roce-message-transport.h"
#include "ns3/scenario-command-line.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/transport-choice.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <utility>

using namespace ns3;

namespace
{

TEST(TransportChoiceTest, NamesMakeTheirTransports)
{
    EXPECT_EQ(TransportChoice::Names(), (std::vector<std::string>{"roce", "udp", "tcp", "dctcp"}));
    EXPECT_TRUE(DynamicCast<RoceMessageTransport>(TransportChoice::Create("roce")));
    EXPECT_TRUE(DynamicCast<UdpMessageTransport>(TransportChoice::Create("udp")));
    Ptr<TcpMessageTransport> tcp = DynamicCast<TcpMessageTransport>(TransportChoice::Create("tcp"));
    Ptr<TcpMessageTransport> dctcp =
        DynamicCast<TcpMessageTransport>(TransportChoice::Create("dctcp"));
    ASSERT_TRUE(tcp);
    ASSERT_TRUE(dctcp);
    StringValue type;
    dctcp->GetAttribute("SocketType", type);
    EXPECT_EQ(type.Get(), "ns3::TcpDctcp");
    tcp->GetAttribute("SocketType", type);
    EXPECT_NE(type.Get(), "ns3::TcpDctcp");
    EXPECT_THROW(TransportChoice::Create("quic"), std::invalid_argument);
    EXPECT_NO_THROW(TransportChoice::Check("dctcp"));
    try
    {
        TransportChoice::Check("quic");
        ADD_FAILURE() << "quic accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()), "--transport=quic unknown; use roce | udp | tcp | dctcp");
    }
    Simulator::Destroy();
}

TEST(TransportChoiceTest, DataPathFollowsTheTransport)
{
    for (const std::string& name : TransportChoice::Names())
    {
        EXPECT_EQ(DataPathChoice::Resolve("auto", name),
                  TransportChoice::NeedsIpv4(name) ? "ipv4" : "fast")
            << name;
    }
    EXPECT_TRUE(TransportChoice::NeedsIpv4("dctcp"));
    EXPECT_FALSE(TransportChoice::NeedsIpv4("udp"));
    EXPECT_TRUE(TransportChoice::NeedsFast("roce"));
    EXPECT_FALSE(TransportChoice::NeedsFast("udp"));
    // roce has no IPv4 path: an explicit one, or a flag that needs IPv4, is refused.
    EXPECT_EQ(DataPathChoice::Resolve("fast", "roce"), "fast");
    EXPECT_THROW(DataPathChoice::Resolve("ipv4", "roce"), std::invalid_argument);
    EXPECT_THROW(DataPathChoice::Resolve("auto", "roce", {"--flowmon"}), std::invalid_argument);
}

TEST(TransportChoiceTest, DctcpTurnsEcnOnUnlessRefused)
{
    EXPECT_TRUE(TransportChoice::SwitchEcn("dctcp"));
    EXPECT_TRUE(TransportChoice::SwitchEcn("dctcp", true, true));
    EXPECT_FALSE(TransportChoice::SwitchEcn("dctcp", false, true)) << "--ecn=false given";
    EXPECT_FALSE(TransportChoice::SwitchEcn("udp"));
    EXPECT_FALSE(TransportChoice::SwitchEcn("tcp"));
    EXPECT_TRUE(TransportChoice::SwitchEcn("tcp", true, true));
}

TEST(TransportChoiceTest, FabricFeaturesFollowTheTransportTheFlagsAndTheDevices)
{
    auto features = [](const std::string& transport,
                       const std::string& dataPath,
                       std::vector<bool> flags) {
        FabricRequest r;
        r.dataPath = dataPath;
        flags.resize(4, false);
        TransportChoice::SetFabricFeatures(transport, r, flags[0], flags[1], flags[2], flags[3]);
        return std::make_pair(r.ecn, r.pfc);
    };
    using P = std::pair<bool, bool>; // ecn, pfc
    EXPECT_EQ(features("roce", "fast", {}), P(true, true));
    EXPECT_EQ(features("dctcp", "ipv4", {}), P(true, false));
    EXPECT_EQ(features("udp", "fast", {}), P(false, false));
    EXPECT_EQ(features("roce", "fast", {false, true, false, true}), P(false, false)) << "=false";
    EXPECT_EQ(features("udp", "fast", {true, true, true, true}), P(true, true));
    // No devices: nothing marks, whatever the transport or flags; PFC is recorded (the
    // fluid's full ports hold back instead of dropping) unless refused.
    EXPECT_EQ(features("roce", "none", {}), P(false, true));
    EXPECT_EQ(features("roce", "none", {false, false, false, true}), P(false, false));
    EXPECT_EQ(features("udp", "none", {true, true, true, true}), P(false, true));
    EXPECT_EQ(features("udp", "none", {}), P(false, false));
}

/// FabricOptions' request after parsing `args`, with `transport` set as examples do.
FabricRequest
RequestAfter(const std::vector<std::string>& args, const std::string& transport)
{
    FabricOptions fabric;
    ScenarioCommandLine cmd("transport-choice-test");
    fabric.AddToCommandLine(cmd);
    std::vector<std::string> all{"transport-choice-test"};
    all.insert(all.end(), args.begin(), args.end());
    cmd.Parse(all);
    fabric.transport = transport;
    return fabric.Request();
}

TEST(TransportChoiceTest, FabricOptionsApplyTheRule)
{
    EXPECT_TRUE(RequestAfter({}, "dctcp").ecn);
    EXPECT_EQ(RequestAfter({}, "dctcp").dataPath, "ipv4");
    EXPECT_FALSE(RequestAfter({"--ecn=false"}, "dctcp").ecn);
    EXPECT_TRUE(RequestAfter({"--ecn=true"}, "dctcp").ecn);
    EXPECT_FALSE(RequestAfter({}, "udp").ecn);
    EXPECT_FALSE(RequestAfter({}, "tcp").ecn);
    EXPECT_TRUE(RequestAfter({"--ecn"}, "tcp").ecn);
}

TEST(TransportChoiceTest, RoceTurnsOnPfcAndEcnUnlessRefused)
{
    EXPECT_TRUE(TransportChoice::Lossless("roce"));
    EXPECT_FALSE(TransportChoice::Lossless("udp"));
    EXPECT_TRUE(TransportChoice::SwitchEcn("roce"));
    EXPECT_FALSE(TransportChoice::SwitchEcn("roce", false, true)) << "--ecn=false given";
    FabricRequest r = RequestAfter({}, "roce");
    EXPECT_TRUE(r.pfc);
    EXPECT_TRUE(r.ecn);
    EXPECT_EQ(r.dataPath, "fast");
    EXPECT_FALSE(RequestAfter({"--pfc=false"}, "roce").pfc);
    EXPECT_FALSE(RequestAfter({"--ecn=false"}, "roce").ecn);
    EXPECT_FALSE(RequestAfter({}, "udp").pfc);
    EXPECT_TRUE(RequestAfter({"--pfc"}, "udp").pfc);
}

TEST(TransportChoiceTest, CommandLineTakesTheNames)
{
    std::string transport = "udp";
    ScenarioCommandLine cmd("transport-choice-test");
    TransportChoice::AddToCommandLine(cmd, transport);
    EXPECT_FALSE(cmd.WasGiven("transport"));
    cmd.Parse(std::vector<std::string>{"x", "--transport=dctcp"});
    EXPECT_EQ(transport, "dctcp");
    EXPECT_TRUE(cmd.WasGiven("transport"));
    ScenarioCommandLine bad("transport-choice-test");
    TransportChoice::AddToCommandLine(bad, transport);
    EXPECT_THROW(bad.Parse(std::vector<std::string>{"x", "--transport=quic"}),
                 std::invalid_argument);
}

} // namespace
