// SPDX-License-Identifier: GPL-2.0-only
// TrainingClusterRunner's configuration checks and fabric list parsing (no simulation;
// the end-to-end runs are in test/training-cluster-test.cc).
#include "ns3/training-cluster-runner.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(TrainingClusterRunnerTest, DefaultConfigurationIsValid)
{
    TrainingClusterConfig c;
    EXPECT_NO_THROW(c.Validate());
    EXPECT_EQ(c.gpus % c.hbDomain, 0u);
}

TEST(TrainingClusterRunnerTest, ImpossibleConfigurationsThrow)
{
    auto bad = [](auto change) {
        TrainingClusterConfig c;
        change(c);
        EXPECT_THROW(TrainingClusterRunner{c}, std::invalid_argument);
    };
    bad([](TrainingClusterConfig& c) { c.gpus = 7; });      // odd
    bad([](TrainingClusterConfig& c) { c.hbDomain = 3; });  // does not divide 16
    bad([](TrainingClusterConfig& c) { c.hbDomain = 16; }); // one domain: no rails to compare
    bad([](TrainingClusterConfig& c) { c.degree = 16; });   // more ports than peers
    bad([](TrainingClusterConfig& c) { c.scale = 0; });
    bad([](TrainingClusterConfig& c) { c.iterations = 0; });
    bad([](TrainingClusterConfig& c) { c.transport = "quic"; });
    bad([](TrainingClusterConfig& c) { c.fabrics = {"torus"}; });
    bad([](TrainingClusterConfig& c) { c.bandwidth = DataRate(100000000001ULL); }); // not /4
}

TEST(TrainingClusterRunnerTest, FabricListsParse)
{
    EXPECT_EQ(TrainingClusterRunner::ParseFabrics("all"),
              (std::vector<std::string>{"fattree", "topoopt", "railonly"}));
    EXPECT_EQ(TrainingClusterRunner::ParseFabrics("railonly,fattree"),
              (std::vector<std::string>{"railonly", "fattree"}));
    EXPECT_THROW(TrainingClusterRunner::ParseFabrics("fattree,clos"), std::invalid_argument);
    EXPECT_THROW(TrainingClusterRunner::ParseFabrics(""), std::invalid_argument);
}
