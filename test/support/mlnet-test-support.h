// SPDX-License-Identifier: GPL-2.0-only
// Small helpers every test binary of the suite shares (module tests and integration
// tests alike; cmake/MlnetModule.cmake and test/CMakeLists.txt put this folder on their
// include path): the message of a rejected input, and a trace sink that counts calls
// per Config path context.
#ifndef MLNET_TEST_SUPPORT_H
#define MLNET_TEST_SUPPORT_H

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

namespace mlnettest
{

/// \return what `f` threw as std::invalid_argument, or `none` if it threw nothing
inline std::string
InvalidArgumentMessage(const std::function<void()>& f, const std::string& none = "no exception")
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return none;
}

/// Calls per context of every trace connected (Config::Connect) to CountTraceCall.
inline std::map<std::string, uint32_t> g_traceCalls;

/// A trace sink of any signature that counts its calls per context in g_traceCalls.
template <typename... Args>
void
CountTraceCall(std::string context, Args...)
{
    ++g_traceCalls[context];
}

} // namespace mlnettest

#endif // MLNET_TEST_SUPPORT_H
