// SPDX-License-Identifier: GPL-2.0-only
/*
 * RunReport: the results of one run, as one JSON document plus CSV tables.
 *
 * A report has a name, a "meta" object (command line, seed and run number, ns-3
 * version, fabric description, anything the script adds), "rows" (one JSON
 * object per measured case, the table a researcher plots), optional extra
 * sections (per-iteration records, per-collective records, bytes per link
 * class, ...), and always the cost of the run: wall seconds, simulated seconds,
 * simulator events executed and events per wall second. The capture files (pcap)
 * opened while the report existed are listed in "captures" (CaptureLog), each with
 * its fabric and simulation. The failures injected while it existed (FaultLog) are
 * listed in "failures" and summed up in one printed line. The traffic accounting of every run
 * closed while the report existed (TrafficAccounting::Close, called by the runners) is the
 * "accounting" section, one entry per fabric and run; Finish prints a line for each
 * run that dropped or re-sent frames.
 *
 * Files are written through OutputFiles: inside RunReport::Main they are staged
 * under hidden temporaries and renamed together when the whole run succeeded, or
 * removed when it failed; outside it each is written atomically (a temporary in the
 * same folder, then rename). Missing parent folders are created (OutputFiles::Declare,
 * which a script calls before its simulation to fail early on a path it cannot write).
 *
 * Not covered: plotting, and merging reports of a sweep (utils/ does that).
 */
#ifndef MLNET_RUN_REPORT_H
#define MLNET_RUN_REPORT_H

#include "ns3/capture-log.h"
#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/output-files.h"
#include "ns3/training-driver.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Collects a run's results and writes them as JSON, CSV or a printed table.
 */
class RunReport
{
public:
    /**
     * \brief Start a report; the wall clock starts now.
     * \param name the run's name (e.g. the example's name)
     */
    explicit RunReport(const std::string& name);

    /// \brief Restart the wall clock and take the simulator's event count as the baseline.
    void Start();
    /**
     * \brief Freeze wall seconds, simulated seconds and events at their current values
     * (call after Simulator::Run and before Simulator::Destroy). Without Stop they are
     * read when the report is written.
     */
    void Stop();
    /**
     * \brief Bank the current simulation's simulated seconds and events before
     * Simulator::Destroy, for runs that simulate several scenarios one after another;
     * the totals then cover all of them.
     */
    void CloseSimulation();

    /// \brief Add a row (must be a JSON object; throws std::invalid_argument otherwise).
    void Add(const nlohmann::json& row);
    /// \brief Add a row labelled with a case name: the row gets "case": label first.
    void Add(const std::string& label, const nlohmann::json& row);
    /// \return the rows added so far
    const nlohmann::json& GetRows() const;

    /// \brief Set one entry of "meta".
    void SetMeta(const std::string& key, const nlohmann::json& value);
    /// \brief Record the command line in meta.command_line (arguments joined by spaces).
    void SetCommandLine(int argc, char** argv);
    /// \brief Record the fabric description in meta.fabric.
    void SetFabricSpec(const FabricSpec& spec);
    /**
     * \brief Set a top-level section (e.g. "iterations", "collectives").
     * Throws std::invalid_argument for the reserved keys (name, meta, rows, captures,
     * accounting, wall_s, simulated_s, events, events_per_s).
     */
    void Set(const std::string& key, const nlohmann::json& value);

    /// \brief Choose the columns (flattened keys, e.g. "time.us") that Print shows, in order.
    void SetColumns(const std::vector<std::string>& columns);

    /**
     * \brief The whole document. meta always has ns3_version, seed and run (from
     * RngSeedManager); the cost fields are read now unless Stop froze them.
     */
    nlohmann::json ToJson() const;
    /**
     * \brief Make a results file writable before it is written: create its missing
     * parent folders. Throws std::invalid_argument naming the path when it is empty,
     * a parent cannot be created (e.g. a file has its name) or is not writable
     * (OutputFiles::Declare).
     * \param path the results file (JSON, CSV, ...) a run will write
     */
    static void PrepareOutput(const std::string& path);
    /**
     * \brief Write ToJson() to path (indented), atomically. Throws
     * std::invalid_argument naming the path if it cannot be written.
     */
    void WriteJson(const std::string& path) const;
    /**
     * \brief Write the rows as CSV, atomically: columns are the union of the rows'
     * flattened keys in first-seen order (nested objects become "key.sub"); a value
     * a row lacks is an empty cell; arrays are written as JSON text.
     */
    void WriteCsv(const std::string& path) const;
    /// \brief Print the rows as an aligned table (SetColumns, or every column).
    void Print(std::ostream& os) const;
    /**
     * \brief End of a scenario: Stop (unless stopped), print the table and the cost
     * footer to os, then write the JSON and CSV documents where a path is given and
     * name them ("results: <path>"). In a distributed run only MPI rank 0 prints and
     * writes (every process holds the same merged rows).
     */
    void Finish(std::ostream& os, const std::string& json, const std::string& csv = "");

