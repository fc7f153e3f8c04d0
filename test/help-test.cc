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
    // Both spellings take the rail-only branch: too many GPUs for --domains x --domainSize
    // is refused there only (--domains=0 is refused by the flag itself, on any fabric).
    const std::string big = " --domains=1024 --domainSize=64";
    ExampleRun dash = RunExample("distributed-collective", "--fabric=rail-only" + big);
    ExampleRun bare = RunExample("distributed-collective", "--fabric=railonly" + big);
    ExpectOneErrorLine(dash, "rail-only");
    ExpectOneErrorLine(bare, "railonly");
    EXPECT_NE(dash.err.find("--domains x --domainSize"), std::string::npos) << dash.err;
    EXPECT_EQ(dash.err, bare.err);
}
