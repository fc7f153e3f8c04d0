// SPDX-License-Identifier: GPL-2.0-only
// MessageLog, LinkMonitor and the transports' MessageDelivered trace on a small
// fat-tree: the log holds exactly what the transport delivered (UDP and TCP alike),
// labelled by channel; the link monitor stops when nothing else is left to simulate.
#include "ns3/collective-runner.h"
#include "ns3/fabric-options.h"
#include "ns3/link-monitor.h"
#include "ns3/message-log.h"
#include "ns3/simulator.h"
#include "ns3/transport-choice.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

class MonitorsTest : public ::testing::TestWithParam<std::string>
{
protected:
    void SetUp() override
    {
        m_file = (fs::path(::testing::TempDir()) /
                  ("mlnet-monitors-" + std::to_string(getpid()) + ".csv"))
                     .string();
    }

    void TearDown() override
    {
        Simulator::Destroy();
        fs::remove(m_file);
    }

    std::string m_file;
};

uint32_t
CountLines(const std::string& file)
{
    std::ifstream in(file);
    std::string line;
    uint32_t n = 0;
    while (std::getline(in, line))
    {
        ++n;
    }
    return n;
}

} // namespace

// Every rank sends 3 messages of different sizes to every other rank: the log counts
// n(n-1)*3 messages and their bytes, equal to the transport's own counters, and the
// trace reports each message with its channel's label.
TEST_P(MonitorsTest, MessageLogHoldsWhatTheTransportDelivered)
{
    FabricOptions f;
    f.fabric = "fattree";
    f.ranks = 4;
    f.transport = GetParam(); // tcp: the IPv4 data path
    Ptr<Cluster> cluster = f.Build();
    Ptr<MessageLog> log = CreateObject<MessageLog>();
    log->Install(cluster, m_file);
    Ptr<MessageTransport> t = TransportChoice::Create(GetParam());
    t->Install(cluster);
    uint32_t channel = t->RegisterChannel(MakeCallback(+[](const Message&) {}), "hand-sends");
    uint32_t labelled = 0;
    t->TraceConnectWithoutContext(
        "MessageDelivered",
        MakeCallback(+[](uint32_t* n, const Message&, const std::string& label) {
            *n += label == "hand-sends";
        }).Bind(&labelled));
    const uint32_t n = 4;
    uint64_t sent = 0;
    for (uint32_t s = 0; s < n; ++s)
    {
        for (uint32_t d = 0; d < n; ++d)
        {
            for (uint64_t k = 1; k <= 3 && s != d; ++k)
            {
                uint64_t bytes = 1000 * k + 10 * s + d; // 1 to 3 packets
                t->Send(s, d, channel, static_cast<uint32_t>(k), bytes * 4);
                sent += bytes * 4;
            }
        }
    }
    Simulator::Run();
    EXPECT_EQ(t->GetMessagesDelivered(), n * (n - 1) * 3);
    EXPECT_EQ(log->GetMessages(), t->GetMessagesDelivered());
    EXPECT_EQ(log->GetBytes(), t->GetBytesDelivered());
    EXPECT_EQ(log->GetBytes(), sent);
    EXPECT_EQ(labelled, n * (n - 1) * 3);
    Simulator::Destroy(); // closes the file
    EXPECT_EQ(CountLines(m_file), 1 + n * (n - 1) * 3);
}

INSTANTIATE_TEST_SUITE_P(UdpAndTcp, MonitorsTest, ::testing::Values("udp", "tcp"));

// Without NotifyWorkloadDone (a runner that never says it is done) the sampler still
// stops once nothing else is pending: the run ends, one interval after its last event.
TEST_F(MonitorsTest, LinkMonitorNeverKeepsTheRunAlive)
{
    FabricOptions f;
    f.fabric = "ideal";
    f.ranks = 2;
    Ptr<Cluster> cluster = f.Build();
    Ptr<LinkMonitor> m = CreateObject<LinkMonitor>();
    m->SetAttribute("Interval", TimeValue(MicroSeconds(10)));
    m->Install(cluster, m_file);
    Ptr<MessageTransport> t = TransportChoice::Create("udp");
    t->Install(cluster);
    uint32_t channel = t->RegisterChannel(MakeCallback(+[](const Message&) {}));
    t->Send(0, 1, channel, 0, 100000);
    Simulator::Run(); // returns: the monitor stopped by itself
    EXPECT_GT(m->GetSamples(), 1u);
    // Samples at 10, 20, ... us: the first one at or after the last event ends it.
    EXPECT_EQ(Simulator::Now().GetPicoSeconds() % MicroSeconds(10).GetPicoSeconds(), 0);
    EXPECT_EQ(m->GetSamples(),
              static_cast<uint64_t>(Simulator::Now().GetPicoSeconds() /
                                    MicroSeconds(10).GetPicoSeconds()));
}
