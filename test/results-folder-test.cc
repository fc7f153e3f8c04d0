// SPDX-License-Identifier: GPL-2.0-only
// Results files into folders that do not exist yet, as on a fresh clone
// (--json=results/torus-a2a.json in the README): the example creates the folders; a
// folder it cannot create is refused before any simulation, with one error line.
#include "example-process.h"

#include <filesystem>

using namespace mlnettest;

namespace
{

namespace fs = std::filesystem;

class ResultsFolderTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_dir = fs::path(::testing::TempDir()) / ("mlnet-results-" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
    }

    fs::path m_dir;
};

} // namespace

TEST_F(ResultsFolderTest, ExampleCreatesMissingFolders)
{
    fs::path json = m_dir / "results/torus-a2a.json";
    fs::path csv = m_dir / "results/rows/torus-a2a.csv";
    ExampleRun r = RunExample("collective-validation",
                              "--fabric=torus --torusDims=4x4 --collective=alltoall "
                              "--algorithm=direct --bytes=256KiB --json=" +
                                  json.string() + " --csv=" + csv.string());
    ASSERT_EQ(r.status, 0) << r.err;
    nlohmann::json doc = ReadJson(json.string());
    ASSERT_EQ(doc["rows"].size(), 1u);
    EXPECT_EQ(doc["rows"][0]["collective"], "alltoall");
    EXPECT_TRUE(fs::exists(csv));
    EXPECT_NE(r.out.find("results: " + json.string()), std::string::npos) << r.out;
}

TEST_F(ResultsFolderTest, AFolderThatCannotBeMadeIsRefusedBeforeTheRun)
{
    // The folder would have to be a regular file.
    std::ofstream(m_dir / "file") << "x";
    std::string bad = (m_dir / "file/sweep.json").string();
    // The sweep (16 points, a minute) would print a progress line per point and the
    // table before writing; refused first, it prints nothing but the error.
    ExampleRun r = RunExample("collective-validation", "--sweep --json=" + bad);
    ExpectOneErrorLine(r, "unwritable --json");
    EXPECT_NE(r.err.find("cannot create the folder '" + (m_dir / "file").string() + "'"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
}
