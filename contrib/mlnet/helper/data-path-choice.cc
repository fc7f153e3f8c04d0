// SPDX-License-Identifier: GPL-2.0-only
#include "data-path-choice.h"

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
                  "data path: auto (fast for the udp transport without --flowmon, else ipv4), "
                  "ipv4 (Internet stack) or fast (table-driven forwarding without IPv4, udp "
                  "only; same completion times)",
                  value,
                  Choices());
}

std::string
DataPathChoice::Resolve(const std::string& choice, const std::string& transport, bool flowmon)
{
    const bool tcp = transport == "tcp" || transport == "dctcp";
    if (choice == "auto")
    {
        return tcp || flowmon ? "ipv4" : "fast";
    }
    if (choice == "fast" && tcp)
    {
        throw std::invalid_argument("--dataPath=fast has no TCP; the " + transport +
                                    " transport needs --dataPath=ipv4 (or auto)");
    }
    if (choice != "ipv4" && choice != "fast")
    {
        throw std::invalid_argument("unknown --dataPath=" + choice + "; use auto, ipv4 or fast");
    }
    return choice;
}

} // namespace ns3
