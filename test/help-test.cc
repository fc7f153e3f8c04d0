// SPDX-License-Identifier: GPL-2.0-only
// Help that matches the program: the bracketed default of --ranks is what the help
// text explains, and distributed-collective's --fabric names what it takes.
#include "example-process.h"

using namespace mlnettest;

namespace
{

/// The help line of one flag ("    --name: ... [default]").
std::string
HelpLine(const std::string& help, const std::string& flag)
{
    size_t at = help.find("--" + flag + ":");
    return at == std::string::npos ? "" : help.substr(at, help.find('\n', at) - at);
}

} // namespace

TEST(ExampleHelp, RanksHelpSaysWhatItsDefaultMeans)
{
    std::string v = HelpLine(RunExample("collective-validation", "--help").out, "ranks");
    EXPECT_NE(v.find("0 = 8, or the product of --torusDims"), std::string::npos) << v;
    EXPECT_NE(v.find("[0]"), std::string::npos) << v;
    std::string d = HelpLine(RunExample("distributed-collective", "--help").out, "ranks");
    EXPECT_EQ(d.find("default 8"), std::string::npos) << d;
    EXPECT_NE(d.find("[16]"), std::string::npos) << d;
}

TEST(ExampleHelp, DistributedCollectiveFabricListsRailOnly)
{
    std::string f = HelpLine(RunExample("distributed-collective", "--help").out, "fabric");
    EXPECT_NE(f.find("rail-only (or railonly) is --domains x --domainSize GPUs"), std::string::npos)
        << f;
    // Both spellings take the rail-only branch (an invalid HB domain count shows it).
    ExampleRun dash = RunExample("distributed-collective", "--fabric=rail-only --domains=0");
    ExampleRun bare = RunExample("distributed-collective", "--fabric=railonly --domains=0");
    ExpectOneErrorLine(dash, "rail-only");
    ExpectOneErrorLine(bare, "railonly");
    EXPECT_EQ(dash.err, bare.err);
}
