// SPDX-License-Identifier: GPL-2.0-only
/*
 * LazyHeapScheduler: an ns-3 event scheduler on a binary heap in one vector, whose
 * Remove only records the event's uid; a removed event is dropped when it reaches the
 * top (or when the removed outnumber the live, by rebuilding the heap).
 *
 * Why: the flow level keeps few events pending (a completion, this instant's update,
 * the next deliveries) and replaces its completion event often (Simulator::Remove). On
 * ns-3's MapScheduler each insertion allocates a tree node and walks pointers (8.6 % of
 * a 1024-rank pairwise all-to-all at the flow level, `perf record`); ns-3's
 * HeapScheduler and PriorityQueueScheduler find the event to remove by a scan over
 * every pending event, which costs the packet level (a 256-rank ring all-reduce 1.66 s
 * on MapScheduler, 2.99 s on PriorityQueueScheduler). Here an insertion is a push into
 * a vector and a removal a hash-set insertion.
 *
 * Order: events leave by (time, uid), the order of every ns-3 scheduler (uids grow in
 * scheduling order), so a run gives the same results on it as on MapScheduler
 * (SchedulerChoiceTest, LazyHeapSchedulerTest).
 *
 * A removed event's EventImpl is never read: the simulator unreferences it in
 * Simulator::Remove, so the heap keeps only its key.
 */
#ifndef MLNET_LAZY_HEAP_SCHEDULER_H
#define MLNET_LAZY_HEAP_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <unordered_set>
#include <vector>

namespace ns3
{

/**
 * \brief A binary-heap Scheduler with O(1) removal (removed events are skipped when
 * they reach the top).
 */
class LazyHeapScheduler : public Scheduler
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LazyHeapScheduler();
    ~LazyHeapScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// \return the events held, removed ones not yet dropped included
    size_t GetHeld() const;

private:
    /// Drop removed events from the top of the heap.
    void DropRemovedTop() const;

    mutable std::vector<Event> m_heap;              //!< std::push_heap order, earliest on top
    mutable std::unordered_set<uint32_t> m_removed; //!< uids removed but still held
    size_t m_live{0};                               //!< events held and not removed
};

} // namespace ns3

#endif // MLNET_LAZY_HEAP_SCHEDULER_H
