// SPDX-License-Identifier: GPL-2.0-only
/*
 * DataPathChoice: the --dataPath=auto|ipv4|fast rule of scenarios that pick their
 * data path themselves (checkmate-recovery, compression-utility).
 *
 * auto takes the fast data path (FastForwarding, no IPv4 stack) wherever it gives
 * the same answers as the IPv4 path: with the udp transport and no FlowMonitor. It
 * takes ipv4 for tcp and dctcp (the fast path has no TCP) and when FlowMonitor is
 * asked for (it needs IPv4). An explicit fast with tcp/dctcp is an error naming
 * --dataPath; ipv4 is always allowed. pcap traces work on both paths.
 */
#ifndef MLNET_DATA_PATH_CHOICE_H
#define MLNET_DATA_PATH_CHOICE_H

#include "ns3/scenario-command-line.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief The --dataPath flag: auto | ipv4 | fast, resolved against the transport.
 */
class DataPathChoice
{
public:
    /// \return the accepted values: auto, ipv4, fast
    static const std::vector<std::string>& Choices();
    /// \brief Register --dataPath on `cmd`, stored in `value`.
    static void AddToCommandLine(ScenarioCommandLine& cmd, std::string& value);
    /**
     * \brief The data path a run uses.
     * \param choice auto, ipv4 or fast (the flag's value)
     * \param transport the run's transport: udp, tcp or dctcp
     * \param flowmon true when FlowMonitor is asked for (--flowmon)
     * \return "ipv4" or "fast"
     * Throws std::invalid_argument naming --dataPath for an unknown choice or for fast
     * with tcp/dctcp.
     */
    static std::string Resolve(const std::string& choice,
                               const std::string& transport,
                               bool flowmon = false);
};

} // namespace ns3

#endif // MLNET_DATA_PATH_CHOICE_H
