// SPDX-License-Identifier: GPL-2.0-only
/*
 * TopoOptJobOptions: the command-line rules every TopoOpt scenario shares (topoopt-plan,
 * topoopt-cluster, training-cluster), written once: --model as a choice over the shipped
 * profiles (ModelProfile::KnownModels), and the size rules of a TopoOpt job -- an even
 * number of servers (every optical plane is a perfect matching) and a degree of at most
 * servers - 1 (a server has no circuit to itself) and at most the NIC ports -- with
 * messages naming the flags.
 *
 * Left out: the model classes' own checks (TopologyFinder, TopoOptSearch), which stay for
 * API users; this is where command-line input is checked before they are reached.
 */
#ifndef TOPOOPT_TOPOOPT_JOB_OPTIONS_H
#define TOPOOPT_TOPOOPT_JOB_OPTIONS_H

#include "ns3/scenario-command-line.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief Shared flags and size rules of a TopoOpt job (see the file comment).
 */
class TopoOptJobOptions
{
public:
    /**
     * \brief Register --model: one shipped profile name, or (list) a comma list of them;
     * anything else is an error naming --model and the known names.
     */
    static void AddModel(ScenarioCommandLine& cmd, std::string& model, bool list = false);
    /**
     * \brief Throw std::invalid_argument naming the flag unless `servers` is even and at
     * least 2, `degree` is in [1, servers - 1] and (ports > 0) at most `ports`.
     * \param serversFlag the flag that gives the servers, e.g. "--servers" or "--gpus"
     * \param ports NIC ports per server (--ports); 0 = as many as the degree
     */
    static void CheckSize(const std::string& serversFlag,
                          uint32_t servers,
                          uint32_t degree,
                          uint32_t ports = 0);
};

} // namespace ns3

#endif // TOPOOPT_TOPOOPT_JOB_OPTIONS_H
