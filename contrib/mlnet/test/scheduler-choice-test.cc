// SPDX-License-Identifier: GPL-2.0-only
/*
 * ns-3's event schedulers give our runs the same answer: a ring all-reduce on the
 * fast path and on the IPv4 path finishes at the same picosecond with the same event
 * count on ns-3's MapScheduler (its default), HeapScheduler, CalendarScheduler and
 * PriorityQueueScheduler, on our LazyHeapScheduler and on ProgressScheduler (which
 * every example installs, over LazyHeapScheduler), because all of them run events of
 * equal time in the order they were scheduled. So --SchedulerType is a speed choice
 * only (performance.md, "Per-hop cost").
 */
#include "ns3/core-module.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/udp-message-transport.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class SchedulerChoiceTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        GlobalValue::GetValueByName("SchedulerType", m_before);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        GlobalValue::Bind("SchedulerType", m_before);
    }

    TypeIdValue m_before;
};

TEST_F(SchedulerChoiceTest, EverySchedulerGivesTheSameRun)
{
    for (const std::string dataPath : {"fast", "ipv4"})
    {
        std::vector<std::pair<int64_t, uint64_t>> runs;
        for (const char* name : {"ns3::MapScheduler",
                                 "ns3::HeapScheduler",
                                 "ns3::CalendarScheduler",
                                 "ns3::PriorityQueueScheduler",
                                 "ns3::LazyHeapScheduler",
                                 "ns3::ProgressScheduler"})
        {
            GlobalValue::Bind("SchedulerType", TypeIdValue(TypeId::LookupByName(name)));
            IdealSwitchHelper star(4);
            star.SetDataPath(dataPath);
            Ptr<Cluster> cluster = star.Install();
            Ptr<UdpMessageTransport> transport = CreateObject<UdpMessageTransport>();
            transport->Install(cluster);
            Ptr<RingAllReduce> ar = CreateObject<RingAllReduce>();
            ar->Setup(transport, {0, 1, 2, 3}, 256 * 1024);
            ar->Start();
            Simulator::Run();
            runs.emplace_back(ar->GetDuration().GetPicoSeconds(), Simulator::GetEventCount());
            Simulator::Destroy();
        }
        // Completion: 2(n-1) steps of S/n bytes each; at least the serialisation.
        EXPECT_GT(runs[0].first,
                  DataRate("100Gbps").CalculateBytesTxTime(6 * 64 * 1024).GetPicoSeconds());
        for (size_t i = 1; i < runs.size(); ++i)
        {
            EXPECT_EQ(runs[i], runs[0]) << dataPath << ", scheduler " << i;
        }
    }
}

} // namespace
