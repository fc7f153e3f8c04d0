// SPDX-License-Identifier: GPL-2.0-only
/*
 * ValueParser: the strict readers of every value a user types on the command line —
 * unsigned and signed integers, finite reals, booleans, byte sizes, data rates, times,
 * comma lists and enumerations.
 *
 * Each reader takes the flag's name (for the message) and the text, consumes the
 * whole text, checks it against a range the caller gives (sizes, counts and times
 * that would exhaust memory or never finish are refused with the bound in the
 * message) and throws std::invalid_argument otherwise, with one message of the form
 *
 *   --ranks=4abc: not an unsigned decimal integer; give a whole number in [2, 4096]
 *
 * naming the flag, the value (cut to 40 characters + "…": a value is never echoed
 * unbounded) and what would be valid. Numbers are decimal only (no sign on unsigned
 * values, no hex, no leading '+', no spaces), because ns-3's istringstream reading
 * turns "-1" into 4294967295, "4abc" into 4 and "0x10" into 0.
 *
 * Left out: locale-dependent forms (digit grouping, decimal commas), and units other
 * than the ones listed at each reader.
 */
#ifndef MLNET_VALUE_PARSER_H
#define MLNET_VALUE_PARSER_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Strict, bounded parsers of command-line values (see the file comment).
 *
 * An empty flag name makes the message start with the quoted value instead of
 * "--flag=value" (for callers that parse a value not typed as a flag).
 */
class ValueParser
{
public:
    /// Longest part of a value echoed in a message (characters); longer ones end in "…".
    static constexpr size_t MAX_ECHO = 40;
    /// Default bound of byte sizes: 1 TiB.
    static constexpr uint64_t MAX_BYTES = 1ull << 40;
    /// Default bound of data rates: 100 Tbps.
    static constexpr uint64_t MAX_RATE_BPS = 100'000'000'000'000ull;

    /// \return the text, cut to MAX_ECHO characters followed by "…" when longer
    static std::string Echo(const std::string& text);
    /// \return "--flag=value" (value echoed by Echo), or "'value'" when flag is empty
    static std::string Subject(const std::string& flag, const std::string& text);

    /**
     * \brief A decimal unsigned integer in [min, max]: digits only, whole text.
     * \param flag the flag's name without "--", for the message
     */
    static uint64_t Unsigned(const std::string& flag,
                             const std::string& text,
                             uint64_t min,
                             uint64_t max);
    /// \brief A decimal signed integer in [min, max]: optional '-', digits, whole text.
    static int64_t Signed(const std::string& flag,
                          const std::string& text,
                          int64_t min,
                          int64_t max);
    /**
     * \brief A finite real in [min, max] (or (min, max] when minExclusive): decimal or
     * exponent form ("0.01", "2e10"), whole text; no nan, inf or hex.
     */
    static double Real(const std::string& flag,
                       const std::string& text,
                       double min,
                       double max,
                       bool minExclusive = false);
    /// \brief A boolean: true/false, 1/0, yes/no (t/f, as ns-3 takes them, too).
    static bool Bool(const std::string& flag, const std::string& text);
    /**
     * \brief A positive byte size: a count with an optional unit B, KiB, MiB, GiB, TiB
     * (K, M, G, T and k are binary too) or KB, MB, GB, TB (decimal); the product must
     * not overflow and must be at most max.
     */
    static uint64_t Bytes(const std::string& flag,
                          const std::string& text,
                          uint64_t max = MAX_BYTES);
    /// \brief A positive data rate as ns-3 writes it ("100Gbps", "25Gb/s"), at most maxBps.
    static DataRate Rate(const std::string& flag,
                         const std::string& text,
                         uint64_t maxBps = MAX_RATE_BPS);
    /**
     * \brief A time: a non-negative decimal number and a unit s, ms, us, ns or ps, in
     * [min, max] (default at most one simulated hour: a longer one would not finish).
     */
    static Time Duration(const std::string& flag,
                         const std::string& text,
                         Time min = Time(0),
                         Time max = Seconds(3600));
    /**
     * \brief A comma-separated list; an empty item is an error, and so is an empty
     * list unless allowEmpty.
     */
    static std::vector<std::string> List(const std::string& flag,
                                         const std::string& text,
                                         bool allowEmpty = false);
    /// \brief One of choices (exact match); the message lists them.
    static std::string Choice(const std::string& flag,
                              const std::string& text,
                              const std::vector<std::string>& choices);
    /// \brief A device queue size: 1 to 10 digits and a unit p, B, KB, MB, KiB or MiB.
    static QueueSize Queue(const std::string& flag, const std::string& text);
    /// \return the choices as "a | b | c"
    static std::string JoinChoices(const std::vector<std::string>& choices);
};

/**
 * \brief Parse a byte size: "4096", "4KiB", "8MiB", "1GiB", "10KB", "3MB"
 * (ValueParser::Bytes without a flag name). Throws std::invalid_argument.
 */
uint64_t ParseByteSize(const std::string& text);

/**
 * \brief Parse a data rate such as "100Gbps" (ValueParser::Rate without a flag name).
 */
DataRate ParseDataRate(const std::string& text);

/**
 * \brief Parse a time such as "1us" (ValueParser::Duration without a flag name).
 */
Time ParseTime(const std::string& text);

} // namespace ns3

#endif // MLNET_VALUE_PARSER_H
