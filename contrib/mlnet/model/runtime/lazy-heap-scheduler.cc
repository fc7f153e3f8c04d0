// SPDX-License-Identifier: GPL-2.0-only
/*
 * LazyHeapScheduler: see lazy-heap-scheduler.h.
 */
#include "lazy-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetLazyHeapScheduler");
NS_OBJECT_ENSURE_REGISTERED(LazyHeapScheduler);

namespace
{
/// std::push_heap keeps the greatest on top: "greater" puts the earliest there. A
/// type, not a function pointer, so that the heap algorithms inline the comparison.
struct Later
{
    bool operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
    {
        return b.key < a.key;
    }
};
} // namespace

TypeId
LazyHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LazyHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<LazyHeapScheduler>();
    return tid;
}

LazyHeapScheduler::LazyHeapScheduler() = default;
LazyHeapScheduler::~LazyHeapScheduler() = default;

void
LazyHeapScheduler::Insert(const Event& ev)
{
    m_heap.push_back(ev);
    std::push_heap(m_heap.begin(), m_heap.end(), Later{});
    ++m_live;
}

bool
LazyHeapScheduler::IsEmpty() const
{
    return m_live == 0;
}

void
LazyHeapScheduler::DropRemovedTop() const
{
    while (!m_removed.empty() && !m_heap.empty())
    {
        auto it = m_removed.find(m_heap.front().key.m_uid);
        if (it == m_removed.end())
        {
            return;
        }
        m_removed.erase(it);
        std::pop_heap(m_heap.begin(), m_heap.end(), Later{});
        m_heap.pop_back();
    }
}

Scheduler::Event
LazyHeapScheduler::PeekNext() const
{
    NS_ASSERT_MSG(m_live > 0, "no pending event");
    DropRemovedTop();
    return m_heap.front();
}

Scheduler::Event
LazyHeapScheduler::RemoveNext()
{
    NS_ASSERT_MSG(m_live > 0, "no pending event");
    DropRemovedTop();
    std::pop_heap(m_heap.begin(), m_heap.end(), Later{});
    Event ev = m_heap.back();
    m_heap.pop_back();
    --m_live;
    return ev;
}

void
LazyHeapScheduler::Remove(const Event& ev)
{
    NS_ASSERT_MSG(m_live > 0, "no pending event to remove");
    m_removed.insert(ev.key.m_uid);
    --m_live;
    if (m_removed.size() > m_live + 64)
    {
        // More removed than live: rebuild without them (their impls are not read).
        auto removed = [this](const Event& e) { return m_removed.count(e.key.m_uid) > 0; };
        m_heap.erase(std::remove_if(m_heap.begin(), m_heap.end(), removed), m_heap.end());
        std::make_heap(m_heap.begin(), m_heap.end(), Later{});
        m_removed.clear();
    }
}

size_t
LazyHeapScheduler::GetHeld() const
{
    return m_heap.size();
}

} // namespace ns3
