// SPDX-License-Identifier: GPL-2.0-only
#include "data-path-choice.h"

#include "ns3/transport-choice.h"

#include <stdexcept>

namespace ns3
{

const std::vector<std::string>&
DataPathChoice::Choices()
{
    static const std::vector<std::string> choices{"auto", "ipv4", "fast"};
    return choices;
}

void
DataPathChoice::AddToCommandLine(ScenarioCommandLine& cmd, std::string& value)
{
    cmd.AddChoice("dataPath",
                  "data path: auto (fast for the roce and udp transports without --flowmon, "
                  "and without --ecn for udp; ipv4 for tcp and dctcp; at --level=flow without "
                  "--pcap, --linkMonitor, --flowmon, --ecn or --pfc, no devices at all: the "
                  "fabric as a graph), ipv4 (Internet stack) or fast (table-driven "
                  "forwarding without IPv4: roce and udp; same completion times)",
                  value,
                  Choices());
}

std::string
DataPathChoice::Resolve(const std::string& choice,
                        const std::string& transport,
                        const std::vector<std::string>& ipv4Only)
{
    if (choice != "auto" && choice != "ipv4" && choice != "fast")
    {
        throw std::invalid_argument("unknown --dataPath=" + choice + "; use auto, ipv4 or fast");
    }
    if (TransportChoice::NeedsFast(transport))
    {
        if (choice == "ipv4")
        {
            throw std::invalid_argument("--transport=" + transport +
                                        " runs on the fast data path only; use --dataPath=fast "
                                        "(or auto), or another --transport with --dataPath=ipv4");
        }
        if (!ipv4Only.empty())
        {
            throw std::invalid_argument("--transport=" + transport +
                                        " runs on the fast data path, which has no IPv4 stack "
                                        "for " +
                                        ipv4Only.front() + "; drop " + ipv4Only.front() +
                                        " or choose --transport=udp|tcp|dctcp");
        }
        return "fast";
    }
    std::vector<std::string> needs = ipv4Only;
    if (TransportChoice::NeedsIpv4(transport))
    {
        needs.insert(needs.begin(), "--transport=" + transport);
    }
    if (choice == "fast" && !needs.empty())
    {
        throw std::invalid_argument("--dataPath=fast has no IPv4 stack, which " + needs.front() +
                                    " needs; use --dataPath=ipv4 (or auto)");
    }
    if (choice == "auto")
    {
        return needs.empty() ? "fast" : "ipv4";
    }
    return choice;
}

std::string
DataPathChoice::Resolve(const std::string& choice,
                        const std::string& transport,
                        const std::vector<std::string>& ipv4Only,
                        RunLevel level,
                        const std::vector<std::string>& deviceOnly)
{
    std::string path = Resolve(choice, transport, ipv4Only);
    // The fluid reads the graph alone and asks the transport only what its packets
    // would be (FluidMessageTransport); it reads neither the ECN marks dctcp and roce
    // imply nor roce's PFC. Not with a flag that reads IPv4 or devices.
    if (level == RunLevel::FLOW && choice == "auto" && ipv4Only.empty() && deviceOnly.empty())
    {
        return "none";
    }
    return path;
}

std::string
DataPathChoice::ResolveFromFlags(const std::string& choice,
                                 const std::string& transport,
                                 const TraceOptions& traces,
                                 RunLevel level,
                                 bool ecn,
                                 bool pfc)
{
    std::vector<std::string> ipv4Only = traces.Ipv4OnlyFlags();
    std::vector<std::string> deviceOnly = traces.DeviceFlags();
    if (ecn)
    {
        (TransportChoice::NeedsFast(transport) ? deviceOnly : ipv4Only).push_back("--ecn");
    }
    if (pfc)
    {
        deviceOnly.push_back("--pfc");
    }
    return Resolve(choice, transport, ipv4Only, level, deviceOnly);
}

} // namespace ns3
