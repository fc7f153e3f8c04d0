// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the command-line value parsers every example shares (ValueParser,
 * contrib/mlnet/model/input/): byte sizes (--bytes), data rates (--rate), times
 * (--delay), unsigned and signed integers (--ranks, --iterations), reals (--lr),
 * comma lists (--fabrics), torus dimensions (TorusHelper::ParseDims, --torusDims) and
 * run levels (ParseRunLevel, --level). One target for all of them, so one build and
 * one run cover the family: the first byte picks the parser ('b', 'r', 't', 'd', 'l',
 * 'u', 's', 'f', 'c', or any other byte modulo 9), the rest is the flag's value.
 * Seeds: fuzz/seeds/value-parsers/ (one per parser, e.g. "b64KiB").
 * Invariants of an accepted value, from each parser's contract: a size and a rate are
 * positive, a time is not negative, a size is the number written times one unit,
 * exactly (no wrap-around); an integer is all the text, decimal, and equals what the
 * text says; a real is finite and in range; a list has no empty item and joins back
 * to the text.
 */
#include "fuzz-input.h"

#include "ns3/run-level.h"
#include "ns3/torus-helper.h"
#include "ns3/value-parser.h"

#include <cctype>
#include <cmath>
#include <cstdint>

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
                           : which == 'u' ? 5
                           : which == 's' ? 6
                           : which == 'f' ? 7
                           : which == 'c' ? 8
                                          : static_cast<unsigned char>(which) % 9;
        switch (parser)
        {
        case 0: {
            const uint64_t bytes = ns3::ParseByteSize(text);
            Require(bytes > 0, "ParseByteSize accepted a zero size");
            // The size is the number written times one unit, exactly (no wrap-around).
            const uint64_t n = LeadingNumber(text);
            const uint64_t units[] = {1,
                                      1000,
                                      1000000,
                                      1000000000,
                                      1000000000000ULL,
                                      1ULL << 10,
                                      1ULL << 20,
                                      1ULL << 30,
                                      1ULL << 40};
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
        case 4:
            (void)ns3::ParseRunLevel(text);
            break;
        case 5: {
            const uint64_t v = ns3::ValueParser::Unsigned("fuzz", text, 0, UINT64_MAX);
            Require(!text.empty() && text.find_first_not_of("0123456789") == std::string::npos,
                    "ValueParser::Unsigned accepted a text that is not all decimal digits");
            Require(v == LeadingNumber(text),
                    "ValueParser::Unsigned's value is not the number written");
            break;
        }
        case 6: {
            const int64_t v = ns3::ValueParser::Signed("fuzz", text, INT64_MIN, INT64_MAX);
            const bool negative = !text.empty() && text[0] == '-';
            const std::string digits = negative ? text.substr(1) : text;
            Require(!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos,
                    "ValueParser::Signed accepted a text that is not an optional '-' and digits");
            Require((v < 0) == (negative && v != 0),
                    "ValueParser::Signed's sign is not the one written");
            break;
        }
        case 7: {
            const double v = ns3::ValueParser::Real("fuzz", text, -1e300, 1e300);
            Require(std::isfinite(v) && v >= -1e300 && v <= 1e300,
                    "ValueParser::Real returned a value out of its range");
            break;
        }
        default: {
            const std::vector<std::string> items = ns3::ValueParser::List("fuzz", text);
            std::string joined;
            for (const std::string& item : items)
            {
                Require(!item.empty(), "ValueParser::List returned an empty item");
                joined += (joined.empty() ? "" : ",") + item;
            }
            Require(!items.empty() && joined == text,
                    "ValueParser::List's items do not join back to the text");
        }
        }
    });
}
