// SPDX-License-Identifier: GPL-2.0-only
// Small helpers every test binary of the suite shares (module tests and integration
// tests alike; cmake/MlnetModule.cmake and test/CMakeLists.txt put this folder on their
// include path): the message of a rejected input, a trace sink that counts calls
// per Config path context, the traffic conservation check of a results document, and
// a fresh temporary folder with the listing of what is in it.
#ifndef MLNET_TEST_SUPPORT_H
#define MLNET_TEST_SUPPORT_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace mlnettest
{

/// \brief A fresh, empty folder under the test temporary folder, removed with all it
/// holds when it goes out of scope. Throws std::runtime_error if it cannot be made.
class TempFolder
{
public:
    /// \param stem the start of the folder's name (e.g. "mlnet-output-files")
    explicit TempFolder(const std::string& stem)
    {
        std::string name =
            (std::filesystem::path(::testing::TempDir()) / (stem + "-XXXXXX")).string();
        if (mkdtemp(name.data()) == nullptr)
        {
            throw std::runtime_error("cannot make a temporary folder " + name);
        }
        m_path = name;
    }

    ~TempFolder()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec); // with any folders a test made
    }

    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;

    /// \return the folder
    const std::string& Path() const
    {
        return m_path;
    }

    /// \return the path of `name` inside the folder
    std::string operator/(const std::string& name) const
    {
        return m_path + "/" + name;
    }

    /// \brief Write files (name relative to the folder -> text), making their folders.
    void Write(const std::map<std::string, std::string>& files) const
    {
        for (const auto& [name, text] : files)
        {
            std::filesystem::path p = std::filesystem::path(m_path) / name;
            std::filesystem::create_directories(p.parent_path());
            std::ofstream(p) << text;
        }
    }

private:
    std::string m_path;
};

