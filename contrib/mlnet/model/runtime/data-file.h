// SPDX-License-Identifier: GPL-2.0-only
/*
 * DataFile: where the suite's shipped data files are on this machine -- the price
 * table (contrib/mlnet/data/prices.json), the model profiles (workloads/models/), the
 * training workloads (workloads/training/) and the plotting script (utils/plot.py).
 *
 * What it models. A data file is named by its path in the source tree. Its installed
 * path drops a leading "contrib/" and keeps top-level folders as they are
 * (contrib/mlnet/data/prices.json -> mlnet/data/prices.json, utils/plot.py ->
 * utils/plot.py) under a data root laid out like <prefix>/share/mlnet. Exactly one
 * place is looked at:
 *   1. with the environment variable MLNET_DATA_DIR set (not empty): that folder as
 *      the data root, whatever the library's location;
 *   2. a library running from the build tree it was built in (its directory is the
 *      one compiled in): the source tree the build came from, so programs run from
 *      build/ need no installation;
 *   3. otherwise (an installed library, wherever its prefix was moved): the data root
 *      beside it, <libdir>/../share/mlnet (the library found with dladdr).
 * An installed program therefore never reads the source tree, even when it still
 * exists. Overrides of one file by environment variable or attribute belong to the
 * callers (PriceTable, ModelProfile), which call Find only for their default.
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
 * \brief Finds a shipped data file (or folder) in the installed package or, from the
 * build tree, in the source tree.
 */
class DataFile
{
public:
    /// The environment variable naming a data root that replaces the package's.
    static constexpr const char* kEnvironment = "MLNET_DATA_DIR";

    /**
     * \brief The path of a shipped data file or folder.
     * \param relative its path in the source tree, e.g. "contrib/mlnet/data/prices.json"
     *        or "workloads/models"
     * \return the candidate (see Candidates) if it exists
     * Throws std::invalid_argument naming the place looked at when it does not exist.
     */
    static std::string Find(const std::string& relative);
    /**
     * \brief The places Find looks at, for the library this code runs in.
     * \param relative the path in the source tree
     * \return Candidates(relative, LibraryDirectory())
     */
    static std::vector<std::string> Candidates(const std::string& relative);
    /**
     * \brief The places Find would look at for a library in a given folder.
     * \param relative the path in the source tree
     * \param libraryDirectory the folder holding the library (empty: unknown)
     * \return one path: under $MLNET_DATA_DIR if set; in the source tree if
     *         libraryDirectory is the build tree's; else under
     *         libraryDirectory/../share/mlnet. Empty when the library's folder is
     *         unknown and no override is set.
     */
    static std::vector<std::string> Candidates(const std::string& relative,
                                               const std::string& libraryDirectory);
    /**
     * \brief The path of a shipped file below a data root laid out like share/mlnet.
     * \param relative the path in the source tree
     * \return relative without a leading "contrib/"
     */
    static std::string InstalledPath(const std::string& relative);
    /// \return the canonical folder of the library holding this code (dladdr), or ""
    static std::string LibraryDirectory();
    /// \return the build-tree folder this library was built into (compiled in)
    static std::string BuildDirectory();
};

} // namespace ns3

#endif // MLNET_DATA_FILE_H
