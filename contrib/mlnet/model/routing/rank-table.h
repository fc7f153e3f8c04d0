// SPDX-License-Identifier: GPL-2.0-only
/*
 * RankTable: a node's forwarding table by destination rank, stored compactly.
 *
 * A node of a training fabric sends towards thousands of ranks through a handful of
 * next-hop sets: a host through its NIC(s), a ToR down one link to each of its hosts
 * and up its spine links for every other rank, a spine down one link per ToR. So the
 * table keeps each distinct set once, and maps a rank to the index of its set. Ranks
 * are numbered host by host along the fabric's build order, so consecutive ranks share
 * a set: the map is stored as runs (first rank of a run and its set; a lookup is a
 * binary search over the runs) when that is smaller than one 16-bit index per rank,
 * and as that dense index otherwise (a fabric whose ranks are scattered, e.g. a random
 * expander). A fat-tree node holds a few dozen runs whatever the rank count, where the
 * table used to be one vector per rank at every node (O(ranks) per node, O(ranks^2)
 * allocations in all).
 *
 * Get returns the same set, element for element and in the same order, as the dense
 * table the RankTable was made from, so a flow hash indexing it picks the same entry.
 * Left out: updates in place (RoutePlanner rebuilds the table after a failure).
 *
 * DeferredRankTable holds a node's table as the function that makes it, run on the
 * first lookup: RoutePlanner::Install gives every node one, so a node that never
 * forwards a frame (every node of a flow-level run, which moves no packet) never
 * spends the O(ranks) its table costs (2 GB over the nodes of a 32k-GPU fabric).
 */
#ifndef MLNET_RANK_TABLE_H
#define MLNET_RANK_TABLE_H

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Destination rank -> set of next hops (devices, interfaces), each set stored once.
 * \tparam T a next hop (Ptr<NetDevice>, an interface index)
 */
template <typename T>
class RankTable
{
public:
    /// One rank's candidates, in the order a flow hash indexes them.
    using Set = std::vector<T>;

    RankTable() = default;

    /**
     * \brief From the dense form: next[rank] = the set towards that rank.
     * \param next one set per rank
     */
    explicit RankTable(const std::vector<Set>& next)
    {
        std::map<Set, uint32_t> index;
        std::vector<Set> sets;
        std::vector<uint32_t> setOfRank(next.size());
        for (size_t r = 0; r < next.size(); ++r)
        {
            auto [it, inserted] = index.emplace(next[r], static_cast<uint32_t>(sets.size()));
            if (inserted)
            {
                sets.push_back(next[r]);
            }
            setOfRank[r] = it->second;
        }
        Assign(std::move(sets), setOfRank);
    }

    /**
     * \brief From the compact form.
     * \param sets the distinct sets
     * \param setOfRank setOfRank[rank] = index into `sets`; throws std::invalid_argument
     *        for an index out of range
     */
    RankTable(std::vector<Set> sets, const std::vector<uint32_t>& setOfRank)
    {
        Assign(std::move(sets), setOfRank);
    }

    /// \return the set towards `rank` (empty: none, or a rank beyond the table)
    const Set& Get(uint32_t rank) const
    {
        if (rank >= m_nRanks)
        {
            return Empty();
        }
        if (!m_dense.empty())
        {
            return m_sets[m_dense[rank]];
        }
        // The last run starting at or before `rank` (the first run starts at 0).
        auto it = std::upper_bound(m_runStart.begin(), m_runStart.end(), rank);
        return m_sets[m_runSet[static_cast<size_t>(it - m_runStart.begin()) - 1]];
    }

    /// \return the number of ranks the table covers
    uint32_t GetNRanks() const
    {
        return m_nRanks;
    }

    /// \return the number of distinct sets stored
    uint32_t GetNSets() const
    {
        return static_cast<uint32_t>(m_sets.size());
    }

