// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the tests that run collectives share (on top of mlnet-test-support.h): run
 * options made in one line.
 */
#ifndef MLNET_COLLECTIVE_TEST_SUPPORT_H
#define MLNET_COLLECTIVE_TEST_SUPPORT_H

#include "ns3/collective-runner.h"

#include <string>

namespace mlnettest
{

/// \return run options for one collective: name, algorithm, bytes, real payloads or not
inline ns3::CollectiveRunOptions
Coll(const std::string& collective,
     const std::string& algorithm,
     const std::string& bytes,
     bool real = false)
{
    ns3::CollectiveRunOptions r;
    r.collective = collective;
    r.algorithm = algorithm;
    r.bytes = bytes;
    r.real = real;
    return r;
}

} // namespace mlnettest

#endif // MLNET_COLLECTIVE_TEST_SUPPORT_H