/// \return every file and folder under dir (relative names, hidden ones too), sorted
inline std::vector<std::string>
ListTree(const std::string& dir)
{
    std::vector<std::string> paths;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    {
        paths.push_back(std::filesystem::relative(entry.path(), dir).string());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

/// \return what `f` threw as std::invalid_argument, or `none` if it threw nothing
inline std::string
InvalidArgumentMessage(const std::function<void()>& f, const std::string& none = "no exception")
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return none;
}

/// Calls per context of every trace connected (Config::Connect) to CountTraceCall.
inline std::map<std::string, uint32_t> g_traceCalls;

/// A trace sink of any signature that counts its calls per context in g_traceCalls.
template <typename... Args>
void
CountTraceCall(std::string context, Args...)
{
    ++g_traceCalls[context];
}

/**
 * Assert that every run's health in a results document (RunHealth::Annotate: a row's
 * "health" object, or the "health" section of a one-run document) is the counts of
 * one of its accounting entries, and that it warns exactly when |twin_gap| > 25 % or,
 * at the flow level, when its fluid overfilled a port (fluid_overflow > 0).
 */
inline void
ExpectHealthMatchesAccounting(const nlohmann::json& doc)
{
    std::vector<std::pair<nlohmann::json, nlohmann::json>> runs; // (health, twin_gap)
    for (const nlohmann::json& row : doc["rows"])
    {
        if (row.contains("health"))
        {
            runs.emplace_back(row["health"], row.value("twin_gap", nlohmann::json()));
        }
    }
    if (doc.contains("health"))
    {
        runs.emplace_back(doc["health"], doc["health"].value("twin_gap", nlohmann::json()));
    }
    for (const auto& [h, gap] : runs)
    {
        SCOPED_TRACE(h.dump());
        bool found = false;
        for (const nlohmann::json& a : doc.value("accounting", nlohmann::json::array()))
        {
            found = found || (a["messages"]["sent"]["messages"] == h["messages_sent"] &&
                              a["messages"]["delivered"]["bytes"] == h["bytes_delivered"] &&
                              a["frames"]["sent"]["frames"] == h["frames_sent"] &&
                              a["frames"]["dropped"]["frames"] == h["dropped"] &&
                              a["frames"]["resent"] == h["resent"] &&
                              a["frames"]["resent_bytes"] == h["resent_bytes"] &&
                              a["timeouts"] == h["timeouts"] &&
                              a["max_queue_bytes"] == h["max_queue_bytes"] &&
                              a["fluid"]["overflow"]["frames"] == h["fluid_overflow"] &&
                              a["fluid"]["peak_backlog_bytes"] == h["fluid_peak_backlog_bytes"]);
        }
        EXPECT_TRUE(found) << "no accounting entry has this run's counts";
        // A flow-level run whose fluid overfilled a port warns whatever its gap.
        const bool overflow = h["fluid_overflow"].get<uint64_t>() > 0;
        if (gap.is_number())
        {
            EXPECT_EQ(h.contains("warning"), overflow || std::abs(gap.get<double>()) > 0.25) << gap;
        }
        else
        {
            EXPECT_EQ(h.contains("warning"), overflow);
        }
    }
}

/**
 * Assert that every row of a results document times a packet-level run with its
 * health: a "health" object and a "twin_gap" = (`packet` - `twin`) / `twin` of the
 * row's columns of those names (null when the twin is 0).
 */
inline void
ExpectRowsHaveHealth(const nlohmann::json& doc, const std::string& packet, const std::string& twin)
{
    ASSERT_FALSE(doc["rows"].empty());
    for (const nlohmann::json& row : doc["rows"])
    {
        SCOPED_TRACE(row.dump());
        ASSERT_TRUE(row.contains("health") && row["health"].is_object());
        ASSERT_TRUE(row.contains("twin_gap"));
        double p = row[packet].get<double>();
        double t = row[twin].get<double>();
        if (t > 0)
        {
            EXPECT_NEAR(row["twin_gap"].get<double>(), (p - t) / t, 1e-12);
        }
        else
        {
            EXPECT_TRUE(row["twin_gap"].is_null());
        }
    }
}

/**
 * Assert that a results document accounts for every byte: its "accounting" section
 * has `runs` entries (one per fabric and packet-level run), and in each, messages and
 * their bytes sent = delivered + abandoned + in flight, frames and their wire bytes
 * sent by hosts + mirrored = delivered + dropped + in flight, the drops listed add up
 * to the frames dropped, and re-sent frames are a part of those sent. With `drained`
 * (the run ended because nothing was left to simulate), nothing is in flight. The runs'
 * health objects must match entries (ExpectHealthMatchesAccounting).
 * `runs` = 0: a run that simulated nothing has no accounting section.
 */
inline void
ExpectTrafficConserved(const nlohmann::json& doc, size_t runs, bool drained = true)
{
    if (runs == 0)
    {
        EXPECT_FALSE(doc.contains("accounting")) << doc["accounting"].dump();
        return;
    }
    ASSERT_TRUE(doc.contains("accounting")) << "no accounting section";
    const nlohmann::json& entries = doc["accounting"];
    ASSERT_EQ(entries.size(), runs) << entries.dump();
    for (const nlohmann::json& a : entries)
    {
        SCOPED_TRACE(a.dump());
        EXPECT_TRUE(a["conserved"].get<bool>());
        const nlohmann::json& m = a["messages"];
        const nlohmann::json& f = a["frames"];
        for (const char* unit : {"messages", "bytes"})
        {
            EXPECT_EQ(m["sent"][unit].get<uint64_t>(),
                      m["delivered"][unit].get<uint64_t>() + m["abandoned"][unit].get<uint64_t>() +
                          m["in_flight"][unit].get<uint64_t>())
                << unit;
        }
        EXPECT_GT(m["sent"]["messages"].get<uint64_t>(), 0u);
        for (const char* unit : {"frames", "bytes"})
        {
            EXPECT_EQ(f["sent"][unit].get<uint64_t>() + f["mirrored"][unit].get<uint64_t>(),
                      f["delivered"][unit].get<uint64_t>() + f["dropped"][unit].get<uint64_t>() +
                          f["in_flight"][unit].get<uint64_t>())
                << unit;
            uint64_t listed = 0;
            for (const nlohmann::json& d : a["drops"])
            {
                listed += d[unit].get<uint64_t>();
            }
            EXPECT_EQ(listed, f["dropped"][unit].get<uint64_t>()) << unit;
        }
        EXPECT_LE(f["resent"].get<uint64_t>(), f["sent"]["frames"].get<uint64_t>());
        if (drained)
        {
            EXPECT_EQ(m["in_flight"]["messages"].get<uint64_t>(), 0u);
            EXPECT_EQ(f["in_flight"]["frames"].get<uint64_t>(), 0u);
        }
        EXPECT_LE(a["frames"]["resent_bytes"].get<uint64_t>(), f["sent"]["bytes"].get<uint64_t>());
    }
    ExpectHealthMatchesAccounting(doc);
}

} // namespace mlnettest

#endif // MLNET_TEST_SUPPORT_H
