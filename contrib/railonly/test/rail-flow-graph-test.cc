// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rail fabrics at the flow level without devices (--dataPath=auto, what
 * railonly-llm builds there for udp): an LLM iteration on rail-only, rail-optimized
 * and the fat-tree gives the fast path's iteration, twin and bytes on every link to the
 * bit, the NVLink links' own rate and delay included (FabricHelper::SetDataPath("none")).
 */
#include "small-llm-options.h"

#include "ns3/llm-training-runner.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;
using railtest::SmallOptions;

TEST(RailFlowGraphTest, AnIterationWithoutDevicesEqualsTheFastPathsOnEveryRailFabric)
{
    for (const char* fabric : {"rail-only", "rail-optimized", "fat-tree"})
    {
        LlmRunOptions o = SmallOptions();
        o.dataPath = "fast";
        LlmRunResult fast = LlmTrainingRunner::Run(o, fabric, false);
        Simulator::Destroy();
        o.dataPath = "auto";
        LlmRunResult graph = LlmTrainingRunner::Run(o, fabric, false);
        Simulator::Destroy();

        EXPECT_EQ(fast.dataPath, "fast") << fabric;
        EXPECT_EQ(graph.dataPath, "none") << fabric;
        ASSERT_EQ(graph.iterations.size(), 1u) << fabric;
        ASSERT_EQ(fast.iterations.size(), 1u) << fabric;
        EXPECT_GT(fast.iterations[0].GetDuration(), Time(0)) << fabric;
        EXPECT_EQ(graph.iterations[0].GetDuration(), fast.iterations[0].GetDuration()) << fabric;
        EXPECT_EQ(graph.twinIterationS, fast.twinIterationS) << fabric;
        EXPECT_EQ(graph.bytesByLinkClass, fast.bytesByLinkClass) << fabric;
        EXPECT_GT(graph.bytesByLinkClass.at("nvlink"), 0u) << fabric;
        EXPECT_EQ(graph.linkBytes, fast.linkBytes) << fabric << ": path choices differ";
        EXPECT_EQ(graph.health.counts.messagesDelivered.count,
                  fast.health.counts.messagesDelivered.count)
            << fabric;
    }
}
