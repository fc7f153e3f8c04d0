// SPDX-License-Identifier: GPL-2.0-only
#include "run-report.h"

#include "ns3/fault-log.h"
#include "ns3/log.h"
#include "ns3/output-files.h"
#include "ns3/process-runtime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/run-outputs.h"
#include "ns3/simulator.h"
#include "ns3/traffic-accounting.h"
#include "ns3/version-defines.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRunReport");

namespace
{

const std::set<std::string> kReserved = {"name",
                                         "meta",
                                         "rows",
                                         "captures",
                                         "failures",
                                         "accounting",
                                         "wall_s",
                                         "simulated_s",
                                         "events",
                                         "events_per_s"};

void
FlattenInto(const nlohmann::json& value, const std::string& prefix, nlohmann::json& out)
{
    for (const auto& [key, v] : value.items())
    {
        std::string k = prefix.empty() ? key : prefix + "." + key;
        if (v.is_object())
        {
            FlattenInto(v, k, out);
        }
        else
        {
            out[k] = v;
        }
    }
}

/// A cell as text: strings bare, numbers as JSON prints them, null empty, arrays as JSON.
std::string
CellText(const nlohmann::json& v, bool forPrint)
{
    if (v.is_null())
    {
        return "";
    }
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (forPrint && v.is_number_float())
    {
        std::ostringstream ss;
        ss << std::setprecision(6) << v.get<double>();
        return ss.str();
    }
    return v.dump();
}

std::string
CsvQuote(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
    {
        return s;
    }
    std::string out = "\"";
    for (char c : s)
    {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}

double
Microseconds(Time t)
{
    return t.ToDouble(Time::US);
}

} // namespace

RunReport::RunReport(const std::string& name)
    : m_name(name),
      m_wallStart(std::chrono::steady_clock::now()),
      m_firstCapture(CaptureLog::Count()),
      m_firstFault(FaultLog::Count()),
      m_firstAccounting(TrafficAccounting::LogCount())
{
}

void
RunReport::Start()
{
    m_wallStart = std::chrono::steady_clock::now();
    m_eventBaseline = Simulator::GetEventCount();
    m_stopped = false;
}

RunReport::Cost
RunReport::MeasureCost() const
{
    if (m_stopped)
    {
        return m_frozen;
    }
    Cost c;
    c.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    c.simulatedSeconds = m_closedSimulated + Simulator::Now().GetSeconds();
    uint64_t events = Simulator::GetEventCount();
    c.events = m_closedEvents + (events >= m_eventBaseline ? events - m_eventBaseline : events);
    return c;
}

void
RunReport::CloseSimulation()
{
    m_closedSimulated += Simulator::Now().GetSeconds();
    uint64_t events = Simulator::GetEventCount();
    m_closedEvents += events >= m_eventBaseline ? events - m_eventBaseline : events;
    m_eventBaseline = 0; // the next simulator counts from zero
}

void
RunReport::Stop()
{
    m_frozen = MeasureCost();
    // A distributed run: events of all processes, wall time of the slowest one.
    m_frozen.events = ProcessRuntime::SumAll({m_frozen.events}).front();
    m_frozen.wallSeconds =
        ProcessRuntime::MaxAll({static_cast<int64_t>(m_frozen.wallSeconds * 1e9)}).front() * 1e-9;
    m_stopped = true;
}

void
RunReport::Add(const nlohmann::json& row)
{
    if (!row.is_object())
    {
        throw std::invalid_argument("a report row must be a JSON object (key: value), got " +
                                    std::string(row.type_name()));
    }
    m_rows.push_back(row);
}

void
RunReport::Add(const std::string& label, const nlohmann::json& row)
{
    if (!row.is_object())
    {
        throw std::invalid_argument("a report row must be a JSON object (key: value), got " +
                                    std::string(row.type_name()));
    }
    nlohmann::json labelled = nlohmann::json::object();
    labelled["case"] = label;
    for (const auto& [k, v] : row.items())
    {
        labelled[k] = v;
    }
    m_rows.push_back(labelled);
}

const nlohmann::json&
RunReport::GetRows() const
{
    return m_rows;
}

void
RunReport::SetMeta(const std::string& key, const nlohmann::json& value)
{
    m_meta[key] = value;
}

void
RunReport::SetCommandLine(int argc, char** argv)
{
    std::string line;
    for (int i = 0; i < argc; ++i)
    {
        line += (i ? " " : "") + std::string(argv[i]);
    }
    m_meta["command_line"] = line;
}

void
RunReport::SetFabricSpec(const FabricSpec& spec)
{
    m_meta["fabric"] = ToJson(spec);
}

void
RunReport::Set(const std::string& key, const nlohmann::json& value)
{
    if (kReserved.count(key))
    {
        throw std::invalid_argument("'" + key +
                                    "' is a reserved key of the report; use Add for rows, "
                                    "SetMeta for run information, or another section name");
    }
    m_sections[key] = value;
}

void
RunReport::SetColumns(const std::vector<std::string>& columns)
{
    m_columns = columns;
}

nlohmann::json
RunReport::ToJson() const
{
    Cost c = MeasureCost();
    nlohmann::json doc = nlohmann::json::object();
    doc["name"] = m_name;
    nlohmann::json meta = m_meta;
    meta["ns3_version"] =
        std::to_string(NS3_VERSION_MAJOR) + "." + std::to_string(NS3_VERSION_MINOR);
    meta["seed"] = RngSeedManager::GetSeed();
    meta["run"] = RngSeedManager::GetRun();
    doc["meta"] = meta;
    doc["rows"] = m_rows;
    for (const auto& [k, v] : m_sections.items())
    {
        doc[k] = v;
    }
    std::vector<CaptureFile> captures = CaptureLog::Since(m_firstCapture);
    if (!captures.empty())
    {
        doc["captures"] = nlohmann::json::array();
        for (const CaptureFile& f : captures)
        {
            doc["captures"].push_back(CaptureLog::ToJson(f));
        }
    }
    std::vector<FaultRecord> faults = FaultLog::Since(m_firstFault);
    if (!faults.empty())
    {
        doc["failures"] = nlohmann::json::array();
        for (const FaultRecord& f : faults)
        {
            doc["failures"].push_back(FaultLog::ToJson(f));
        }
    }
    std::vector<TrafficCounts> accounting = TrafficAccounting::LogSince(m_firstAccounting);
    if (!accounting.empty())
    {
        doc["accounting"] = nlohmann::json::array();
        for (const TrafficCounts& a : accounting)
        {
            doc["accounting"].push_back(a.ToJson());
        }
    }
    RunOutputs::AddTo(doc); // --timeline, --linkMonitor, --messages, --flowmon
    doc["wall_s"] = c.wallSeconds;
    doc["simulated_s"] = c.simulatedSeconds;
    doc["events"] = c.events;
    doc["events_per_s"] = c.wallSeconds > 0 ? static_cast<double>(c.events) / c.wallSeconds : 0.0;
    return doc;
}

void
RunReport::PrepareOutput(const std::string& path)
{
    OutputFiles::Declare(path);
}

void
RunReport::WriteJson(const std::string& path) const
{
    NS_LOG_FUNCTION(this << path);
    OutputFiles::WriteText(path, ToJson().dump(2) + "\n");
}

nlohmann::json
RunReport::Flatten(const nlohmann::json& row)
{
    nlohmann::json out = nlohmann::json::object();
    if (row.is_object())
    {
        FlattenInto(row, "", out);
    }
    return out;
}

std::vector<std::string>
RunReport::CsvColumns() const
{
    std::vector<std::string> columns;
    std::set<std::string> seen;
    for (const auto& row : m_rows)
    {
        // nlohmann::json keeps keys sorted, so within a row columns are alphabetical;
        // a "case" label (Add(label, row)) is put first.
        std::vector<std::string> keys;
        std::function<void(const nlohmann::json&, const std::string&)> walk =
            [&](const nlohmann::json& v, const std::string& prefix) {
                for (const auto& [key, sub] : v.items())
                {
                    std::string k = prefix.empty() ? key : prefix + "." + key;
                    if (sub.is_object())
                    {
                        walk(sub, k);
                    }
                    else
                    {
                        keys.push_back(k);
                    }
                }
            };
        walk(row, "");
        auto label = std::find(keys.begin(), keys.end(), "case");
        if (label != keys.end())
        {
            std::rotate(keys.begin(), label, label + 1);
        }
        for (const auto& k : keys)
        {
            if (seen.insert(k).second)
            {
                columns.push_back(k);
            }
        }
    }
    return columns;
}

void
RunReport::WriteCsv(const std::string& path) const
{
    NS_LOG_FUNCTION(this << path);
    auto columns = CsvColumns();
    std::ostringstream ss;
    for (size_t i = 0; i < columns.size(); ++i)
    {
        ss << (i ? "," : "") << CsvQuote(columns[i]);
    }
    ss << "\n";
    for (const auto& row : m_rows)
    {
        nlohmann::json flat = Flatten(row);
        for (size_t i = 0; i < columns.size(); ++i)
        {
            std::string cell;
            if (flat.contains(columns[i]))
            {
                cell = CellText(flat.at(columns[i]), false);
            }
            ss << (i ? "," : "") << CsvQuote(cell);
        }
        ss << "\n";
    }
    OutputFiles::WriteText(path, ss.str());
}

void
RunReport::Finish(std::ostream& os, const std::string& json, const std::string& csv)
{
    if (!m_stopped)
    {
        Stop();
    }
    // A capture or monitor that failed to write (Simulator::Destroy) fails the run now,
    // before the report says "results: ...".
    OutputFiles::CheckWriters();
    // A distributed run: every process holds the merged results; one writes them.
    if (!ProcessRuntime::IsRoot())
    {
        return;
    }
    Print(os);
    std::vector<TrafficCounts> accounting = TrafficAccounting::LogSince(m_firstAccounting);
    for (const TrafficCounts& a : accounting)
    {
        std::string line = a.Summary();
        if (!line.empty())
        {
            os << "accounting" << (accounting.size() > 1 ? " (" + a.fabric + ")" : "") << ": "
               << line << std::endl;
        }
    }
    // A packet-level run far off its twin (RunHealth::Annotate put the line in its row).
    for (const nlohmann::json& row : m_rows)
    {
        if (row.contains("health") && row["health"].is_object() &&
            row["health"].contains("warning"))
        {
            os << "warning: " << row["health"]["warning"].get<std::string>() << std::endl;
        }
    }
    // One run of many rows (per-iteration rows): its health as a section.
    if (m_sections.contains("health") && m_sections["health"].is_object() &&
        m_sections["health"].contains("warning"))
    {
        os << "warning: " << m_sections["health"]["warning"].get<std::string>() << std::endl;
    }
    if (!json.empty())
    {
        WriteJson(json);
        os << "results: " << json << std::endl;
    }
    if (!csv.empty())
    {
        WriteCsv(csv);
        os << "rows: " << csv << std::endl;
    }
}

int
RunReport::Main(const std::function<void()>& body)
{
    // Until the first Simulator::Run or Time::SetResolution, ns-3 keeps a pointer to
    // every Time alive in a std::set, so that a later SetResolution can convert it
    // (Time::Mark, Time::Clear): an insert and an erase per Time made while the fabric
    // is built and the twin predicts (a tenth of a 1024-GPU flow-level iteration's
    // instructions). A scenario keeps one resolution; a script that wants another
    // sets it before Main. Fixing the one in force here ends the bookkeeping.
    //
    // ns-3 3.37 allows SetResolution only while that record exists: after a
    // SetResolution (the tutorial's `Time::SetResolution(Time::NS)` at the top of
    // main) or a Simulator::Run it is gone and a second SetResolution dereferences
    // null. The record is a private static of Time, exported by libns3-core
    // (Time::g_markingTimes); Main reads it through the dynamic linker and fixes the
    // resolution only while it is alive. Where the symbol is not found (another ns-3),
    // Main leaves the resolution alone: the run is the same, only slower to set up.
    // While the record exists no SetResolution has been made, so the resolution in
    // force is ns-3's default; a second Main finds the record gone.
    const auto* record =
        static_cast<void* const*>(dlsym(RTLD_DEFAULT, "_ZN3ns34Time14g_markingTimesE"));
    if (record != nullptr && *record != nullptr)
    {
        Time::SetResolution(Time::GetResolution());
    }
    // The run's files appear together when it succeeded, or not at all (OutputFiles).
    const bool session = OutputFiles::Begin();
    try
    {
        body();
        if (session)
        {
            OutputFiles::Commit();
        }
    }
    catch (const std::exception& e)
    {
        if (session)
        {
            OutputFiles::Discard();
        }
        // Under mpirun every process meets the same mistake and says it (mpirun stops
        // the job when the first one exits, so no single process is sure to be heard),
        // each in one write, so that their lines do not interleave.
        std::string line = "error: " + std::string(e.what()) + "\n";
        std::cerr.flush();
        if (::write(STDERR_FILENO, line.data(), line.size()) < 0)
        {
            std::cerr << line;
        }
        return 1;
    }
    return 0;
}

void
RunReport::Print(std::ostream& os) const
{
    auto columns = m_columns.empty() ? CsvColumns() : m_columns;
    if (columns.empty())
    {
        os << m_name << ": no rows\n";
        return;
    }
    std::vector<std::string> headers = columns;
    // A run's health (RunHealth::Annotate): its drops and re-sends as columns, shown only
    // when some row has them.
    for (const auto& [key, label] :
         {std::pair<const char*, const char*>{"health.dropped", "dropped"},
          {"health.resent", "resent"}})
    {
        if (m_columns.empty())
        {
            break; // every column is shown already
        }
        bool any = std::any_of(m_rows.begin(), m_rows.end(), [key = key](const nlohmann::json& r) {
            nlohmann::json flat = Flatten(r);
            return flat.contains(key) && flat.at(key).is_number() && flat.at(key) != 0;
        });
        if (any)
        {
            columns.push_back(key);
            headers.push_back(label);
        }
    }
    std::vector<std::vector<std::string>> cells;
    std::vector<std::vector<bool>> numeric;
    std::vector<size_t> width(columns.size());
    for (size_t i = 0; i < columns.size(); ++i)
    {
        width[i] = headers[i].size();
    }
    for (const auto& row : m_rows)
    {
        nlohmann::json flat = Flatten(row);
        std::vector<std::string> line;
        std::vector<bool> isNumber;
        for (size_t i = 0; i < columns.size(); ++i)
        {
            const nlohmann::json v =
                flat.contains(columns[i]) ? flat.at(columns[i]) : nlohmann::json();
            line.push_back(CellText(v, true));
            isNumber.push_back(v.is_number());
            width[i] = std::max(width[i], line.back().size());
        }
        cells.push_back(line);
        numeric.push_back(isNumber);
    }
    auto emit = [&](const std::vector<std::string>& line, const std::vector<bool>& right) {
        for (size_t i = 0; i < line.size(); ++i)
        {
            os << (i ? "  " : "");
            if (right[i])
            {
                os << std::setw(static_cast<int>(width[i])) << std::right << line[i];
            }
            else if (i + 1 < line.size())
            {
                os << std::setw(static_cast<int>(width[i])) << std::left << line[i];
            }
            else
            {
                os << line[i];
            }
        }
        os << std::right << "\n";
    };
    emit(headers, std::vector<bool>(columns.size(), false));
    std::vector<std::string> rule;
    for (size_t w : width)
    {
        rule.emplace_back(w, '-');
    }
    emit(rule, std::vector<bool>(columns.size(), false));
    for (size_t r = 0; r < cells.size(); ++r)
    {
        emit(cells[r], numeric[r]);
    }
    std::vector<FaultRecord> faults = FaultLog::Since(m_firstFault);
    if (!faults.empty())
    {
        // One line: what failed, when, when routes were back, what it lost.
        os << "failures:";
        uint64_t lost = 0;
        for (size_t i = 0; i < faults.size(); ++i)
        {
            const FaultRecord& f = faults[i];
            os << (i ? ";" : "") << " " << f.element << " ";
            if (f.element == "link")
            {
                os << f.links.front() << " " << f.classes.front() << " " << f.endpoints.front();
            }
            else
            {
                os << f.node << " (" << f.links.size() << " links)";
            }
            os << " at " << FormatSeconds(f.atSeconds) << ", routes "
               << FormatSeconds(f.convergedSeconds);
            lost += f.framesLost;
        }
        os << "; " << lost << " frames lost\n";
    }
    Cost c = MeasureCost();
    os << FormatCost(c.wallSeconds, c.simulatedSeconds, c.events) << "\n";
}

void
RunReport::PrintKeyValues(std::ostream& os,
                          const std::string& title,
                          const nlohmann::json& object,
                          const std::string& indent)
{
    os << indent << title << ":\n";
    if (!object.is_object())
    {
        os << indent << "  " << CellText(object, true) << "\n";
        return;
    }
    size_t width = 0;
    for (const auto& [k, v] : object.items())
    {
        width = std::max(width, k.size());
    }
    for (const auto& [k, v] : object.items())
    {
        if (v.is_object())
        {
            PrintKeyValues(os, k, v, indent + "  ");
            continue;
        }
        os << indent << "  " << std::setw(static_cast<int>(width)) << std::left << k << std::right
           << "  "
           << (v.is_null()      ? std::string("-")
               : v.is_boolean() ? (v.get<bool>() ? "yes" : "no")
                                : CellText(v, true))
           << "\n";
    }
}

std::string
RunReport::FormatSeconds(double seconds)
{
    static const std::pair<double, const char*> units[] = {{1, "s"},
                                                           {1e-3, "ms"},
                                                           {1e-6, "us"},
                                                           {1e-9, "ns"},
                                                           {1e-12, "ps"}};
    if (seconds == 0)
    {
        return "0 s";
    }
    const double magnitude = std::abs(seconds);
    for (const auto& [scale, unit] : units)
    {
        if (magnitude >= scale || scale == 1e-12)
        {
            std::ostringstream ss;
            const double v = seconds / scale;
            const int digits = std::abs(v) >= 100 ? 0 : (std::abs(v) >= 10 ? 1 : 2);
            ss << std::fixed << std::setprecision(digits) << v << " " << unit;
            return ss.str();
        }
    }
    return "0 s";
}

std::string
RunReport::FormatCost(double wallSeconds, double simulatedSeconds, uint64_t events)
{
    std::ostringstream ss;
    if (events == 0 && simulatedSeconds == 0)
    {
        ss << "wall " << FormatSeconds(wallSeconds) << " (analytic: nothing simulated)";
        return ss.str();
    }
    ss << "wall " << FormatSeconds(wallSeconds) << ", simulated " << FormatSeconds(simulatedSeconds)
       << ", " << events << " events, " << std::setprecision(3)
       << (wallSeconds > 0 ? static_cast<double>(events) / wallSeconds : 0.0)
       << " events per wall second";
    return ss.str();
}

nlohmann::json
RunReport::ToJson(const CollectiveRecord& record)
{
    return {{"collective", record.collective},
            {"algorithm", record.algorithm},
            {"ranks", record.ranks},
            {"bytes", record.bytes},
            {"start_us", Microseconds(record.start)},
            {"end_us", Microseconds(record.end)},
            {"duration_us", Microseconds(record.end - record.start)}};
}

nlohmann::json
RunReport::ToJson(const CollectiveTaskRecord& record)
{
    nlohmann::json j = ToJson(record.record);
    j["iteration"] = record.iteration;
    j["task"] = record.task;
    return j;
}

nlohmann::json
RunReport::ToJson(const IterationRecord& record)
{
    return {{"iteration", record.iteration},
            {"start_us", Microseconds(record.start)},
            {"end_us", Microseconds(record.end)},
            {"duration_us", Microseconds(record.GetDuration())}};
}

nlohmann::json
RunReport::ToJson(const TaskRecord& record)
{
    nlohmann::json j = {{"iteration", record.iteration},
                        {"task", record.task},
                        {"name", record.name},
                        {"kind", TaskKindToString(record.kind)},
                        {"ready_us", Microseconds(record.ready)},
                        {"start_us", Microseconds(record.start)},
                        {"end_us", Microseconds(record.end)}};
    if (record.rank != NO_RANK)
    {
        j["rank"] = record.rank;
    }
    return j;
}

nlohmann::json
RunReport::ToJson(const std::vector<IterationRecord>& records)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& r : records)
    {
        a.push_back(ToJson(r));
    }
    return a;
}

nlohmann::json
RunReport::ToJson(const std::map<std::string, uint64_t>& bytesByLinkClass)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [linkClass, bytes] : bytesByLinkClass)
    {
        j[linkClass] = bytes;
    }
    return j;
}

nlohmann::json
RunReport::ToJson(const FabricSpec& spec)
{
    nlohmann::json j = {{"kind", spec.kind},
                        {"ranks", spec.ranks},
                        {"link_rate_bps", spec.linkRate.GetBitRate()},
                        {"link_delay_us", Microseconds(spec.linkDelay)},
                        {"mtu", spec.mtu}};
    if (spec.tiers)
    {
        j["tiers"] = spec.tiers;
        j["radix"] = spec.radix;
        j["ranks_per_tor"] = spec.ranksPerTor;
        j["oversubscription"] = spec.oversubscription;
    }
    if (!spec.dims.empty())
    {
        j["dims"] = spec.dims;
        j["wrap"] = spec.wrap;
    }
    j["routing"] = spec.routing;
    if (spec.partitions > 1)
    {
        j["partitions"] = spec.partitions;
        j["cut_links"] = spec.cutLinks;
        j["lookahead_us"] = Microseconds(spec.lookahead);
    }
    return j;
}

} // namespace ns3
