// SPDX-License-Identifier: GPL-2.0-only
// The run monitors as a user gets them (--timeline, --linkMonitor, --messages): the
// default scenario's Chrome trace-event timeline checked against its schema and the
// run, the link monitor against the link registry, the message log against the
// collective's message count, on both data paths, and determinism.
#include "example-process.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

using namespace mlnettest;
namespace fs = std::filesystem;

namespace
{

/// A CSV file as rows of column -> text.
std::vector<std::map<std::string, std::string>>
ReadCsv(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
    auto split = [](const std::string& l) {
        std::vector<std::string> cells;
        std::stringstream ss(l);
        std::string c;
        while (std::getline(ss, c, ','))
        {
            cells.push_back(c);
        }
        return cells;
    };
    if (std::getline(in, line))
    {
        header = split(line);
    }
    while (std::getline(in, line))
    {
        auto cells = split(line);
        EXPECT_EQ(cells.size(), header.size()) << path << ": " << line;
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
        {
            row[header[i]] = cells[i];
        }
        rows.push_back(row);
    }
    return rows;
}

std::string
Slurp(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Link monitor: bytes per class summed over samples equal the registry's; utilization
/// in [0, 1]; queue depth within the queue's capacity.
void
ExpectLinkMonitorConserves(const std::string& file,
                           const nlohmann::json& bytesByLinkClass,
                           double minBusiest)
{
    auto rows = ReadCsv(file);
    ASSERT_GT(rows.size(), 2u) << file;
    bool perLink = rows.front().count("link") != 0;
    std::map<std::string, uint64_t> sum;
    double busiest = 0;
    for (const auto& r : rows)
    {
        sum[r.at("link_class")] += std::stoull(r.at("bytes"));
        double u = std::stod(r.at("utilization"));
        EXPECT_GE(u, 0.0);
        EXPECT_LE(u, 1.0 + 1e-9) << file;
        busiest = std::max(busiest, perLink ? u : std::stod(r.at("max_utilization")));
        uint64_t queued = std::stoull(r.at(perLink ? "queue_packets" : "max_queue_packets"));
        EXPECT_LE(queued, std::stoull(r.at("queue_limit_packets"))) << file;
        if (!perLink)
        {
            EXPECT_LE(std::stod(r.at("max_utilization")), 1.0 + 1e-9);
        }
    }
    EXPECT_GT(busiest, minBusiest) << file;
    ASSERT_EQ(sum.size(), bytesByLinkClass.size()) << file;
    for (const auto& [cls, bytes] : bytesByLinkClass.items())
    {
        EXPECT_EQ(sum[cls], bytes.get<uint64_t>()) << file << " class " << cls;
    }
}

} // namespace

// The default scenario on two fabrics: one timeline per fabric, named by it, in the
// trace-event format; every rank a track; events carry ranks and bytes and lie
// within the simulated run; lanes nest.
TEST(MonitorsExample, TrainingClusterTimelineFollowsTheTraceEventSchema)
{
    std::string out = ::testing::TempDir() + "/monitors-tc-" + std::to_string(getpid());
    fs::remove_all(out);
    fs::create_directories(out);
    ExampleRun run =
        RunExample("training-cluster",
                   "--gpus=8 --degree=2 --hbDomain=4 --scale=0.001 --budget=5 --checkmate=false "
                   "--fabrics=fattree,topoopt --out=" +
                       out + " --timeline=" + out + "/tl.json --linkMonitor=" + out +
                       "/links.csv --messages=" + out + "/msgs.csv");
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = ReadJson(out + "/training-cluster.json");
    ASSERT_TRUE(doc.contains("outputs")) << "the JSON names the monitor files";
    for (const std::string fabric : {"fattree", "topoopt"})
    {
        SCOPED_TRACE(fabric);
        std::string tl = out + "/tl-" + fabric + ".json";
        std::string links = out + "/links-" + fabric + ".csv";
        std::string msgs = out + "/msgs-" + fabric + ".csv";
        auto named = [&](const char* kind, const std::string& f) {
            const auto& a = doc["outputs"][kind];
            return std::find(a.begin(), a.end(), f) != a.end();
        };
        EXPECT_TRUE(named("timeline", tl));
        EXPECT_TRUE(named("link_monitor", links));
        EXPECT_TRUE(named("messages", msgs));
        const nlohmann::json* row = nullptr;
        for (const auto& r : doc["rows"])
        {
            row = r["fabric"] == fabric ? &r : row;
        }
        ASSERT_NE(row, nullptr);

        nlohmann::json t = ReadJson(tl); // throws (fails) unless valid JSON
        ASSERT_TRUE(t["traceEvents"].is_array());
        EXPECT_EQ(t["otherData"]["title"], fabric);
        const uint32_t ranks = 8;
        // Upper bound of the run: the iterations plus the transport's last ACKs.
        double iterationUs = (*row)["iteration_s"].get<double>() * 1e6;
        std::set<uint32_t> named_ranks;
        std::map<std::string, uint32_t> kinds;
        std::map<uint32_t, uint32_t> eventsOfRank;
        std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<double, double>>> lanes;
        uint64_t messageBytes = 0;
        uint32_t messages = 0;
        double last = 0;
        for (const auto& e : t["traceEvents"])
        {
            ASSERT_TRUE(e.contains("name") && e.contains("ph") && e.contains("pid"));
            if (e["ph"] == "M")
            {
                if (e["name"] == "process_name")
                {
                    EXPECT_EQ(e["args"]["name"], "rank " + std::to_string(e["pid"].get<int>()));
                    named_ranks.insert(e["pid"].get<uint32_t>());
                }
                continue;
            }
            ASSERT_EQ(e["ph"], "X") << e.dump();
            std::string cat = e["cat"];
            ++kinds[cat];
            uint32_t pid = e["pid"];
            ASSERT_LT(pid, ranks);
            ++eventsOfRank[pid];
            double ts = e["ts"];
            double dur = e["dur"];
            EXPECT_GE(ts, 0.0);
            EXPECT_GE(dur, 0.0);
            last = std::max(last, ts + dur);
            lanes[{pid, e["tid"].get<uint32_t>()}].push_back({ts, ts + dur});
            const auto& a = e["args"];
            EXPECT_EQ(a["rank"], pid) << e.dump();
            if (cat == "collective")
            {
                EXPECT_GT(a["bytes"].get<uint64_t>(), 0u);
                EXPECT_GE(a["ranks"].get<uint32_t>(), 2u);
            }
            else if (cat == "message")
            {
                EXPECT_EQ(a["src"], pid);
                EXPECT_LT(a["dst"].get<uint32_t>(), ranks);
                EXPECT_NE(a["dst"], pid);
                messageBytes += a["bytes"].get<uint64_t>();
                ++messages;
            }
            else
            {
                EXPECT_EQ(cat, "compute");
                EXPECT_EQ(e["tid"], 0);
            }
        }
        EXPECT_EQ(named_ranks.size(), ranks) << "every rank is a track";
        EXPECT_EQ(eventsOfRank.size(), ranks) << "every rank did something";
        EXPECT_GT(kinds["compute"], 0u);
        EXPECT_GT(kinds["collective"], 0u);
        EXPECT_GT(kinds["message"], 0u);
        // One iteration from time 0: every event ends within it (1 ns of rounding).
        EXPECT_LE(last, iterationUs + 1e-3);
        EXPECT_GT(last, 0.5 * iterationUs);
        // Events of one lane never overlap (the format needs nested slices).
        for (auto& [lane, ev] : lanes)
        {
            std::sort(ev.begin(), ev.end());
            for (size_t i = 1; i < ev.size(); ++i)
            {
                EXPECT_LE(ev[i - 1].second, ev[i].first + 1e-6)
                    << "rank " << lane.first << " lane " << lane.second;
            }
        }
        // The message log holds the same messages as the timeline.
        auto log = ReadCsv(msgs);
        uint64_t logBytes = 0;
        for (const auto& m : log)
        {
            logBytes += std::stoull(m.at("bytes"));
            EXPECT_LE(std::stod(m.at("start_us")), std::stod(m.at("end_us")));
        }
        EXPECT_EQ(log.size(), messages);
        EXPECT_EQ(logBytes, messageBytes);
        ExpectLinkMonitorConserves(links, (*row)["bytes_by_link_class"], 0.0);
    }
    // The plot kinds read the files the JSON names (skipped without matplotlib, which
    // utils/setup.sh installs).
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0)
    {
        for (const std::string kind : {"link-utilization", "queue-depth", "message-times"})
        {
            std::string png = out + "/" + kind + ".png";
            std::string cmd = "/usr/bin/python3 " + std::string(MLNET_SOURCE_DIR) +
                              "/utils/plot.py " + kind + " " + out + "/training-cluster.json " +
                              png;
            EXPECT_EQ(std::system(cmd.c_str()), 0) << kind;
            EXPECT_GT(fs::file_size(png), 10000u) << kind;
        }
    }
    fs::remove_all(out);
}

