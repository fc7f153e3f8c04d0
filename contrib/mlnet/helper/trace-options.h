// SPDX-License-Identifier: GPL-2.0-only
/*
 * TraceOptions: the standard ns-3 traces a user expects from any scenario — pcap
 * files of chosen devices and a FlowMonitor XML — as command-line flags, attached to
 * a Cluster in one call.
 *
 * Pcap: one file per device, <prefix>-<node>-<device>.pcap (ns-3's naming), for every
 * device of the links of one link class (--pcapClass, e.g. host-tor, rail, nvlink) or,
 * by default, the devices of the rank (GPU/host) nodes. Timestamps are in nanoseconds,
 * each frame is cut to --pcapSnapLen bytes (default 64, the headers), and fast-path
 * frames are written as the IPv4/UDP frames they stand for (PcapCapture). Each file is
 * recorded in the CaptureLog, so the run's results JSON names it ("captures") with its
 * fabric and simulation.
 * FlowMonitor: installed on every node of the cluster; the XML is written when the
 * simulation is destroyed (Simulator::Destroy), so a run that fails writes nothing.
 * Every file is staged with the run's other files (OutputFiles): pcap files are
 * opened at a hidden temporary name, the XML is written to one through a checked
 * stream, and all are renamed when the run succeeded; the CaptureLog, "captures" and
 * "outputs" name the final names. DeclareOutputs checks every path (and creates its
 * folder) before the simulation.
 * A program that runs several simulations gets one XML and one set of pcap files per
 * simulation: the first at the given name or prefix, the k-th with "-k" before the
 * extension (XML) or "-simk" after the prefix (pcap: <prefix>-sim2-<node>-<device>.pcap).
 * The run monitors (--timeline, --linkMonitor, --messages) are MonitorOptions, held
 * here so that every scenario taking these flags takes them too.
 */
#ifndef MLNET_TRACE_OPTIONS_H
#define MLNET_TRACE_OPTIONS_H

#include "ns3/cluster.h"
#include "ns3/monitor-options.h"
#include "ns3/output-files.h"
#include "ns3/scenario-command-line.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief --pcap, --pcapClass, --pcapSnapLen and --flowmon, and their wiring onto a Cluster.
 *
 * Copies share their state, so a program that copies its options per simulation
 * still numbers its FlowMonitor files in order.
 */
class TraceOptions
{
public:
    TraceOptions();

    std::string pcap;         //!< pcap file prefix; empty = no pcap
    std::string pcapClass;    //!< link class whose devices are captured; empty = rank NICs
    uint32_t pcapSnapLen{64}; //!< bytes kept of each captured frame; 0 = whole frames
    std::string flowmon;      //!< FlowMonitor XML file; empty = no FlowMonitor
    MonitorOptions monitors;  //!< --timeline, --linkMonitor, --messages (MonitorOptions)

    /// \brief Register --pcap, --pcapClass, --pcapSnapLen and --flowmon (ScenarioCommandLine).
    void AddToCommandLine(ScenarioCommandLine& cmd);
    /// \return the flags given that need the IPv4 data path ({"--flowmon"} or none), for
    /// DataPathChoice::Resolve
    std::vector<std::string> Ipv4OnlyFlags() const;
    /// \return the flags given that read the fabric's devices ({"--pcap", "--linkMonitor"}
    /// or fewer), for DataPathChoice::Resolve at the flow level
    std::vector<std::string> DeviceFlags() const;
    /**
     * \brief Enable what the flags ask for on this cluster's devices and nodes.
     * Call after the fabric is built and before Simulator::Run. Throws
     * std::invalid_argument for a link class the cluster does not have or a snap
     * length that keeps less than the headers.
     * \param cluster the cluster
     * \param name names this simulation's monitor files (MonitorOptions::FileFor), e.g.
     * the fabric of a program that runs several; empty: numbered
     */
    void Attach(Ptr<Cluster> cluster, const std::string& name = "") const;
    /**
     * \brief Check, before any simulation, every file the flags ask for and the
     * program's own (e.g. {{"json", json}, {"csv", csv}}; empty paths are skipped):
     * folders are created or the path refused with std::invalid_argument naming its flag
     * (OutputFiles::Declare; the pcap prefix's folder with OutputFiles::DeclarePrefix).
     * \param files the program's other output files and their flags
     */
    void DeclareOutputs(const std::vector<OutputPath>& files = {}) const;
    /// \return the FlowMonitor files written so far, in order
    std::vector<std::string> WrittenFiles() const;

private:
    struct State;
    std::shared_ptr<State> m_state; //!< shared by copies
};

} // namespace ns3

#endif // MLNET_TRACE_OPTIONS_H
