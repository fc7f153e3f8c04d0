// SPDX-License-Identifier: GPL-2.0-only
// main() of every GoogleTest binary of the project. The simulator runs at
// picosecond resolution so that serialization times (9002 B at 100 Gb/s =
// 720.16 ns) are exact in golden-value tests. Time::SetResolution may be called
// only once per process and before any simulation, hence here and nowhere else.
#include "ns3/nstime.h"

#include <gtest/gtest.h>

int
main(int argc, char** argv)
{
    ns3::Time::SetResolution(ns3::Time::PS);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
