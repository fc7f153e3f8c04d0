// SPDX-License-Identifier: GPL-2.0-only
/*
 * PredictionMemo: the dependency-aware predictions a model has made, by the replay
 * problem each one solved, so that a schedule that is an earlier one under new names
 * is answered without replaying it.
 *
 * What it keeps. A problem's form is everything TimelineReplay reads to time a
 * schedule, written down as words with the ranks and directed links renamed in
 * increasing order (the schedule's ranks 0, 1, ... in the order of their numbers, and
 * likewise its links): the model's parameters, the steps and their messages
 * (sender, receiver, bytes, chain, step, reduce), every pair's route (links, shares,
 * links leaving the sender) and pipeline latencies, and the capacities of the links
 * used. The replay solves a renamed problem exactly as the original when the renaming
 * keeps the order (it is how it indexes a small schedule: timeline-replay.h), so two
 * schedules with equal forms have equal predictions, to the bit. The data-parallel
 * rings of one size on the rails of a GPT iteration are such schedules, as are the
 * HB domains' all-reduces.
 *
 * A form is compared word for word, never by its hash alone. Memory is bounded (the
 * oldest forms are dropped first); a form larger than the bound is not kept.
 */
#ifndef MLNET_PREDICTION_MEMO_H
#define MLNET_PREDICTION_MEMO_H

#include "ns3/nstime.h"

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup mlnet
 * \brief Predictions by the form of the problem they solved (see the file comment).
 */
class PredictionMemo
{
public:
    /// A problem's form: its words (see the file comment) and their hash.
    struct Form
    {
        std::vector<uint64_t> words; //!< the problem, renamed in order
        uint64_t hash{0};            //!< Hash(words)
    };

    /// \param maxBytes bound of the kept forms' words (bytes); 0 keeps nothing
    explicit PredictionMemo(uint64_t maxBytes = 0);

    /// \brief Set the bound (bytes), dropping the oldest forms above it.
    void SetMaxBytes(uint64_t maxBytes);
    /// \return the bound (bytes)
    uint64_t GetMaxBytes() const;

    /// \return a hash of the words (mixes every word; collisions only cost a comparison)
    static uint64_t Hash(const std::vector<uint64_t>& words);

    /**
     * \brief Look a form up (counted as a hit or a miss).
     * \param form the problem's form, its hash set
     * \param total set to the prediction of an equal form when there is one
     * \return whether an equal form was found
     */
    bool Find(const Form& form, Time& total);
    /// \brief Keep a form's prediction (not kept when the form alone exceeds the bound).
    void Insert(Form&& form, Time total);
    /// \brief Forget every form (the counters stay).
    void Clear();

    /// \return lookups answered from an equal form
    uint64_t GetHits() const;
    /// \return lookups that found none
    uint64_t GetMisses() const;
    /// \return bytes of the forms kept
    uint64_t GetBytes() const;

private:
    /// A kept form and its prediction.
    struct Entry
    {
        Form form;
        Time total;
    };

    void DropOldest();

    std::list<Entry> m_entries; //!< oldest first
    std::unordered_multimap<uint64_t, std::list<Entry>::iterator> m_byHash;
    uint64_t m_maxBytes;
    uint64_t m_bytes{0};
    uint64_t m_hits{0};
    uint64_t m_misses{0};
};

} // namespace ns3

#endif // MLNET_PREDICTION_MEMO_H
