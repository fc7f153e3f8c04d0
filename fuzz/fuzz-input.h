// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every fuzz target shares: the input as text, the user-error contract as the
 * one clean rejection, and invariants that abort.
 *
 * A parser given any bytes must either accept them or throw std::invalid_argument
 * (the suite's user-error contract: examples turn it into one `error:` line). Every
 * other outcome is a finding that libFuzzer reports with a reproducer file: another
 * exception (it escapes LLVMFuzzerTestOneInput, std::terminate aborts), a crash, a
 * sanitizer report, an NS_ASSERT or NS_FATAL_ERROR, a broken invariant (Require), an
 * input slower than -timeout or a memory blow-up past -rss_limit_mb.
 */
#ifndef MLNET_FUZZ_INPUT_H
#define MLNET_FUZZ_INPUT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace ns3
{
namespace fuzz
{

/**
 * \brief Run a parser on the input as text; std::invalid_argument is a rejection.
 * \param data the input bytes
 * \param size their count
 * \param parse called with the text; anything it throws but std::invalid_argument
 *        escapes (a finding)
 * \return 0 (libFuzzer's "input processed")
 */
template <typename Parse>
int
AcceptOrReject(const uint8_t* data, size_t size, Parse parse)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try
    {
        parse(text);
    }
    catch (const std::invalid_argument&)
    {
        // a clean rejection
    }
    return 0;
}

/**
 * \brief Abort (a finding) when an invariant of an accepted input does not hold.
 * \param holds the invariant
 * \param what what it says, printed before the abort
 */
inline void
Require(bool holds, const char* what)
{
    if (!holds)
    {
        std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
        std::abort();
    }
}

} // namespace fuzz
} // namespace ns3

#endif // MLNET_FUZZ_INPUT_H
