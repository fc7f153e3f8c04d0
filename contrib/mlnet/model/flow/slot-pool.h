// SPDX-License-Identifier: GPL-2.0-only
/*
 * SlotPool and BlockStore: records addressed by stable slot numbers (and indices) for
 * the fluid engine.
 */

#ifndef MLNET_SLOT_POOL_H
#define MLNET_SLOT_POOL_H

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup mlnet
 * \brief Records addressed by index, kept in blocks of BLOCK that never move.
 *
 * Growing allocates blocks and copies nothing, where a vector would copy every record
 * to a new one twice as large and hold both at once: at a million transfers started
 * in one instant that copying and its page faults were a fifth of the run. A reference
 * to a record stays valid until the store is cleared.
 */
template <typename T>
class BlockStore
{
public:
    /// Records per block (a power of two).
    static constexpr uint32_t BLOCK = 1024;

    /// \brief Hold at least n records (the new ones default-constructed).
    void Resize(uint32_t n)
    {
        while (m_blocks.size() * BLOCK < n)
        {
            m_blocks.emplace_back(new T[BLOCK]());
        }
        m_size = std::max(m_size, n);
    }

    /// \brief The record at an index (unchecked).
    T& operator[](uint32_t i)
    {
        return m_blocks[i / BLOCK][i % BLOCK];
    }

    /// \copydoc operator[]
    const T& operator[](uint32_t i) const
    {
        return m_blocks[i / BLOCK][i % BLOCK];
    }

    /// \return the records held
    uint32_t size() const
    {
        return m_size;
    }

    /// \brief Drop every record and block.
    void clear()
    {
        m_blocks.clear();
        m_size = 0;
    }

private:
    std::vector<std::unique_ptr<T[]>> m_blocks; //!< BLOCK records each
    uint32_t m_size{0};                         //!< records held
};

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
