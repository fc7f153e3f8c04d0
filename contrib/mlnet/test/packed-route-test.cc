// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of PackedRoute, the route a fluid transfer keeps in its record: a hashed path
 * of up to six links in place, anything else on the heap, the same links and shares
 * either way, and moves that leave nothing behind.
 */
#include "ns3/packed-route.h"

#include <gtest/gtest.h>
#include <utility>

using namespace ns3;

namespace
{

FluidNetwork::LinkShares
Path(uint32_t links, uint32_t first)
{
    FluidNetwork::LinkShares path;
    for (uint32_t k = 0; k < links; ++k)
    {
        path.emplace_back(first + 7 * k, 1.0);
    }
    return path;
}

/// Every link and share of a route, in order.
FluidNetwork::LinkShares
Read(const PackedRoute& route)
{
    FluidNetwork::LinkShares out;
    for (uint32_t k = 0; k < route.Size(); ++k)
    {
        out.emplace_back(route.Key(k), route.Share(k));
    }
    return out;
}

TEST(PackedRouteTest, GivesBackEveryLinkAndShareInOrder)
{
    const FluidNetwork::LinkShares split{{4, 1.0}, {9, 0.5}, {11, 0.5}, {2, 1.0}};
    const FluidNetwork::LinkShares thirds{{3, 1.0 / 3}, {5, 1.0 / 3}, {8, 1.0 / 3}};
    for (const auto& route : {Path(0, 1),
                              Path(1, 1),
                              Path(4, 100),
                              Path(PackedRoute::kInPlace, 5),
                              Path(PackedRoute::kInPlace + 1, 5),
                              Path(40, 0),
                              split,
                              thirds})
    {
        PackedRoute packed;
        packed.Assign(route);
        ASSERT_EQ(packed.Size(), route.size());
        EXPECT_EQ(Read(packed), route); // shares to the bit
    }
}

TEST(PackedRouteTest, AReusedRecordTakesItsNewRouteWhateverItHeld)
{
    // A transfer's record is reused by the next transfer (SlotPool): in place after
    // spilled, spilled after in place, spilled after spilled.
    const FluidNetwork::LinkShares split{{1, 0.25}, {2, 0.75}};
    PackedRoute packed;
    for (const auto& route : {split, Path(3, 9), Path(12, 2), split, Path(2, 0), Path(0, 0)})
    {
        packed.Assign(route);
        EXPECT_EQ(Read(packed), route);
    }
}

TEST(PackedRouteTest, MovesLeaveTheSourceEmptyAndTheTargetWhole)
{
    for (const auto& route : {Path(5, 3), Path(9, 3), FluidNetwork::LinkShares{{6, 0.5}, {8, 0.5}}})
    {
        PackedRoute a;
        a.Assign(route);
        PackedRoute b(std::move(a));
        EXPECT_EQ(a.Size(), 0u); // NOLINT(bugprone-use-after-move): moved-from is empty
        EXPECT_EQ(Read(b), route);
        PackedRoute c;
        c.Assign(Path(20, 1)); // its own heap links are freed by the move
        c = std::move(b);
        EXPECT_EQ(b.Size(), 0u); // NOLINT(bugprone-use-after-move)
        EXPECT_EQ(Read(c), route);
    }
    // Records in a growing vector move; none may lose its route.
    std::vector<PackedRoute> records(1);
    records[0].Assign(Path(8, 40));
    for (uint32_t i = 1; i < 100; ++i)
    {
        records.emplace_back();
        records.back().Assign(Path(i % 9, i));
    }
    EXPECT_EQ(Read(records[0]), Path(8, 40));
    for (uint32_t i = 1; i < 100; ++i)
    {
        EXPECT_EQ(Read(records[i]), Path(i % 9, i)) << i;
    }
}

TEST(PackedRouteTest, AHashedPathOfUpToSixLinksTakesNoMoreThan32Bytes)
{
    // What the record costs a transfer in flight (a std::vector of pairs took 24 bytes
    // plus 16 a link on the heap); every fat-tree path fits in place.
    EXPECT_LE(sizeof(PackedRoute), 32u);
    EXPECT_GE(PackedRoute::kInPlace, 6u);
}

} // namespace