// collective-validation's ring all-reduce on a fat-tree, on both data paths: the
// message log holds exactly the ring's 2(n-1) messages per rank of bytes/n each, the
// per-link monitor conserves the registry's bytes, the monitors change nothing of the
// run, and the two data paths (same completion times) give the same message log.
TEST(MonitorsExample, CollectiveMessagesAndLinksOnBothDataPaths)
{
    std::string out = ::testing::TempDir() + "/monitors-cv-" + std::to_string(getpid());
    fs::remove_all(out);
    fs::create_directories(out);
    const uint32_t n = 8;
    const uint64_t bytes = 1 << 20;
    const std::string base = "--fabric=fattree --ranks=8 --bytes=1MiB ";
    std::map<std::string, std::string> logs;
    for (const std::string path : {"fast", "ipv4"})
    {
        SCOPED_TRACE(path);
        std::string p = out + "/" + path;
        ExampleRun plain = RunExample("collective-validation",
                                      base + "--dataPath=" + path + " --json=" + p + "-plain.json");
        ASSERT_EQ(plain.status, 0) << plain.err;
        ExampleRun run = RunExample("collective-validation",
                                    base + "--dataPath=" + path + " --json=" + p +
                                        ".json --linkMonitor=" + p + "-links.csv " +
                                        "--monitorPerLink=true --monitorInterval=5us "
                                        "--messages=" +
                                        p + "-msgs.csv --timeline=" + p + "-tl.json");
        ASSERT_EQ(run.status, 0) << run.err;
        nlohmann::json doc = ReadJson(p + ".json");
        nlohmann::json plainDoc = ReadJson(p + "-plain.json");
        // The sampler neither keeps the run alive nor ends it early.
        EXPECT_EQ(doc["simulated_s"], plainDoc["simulated_s"]);
        EXPECT_EQ(doc["rows"][0]["member_end_ps"], plainDoc["rows"][0]["member_end_ps"]);
        auto msgs = ReadCsv(p + "-msgs.csv");
        // Ring all-reduce: 2(n-1) steps, every rank sends one chunk of bytes/n per step.
        ASSERT_EQ(msgs.size(), n * 2 * (n - 1));
        for (const auto& m : msgs)
        {
            EXPECT_EQ(std::stoull(m.at("bytes")), bytes / n);
            EXPECT_EQ((std::stoul(m.at("src")) + 1) % n, std::stoul(m.at("dst")));
            EXPECT_EQ(m.at("label"), "allreduce-ring");
        }
        // A 1 MiB ring at line rate keeps its links busy for whole 5 us samples.
        ExpectLinkMonitorConserves(p + "-links.csv", doc["rows"][0]["bytes_by_link_class"], 0.99);
        // Samples every 5 us up to the end of the collective (the row written then may be
        // shorter); one last row from there to the end of the run.
        auto rows = ReadCsv(p + "-links.csv");
        double lastSample = std::stod(rows.back().at("time_us"));
        std::set<std::string> longRows;
        for (const auto& r : rows)
        {
            if (std::stod(r.at("interval_us")) > 5.0 + 1e-9)
            {
                longRows.insert(r.at("time_us"));
            }
        }
        EXPECT_LE(longRows.size(), 1u);
        if (!longRows.empty())
        {
            EXPECT_EQ(std::stod(*longRows.begin()), lastSample);
        }
        EXPECT_NEAR(lastSample * 1e-6, doc["simulated_s"].get<double>(), 1e-12);
        logs[path] = Slurp(p + "-msgs.csv");
    }
    EXPECT_EQ(logs["fast"], logs["ipv4"]);
    fs::remove_all(out);
}

