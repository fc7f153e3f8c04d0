// SPDX-License-Identifier: GPL-2.0-only
/*
 * CaptureLog: the capture files (pcap) a program's traces have opened, in order, so
 * that a results document can name each one with the fabric and simulation it
 * belongs to.
 *
 * A program attaches traces to a fabric in helper code (TraceOptions); the report
 * that names the files is written by the example (RunReport). The log sits between
 * them: TraceOptions records a file when it opens it, and a RunReport lists the
 * files recorded since it was made ("captures" in its JSON). The log is per process:
 * in a distributed run each process knows only the files it wrote itself.
 *
 * Not covered: FlowMonitor XML files (TraceOptions::WrittenFiles lists them).
 */
#ifndef MLNET_CAPTURE_LOG_H
#define MLNET_CAPTURE_LOG_H

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief One capture file: what device of which fabric and simulation it holds.
 */
struct CaptureFile
{
    std::string file;       //!< path of the capture file
    std::string fabric;     //!< FabricSpec::kind of the fabric captured
    std::string dataPath;   //!< "ipv4" or "fast"
    uint32_t simulation{1}; //!< 1 for a program's first simulation, k for the k-th
    uint32_t node{0};       //!< ns-3 node id of the captured device
    uint32_t device{0};     //!< device index on that node
    std::string linkClass;  //!< link class of the device's link (e.g. host-tor)
    uint32_t snapLength{0}; //!< bytes kept of each frame at most
};

/**
 * \brief Process-wide, append-only list of the capture files opened so far.
 */
class CaptureLog
{
public:
    /// \brief Record a capture file that was just opened.
    static void Record(const CaptureFile& file);
    /// \return how many files were recorded so far (a position to list from later)
    static std::size_t Count();
    /// \return the files recorded from position `first` on, in order
    static std::vector<CaptureFile> Since(std::size_t first);
    /// \return a capture file as a JSON object (file, fabric, data_path, simulation, ...)
    static nlohmann::json ToJson(const CaptureFile& file);
};

} // namespace ns3

#endif // MLNET_CAPTURE_LOG_H
