// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the command-line value parsers every example shares: byte sizes
 * (ParseByteSize, --bytes), data rates (ParseDataRate, --rate), times (ParseTime,
 * --delay), torus dimensions (TorusHelper::ParseDims, --torusDims) and run levels
 * (ParseRunLevel, --level). One target for all of them, so one build and one run
 * cover the family: the first byte picks the parser ('b', 'r', 't', 'd', 'l', or
 * any other byte modulo 5), the rest is the flag's value. Seeds:
 * fuzz/seeds/value-parsers/ (one per parser, e.g. "b64KiB").
 * Invariants of an accepted value, from each parser's contract: a size and a rate are
 * positive, a time is not negative, and a size is the number written times one unit,
 * exactly (no wrap-around).
 */
#include "fuzz-input.h"

#include "ns3/fabric-options.h"
#include "ns3/run-level.h"
#include "ns3/torus-helper.h"

#include <cctype>

namespace
{

/// \return the leading decimal number of text (after spaces), saturated at UINT64_MAX
uint64_t
LeadingNumber(const std::string& text)
{
    size_t i = text.find_first_not_of(" \t\n\v\f\r");
    uint64_t n = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
    {
        const uint64_t digit = text[i] - '0';
        n = n > (UINT64_MAX - digit) / 10 ? UINT64_MAX : n * 10 + digit;
    }
    return n;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    const char which = static_cast<char>(data[0]);
    return ns3::fuzz::AcceptOrReject(data + 1, size - 1, [which](const std::string& text) {
        using ns3::fuzz::Require;
        const int parser = which == 'b'   ? 0
                           : which == 'r' ? 1
                           : which == 't' ? 2
                           : which == 'd' ? 3
                           : which == 'l' ? 4
                                          : static_cast<unsigned char>(which) % 5;
        switch (parser)
        {
        case 0: {
            const uint64_t bytes = ns3::ParseByteSize(text);
            Require(bytes > 0, "ParseByteSize accepted a zero size");
            // The size is the number written times one unit, exactly (no wrap-around).
            const uint64_t n = LeadingNumber(text);
            const uint64_t units[] = {1, 1000, 1000000, 1000000000, 1 << 10, 1 << 20, 1 << 30};
            bool exact = false;
            for (uint64_t unit : units)
            {
                exact = exact || (n <= UINT64_MAX / unit && bytes == n * unit);
            }
            Require(exact,
                    "ParseByteSize's size is not the number written times a unit "
                    "(overflow)");
            break;
        }
        case 1:
            Require(ns3::ParseDataRate(text).GetBitRate() > 0, "ParseDataRate accepted zero");
            break;
        case 2:
            Require(!ns3::ParseTime(text).IsStrictlyNegative(),
                    "ParseTime returned a negative time");
            break;
        case 3:
            // Sizes below 2 are TorusHelper::Install's to reject.
            (void)ns3::TorusHelper::ParseDims(text);
            break;
        default:
            (void)ns3::ParseRunLevel(text);
        }
    });
}
