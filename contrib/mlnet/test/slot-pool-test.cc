// SPDX-License-Identifier: GPL-2.0-only
/*
 * SlotPool, the fluid engine's record store: slots are handed out in order, a released
 * slot is reused first (and keeps its record's members), a record never moves while
 * the pool grows past its blocks, and at() refuses a slot never handed out.
 */
#include "ns3/slot-pool.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>

using namespace ns3;

TEST(SlotPoolTest, HandsOutSlotsInOrderAndReusesReleasedOnesFirst)
{
    SlotPool<std::vector<int>> pool;
    EXPECT_EQ(pool.size(), 0u);
    EXPECT_EQ(pool.Acquire(), 0u);
    EXPECT_EQ(pool.Acquire(), 1u);
    EXPECT_EQ(pool.Acquire(), 2u);
    pool[1].assign(100, 7);
    pool.Release(1);
    EXPECT_EQ(pool[1].size(), 100u); // readable until reused
    EXPECT_EQ(pool.Acquire(), 1u);
    EXPECT_EQ(pool[1].size(), 100u); // a reused record keeps its members
    EXPECT_EQ(pool.Acquire(), 3u);
    EXPECT_EQ(pool.size(), 4u);
}

TEST(SlotPoolTest, RecordsStayInPlaceWhileThePoolGrows)
{
    using Pool = SlotPool<uint64_t>;
    Pool pool;
    const uint32_t first = pool.Acquire();
    pool[first] = 42;
    const uint64_t* address = &pool[first];
    for (uint32_t i = 1; i < 5 * Pool::BLOCK + 3; ++i)
    {
        const uint32_t slot = pool.Acquire();
        ASSERT_EQ(slot, i);
        pool[slot] = slot;
    }
    EXPECT_EQ(&pool[first], address);
    EXPECT_EQ(pool[first], 42u);
    for (uint32_t slot = 1; slot < pool.size(); ++slot)
    {
        ASSERT_EQ(pool[slot], slot);
    }
    // Within a block, records are contiguous; the next block starts elsewhere.
    EXPECT_EQ(&pool[Pool::BLOCK - 1], &pool[0] + (Pool::BLOCK - 1));
    EXPECT_EQ(pool.size(), 5 * Pool::BLOCK + 3);
}

TEST(SlotPoolTest, AtRefusesASlotNeverHandedOut)
{
    SlotPool<int> pool;
    EXPECT_THROW(pool.at(0), std::out_of_range);
    pool[pool.Acquire()] = 5;
    EXPECT_EQ(pool.at(0), 5);
    EXPECT_THROW(pool.at(1), std::out_of_range); // its block exists, the slot does not
}
