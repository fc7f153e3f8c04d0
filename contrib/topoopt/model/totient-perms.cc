// SPDX-License-Identifier: GPL-2.0-only
#include "totient-perms.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

TotientPerms::TotientPerms(uint32_t servers)
    : m_servers(servers)
{
    if (servers == 0)
    {
        throw std::invalid_argument("TotientPerms: 0 servers; use n >= 1");
    }
}

uint32_t
TotientPerms::GetServers() const
{
    return m_servers;
}

std::vector<uint32_t>
TotientPerms::GroupSizes() const
{
    std::vector<uint32_t> sizes;
    for (uint32_t g = 1; g <= m_servers; ++g)
    {
        if (m_servers % g == 0)
        {
            sizes.push_back(g);
        }
    }
    return sizes;
}

void
TotientPerms::CheckGroupSize(uint32_t g) const
{
    if (g == 0 || m_servers % g != 0)
    {
        throw std::invalid_argument("TotientPerms: group size " + std::to_string(g) +
                                    " does not divide the " + std::to_string(m_servers) +
                                    " servers; use a divisor of n");
    }
}

std::vector<uint32_t>
TotientPerms::Candidates(uint32_t g) const
{
    CheckGroupSize(g);
    const uint32_t base = m_servers / g;
    std::vector<uint32_t> jumps;
    for (uint32_t k = 1; k <= g; ++k)
    {
        if (std::gcd(k, g) == 1)
        {
            jumps.push_back(base * k);
        }
    }
    return jumps;
}

uint32_t
TotientPerms::MaxRings(uint32_t g, bool bidirectional) const
{
    CheckGroupSize(g);
    if (g == 1)
    {
        return 0;
    }
    if (g == 2)
    {
        return 1;
    }
    uint32_t phi = EulerPhi(g);
    return bidirectional ? phi / 2 : phi;
}

std::vector<uint32_t>
TotientPerms::SelectRings(uint32_t g, uint32_t rings, bool bidirectional) const
{
    std::vector<uint32_t> cand = Candidates(g);
    if (g == 1)
    {
        return {};
    }
    rings = std::min(rings, MaxRings(g, bidirectional));
    std::vector<uint32_t> chosen;
    if (rings == 0)
    {
        return chosen;
    }
    const double lo = cand.front();
    const double hi = cand.back();
    double ratio = 1.0;
    if (bidirectional)
    {
        ratio = std::pow(hi / lo, 1.0 / rings);
    }
    else if (rings > 1)
    {
        ratio = std::pow(hi / lo, 1.0 / (rings - 1));
    }
    std::set<uint32_t> used;
    double v = lo;
    for (uint32_t i = 0; i < rings; ++i, v *= ratio)
    {
        uint32_t pick = 0;
        bool found = false;
        // The candidate list is short (phi(g) <= n); a linear scan is enough.
        for (uint32_t j : cand)
        {
            if (!used.count(j) && j + 1e-9 >= v)
            {
                pick = j;
                found = true;
                break;
            }
        }
        if (!found)
        {
            for (uint32_t j : cand)
            {
                if (!used.count(j))
                {
                    pick = j;
                    found = true;
                    break;
                }
            }
        }
        if (!found)
        {
            break;
        }
        chosen.push_back(pick);
        used.insert(pick);
        if (bidirectional)
        {
            used.insert(m_servers - pick);
        }
    }
    return chosen;
}

std::vector<uint32_t>
TotientPerms::RingMembers(uint32_t g, uint32_t jump, uint32_t offset) const
{
    CheckGroupSize(g);
    std::vector<uint32_t> members;
    uint32_t v = offset % m_servers;
    for (uint32_t t = 0; t < g; ++t)
    {
        members.push_back(v);
        v = static_cast<uint32_t>((static_cast<uint64_t>(v) + jump) % m_servers);
    }
    return members;
}

uint32_t
TotientPerms::EulerPhi(uint32_t g)
{
    uint32_t result = g;
    uint32_t m = g;
    for (uint32_t p = 2; static_cast<uint64_t>(p) * p <= m; ++p)
    {
        if (m % p == 0)
        {
            while (m % p == 0)
            {
                m /= p;
            }
            result -= result / p;
        }
    }
    if (m > 1)
    {
        result -= result / m;
    }
    return result;
}

} // namespace ns3
