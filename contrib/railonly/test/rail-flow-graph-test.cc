// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rail fabrics at the flow level without devices (--dataPath=auto, what
 * railonly-llm builds there): an LLM iteration on rail-only, rail-optimized and the
 * fat-tree gives the fast path's iteration, twin and bytes on every link to the bit,
 * the NVLink links' own rate and delay included (FabricHelper::SetDataPath("none")),
 * over udp and over roce (its default; the fast path has PFC and ECN marking, the
 * graph neither).
 */
#include "small-llm-options.h"

#include "ns3/llm-training-runner.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;
using railtest::SmallOptions;

TEST(RailFlowGraphTest, AnIterationWithoutDevicesEqualsTheFastPathsOnEveryRailFabric)
{
    for (const char* transport : {"udp", "roce"})
    {
        for (const char* fabric : {"rail-only", "rail-optimized", "fat-tree"})
        {
            LlmRunOptions o = SmallOptions();
            o.transport = transport;
            const std::string what = std::string(fabric) + " " + transport;
            o.dataPath = "fast";
            LlmRunResult fast = LlmTrainingRunner::Run(o, fabric, false);
            Simulator::Destroy();
            o.dataPath = "auto";
            LlmRunResult graph = LlmTrainingRunner::Run(o, fabric, false);
            Simulator::Destroy();

            EXPECT_EQ(fast.dataPath, "fast") << what;
            EXPECT_EQ(graph.dataPath, "none") << what;
            ASSERT_EQ(graph.iterations.size(), 1u) << what;
            ASSERT_EQ(fast.iterations.size(), 1u) << what;
            EXPECT_GT(fast.iterations[0].GetDuration(), Time(0)) << what;
            EXPECT_EQ(graph.iterations[0].GetDuration(), fast.iterations[0].GetDuration()) << what;
            EXPECT_EQ(graph.twinIterationS, fast.twinIterationS) << what;
            EXPECT_EQ(graph.bytesByLinkClass, fast.bytesByLinkClass) << what;
            EXPECT_GT(graph.bytesByLinkClass.at("nvlink"), 0u) << what;
            EXPECT_EQ(graph.linkBytes, fast.linkBytes) << what << ": path choices differ";
            EXPECT_EQ(graph.health.counts.messagesDelivered.count,
                      fast.health.counts.messagesDelivered.count)
                << what;
        }
    }
}
