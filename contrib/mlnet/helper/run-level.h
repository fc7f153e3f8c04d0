// SPDX-License-Identifier: GPL-2.0-only
/*
 * RunLevel: how a scenario is run, chosen with --level by every example.
 *
 *   packet    ns-3 at packet level, the reference (every simulating example);
 *   flow      the fluid engine: the same fabric, routes, collectives and iteration
 *             graphs, messages moved as fluid transfers by FluidMessageTransport
 *             instead of packets (the engine the twin beside every packet run
 *             replays schedules with);
 *   analytic  closed forms only, where a scenario has them (cost studies, plans,
 *             closed-form iteration models).
 *
 * A scenario names the levels it implements; asking for another is one error line
 * saying which ones it has.
 */
#ifndef MLNET_RUN_LEVEL_H
#define MLNET_RUN_LEVEL_H

#include "ns3/scenario-command-line.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief The three ways to run one scenario.
 */
enum class RunLevel
{
    PACKET,  //!< ns-3 packet-level simulation (the reference)
    FLOW,    //!< the fluid engine (FluidMessageTransport), no packet
    ANALYTIC //!< closed forms only
};

/// \return "packet", "flow" or "analytic"
std::string ToString(RunLevel level);

/**
 * \brief Parse a level name; throws std::invalid_argument for anything but packet,
 * flow or analytic.
 */
RunLevel ParseRunLevel(const std::string& text);

/**
 * \brief The --level flag of one scenario: its implemented levels and its default.
 */
class RunLevelOption
{
public:
    /**
     * \param scenario the example's name, for messages
     * \param supported the levels the scenario implements; the first is the default
     */
    RunLevelOption(const std::string& scenario, const std::vector<RunLevel>& supported);

    /**
     * \brief Register --level with the scenario's levels in its help text, and
     * --quiet / --progressInterval (wall seconds, in (0, 86400]), pushed into the
     * ProgressScheduler it installs (ProgressScheduler::Install).
     */
    void AddToCommandLine(ScenarioCommandLine& cmd);
    /**
     * \return the level asked for. Throws std::invalid_argument for an unknown name or
     * a level the scenario does not implement, saying which ones it has.
     */
    RunLevel Get() const;
    /// \return the implemented levels as "packet | flow"
    std::string Levels() const;

private:
    std::string m_scenario;            //!< example name
    std::vector<RunLevel> m_supported; //!< implemented levels, default first
    std::string m_text;                //!< the flag's value
    bool m_quiet{false};               //!< --quiet
    double m_interval{0};              //!< --progressInterval (wall s)
};

} // namespace ns3

#endif // MLNET_RUN_LEVEL_H
