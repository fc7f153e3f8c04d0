// SPDX-License-Identifier: GPL-2.0-only
/*
 * DataPathChoice: the --dataPath=auto|ipv4|fast rule of every scenario (FabricOptions,
 * and the runners that build their fabrics themselves).
 *
 * auto takes the fast data path (FastForwarding, no IPv4 stack) wherever it gives
 * the same answers as the IPv4 path: with the udp transport and no IPv4-only
 * feature. It takes ipv4 for tcp and dctcp (the fast path has no TCP) and when a
 * flag that needs IPv4 is given (--flowmon: FlowMonitor watches IPv4; --ecn: RED
 * marks in a queue disc). An explicit fast with either is an error naming
 * --dataPath and the flag; ipv4 is always allowed. pcap traces work on both paths.
 * At the flow level (every scenario with one: FabricOptions::level, and the runners
 * that resolve the path themselves with their level) auto takes
 * "none" for every transport when no flag reads IPv4 (--flowmon, --ecn with udp or
 * tcp) or devices (--pcap, --linkMonitor, an explicit --pfc, --ecn with roce): the
 * fabric is built as a graph, without devices, channels, queues or forwarding, and
 * gives the results of the path auto would take otherwise (fast for udp and roce,
 * ipv4 for tcp and dctcp). The switch ECN marking and PFC that dctcp and roce imply
 * are left off there: the fluid reads neither (TransportChoice::SetFabricFeatures).
 */
#ifndef MLNET_DATA_PATH_CHOICE_H
#define MLNET_DATA_PATH_CHOICE_H

#include "ns3/run-level.h"
#include "ns3/scenario-command-line.h"
#include "ns3/trace-options.h"

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
     * \param transport the run's transport: udp, tcp, dctcp or roce
     * \param ipv4Only the flags given that need IPv4, e.g. {"--flowmon", "--ecn"}
     * \return "ipv4" or "fast"
     * Throws std::invalid_argument naming --dataPath for an unknown choice or for fast
     * with tcp/dctcp or with an IPv4-only flag.
     */
    static std::string Resolve(const std::string& choice,
                               const std::string& transport,
                               const std::vector<std::string>& ipv4Only = {});
    /**
     * \brief The data path a run at `level` uses: Resolve's, except that auto at the
     * flow level takes "none" (no devices: the fabric as a graph, FabricHelper::
     * SetDataPath) when no flag needs IPv4 or devices.
     * \param deviceOnly the flags given that read devices, e.g. {"--pcap", "--pfc"}
     */
    static std::string Resolve(const std::string& choice,
                               const std::string& transport,
                               const std::vector<std::string>& ipv4Only,
                               RunLevel level,
                               const std::vector<std::string>& deviceOnly);
    /**
     * \brief The data path of a scenario at `level`, from its trace flags and its
     * explicit --ecn and --pfc (false where it has none): --flowmon needs IPv4
     * (TraceOptions::Ipv4OnlyFlags), --pcap and --linkMonitor devices (DeviceFlags);
     * --ecn needs IPv4 with a transport of the IPv4 path (RED marks in a queue disc)
     * and devices with roce (EcnMarker marks in the fast path's queues); --pfc needs
     * devices.
     */
    static std::string ResolveFromFlags(const std::string& choice,
                                        const std::string& transport,
                                        const TraceOptions& traces,
                                        RunLevel level,
                                        bool ecn = false,
                                        bool pfc = false);
};

} // namespace ns3

#endif // MLNET_DATA_PATH_CHOICE_H
