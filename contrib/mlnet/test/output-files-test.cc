// SPDX-License-Identifier: GPL-2.0-only
// Tests of OutputFiles: a run's files appear together when it succeeds and not at all
// when it fails; paths are refused before any work.
#include "mlnet-test-support.h"

#include "ns3/output-files.h"
#include "ns3/run-report.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

using namespace ns3;

namespace
{

class OutputFilesTest : public ::testing::Test
{
protected:
    void TearDown() override
    {
        if (OutputFiles::IsStaging())
        {
            OutputFiles::Discard();
        }
    }

    /// Every file and folder under the test's folder (relative names, hidden ones too).
    std::set<std::string> Tree() const
    {
        const std::vector<std::string> paths = mlnettest::ListTree(m_dir);
        return {paths.begin(), paths.end()};
    }

    std::string Path(const std::string& name) const
    {
        return m_dir + "/" + name;
    }

    static std::string Read(const std::string& path)
    {
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

    mlnettest::TempFolder m_folder{"mlnet-output-files"};
    const std::string m_dir{m_folder.Path()};
};

/// Limits the size of any file this process writes (disk full, as a write sees it).
class FileSizeLimit
{
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &m_old);
        m_handler = std::signal(SIGXFSZ, SIG_IGN); // the write fails with EFBIG instead
        rlimit r = m_old;
        r.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &r);
    }

    ~FileSizeLimit()
    {
        setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_handler);
    }

private:
    rlimit m_old{};
    void (*m_handler)(int){nullptr};
};

TEST_F(OutputFilesTest, TemporaryNamesAreHiddenAndKeepTheExtension)
{
    const std::string pid = std::to_string(getpid());
    EXPECT_EQ(OutputFiles::TemporaryName("out/run.json", 7), "out/.run.tmp-" + pid + "-7.json");
    EXPECT_EQ(OutputFiles::TemporaryName("cap-0-1.pcap", 2), ".cap-0-1.tmp-" + pid + "-2.pcap");
    EXPECT_EQ(OutputFiles::TemporaryName("a/b/noext", 3), "a/b/.noext.tmp-" + pid + "-3");
}

TEST_F(OutputFilesTest, CommitRenamesEveryStagedFile)
{
    ASSERT_TRUE(OutputFiles::Begin());
    EXPECT_FALSE(OutputFiles::Begin()); // a nested run joins the session
    OutputFiles::WriteText(Path("run.json"), "{}\n");
    OutputFiles::WriteText(Path("run.csv"), "a\n1\n");
    // A streamed writer (a pcap, a monitor) opens the staged name and is closed by Commit.
    auto stream = std::make_shared<std::ofstream>();
    bool closed = false;
    stream->open(OutputFiles::Stage(Path("deep/cap.pcap"), [stream, &closed]() {
        *stream << "tail";
        stream->close();
        closed = true;
    }));
    *stream << "head-";
    // Nothing under a final name yet; the temporaries are hidden (a leading dot).
    for (const std::string& name : Tree())
    {
        std::string base = std::filesystem::path(name).filename().string();
        EXPECT_TRUE(name == "deep" || base[0] == '.') << name;
    }
    EXPECT_EQ(Tree().size(), 4u); // deep/ and three temporaries
    EXPECT_EQ(Read(OutputFiles::Current(Path("run.json"))), "{}\n");
    EXPECT_EQ(OutputFiles::Staged().size(), 3u);

    OutputFiles::Commit();
    EXPECT_TRUE(closed);
    EXPECT_FALSE(OutputFiles::IsStaging());
    EXPECT_EQ(Tree(), (std::set<std::string>{"run.json", "run.csv", "deep", "deep/cap.pcap"}));
    EXPECT_EQ(Read(Path("run.json")), "{}\n");
    EXPECT_EQ(Read(Path("run.csv")), "a\n1\n");
    EXPECT_EQ(Read(Path("deep/cap.pcap")), "head-tail");
    EXPECT_EQ(OutputFiles::Current(Path("run.json")), Path("run.json"));
}

TEST_F(OutputFilesTest, DiscardRemovesEveryTemporaryAndTheFoldersItMade)
{
    std::filesystem::create_directories(Path("kept"));
    ASSERT_TRUE(OutputFiles::Begin());
    OutputFiles::WriteText(Path("new/a/run.json"), "{}\n");
    OutputFiles::WriteText(Path("kept/run.csv"), "a\n");
    OutputFiles::Declare(Path("declared/only.json")); // a folder made for a file never written
    std::ofstream(OutputFiles::Stage(Path("cap.pcap"))) << "frames";
    EXPECT_TRUE(std::filesystem::is_directory(Path("declared")));
    OutputFiles::Discard();
    EXPECT_EQ(Tree(), (std::set<std::string>{"kept"})); // the folder that was there stays
}

