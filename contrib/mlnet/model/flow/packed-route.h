// SPDX-License-Identifier: GPL-2.0-only
/*
 * PackedRoute: the route of a fluid transfer, kept in the transfer's record.
 */
#ifndef MLNET_PACKED_ROUTE_H
#define MLNET_PACKED_ROUTE_H

#include "ns3/fluid-network.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

namespace ns3
{

/**
 * \ingroup mlnet
 * \brief A route's directed links with their shares, in the record of the transfer
 * that crosses them.
 *
 * A hashed path (every share 1) of up to kInPlace links, which is every route of a
 * fat-tree, a rail or a rail-optimized fabric, keeps its link keys in place: 32 bytes
 * and no allocation, where a FluidNetwork::LinkShares costs its 24 bytes plus 16 a
 * link on the heap (a 1024-rank direct all-to-all has a million transfers in flight).
 * A longer route or an even ECMP split keeps its (key, share) pairs on the heap.
 * Links are in the order given.
 */
class PackedRoute
{
public:
    /// Links a route of shares 1 keeps in place.
    static constexpr uint32_t kInPlace = 6;

    PackedRoute() = default;

    ~PackedRoute()
    {
        Free();
    }

    PackedRoute(const PackedRoute&) = delete;
    PackedRoute& operator=(const PackedRoute&) = delete;

    /// \brief Take another's links (it is left empty).
    PackedRoute(PackedRoute&& o) noexcept
    {
        *this = std::move(o);
    }

    /// \copydoc PackedRoute(PackedRoute&&)
    PackedRoute& operator=(PackedRoute&& o) noexcept
    {
        if (this != &o)
        {
            Free();
            m_size = o.m_size;
            m_spilled = o.m_spilled;
            m_links = o.m_links;
            o.m_size = 0;
            o.m_spilled = false;
        }
        return *this;
    }

    /// \brief Take a route (its links in order, each with its share).
    void Assign(const FluidNetwork::LinkShares& route)
    {
        Free();
        m_size = static_cast<uint32_t>(route.size());
        bool unit = m_size <= kInPlace;
        for (uint32_t k = 0; unit && k < m_size; ++k)
        {
            unit = route[k].second == 1.0;
        }
        if (unit)
        {
            for (uint32_t k = 0; k < m_size; ++k)
            {
                m_links.keys[k] = route[k].first;
            }
            return;
        }
        m_links.pairs = new std::pair<uint32_t, double>[m_size];
        std::copy(route.begin(), route.end(), m_links.pairs);
        m_spilled = true;
    }

    /// \return the links it crosses
    uint32_t Size() const
    {
        return m_size;
    }

    /// \return the directed link key of its k-th link (k < Size())
    uint32_t Key(uint32_t k) const
    {
        return m_spilled ? m_links.pairs[k].first : m_links.keys[k];
    }

    /// \return the share of the transfer's rate its k-th link carries (k < Size())
    double Share(uint32_t k) const
    {
        return m_spilled ? m_links.pairs[k].second : 1.0;
    }

private:
    void Free()
    {
        if (m_spilled)
        {
            delete[] m_links.pairs;
            m_spilled = false;
        }
        m_size = 0;
    }

    /// The keys in place, or the (key, share) pairs on the heap (m_spilled).
    union Links {
        std::array<uint32_t, kInPlace> keys;
        std::pair<uint32_t, double>* pairs;
    };

    Links m_links{};
    uint32_t m_size{0};
    bool m_spilled{false};
};

} // namespace ns3

#endif // MLNET_PACKED_ROUTE_H
