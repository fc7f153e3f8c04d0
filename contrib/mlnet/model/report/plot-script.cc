// SPDX-License-Identifier: GPL-2.0-only
#include "plot-script.h"

#include "ns3/data-file.h"
#include "ns3/log.h"
#include "ns3/output-files.h"

#include <cstdlib>
#include <stdexcept>
#include <sys/wait.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetPlotScript");

namespace
{

/// A shell word: the text in single quotes, each ' written as '\''.
std::string
Quote(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
    {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

} // namespace

std::string
PlotScript::Command(const std::string& script,
                    const std::string& kind,
                    const std::string& json,
                    const std::string& png)
{
    return std::string(kInterpreter) + " " + Quote(script) + " " + Quote(kind) + " " + Quote(json) +
           " " + Quote(png);
}

bool
PlotScript::Draw(const std::string& kind,
                 const std::string& json,
                 const std::string& png,
                 std::string* why)
{
    std::string script;
    std::string out;
    try
    {
        script = DataFile::Find("utils/plot.py");
        // Inside a run both are staged (OutputFiles): plot.py reads the JSON where it
        // is now and draws to the PNG's temporary, renamed with the run's other files.
        out = OutputFiles::Stage(png);
    }
    catch (const std::invalid_argument& e)
    {
        if (why)
        {
            *why = e.what();
        }
        return false;
    }
    std::string command = Command(script, kind, OutputFiles::Current(json), out);
    NS_LOG_INFO("running " << command);
    int status = std::system(command.c_str());
    if (status == 0)
    {
        return true;
    }
    OutputFiles::Drop(png); // no half-drawn PNG; an earlier one stays
    if (why)
    {
        *why = std::string(kInterpreter) + " " + script + " exited with status " +
               std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
               " (is matplotlib installed? ./utils/setup.sh installs it)";
    }
    return false;
}

} // namespace ns3
