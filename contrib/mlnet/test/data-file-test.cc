// SPDX-License-Identifier: GPL-2.0-only
// DataFile: exactly one place is looked at -- $MLNET_DATA_DIR if set, the source tree
// for a library in its build folder, else share/mlnet beside the library -- so an
// installed program never reads the source tree (the install test proves it with the
// source tree hidden).
#include "mlnet-test-support.h"

#include "ns3/data-file.h"

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;
using namespace mlnettest;

namespace
{

/// Sets MLNET_DATA_DIR for one test and restores its absence afterwards.
class DataFileTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        // Tests run from the build tree; an override in the caller's environment
        // would change what they see.
        unsetenv(DataFile::kEnvironment);
    }

    void TearDown() override
    {
        unsetenv(DataFile::kEnvironment);
    }
};

} // namespace

TEST_F(DataFileTest, FromTheBuildTreeLooksInTheSourceTreeOnly)
{
    // This test binary links the library in its build folder.
    ASSERT_EQ(std::filesystem::canonical(DataFile::LibraryDirectory()),
              std::filesystem::canonical(DataFile::BuildDirectory()));
    std::vector<std::string> c = DataFile::Candidates("contrib/mlnet/data/prices.json");
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(std::filesystem::path(c[0]).filename(), "prices.json");
    EXPECT_NE(c[0].find("/contrib/mlnet/data/prices.json"), std::string::npos) << c[0];
    EXPECT_TRUE(std::filesystem::exists(DataFile::Find("workloads/models/dlrm.json")));
    EXPECT_TRUE(std::filesystem::is_directory(DataFile::Find("workloads/training")));
    EXPECT_TRUE(std::filesystem::exists(DataFile::Find("utils/plot.py")));
}

TEST_F(DataFileTest, AnInstalledLibraryLooksBesideItselfOnly)
{
    // <prefix>/lib -> <prefix>/share/mlnet/<path without "contrib/">; no source tree.
    EXPECT_EQ(DataFile::Candidates("contrib/mlnet/data/prices.json", "/opt/mlnet/lib"),
              std::vector<std::string>{"/opt/mlnet/share/mlnet/mlnet/data/prices.json"});
    EXPECT_EQ(DataFile::Candidates("workloads/models", "/opt/mlnet/lib"),
              std::vector<std::string>{"/opt/mlnet/share/mlnet/workloads/models"});
    EXPECT_EQ(DataFile::Candidates("utils/plot.py", "/home/u/moved/lib"),
              std::vector<std::string>{"/home/u/moved/share/mlnet/utils/plot.py"});
    // Unknown location (no dladdr): nowhere, rather than a guess.
    EXPECT_TRUE(DataFile::Candidates("utils/plot.py", "").empty());
    EXPECT_EQ(DataFile::InstalledPath("contrib/topoopt/data/x.json"), "topoopt/data/x.json");
    EXPECT_EQ(DataFile::InstalledPath("workloads/contrib/x"), "workloads/contrib/x");
}

TEST_F(DataFileTest, TheEnvironmentOverridesEveryLocation)
{
    setenv(DataFile::kEnvironment, "/elsewhere/data", 1);
    EXPECT_EQ(DataFile::Candidates("contrib/mlnet/data/prices.json", "/opt/mlnet/lib"),
              std::vector<std::string>{"/elsewhere/data/mlnet/data/prices.json"});
    // Also for the build tree: the override is the only place looked at.
    EXPECT_EQ(DataFile::Candidates("workloads/models"),
              std::vector<std::string>{"/elsewhere/data/workloads/models"});
    std::string m = InvalidArgumentMessage([] { DataFile::Find("workloads/models"); });
    EXPECT_NE(m.find("shipped data file 'workloads/models' not found (looked at "
                     "/elsewhere/data/workloads/models); "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("set MLNET_DATA_DIR to a folder laid out like <prefix>/share/mlnet"),
              std::string::npos)
        << m;
    // An empty value is no override.
    setenv(DataFile::kEnvironment, "", 1);
    EXPECT_TRUE(std::filesystem::exists(DataFile::Find("workloads/models/dlrm.json")));
}

TEST_F(DataFileTest, AMissingFileSaysWhereItLooked)
{
    std::string m = InvalidArgumentMessage([] { DataFile::Find("workloads/none.json"); });
    EXPECT_NE(m.find("'workloads/none.json' not found (looked at "), std::string::npos) << m;
    EXPECT_NE(m.find("/workloads/none.json)"), std::string::npos) << m;
}