    /// \return the number of runs of consecutive ranks sharing a set (0 when stored dense)
    uint32_t GetNRuns() const
    {
        return static_cast<uint32_t>(m_runStart.size());
    }

    /// \return bytes the rank -> set map takes (runs or dense index, not the sets)
    size_t GetMapBytes() const
    {
        return m_runStart.size() * sizeof(uint32_t) + m_runSet.size() * sizeof(uint32_t) +
               m_dense.size() * sizeof(uint16_t);
    }

    /// \brief Empty the table.
    void Clear()
    {
        *this = RankTable();
    }

private:
    static const Set& Empty()
    {
        static const Set empty;
        return empty;
    }

    void Assign(std::vector<Set> sets, const std::vector<uint32_t>& setOfRank)
    {
        m_sets = std::move(sets);
        m_nRanks = static_cast<uint32_t>(setOfRank.size());
        size_t runs = 0;
        for (size_t r = 0; r < setOfRank.size(); ++r)
        {
            if (setOfRank[r] >= m_sets.size())
            {
                throw std::invalid_argument(
                    "rank " + std::to_string(r) + " refers to next-hop set " +
                    std::to_string(setOfRank[r]) + " of " + std::to_string(m_sets.size()) +
                    "; give every rank an existing set");
            }
            runs += (r == 0 || setOfRank[r] != setOfRank[r - 1]) ? 1 : 0;
        }
        // Runs cost 8 bytes each, the dense index 2 bytes per rank (if sets fit 16 bits).
        bool dense = runs * 8 > setOfRank.size() * 2 &&
                     m_sets.size() <= std::numeric_limits<uint16_t>::max();
        if (dense)
        {
            m_dense.assign(setOfRank.begin(), setOfRank.end());
            return;
        }
        m_runStart.reserve(runs);
        m_runSet.reserve(runs);
        for (size_t r = 0; r < setOfRank.size(); ++r)
        {
            if (r == 0 || setOfRank[r] != setOfRank[r - 1])
            {
                m_runStart.push_back(static_cast<uint32_t>(r));
                m_runSet.push_back(setOfRank[r]);
            }
        }
    }

    std::vector<Set> m_sets;          //!< the distinct sets
    uint32_t m_nRanks{0};             //!< ranks 0..m_nRanks-1 are mapped
    std::vector<uint32_t> m_runStart; //!< first rank of each run, increasing (runs form)
    std::vector<uint32_t> m_runSet;   //!< set index of each run (runs form)
    std::vector<uint16_t> m_dense;    //!< set index per rank (dense form)
};

/**
 * \brief A RankTable made on its first lookup (see the file comment).
 * \tparam T a next hop (Ptr<NetDevice>, an interface index)
 */
template <typename T>
class DeferredRankTable
{
public:
    /// Makes the table.
    using Maker = std::function<RankTable<T>()>;

    /// \brief Hold a made table.
    void Set(RankTable<T> table)
    {
        m_table = std::move(table);
        m_make = nullptr;
    }

    /// \brief Drop the table; `make` makes the next one on the first lookup.
    void Defer(Maker make)
    {
        m_table.Clear();
        m_make = std::move(make);
    }

    /// \return the table, made now if it was deferred
    const RankTable<T>& Table() const
    {
        if (m_make)
        {
            Maker make = std::move(m_make);
            m_make = nullptr;
            m_table = make();
        }
        return m_table;
    }

    /// \return the set towards `rank` (RankTable::Get)
    const typename RankTable<T>::Set& Get(uint32_t rank) const
    {
        return Table().Get(rank);
    }

    /// \return whether the table is made (false while deferred)
    bool IsMade() const
    {
        return !m_make;
    }

    /// \brief Drop the table and its maker.
    void Clear()
    {
        m_table.Clear();
        m_make = nullptr;
    }

private:
    mutable RankTable<T> m_table; //!< the table, once made
    mutable Maker m_make;         //!< makes it on the first lookup (null once made)
};

} // namespace ns3

#endif // MLNET_RANK_TABLE_H
