// SPDX-License-Identifier: GPL-2.0-only
/*
 * MonitorOptions: the flags of the run monitors -- a Chrome trace-event timeline, a
 * link utilization and queue monitor, a per-message log -- and their wiring onto a
 * Cluster. TraceOptions holds one and registers its flags, so every example that
 * takes the trace flags takes these too.
 *
 * Files: given --timeline=run.json, a program that runs one simulation writes
 * run.json; one that runs several writes run-2.json, ... for the 2nd, ..., or, when
 * the runner names its simulations (TraceOptions::Attach's name, e.g. the fabric),
 * run-<name>.json for each. Every file is recorded in RunOutputs, so the results
 * JSON lists them under "outputs". The models are LinkMonitor, MessageLog and
 * TimelineWriter (contrib/mlnet/model/report); contrib/mlnet/doc/monitors.md
 * describes the files.
 */
#ifndef MLNET_MONITOR_OPTIONS_H
#define MLNET_MONITOR_OPTIONS_H

#include "ns3/cluster.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/nstime.h"
#include "ns3/scenario-command-line.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \brief --timeline, --linkMonitor, --monitorInterval, --monitorPerLink, --messages.
 */
class MonitorOptions
{
public:
    std::string timeline;                   //!< Chrome trace-event JSON; empty = none
    std::string linkMonitor;                //!< link utilization/queue CSV; empty = none
    Time monitorInterval{MicroSeconds(10)}; //!< link monitor sampling interval
    bool monitorPerLink{false};             //!< link monitor rows per link direction
    std::string messages;                   //!< per-message CSV; empty = none

    /// \brief Register the flags (strict values; ScenarioCommandLine).
    void AddToCommandLine(ScenarioCommandLine& cmd);
    /**
     * \brief Start the monitors the flags ask for on a cluster (after the fabric is
     * built, before Simulator::Run); they complete their files when the simulation is
     * destroyed. Throws std::invalid_argument for a bad interval or an unwritable file.
     * \param cluster the cluster
     * \param k this is the program's k-th monitored simulation (from 1)
     * \param name the simulation's name (e.g. the fabric) or empty
     */
    void Attach(Ptr<Cluster> cluster, uint32_t k, const std::string& name) const;
    /// \return whether any monitor is asked for
    bool Any() const;

    /**
     * \brief The file of the k-th simulation: the name as given for k = 1 and no
     * simulation name, "<stem>-<k><ext>" for k >= 2, "<stem>-<simulation><ext>"
     * when the simulation is named.
     */
    static std::string FileFor(const std::string& file, uint32_t k, const std::string& simulation);
    /**
     * \brief FlowMonitor's flows with their source and destination ranks (null when
     * the address is no rank's) from the cluster's rank -> address map, beside the
     * five-tuple and FlowMonitor's counters. Call after the run.
     * \param helper the FlowMonitor helper installed on the cluster's nodes
     * \param cluster the cluster (its address -> node -> rank maps)
     * \param file the FlowMonitor XML these flows are written to
     */
    static nlohmann::json FlowsWithRanks(FlowMonitorHelper& helper,
                                         Ptr<Cluster> cluster,
                                         const std::string& file);
};

} // namespace ns3

#endif // MLNET_MONITOR_OPTIONS_H