    /**
     * \brief The examples' error contract around a scenario's body: a
     * std::exception (a user mistake the models detected) becomes one line
     * "error: <message>" on stderr and exit code 1; otherwise 0. The body runs in an
     * OutputFiles session: its files are committed (renamed to their final names)
     * when it returns, discarded when it throws (or when committing fails).
     *
     *   int main(int argc, char* argv[]) { ...flags...; return RunReport::Main([&] { ... }); }
     *
     * At ns-3's default (nanosecond) resolution, Main fixes it with
     * Time::SetResolution before the body: ns-3 stops recording every Time made
     * until the first Simulator::Run (Time::Mark), which costs a tenth of a large
     * flow-level run. A program that wants another resolution sets it before Main.
     * Main leaves the resolution alone where ns-3 no longer allows SetResolution: after
     * one (ns-3's tutorial idiom Time::SetResolution(Time::NS) included) or after a
     * Simulator::Run.
     */
    static int Main(const std::function<void()>& body);

    /// \return a CollectiveRecord as JSON (times in microseconds)
    static nlohmann::json ToJson(const CollectiveRecord& record);
    /// \return a CollectiveTaskRecord as JSON (the record plus iteration and task)
    static nlohmann::json ToJson(const CollectiveTaskRecord& record);
    /// \return an IterationRecord as JSON (start_us, end_us, duration_us)
    static nlohmann::json ToJson(const IterationRecord& record);
    /// \return a TaskRecord as JSON
    static nlohmann::json ToJson(const TaskRecord& record);
    /// \return a list of iteration records as a JSON array
    static nlohmann::json ToJson(const std::vector<IterationRecord>& records);
    /// \return Cluster::GetBytesByLinkClass() as a JSON object class -> bytes
    static nlohmann::json ToJson(const std::map<std::string, uint64_t>& bytesByLinkClass);
    /// \return a FabricSpec as JSON
    static nlohmann::json ToJson(const FabricSpec& spec);

    /**
     * \brief Print a JSON object for people: "title:" then one "  key  value" line per
     * entry, keys aligned, numbers with 6 significant digits; a nested object is
     * printed the same way, indented under its key; arrays as JSON text.
     */
    static void PrintKeyValues(std::ostream& os,
                               const std::string& title,
                               const nlohmann::json& object,
                               const std::string& indent = "");
    /**
     * \brief A duration for people: three significant digits in the largest unit that
     * keeps the value at or above 1 (s, ms, us, ns, ps), e.g. "28.0 ms", "1.23 s";
     * zero is "0 s".
     */
    static std::string FormatSeconds(double seconds);
    /**
     * \brief The cost footer Print ends with: "wall 1.20 s, simulated 28.0 ms, 51234
     * events, 4.27e+04 events per wall second"; a run that simulated nothing (an
     * analytic run) gets "wall 0.012 s (analytic: nothing simulated)".
     */
    static std::string FormatCost(double wallSeconds, double simulatedSeconds, uint64_t events);

    /// \return a JSON object flattened to one level: nested objects become "key.sub"
    static nlohmann::json Flatten(const nlohmann::json& row);

private:
    struct Cost
    {
        double wallSeconds{0};
        double simulatedSeconds{0};
        uint64_t events{0};
    };

    Cost MeasureCost() const;
    std::vector<std::string> CsvColumns() const;

    std::string m_name;
    nlohmann::json m_meta = nlohmann::json::object();
    nlohmann::json m_rows = nlohmann::json::array();
    nlohmann::json m_sections = nlohmann::json::object();
    std::vector<std::string> m_columns;
    std::chrono::steady_clock::time_point m_wallStart;
    uint64_t m_eventBaseline{0};
    double m_closedSimulated{0};   //!< simulated seconds of closed simulations
    uint64_t m_closedEvents{0};    //!< events of closed simulations
    std::size_t m_firstCapture;    //!< CaptureLog position when the report was made
    std::size_t m_firstFault;      //!< FaultLog position when the report was made
    std::size_t m_firstAccounting; //!< TrafficAccounting log position when it was made
    bool m_stopped{false};
    Cost m_frozen;
};

} // namespace ns3

#endif // MLNET_RUN_REPORT_H
