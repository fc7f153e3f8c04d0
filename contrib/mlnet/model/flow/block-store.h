// SPDX-License-Identifier: GPL-2.0-only
/*
 * BlockStore: records addressed by index, in blocks that never move (the fluid
 * engine's pools, SlotPool, and the fluid transport's in-flight records).
 */

#ifndef MLNET_BLOCK_STORE_H
#define MLNET_BLOCK_STORE_H

#include <algorithm>
#include <cstdint>
#include <memory>
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

} // namespace ns3

#endif /* MLNET_BLOCK_STORE_H */
