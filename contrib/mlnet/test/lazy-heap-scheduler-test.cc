// SPDX-License-Identifier: GPL-2.0-only
/*
 * LazyHeapScheduler hands events out in ns-3's order, (time, uid), whatever mix of
 * insertions, removals and removals of the next event reaches it: it is driven side by
 * side with ns-3's MapScheduler on random sequences with many equal times, and the two
 * must agree at every step. Removed events it still holds are dropped once they
 * outnumber the live ones.
 */
#include "ns3/lazy-heap-scheduler.h"
#include "ns3/map-scheduler.h"

#include <gtest/gtest.h>
#include <random>

using namespace ns3;

namespace
{

Scheduler::Event
MakeTestEvent(uint64_t ts, uint32_t uid)
{
    Scheduler::Event ev;
    ev.impl = nullptr; // neither scheduler reads the implementation
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = 0;
    return ev;
}

TEST(LazyHeapSchedulerTest, GivesMapSchedulersOrderUnderRandomInsertsAndRemovals)
{
    for (uint32_t seed = 1; seed <= 20; ++seed)
    {
        std::mt19937 rng(seed);
        Ptr<LazyHeapScheduler> lazy = CreateObject<LazyHeapScheduler>();
        Ptr<MapScheduler> map = CreateObject<MapScheduler>();
        std::vector<Scheduler::Event> pending; // what both hold, for picking removals
        uint32_t nextUid = 1;
        uint64_t now = 0;
        size_t removedNext = 0;
        for (int op = 0; op < 5000; ++op)
        {
            const uint32_t dice = rng() % 10;
            if (dice < 5 || pending.empty())
            {
                // Few distinct times: most insertions tie with another pending event.
                Scheduler::Event ev = MakeTestEvent(now + rng() % 8, nextUid++);
                lazy->Insert(ev);
                map->Insert(ev);
                pending.push_back(ev);
            }
            else if (dice < 8)
            {
                const size_t i = rng() % pending.size();
                lazy->Remove(pending[i]);
                map->Remove(pending[i]);
                pending[i] = pending.back();
                pending.pop_back();
            }
            else
            {
                ASSERT_EQ(lazy->PeekNext().key.m_uid, map->PeekNext().key.m_uid);
                Scheduler::Event a = lazy->RemoveNext();
                Scheduler::Event b = map->RemoveNext();
                ASSERT_EQ(a.key.m_uid, b.key.m_uid) << "seed " << seed << ", op " << op;
                ASSERT_EQ(a.key.m_ts, b.key.m_ts);
                now = a.key.m_ts;
                auto it = std::find_if(pending.begin(), pending.end(), [&a](const auto& e) {
                    return e.key.m_uid == a.key.m_uid;
                });
                ASSERT_NE(it, pending.end()) << "a removed event was handed out";
                *it = pending.back();
                pending.pop_back();
                ++removedNext;
            }
            ASSERT_EQ(lazy->IsEmpty(), map->IsEmpty());
            ASSERT_EQ(lazy->IsEmpty(), pending.empty());
        }
        // Drain: the rest leave in the same order.
        while (!map->IsEmpty())
        {
            ASSERT_FALSE(lazy->IsEmpty());
            ASSERT_EQ(lazy->RemoveNext().key.m_uid, map->RemoveNext().key.m_uid);
        }
        EXPECT_TRUE(lazy->IsEmpty());
        EXPECT_GT(removedNext, 500u); // the sequence exercised every operation
    }
}

TEST(LazyHeapSchedulerTest, DropsRemovedEventsOnceTheyOutnumberTheLive)
{
    Ptr<LazyHeapScheduler> lazy = CreateObject<LazyHeapScheduler>();
    std::vector<Scheduler::Event> events;
    for (uint32_t uid = 1; uid <= 1000; ++uid)
    {
        events.push_back(MakeTestEvent(1000 - uid, uid)); // latest first: none on top
        lazy->Insert(events.back());
    }
    EXPECT_EQ(lazy->GetHeld(), 1000u);
    // Remove the latest 900 (never at the top, so none is dropped on the way out):
    // they are held until they outnumber the live ones by more than 64, then the heap
    // is rebuilt without them. So at every moment held <= 2 live + 65.
    for (uint32_t i = 0; i < 900; ++i)
    {
        lazy->Remove(events[i]);
        const size_t live = 1000 - (i + 1);
        ASSERT_LE(lazy->GetHeld(), 2 * live + 65) << "after " << i + 1 << " removals";
    }
    EXPECT_GE(lazy->GetHeld(), 100u);
    // The live ones come out in time order: uids 1000 down to 901.
    for (uint32_t uid = 1000; uid > 900; --uid)
    {
        ASSERT_FALSE(lazy->IsEmpty());
        EXPECT_EQ(lazy->RemoveNext().key.m_uid, uid);
    }
    EXPECT_TRUE(lazy->IsEmpty());
}

} // namespace
