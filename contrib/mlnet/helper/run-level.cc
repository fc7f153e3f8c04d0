// SPDX-License-Identifier: GPL-2.0-only
#include "run-level.h"

#include "ns3/progress-scheduler.h"

#include <stdexcept>

namespace ns3
{

std::string
ToString(RunLevel level)
{
    switch (level)
    {
    case RunLevel::PACKET:
        return "packet";
    case RunLevel::FLOW:
        return "flow";
    case RunLevel::ANALYTIC:
        return "analytic";
    }
    return "packet";
}

RunLevel
ParseRunLevel(const std::string& text)
{
    for (RunLevel l : {RunLevel::PACKET, RunLevel::FLOW, RunLevel::ANALYTIC})
    {
        if (text == ToString(l))
        {
            return l;
        }
    }
    throw std::invalid_argument("--level=" + text +
                                " is not a run level; use packet, flow or analytic");
}

RunLevelOption::RunLevelOption(const std::string& scenario, const std::vector<RunLevel>& supported)
    : m_scenario(scenario),
      m_supported(supported),
      m_text(ToString(supported.front()))
{
}

void
RunLevelOption::AddToCommandLine(ScenarioCommandLine& cmd)
{
    cmd.AddValue("level",
                 "run level: " + Levels() +
                     " (packet = ns-3 packet level, flow = the fluid "
                     "engine, no packets, analytic = closed forms)",
                 m_text);
    // Every example registers --level once: --quiet and progress come with it.
    m_quiet = ProgressScheduler::IsQuiet();
    m_interval = ProgressScheduler::GetInterval();
    cmd.AddValue("quiet", "print no progress lines on stderr", m_quiet);
    cmd.AddValue("progressInterval",
                 "wall seconds between progress lines on stderr while a simulation runs",
                 m_interval,
                 0,
                 86400,
                 true);
    cmd.OnParsed([this]() {
        ProgressScheduler::SetQuiet(m_quiet);
        ProgressScheduler::SetInterval(m_interval);
    });
    ProgressScheduler::Install();
}

std::string
RunLevelOption::Levels() const
{
    std::string out;
    for (RunLevel l : m_supported)
    {
        out += (out.empty() ? "" : " | ") + ToString(l);
    }
    return out;
}

RunLevel
RunLevelOption::Get() const
{
    RunLevel level = ParseRunLevel(m_text);
    for (RunLevel l : m_supported)
    {
        if (l == level)
        {
            return level;
        }
    }
    std::string valid;
    for (RunLevel l : m_supported)
    {
        valid += (valid.empty() ? "--level=" : " or --level=") + ToString(l);
    }
    throw std::invalid_argument(m_scenario + " has no " + m_text + " level yet; use " + valid);
}

} // namespace ns3