TEST_F(OutputFilesTest, AnEarlierResultSurvivesAFailedRun)
{
    OutputFiles::WriteText(Path("run.json"), "earlier\n"); // outside a run: written at once
    EXPECT_EQ(Read(Path("run.json")), "earlier\n");

    // Discarded run.
    ASSERT_TRUE(OutputFiles::Begin());
    OutputFiles::WriteText(Path("run.json"), "later\n");
    OutputFiles::Discard();
    EXPECT_EQ(Read(Path("run.json")), "earlier\n");

    // A writer that failed where it cannot throw (Simulator::Destroy): Commit throws
    // its message and renames nothing.
    ASSERT_TRUE(OutputFiles::Begin());
    OutputFiles::WriteText(Path("run.json"), "later\n");
    OutputFiles::Stage(Path("flows.xml"), []() {
        OutputFiles::Fail("flows.xml", "--flowmon: writing flows.xml failed");
    });
    try
    {
        OutputFiles::Commit();
        ADD_FAILURE() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_STREQ(e.what(), "--flowmon: writing flows.xml failed");
    }
    EXPECT_FALSE(OutputFiles::IsStaging());
    EXPECT_EQ(Tree(), (std::set<std::string>{"run.json"}));
    EXPECT_EQ(Read(Path("run.json")), "earlier\n");
}

TEST_F(OutputFilesTest, DroppedFileGetsNoFinalName)
{
    OutputFiles::WriteText(Path("fig.png"), "earlier");
    ASSERT_TRUE(OutputFiles::Begin());
    std::ofstream(OutputFiles::Stage(Path("fig.png"))) << "half a figure";
    OutputFiles::WriteText(Path("run.json"), "{}\n");
    OutputFiles::Drop(Path("fig.png")); // plot.py failed
    OutputFiles::Commit();
    EXPECT_EQ(Tree(), (std::set<std::string>{"fig.png", "run.json"}));
    EXPECT_EQ(Read(Path("fig.png")), "earlier");
}

