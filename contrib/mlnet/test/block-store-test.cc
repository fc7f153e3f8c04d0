// SPDX-License-Identifier: GPL-2.0-only
/*
 * BlockStore, under the fluid engine's pools: it grows by blocks without moving a
 * record, value-initializes new records, never shrinks on Resize and empties on clear.
 */
#include "ns3/block-store.h"

#include <gtest/gtest.h>
#include <utility>

using namespace ns3;

TEST(BlockStoreTest, GrowsByBlocksWithoutMovingARecord)
{
    using Store = BlockStore<std::pair<uint32_t, double>>;
    Store store;
    EXPECT_EQ(store.size(), 0u);
    store.Resize(3);
    EXPECT_EQ(store.size(), 3u);
    store[2] = {7, 0.5};
    const auto* address = &store[2];
    store.Resize(3 * Store::BLOCK + 1);
    EXPECT_EQ(store.size(), 3 * Store::BLOCK + 1);
    EXPECT_EQ(&store[2], address);
    EXPECT_EQ(store[2].first, 7u);
    EXPECT_EQ(store[3 * Store::BLOCK].first, 0u); // new records are value-initialized
    EXPECT_EQ(store[3 * Store::BLOCK].second, 0.0);
    store.Resize(5); // never shrinks
    EXPECT_EQ(store.size(), 3 * Store::BLOCK + 1);
    store.clear();
    EXPECT_EQ(store.size(), 0u);
}
