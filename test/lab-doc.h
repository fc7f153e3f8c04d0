// SPDX-License-Identifier: GPL-2.0-only
// Helpers for the lab tests (test/lab*-test.cc): read a lab of doc/labs/, find a
// table row or a sentence in it, and check that a number the program printed is
// the one the lab shows, to the digits the lab shows. The lab's text is the
// expectation, so a change to either the simulator or the lab that makes them
// disagree fails.
#ifndef MLNET_TEST_LAB_DOC_H
#define MLNET_TEST_LAB_DOC_H

#include "example-process.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace mlnettest
{

/// \brief The text of doc/labs/<file> (empty when it is missing).
inline std::string
LabText(const std::string& file)
{
    std::ifstream in(std::string(MLNET_SOURCE_DIR) + "/doc/labs/" + file);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// \brief The trimmed cells of a Markdown table line ("| a | b |" gives {a, b}).
inline std::vector<std::string>
LabCells(const std::string& line)
{
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream in(line.substr(line.find('|') + 1)); // no cell after the closing '|'
    while (std::getline(in, cell, '|'))
    {
        size_t b = cell.find_first_not_of(' ');
        size_t e = cell.find_last_not_of(' ');
        cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    return cells;
}

/**
 * \brief The cells of the one table row whose line starts with `start`
 * (e.g. "| 10 µs | drop |"); empty when no row, or more than one, starts so.
 */
inline std::vector<std::string>
LabRow(const std::string& lab, const std::string& start)
{
    std::vector<std::string> found;
    int matches = 0;
    std::istringstream lines(lab);
    for (std::string line; std::getline(lines, line);)
    {
        if (line.rfind(start, 0) == 0)
        {
            ++matches;
            found = LabCells(line);
        }
    }
    return matches == 1 ? found : std::vector<std::string>{};
}

/// \brief How many body rows the table whose header line starts with `header` has.
inline size_t
LabTableRows(const std::string& lab, const std::string& header)
{
    std::istringstream lines(lab);
    size_t rows = 0;
    bool inTable = false;
    for (std::string line; std::getline(lines, line);)
    {
        if (!inTable)
        {
            inTable = line.rfind(header, 0) == 0;
            continue;
        }
        if (line.rfind("|", 0) != 0)
        {
            break;
        }
        rows += line.rfind("|---", 0) == 0 ? 0 : 1;
    }
    return rows;
}

/// \brief The captures of the first match of `pattern` in `text` (empty if none).
inline std::vector<std::string>
LabMatch(const std::string& text, const std::string& pattern)
{
    std::smatch m;
    std::vector<std::string> groups;
    if (std::regex_search(text, m, std::regex(pattern)))
    {
        for (size_t i = 1; i < m.size(); ++i)
        {
            groups.push_back(m[i]);
        }
    }
    return groups;
}

/// \brief A number as the lab writes it ("139,792", "0.414") as a double.
inline double
LabNumber(std::string shown)
{
    shown.erase(std::remove(shown.begin(), shown.end(), ','), shown.end());
    return std::stod(shown);
}

/**
 * \brief Does `value` (in the unit the lab shows) print as `shown` at the precision
 * shown, i.e. within half a unit of its last digit ("0.0086": ±0.00005, "750": ±0.5)?
 */
inline void
ExpectShownAs(double value, const std::string& shown, const std::string& what)
{
    size_t dot = shown.find('.');
    size_t decimals = dot == std::string::npos ? 0 : shown.size() - dot - 1;
    double half = 0.5 * std::pow(10.0, -static_cast<double>(decimals));
    EXPECT_NEAR(value, LabNumber(shown), half * 1.0001) << what << " (lab: " << shown << ")";
}

/**
 * \brief Does a table cell that starts with a number and an optional unit ("1.83 ms",
 * "750 MB", "5.4 ms (state ...)", "33") show `si` (seconds, bytes, a fraction)?
 * With a unit (s, ms, µs, MB, %) the number is rounded as shown; a bare number is a
 * count or an exact value and must equal `si`.
 */
inline void
ExpectCell(double si, const std::string& cell, const std::string& what)
{
    std::vector<std::string> m =
        LabMatch(cell, R"(^([+-]?[0-9][0-9,]*(?:\.[0-9]+)?)(?: ?(ms|µs|s|MB|%)(?![A-Za-z]))?)");
    ASSERT_FALSE(m.empty()) << what << ": the lab's cell '" << cell << "' holds no number";
    if (m[1].empty())
    {
        EXPECT_EQ(si, LabNumber(m[0])) << what << " (lab: " << cell << ")";
        return;
    }
    const double scale = m[1] == "ms"   ? 1e-3
                         : m[1] == "µs" ? 1e-6
                         : m[1] == "MB" ? 1e6
                         : m[1] == "%"  ? 1e-2
                                        : 1.0;
    ExpectShownAs(si / scale, m[0], what + " (lab cell: " + cell + ")");
}

/**
 * \brief The JSON document of one run of example `name` with `flags` (as a student
 * types them; --quiet and --json are added). A failed run is a test failure and
 * gives an empty object.
 */
inline nlohmann::json
LabRunJson(const std::string& name, const std::string& flags)
{
    const std::string json =
        ::testing::TempDir() + "/lab-" + name + "-" + std::to_string(getpid()) + ".json";
    ExampleRun r = RunExample(name, flags + " --quiet --json=" + json);
    EXPECT_EQ(r.status, 0) << name << " " << flags << ": " << r.err;
    nlohmann::json j = r.status == 0 ? ReadJson(json) : nlohmann::json::object();
    std::remove(json.c_str());
    return j;
}

} // namespace mlnettest

#endif // MLNET_TEST_LAB_DOC_H
