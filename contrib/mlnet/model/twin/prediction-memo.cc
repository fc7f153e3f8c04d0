// SPDX-License-Identifier: GPL-2.0-only
/*
 * PredictionMemo: see prediction-memo.h.
 */
#include "prediction-memo.h"

#include <boost/container_hash/hash.hpp>
#include <iterator>

namespace ns3
{

PredictionMemo::PredictionMemo(uint64_t maxBytes)
    : m_maxBytes(maxBytes)
{
}

void
PredictionMemo::SetMaxBytes(uint64_t maxBytes)
{
    m_maxBytes = maxBytes;
    while (!m_entries.empty() && m_bytes > m_maxBytes)
    {
        DropOldest();
    }
}

uint64_t
PredictionMemo::GetMaxBytes() const
{
    return m_maxBytes;
}

uint64_t
PredictionMemo::Hash(const std::vector<uint64_t>& words)
{
    return boost::hash_range(words.begin(), words.end());
}

bool
PredictionMemo::Find(const Form& form, Time& total)
{
    auto [first, last] = m_byHash.equal_range(form.hash);
    for (auto it = first; it != last; ++it)
    {
        if (it->second->form.words == form.words)
        {
            total = it->second->total;
            ++m_hits;
            return true;
        }
    }
    ++m_misses;
    return false;
}

void
PredictionMemo::Insert(Form&& form, Time total)
{
    const uint64_t bytes = form.words.size() * sizeof(uint64_t);
    if (bytes > m_maxBytes)
    {
        return;
    }
    while (!m_entries.empty() && m_bytes + bytes > m_maxBytes)
    {
        DropOldest();
    }
    const uint64_t hash = form.hash;
    m_entries.push_back({std::move(form), total});
    m_byHash.emplace(hash, std::prev(m_entries.end()));
    m_bytes += bytes;
}

void
PredictionMemo::Clear()
{
    m_byHash.clear();
    m_entries.clear();
    m_bytes = 0;
}

void
PredictionMemo::DropOldest()
{
    const auto oldest = m_entries.begin();
    auto [first, last] = m_byHash.equal_range(oldest->form.hash);
    for (auto it = first; it != last; ++it)
    {
        if (it->second == oldest)
        {
            m_byHash.erase(it);
            break;
        }
    }
    m_bytes -= oldest->form.words.size() * sizeof(uint64_t);
    m_entries.erase(oldest);
}

uint64_t
PredictionMemo::GetHits() const
{
    return m_hits;
}

uint64_t
PredictionMemo::GetMisses() const
{
    return m_misses;
}

uint64_t
PredictionMemo::GetBytes() const
{
    return m_bytes;
}

} // namespace ns3
