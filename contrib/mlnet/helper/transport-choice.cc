// SPDX-License-Identifier: GPL-2.0-only
#include "transport-choice.h"

#include "ns3/fabric-registry.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/log.h"
#include "ns3/roce-message-transport.h"
#include "ns3/string.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/udp-message-transport.h"
#include "ns3/value-parser.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTransportChoice");

const std::vector<std::string>&
TransportChoice::Names()
{
    static const std::vector<std::string> names{"roce", "udp", "tcp", "dctcp"};
    return names;
}

std::string
TransportChoice::Help()
{
    return "transport: roce (RDMA-style queue pairs paced by DCQCN over a lossless fabric: turns "
           "on PFC and switch ECN marking; fast path), udp (line rate, NACK repair, no congestion "
           "control), tcp (NewReno, IPv4 path) or dctcp (IPv4 path; turns on switch ECN marking "
           "unless --ecn=false)";
}

void
TransportChoice::AddToCommandLine(ScenarioCommandLine& cmd, std::string& value)
{
    cmd.AddChoice("transport", Help(), value, Names());
}

void
TransportChoice::Check(const std::string& name)
{
    const auto& names = Names();
    if (std::find(names.begin(), names.end(), name) == names.end())
    {
        throw std::invalid_argument("--transport=" + name + " unknown; use " +
                                    ValueParser::JoinChoices(names));
    }
}

Ptr<MessageTransport>
TransportChoice::Create(const std::string& name)
{
    if (name == "udp")
    {
        return CreateObject<UdpMessageTransport>();
    }
    if (name == "tcp" || name == "dctcp")
    {
        Ptr<TcpMessageTransport> tcp = CreateObject<TcpMessageTransport>();
        if (name == "dctcp")
        {
            tcp->SetAttribute("SocketType", StringValue("ns3::TcpDctcp"));
        }
        return tcp;
    }
    if (name == "roce")
    {
        return CreateObject<RoceMessageTransport>();
    }
    throw std::invalid_argument("unknown transport '" + name +
                                "'; valid: " + ValueParser::JoinChoices(Names()));
}

Ptr<MessageTransport>
TransportChoice::Create(const std::string& name, RunLevel level)
{
    Ptr<MessageTransport> transport = Create(name);
    if (level != RunLevel::FLOW)
    {
        return transport;
    }
    Ptr<FluidMessageTransport> fluid = CreateObject<FluidMessageTransport>();
    fluid->SetPacketTransport(transport);
    return fluid;
}

bool
TransportChoice::NeedsIpv4(const std::string& name)
{
    return name == "tcp" || name == "dctcp";
}

bool
TransportChoice::NeedsFast(const std::string& name)
{
    return name == "roce";
}

bool
TransportChoice::Lossless(const std::string& name)
{
    return name == "roce";
}

bool
TransportChoice::SwitchEcn(const std::string& transport, bool ecnFlag, bool ecnGiven)
{
    if ((transport == "dctcp" || transport == "roce") && !ecnGiven)
    {
        return true;
    }
    return ecnFlag;
}

void
TransportChoice::SetFabricFeatures(const std::string& transport,
                                   FabricRequest& request,
                                   bool ecnFlag,
                                   bool ecnGiven,
                                   bool pfcFlag,
                                   bool pfcGiven)
{
    const bool devices = request.dataPath != "none";
    request.ecn = devices && SwitchEcn(transport, ecnFlag, ecnGiven); // dctcp, roce: mark
    // PFC on a graph is recorded, not installed: the flow level holds back, not drops.
    request.pfc = pfcFlag || (Lossless(transport) && !pfcGiven); // roce
}

} // namespace ns3
