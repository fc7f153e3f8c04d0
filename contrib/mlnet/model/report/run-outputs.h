// SPDX-License-Identifier: GPL-2.0-only
/*
 * RunOutputs: the side files a run wrote (timeline, link monitor, message log,
 * FlowMonitor XML) and the FlowMonitor flows mapped to ranks, kept for the run's
 * results document. Whatever writes such a file (TraceOptions) records it here;
 * RunReport::ToJson names them in "outputs" and lists the flows in "flows", so a
 * user finds every file of a run from its JSON.
 *
 * One record per process (the files of all simulations of a program), like the
 * simulator itself; Clear() starts again (tests).
 */
#ifndef MLNET_RUN_OUTPUTS_H
#define MLNET_RUN_OUTPUTS_H

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \brief The side files and FlowMonitor flows of the running program.
 */
class RunOutputs
{
public:
    /// \brief Record a file of a kind ("timeline", "link_monitor", "messages", "flowmon").
    static void AddFile(const std::string& kind, const std::string& path);
    /// \brief Append FlowMonitor flows (a JSON array of flow objects).
    static void AddFlows(const nlohmann::json& flows);
    /// \brief Add "outputs" (kind -> files) and "flows" to a results document when set.
    static void AddTo(nlohmann::json& document);
    /// \return kind -> array of files
    static nlohmann::json GetFiles();
    /// \return the flows recorded so far
    static nlohmann::json GetFlows();
    /// \brief Forget every file and flow.
    static void Clear();
};

} // namespace ns3

#endif // MLNET_RUN_OUTPUTS_H
