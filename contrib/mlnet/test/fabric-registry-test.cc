// SPDX-License-Identifier: GPL-2.0-only
// FabricRegistry: fabrics by name are the helpers' fabrics, every common parameter
// reaches the built cluster, and bad names and impossible requests fail clearly.
#include "ns3/core-module.h"
#include "ns3/fabric-registry.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/ideal-switch-helper.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>

using namespace ns3;

namespace
{

class FabricRegistryTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// Links per link class of a cluster.
std::map<std::string, uint32_t>
LinksByClass(Ptr<Cluster> c)
{
    std::map<std::string, uint32_t> n;
    for (const auto& l : c->GetLinks())
    {
        ++n[l.linkClass];
    }
    return n;
}

} // namespace

TEST_F(FabricRegistryTest, MlnetRegistersItsFiveFabrics)
{
    std::vector<std::string> names = FabricRegistry::Names();
    for (const char* f : {"fattree", "graph", "ideal", "mesh", "torus"})
    {
        EXPECT_TRUE(std::find(names.begin(), names.end(), f) != names.end()) << f;
        EXPECT_FALSE(FabricRegistry::Describe(f).empty()) << f;
    }
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_EQ(FabricRegistry::FailableLinkClasses("fattree"),
              (std::vector<std::string>{"tor-agg", "agg-core"}));
}

TEST_F(FabricRegistryTest, FatTreeByNameIsTheHelpersFatTree)
{
    FabricRequest r;
    r.fabric = "fattree";
    r.ranks = 16;
    r.tiers = 3;
    Ptr<Cluster> byName = FabricRegistry::Build(r);
    FatTreeHelper direct(16);
    direct.SetTiers(3);
    Ptr<Cluster> byHelper = direct.Install();
    EXPECT_EQ(byName->GetNRanks(), 16u);
    EXPECT_EQ(LinksByClass(byName), LinksByClass(byHelper));
    EXPECT_EQ(byName->GetFabricSpec().radix, byHelper->GetFabricSpec().radix);
    EXPECT_EQ(byName->GetFabricSpec().tiers, 3u);
}

TEST_F(FabricRegistryTest, CommonParametersReachTheCluster)
{
    FabricRequest r;
    r.fabric = "ideal";
    r.ranks = 4;
    r.linkRate = DataRate("25Gbps");
    r.linkDelay = NanoSeconds(300);
    r.mtu = 1500;
    std::shared_ptr<FabricHelper> helper;
    Ptr<Cluster> c = FabricRegistry::Build(r, &helper);
    ASSERT_TRUE(std::dynamic_pointer_cast<IdealSwitchHelper>(helper));
    const FabricSpec& spec = c->GetFabricSpec();
    EXPECT_EQ(spec.kind, "ideal");
    EXPECT_EQ(spec.ranks, 4u);
    EXPECT_EQ(spec.linkRate, DataRate("25Gbps"));
    EXPECT_EQ(spec.linkDelay, NanoSeconds(300));
    EXPECT_EQ(spec.mtu, 1500u);
    EXPECT_EQ(c->GetLinks().size(), 4u);
}

TEST_F(FabricRegistryTest, TorusTakesItsRanksFromTheDimensions)
{
    FabricRequest r;
    r.fabric = "torus";
    r.ranks = 0;
    r.dims = {4, 2};
    Ptr<Cluster> c = FabricRegistry::Build(r);
    EXPECT_EQ(c->GetNRanks(), 8u);
    EXPECT_TRUE(c->GetFabricSpec().wrap);
    Simulator::Destroy();
    r.fabric = "mesh";
    EXPECT_FALSE(FabricRegistry::Build(r)->GetFabricSpec().wrap);
    Simulator::Destroy();
    r.ranks = 9;
    try
    {
        FabricRegistry::Build(r);
        FAIL() << "9 ranks on a 4x2 mesh were accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("4x2 (8 ranks)"), std::string::npos) << e.what();
    }
}

TEST_F(FabricRegistryTest, UnknownNameListsTheRegisteredOnes)
{
    FabricRequest r;
    r.fabric = "hypercube";
    try
    {
        FabricRegistry::Build(r);
        FAIL() << "an unknown fabric was built";
    }
    catch (const std::invalid_argument& e)
    {
        std::string what = e.what();
        EXPECT_NE(what.find("unknown fabric 'hypercube'"), std::string::npos) << what;
        EXPECT_NE(what.find(FabricRegistry::NameList()), std::string::npos) << what;
    }
    EXPECT_THROW(FabricRegistry::Describe("hypercube"), std::invalid_argument);
    r.fabric = "graph"; // without a file
    EXPECT_THROW(FabricRegistry::Build(r), std::invalid_argument);
}

TEST_F(FabricRegistryTest, ANewFabricIsBuiltByNameOnceRegistered)
{
    ASSERT_FALSE(FabricRegistry::Has("test-pair"));
    static const FabricRegistration pair(
        "test-pair",
        "two ranks on one switch (test)",
        {},
        [](const FabricRequest&) { return std::make_shared<IdealSwitchHelper>(2); });
    ASSERT_TRUE(FabricRegistry::Has("test-pair"));
    FabricRequest r;
    r.fabric = "test-pair";
    EXPECT_EQ(FabricRegistry::Build(r)->GetNRanks(), 2u);
}
