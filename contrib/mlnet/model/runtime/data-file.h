// SPDX-License-Identifier: GPL-2.0-only
/*
 * DataFile: where the suite's shipped data files are on this machine -- the price
 * table (contrib/mlnet/data/prices.json), the model profiles (workloads/models/) and
 * the training workloads (workloads/training/).
 *
 * What it models. A data file is named by its path in the source tree. It is looked
 * for, in order,
 *   1. in the installed package beside the library that holds this code:
 *      <libdir>/../share/mlnet/<path without a leading "contrib/"> (found with
 *      dladdr, so an installed package works wherever its prefix was moved);
 *   2. in the source tree this library was built from (a path compiled in), so
 *      programs run from the build tree need no installation.
 * The first that exists wins. Overrides by environment variable or attribute belong
 * to the callers (PriceTable, ModelProfile), which call Find only for their default.
 *
 * What it leaves out: search paths given by the user (a caller takes an explicit
 * path instead), and any data not shipped with the suite.
 */
#ifndef MLNET_DATA_FILE_H
#define MLNET_DATA_FILE_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Finds a shipped data file (or folder) in the installed package or the source
 * tree.
 */
class DataFile
{
public:
    /**
     * \brief The path of a shipped data file or folder.
     * \param relative its path in the source tree, e.g. "contrib/mlnet/data/prices.json"
     *        or "workloads/models"
     * \return the first candidate (see Candidates) that exists
     * Throws std::invalid_argument naming every place looked at when none exists.
     */
    static std::string Find(const std::string& relative);
    /**
     * \brief The places Find looks at, in order.
     * \param relative the path in the source tree
     * \return the installed-package candidate (if the library's location is known),
     *         then the source-tree one
     */
    static std::vector<std::string> Candidates(const std::string& relative);
};

} // namespace ns3

#endif // MLNET_DATA_FILE_H
