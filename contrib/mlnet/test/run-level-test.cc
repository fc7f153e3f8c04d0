// SPDX-License-Identifier: GPL-2.0-only
// RunLevel: level names, defaults and the message for a level a scenario lacks.
#include "ns3/run-level.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(RunLevelTest, NamesRoundTripAndUnimplementedLevelsSayWhatExists)
{
    for (RunLevel l : {RunLevel::PACKET, RunLevel::FLOW, RunLevel::ANALYTIC})
    {
        EXPECT_EQ(ParseRunLevel(ToString(l)), l);
    }
    EXPECT_THROW(ParseRunLevel("Packet"), std::invalid_argument);
    RunLevelOption option("demo", {RunLevel::FLOW, RunLevel::PACKET});
    EXPECT_EQ(option.Get(), RunLevel::FLOW); // the first is the default
    EXPECT_EQ(option.Levels(), "flow | packet");
}