TEST_F(OutputFilesTest, BadPathsAreRefusedAtDeclaration)
{
    std::ofstream(Path("file")) << "x";
    auto message = [](const std::string& path) {
        try
        {
            OutputFiles::Declare(path);
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    // Parent is a file: the folder cannot be made.
    std::string m = message(Path("file/sub/run.json"));
    EXPECT_NE(m.find("cannot create the folder '" + Path("file/sub") + "'"), std::string::npos)
        << m;
    EXPECT_NE(m.find(Path("file/sub/run.json")), std::string::npos) << m;
    // Empty, a folder, a trailing slash.
    EXPECT_NE(message("").find("output file name is empty"), std::string::npos);
    EXPECT_NE(message(m_dir).find("is a folder, not a file"), std::string::npos);
    EXPECT_NE(message(m_dir + "/new/").find("is a folder, not a file"), std::string::npos);
    // A name longer than the file system takes (the probe finds it).
    m = message(Path(std::string(300, 'n') + ".json"));
    EXPECT_NE(m.find("File name too long"), std::string::npos) << m;
    // An unwritable folder (root writes everywhere: checked for other users only).
    std::filesystem::create_directories(Path("ro"));
    std::filesystem::permissions(Path("ro"),
                                 std::filesystem::perms::owner_read |
                                     std::filesystem::perms::owner_exec);
    if (geteuid() != 0)
    {
        EXPECT_NE(message(Path("ro/run.json")).find("is not writable"), std::string::npos);
    }
    std::filesystem::permissions(Path("ro"), std::filesystem::perms::owner_all);
    // Nothing was made by a refused declaration; several paths at once skip empty ones.
    EXPECT_EQ(Tree(), (std::set<std::string>{"file", "ro"}));
    EXPECT_NO_THROW(
        OutputFiles::Declare({{"json", ""}, {"csv", Path("ok/run.json")}, {"plot", ""}}));
    EXPECT_NO_THROW(OutputFiles::Declare({{"json", ""}})); // one flag left empty
    EXPECT_THROW(OutputFiles::Declare(std::string()), std::invalid_argument);
    EXPECT_TRUE(std::filesystem::is_directory(Path("ok")));
}

TEST_F(OutputFilesTest, ARefusedPathNamesItsFlag)
{
    std::ofstream(Path("file")) << "x";
    std::filesystem::create_directories(Path("adir"));
    auto message = [](const std::function<void()>& declare) {
        try
        {
            declare();
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    // The line starts with the flag as typed, then what is wrong with the path.
    const std::string csv = Path("file/r.csv");
    EXPECT_EQ(message([&] {
                  OutputFiles::Declare({{"json", Path("r.json")}, {"csv", csv}});
              }),
              "--csv=" + csv + ": cannot create the folder '" + Path("file") +
                  "': Not a directory; choose another path");
    EXPECT_EQ(message([&] {
                  OutputFiles::Declare({{"json", Path("adir")}});
              }),
              "--json=" + Path("adir") + ": is a folder, not a file; give a file name (e.g. " +
                  Path("adir/run.json") + ")");
    // A pcap prefix names its flag too.
    EXPECT_EQ(message([&] {
                  OutputFiles::DeclarePrefix({"pcap", Path("file/cap")});
              }),
              "--pcap=" + Path("file/cap") + ": cannot create the folder '" + Path("file") +
                  "': Not a directory; choose another path");
    EXPECT_EQ(message([&] { OutputFiles::DeclarePrefix({"pcap", ""}); }), "(accepted)");
    // A path derived from another flag (--out=DIR gives DIR/run.json) names that flag
    // and the file.
    const std::string derived = Path("file/run.json");
    EXPECT_EQ(message([&] {
                  OutputFiles::Declare({{"out", derived, Path("file")}});
              }),
              "--out=" + Path("file") + " (file '" + derived + "'): cannot create the folder '" +
                  Path("file") + "': Not a directory; choose another path");
    // A path declared without a flag (library use) names the path.
    EXPECT_EQ(message([&] { OutputFiles::Declare(csv); }),
              "output file '" + csv + "': cannot create the folder '" + Path("file") +
                  "': Not a directory; choose another path");
    // Nothing was made by the refusals.
    EXPECT_EQ(Tree(), (std::set<std::string>{"adir", "file"}));
}

TEST_F(OutputFilesTest, TwoFilesOneFailingNeitherAppears)
{
    // RunReport::Main is the session: the JSON is written, the CSV fails (the file
    // system refuses it), and the run ends in an error with neither file there.
    OutputFiles::WriteText(Path("run.csv"), "earlier\n");
    int status = 0;
    {
        FileSizeLimit limit(4096);
        status = RunReport::Main([&] {
            OutputFiles::Declare(
                {{"json", Path("out/run.json")}, {"csv", Path("run.csv")}}); // before any work
            OutputFiles::WriteText(Path("out/run.json"), "{}\n");
            OutputFiles::WriteText(Path("run.csv"), std::string(8192, 'x'));
        });
    }
    EXPECT_EQ(status, 1);
    EXPECT_FALSE(OutputFiles::IsStaging());
    EXPECT_EQ(Tree(), (std::set<std::string>{"run.csv"}));
    EXPECT_EQ(Read(Path("run.csv")), "earlier\n");

    // The same run within the limit commits both.
    status = RunReport::Main([&] {
        OutputFiles::WriteText(Path("out/run.json"), "{}\n");
        OutputFiles::WriteText(Path("run.csv"), "a\n");
    });
    EXPECT_EQ(status, 0);
    EXPECT_EQ(Tree(), (std::set<std::string>{"out", "out/run.json", "run.csv"}));
}

TEST_F(OutputFilesTest, OutsideARunFilesAreWrittenAtOnce)
{
    EXPECT_FALSE(OutputFiles::IsStaging());
    EXPECT_EQ(OutputFiles::Stage(Path("made/cap.pcap")), Path("made/cap.pcap"));
    EXPECT_TRUE(std::filesystem::is_directory(Path("made"))); // ready for the writer
    OutputFiles::Commit();                                    // no session: nothing to do
    OutputFiles::WriteText(Path("run.json"), "{}\n");
    EXPECT_EQ(Tree(), (std::set<std::string>{"made", "run.json"}));
}

TEST_F(OutputFilesTest, TerminateLeavesNothingBehind)
{
    // NS_FATAL_ERROR and NS_ASSERT end the program with std::terminate: the session's
    // temporaries go with it.
    EXPECT_DEATH(
        {
            OutputFiles::Begin();
            OutputFiles::WriteText(Path("run.json"), "{}\n");
            std::ofstream(OutputFiles::Stage(Path("cap.pcap"))) << "frames";
            std::terminate();
        },
        "");
    EXPECT_TRUE(Tree().empty());
}

} // namespace
