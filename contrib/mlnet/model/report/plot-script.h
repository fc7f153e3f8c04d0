// SPDX-License-Identifier: GPL-2.0-only
/*
 * PlotScript: draws an example's figure from its results document with the suite's
 * plotting script, utils/plot.py (installed as share/mlnet/utils/plot.py and found
 * with DataFile, so an installed program runs the installed script, never the
 * source tree's), under Debian's interpreter /usr/bin/python3, where utils/setup.sh
 * installs matplotlib.
 *
 * Inside a run (RunReport::Main) the PNG is staged with the run's other files
 * (OutputFiles) and plot.py reads the staged JSON; a failed plot leaves no PNG.
 *
 * What it leaves out: the figures themselves (plot.py draws them; its KIND argument
 * picks one), and any other interpreter (a virtualenv's python may lack matplotlib).
 */
#ifndef MLNET_PLOT_SCRIPT_H
#define MLNET_PLOT_SCRIPT_H

#include <string>

namespace ns3
{

/**
 * \brief Runs utils/plot.py KIND RESULTS.json OUT.png for an example's PNG.
 */
class PlotScript
{
public:
    /// The interpreter plot.py runs under.
    static constexpr const char* kInterpreter = "/usr/bin/python3";

    /**
     * \brief The command line that draws a figure.
     * \param script the plot.py to run
     * \param kind the figure (plot.py's KIND, e.g. "training-cluster")
     * \param json the results document to read
     * \param png the PNG to write
     * \return the shell command (every argument single-quoted)
     */
    static std::string Command(const std::string& script,
                               const std::string& kind,
                               const std::string& json,
                               const std::string& png);
    /**
     * \brief Draw a figure with the shipped plot.py.
     * \param kind the figure (plot.py's KIND)
     * \param json the results document to read
     * \param png the PNG to write
     * \param why set, when no PNG was written, to the reason (plot.py not found, or
     *        its exit status); may be null
     * \return true if plot.py exited 0 (it wrote the PNG)
     */
    static bool Draw(const std::string& kind,
                     const std::string& json,
                     const std::string& png,
                     std::string* why = nullptr);
};

} // namespace ns3

#endif // MLNET_PLOT_SCRIPT_H
