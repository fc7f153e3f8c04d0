// SPDX-License-Identifier: GPL-2.0-only
/*
 * The max-min oracle of the fluid tests: weighted max-min fair rates by the textbook
 * loop, from scratch, written independently of FluidNetwork's heap-driven progressive
 * filling. Raise every unfrozen rate by the largest amount no link allows more of,
 * freeze the flows that cross a link now full, repeat. O(rounds x flows x links):
 * for small cases only. WaterFillWithPriority adds the two classes of strict priority
 * (a sender NIC's FIFO head first).
 */
#ifndef MLNET_TEST_MAX_MIN_ORACLE_H
#define MLNET_TEST_MAX_MIN_ORACLE_H

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace mlnettest
{

/// (directed link key, share) of one flow
using OracleShares = std::vector<std::pair<uint32_t, double>>;

/**
 * \param capacity per link key, its capacity
 * \param flows per flow id, its links and shares
 * \return per flow id, its max-min fair rate
 */
inline std::map<uint32_t, double>
WaterFill(const std::vector<double>& capacity, const std::map<uint32_t, OracleShares>& flows)
{
    std::map<uint32_t, double> rate;
    std::set<uint32_t> unfrozen;
    for (const auto& [f, links] : flows)
    {
        rate[f] = 0;
        unfrozen.insert(f);
    }
    while (!unfrozen.empty())
    {
        std::map<uint32_t, double> load;
        std::map<uint32_t, double> weight;
        for (const auto& [f, links] : flows)
        {
            for (const auto& [k, s] : links)
            {
                load[k] += s * rate[f];
                weight[k] += unfrozen.count(f) ? s : 0.0;
            }
        }
        double step = std::numeric_limits<double>::infinity();
        for (const auto& [k, w] : weight)
        {
            if (w > 0)
            {
                step = std::min(step, std::max(0.0, capacity[k] - load[k]) / w);
            }
        }
        std::set<uint32_t> full;
        for (const auto& [k, w] : weight)
        {
            if (w > 0 && std::max(0.0, capacity[k] - load[k]) / w <= step * (1 + 1e-12))
            {
                full.insert(k);
            }
        }
        std::vector<uint32_t> freeze;
        for (uint32_t f : unfrozen)
        {
            rate[f] += step;
            for (const auto& [k, s] : flows.at(f))
            {
                if (full.count(k))
                {
                    freeze.push_back(f);
                    break;
                }
            }
        }
        for (uint32_t f : freeze)
        {
            unfrozen.erase(f);
        }
    }
    return rate;
}

/**
 * \brief Strict priority over two classes: the priority flows share the whole
 * capacity max-min fairly, the others what they leave.
 */
inline std::map<uint32_t, double>
WaterFillWithPriority(const std::vector<double>& capacity,
                      const std::map<uint32_t, OracleShares>& priority,
                      const std::map<uint32_t, OracleShares>& others)
{
    std::map<uint32_t, double> rate = WaterFill(capacity, priority);
    std::vector<double> left = capacity;
    for (const auto& [f, links] : priority)
    {
        for (const auto& [k, s] : links)
        {
            left[k] = std::max(0.0, left[k] - s * rate[f]);
        }
    }
    for (const auto& [f, r] : WaterFill(left, others))
    {
        rate[f] = r;
    }
    return rate;
}

} // namespace mlnettest

#endif // MLNET_TEST_MAX_MIN_ORACLE_H
