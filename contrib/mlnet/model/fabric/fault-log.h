// SPDX-License-Identifier: GPL-2.0-only
/*
 * FaultLog: what failed when, for the results document.
 *
 * A FaultPlan (fault-plan.h) fails links and nodes on a fabric, before or during a
 * run; the report that says so is written by the example (RunReport). The log sits
 * between them, like CaptureLog for pcap files: the plan records each failed element
 * when it resolves the plan, fills in the frames lost on it as they are dropped, and
 * a RunReport lists the records made since it was created ("failures" in its JSON, one
 * line in its printed output). The log is per process and append-only.
 *
 * Not covered: losses that are not failures (queue overflow, an error model a script
 * installs itself); the byte accounting of a run counts those.
 */
#ifndef MLNET_FAULT_LOG_H
#define MLNET_FAULT_LOG_H

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief One failed element: a link, or a node or NIC with the links it took down.
 */
struct FaultRecord
{
    std::string item;                   //!< the fault as the user wrote it, e.g. "tor-agg:0@1ms"
    std::string element;                //!< "link", "node" or "nic"
    std::string fabric;                 //!< FabricSpec::kind of the fabric it failed on
    std::vector<uint32_t> links;        //!< ids of the links it took down
    std::vector<std::string> classes;   //!< class of each of those links
    std::vector<std::string> endpoints; //!< "nameA-nameB" of each of those links
    std::string node;                   //!< node or NIC owner ("switch3", "rank5"); "" for a link
    double atSeconds{0};                //!< simulated time of the failure
    double convergedSeconds{0};         //!< simulated time the routes avoiding it were installed
    uint64_t framesLost{0};             //!< frames dropped on its links (PhyRxDrop) so far
};

/**
 * \brief Process-wide, append-only list of the failures injected so far.
 */
class FaultLog
{
public:
    /// \brief Record a failure; \return its position (for AddFrameLost)
    static std::size_t Record(const FaultRecord& record);
    /// \brief Count `frames` more frames lost on the failure at `position`.
    static void AddFrameLost(std::size_t position, uint64_t frames = 1);
    /// \return how many failures were recorded so far (a position to list from later)
    static std::size_t Count();
    /// \return the failures recorded from position `first` on, in order
    static std::vector<FaultRecord> Since(std::size_t first);
    /**
     * \return a failure as JSON: item, element, fabric, link (first link id), class,
     * endpoints (the first link's), links (all ids, for nodes and NICs), node, at_s,
     * routes_converged_s, frames_lost
     */
    static nlohmann::json ToJson(const FaultRecord& record);
};

} // namespace ns3

#endif // MLNET_FAULT_LOG_H
