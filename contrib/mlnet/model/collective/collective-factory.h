// SPDX-License-Identifier: GPL-2.0-only
/*
 * CollectiveFactory: creates a collective from the names scripts and JSON use
 * ("allreduce" + "ring", "alltoall" + "pairwise", ...), so a scenario can take
 * --collective and --algorithm flags without a switch of its own.
 */
#ifndef MLNET_COLLECTIVE_FACTORY_H
#define MLNET_COLLECTIVE_FACTORY_H

#include "ns3/collective.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief Creates collectives by (collective, algorithm) name.
 */
class CollectiveFactory
{
public:
    /**
     * \brief Create a collective, not yet Setup.
     * \param collective e.g. "allreduce"
     * \param algorithm e.g. "ring"
     * \return the new collective
     * Throws std::invalid_argument listing the valid choices for an unknown name.
     */
    static Ptr<Collective> Create(const std::string& collective, const std::string& algorithm);
    /**
     * \brief Check a (collective, algorithm) pair where it enters (a flag, a JSON field)
     * without creating anything: throws std::invalid_argument as Create does.
     * \param collective e.g. "allreduce"
     * \param algorithm e.g. "ring"
     */
    static void Check(const std::string& collective, const std::string& algorithm);
    /// \return every valid (collective, algorithm) pair
    static std::vector<std::pair<std::string, std::string>> List();
};

} // namespace ns3

#endif // MLNET_COLLECTIVE_FACTORY_H