// Same flags, same files; bad monitor flags give one error line.
TEST(MonitorsExample, SameFlagsGiveTheSameFilesAndBadFlagsOneErrorLine)
{
    std::string out = ::testing::TempDir() + "/monitors-det-" + std::to_string(getpid());
    fs::remove_all(out);
    fs::create_directories(out);
    std::map<std::string, std::string> first;
    for (int k = 0; k < 2; ++k)
    {
        std::string p = out + "/" + std::to_string(k);
        ExampleRun run =
            RunExample("collective-validation",
                       "--fabric=fattree --ranks=8 --bytes=256KiB --linkMonitor=" + p +
                           "-links.csv --messages=" + p + "-msgs.csv --timeline=" + p + "-tl.json");
        ASSERT_EQ(run.status, 0) << run.err;
        for (const std::string f : {"-links.csv", "-msgs.csv", "-tl.json"})
        {
            std::string text = Slurp(p + f);
            EXPECT_FALSE(text.empty()) << f;
            if (k == 0)
            {
                first[f] = text;
            }
            else
            {
                EXPECT_EQ(text, first[f]) << f << " differs between two identical runs";
            }
        }
    }
    ExpectOneErrorLine(RunExample("collective-validation",
                                  "--fabric=fattree --ranks=8 --linkMonitor=" + out +
                                      "/l.csv --monitorInterval=0s"),
                       "zero interval");
    ExpectOneErrorLine(RunExample("collective-validation",
                                  "--fabric=fattree --ranks=8 --timeline=/dev/null/t.json"),
                       "unwritable timeline");
    fs::remove_all(out);
}
