// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fluid engines' heaps of timed entries with lazy deletion.
 */
#ifndef MLNET_FLUID_HEAP_H
#define MLNET_FLUID_HEAP_H

#include <algorithm>
#include <functional>
#include <vector>

namespace ns3
{
namespace fluidheap
{

/**
 * \ingroup mlnet
 * \brief Push an entry on a min-heap kept in a vector (Entry has operator>).
 *
 * FluidNetwork and LineRateTransfers keep their flows' ends this way: an entry made
 * stale by a rate change stays in the heap (it is skipped when it reaches the top)
 * until DropStale removes it, and the vector's tail can hold popped entries (see
 * LineRateTransfers::Advance).
 */
template <typename Entry>
void
Push(std::vector<Entry>& heap, const Entry& e)
{
    heap.push_back(e);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
}

/// \brief Move the least of heap[0, size) to heap[size - 1] (size > 0); the rest stays a heap.
template <typename Entry>
void
PopTo(std::vector<Entry>& heap, size_t size)
{
    std::pop_heap(heap.begin(), heap.begin() + size, std::greater<>());
}

/// \brief Remove the least entry (the heap is not empty).
template <typename Entry>
void
Pop(std::vector<Entry>& heap)
{
    PopTo(heap, heap.size());
    heap.pop_back();
}

/// \brief Remove every entry `stale` says is stale and restore the heap, in place.
template <typename Entry, typename Stale>
void
DropStale(std::vector<Entry>& heap, Stale stale)
{
    heap.erase(std::remove_if(heap.begin(), heap.end(), stale), heap.end());
    std::make_heap(heap.begin(), heap.end(), std::greater<>());
}

} // namespace fluidheap
} // namespace ns3

#endif // MLNET_FLUID_HEAP_H
