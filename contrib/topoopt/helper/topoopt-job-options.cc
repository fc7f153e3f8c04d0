// SPDX-License-Identifier: GPL-2.0-only
#include "topoopt-job-options.h"

#include "ns3/log.h"
#include "ns3/model-profile.h"
#include "ns3/value-parser.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptTopoOptJobOptions");

void
TopoOptJobOptions::AddModel(ScenarioCommandLine& cmd, std::string& model, bool list)
{
    const std::vector<std::string> known = ModelProfile::KnownModels();
    const std::string names = ValueParser::JoinChoices(known);
    if (!list)
    {
        cmd.AddChoice("model",
                      "shipped model profile: " + names + " (--profile overrides)",
                      model,
                      known);
        return;
    }
    cmd.AddList("model",
                "shipped model profile(s), comma-separated: " + names + " (--profile overrides)",
                model,
                [known](const std::string& flag, const std::string& item) {
                    ValueParser::Choice(flag, item, known);
                });
}

void
TopoOptJobOptions::CheckSize(const std::string& serversFlag,
                             uint32_t servers,
                             uint32_t degree,
                             uint32_t ports)
{
    if (servers < 2 || servers % 2 != 0)
    {
        throw std::invalid_argument(serversFlag + "=" + std::to_string(servers) +
                                    " must be even and at least 2 (every optical plane is a "
                                    "perfect matching); give e.g. " +
                                    serversFlag + "=" +
                                    std::to_string(servers < 2 ? 2 : servers + 1));
    }
    if (degree == 0)
    {
        throw std::invalid_argument("--degree must be at least 1");
    }
    if (ports > 0 && degree > ports)
    {
        throw std::invalid_argument("--degree=" + std::to_string(degree) + " exceeds the " +
                                    std::to_string(ports) +
                                    " NIC ports per server (--ports); lower --degree");
    }
    if (degree > servers - 1)
    {
        throw std::invalid_argument("--degree=" + std::to_string(degree) + " needs at least " +
                                    std::to_string(degree + 1) + " servers (" + serversFlag + "=" +
                                    std::to_string(servers) + "); give --degree at most " +
                                    std::to_string(servers - 1));
    }
}

} // namespace ns3
