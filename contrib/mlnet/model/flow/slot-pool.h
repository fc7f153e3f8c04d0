// SPDX-License-Identifier: GPL-2.0-only
/*
 * SlotPool: records addressed by stable slot numbers for the fluid engine.
 */

#ifndef MLNET_SLOT_POOL_H
#define MLNET_SLOT_POOL_H

#include "ns3/block-store.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup mlnet
 * \brief Records addressed by a stable slot number, a released slot reused first.
 *
 * The fluid engine's flows and transfers live here: an id handed out stays valid until
 * it is released, memory is bounded by the most records alive at once, and starting a
 * record after one ended allocates nothing. A reused record keeps the members it had
 * (its vectors' capacity among them); Acquire's caller sets every field it reads.
 * Records never move (BlockStore).
 */
template <typename T>
class SlotPool
{
public:
    /// Records per block.
    static constexpr uint32_t BLOCK = BlockStore<T>::BLOCK;

    /// \brief A free slot (a released one if any, else a new default-constructed one).
    uint32_t Acquire()
    {
        if (m_free.empty())
        {
            m_items.Resize(m_items.size() + 1);
            return m_items.size() - 1;
        }
        const uint32_t slot = m_free.back();
        m_free.pop_back();
        return slot;
    }

    /// \brief Hand a slot back; its record stays readable until Acquire reuses it.
    void Release(uint32_t slot)
    {
        m_free.push_back(slot);
    }

    /// \brief The record in a slot (unchecked).
    T& operator[](uint32_t slot)
    {
        return m_items[slot];
    }

    /// \copydoc operator[]
    const T& operator[](uint32_t slot) const
    {
        return m_items[slot];
    }

    /// \brief The record in a slot; throws std::out_of_range past the highest slot.
    const T& at(uint32_t slot) const
    {
        if (slot >= m_items.size())
        {
            throw std::out_of_range("SlotPool: slot " + std::to_string(slot) + " of " +
                                    std::to_string(m_items.size()));
        }
        return m_items[slot];
    }

    /// \brief Slots ever handed out (live and released): the bound of a scan.
    uint32_t size() const
    {
        return m_items.size();
    }

private:
    BlockStore<T> m_items;
    std::vector<uint32_t> m_free;
};

} // namespace ns3

#endif /* MLNET_SLOT_POOL_H */
