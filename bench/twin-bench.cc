// SPDX-License-Identifier: GPL-2.0-only
// The fluid twin alone: wall time and memory of AlphaBetaModel's dependency-aware
// replay (TimelineReplay) of one collective's schedule on one fabric, no packet
// simulated. Phases are timed apart: building the fabric, binding the model (its
// routes), the schedule, and the replay itself.
//
//   bench/twin-bench [--ranks=256] [--fabric=fattree] [--collective=allreduce]
//       [--algorithm=ring] [--bytes=1MiB] [--level=packet] [--schedule=generated]
//       [--messages] [--lockStep] [--tsv]
//
// --schedule says how the replay reads the collective: generated (default) replays its
// program, each member's steps generated as it enters them (Predict(collective), as
// the runners call it; the schedule phase then only counts the messages), written
// writes the whole schedule down first (GetSchedule, then Predict(schedule)).
//
// --level says which run the twin is timed beside: packet (default) builds the fabric
// with devices on the fast data path and binds the model to the UDP transport, as
// beside a packet-level run; flow builds it as a graph (no devices, data path "none")
// and binds the model to the flow-level transport standing in for UDP, as a flow-level
// run does. The replay is the same; the fabric's time and memory are not.
// --messages times PredictTimeline (every message's timing kept) instead of Predict
// (the total only); --lockStep also times PredictLockStep (which CollectiveRunner runs
// beside Predict). --tsv prints one tab-separated line:
//   result <fabric> <collective>/<algorithm> <ranks> <bytes> <messages> <fabric_s>
//          <bind_s> <schedule_s> <replay_s> <rss_before_replay_mb> <max_rss_mb>
//          <predicted_s> <rate_updates> <lockstep_s> <replay_cpu_s> <lockstep_cpu_s>
//          <rss_before_schedule_mb>
// Max RSS is the process's peak (getrusage), so run one size per process.
#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/core-module.h"
#include "ns3/fabric-registry.h"
#include "ns3/run-level.h"
#include "ns3/stepwise-collective.h"
#include "ns3/transport-choice.h"
#include "ns3/value-parser.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <numeric>
#include <string>
#include <sys/resource.h>

using namespace ns3;

namespace
{

double
WallSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU seconds of the process so far (user + system): robust to a shared machine.
double
CpuNow()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Peak resident memory of the process so far (MB).
double
MaxRssMb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

/// Resident memory now (MB), from /proc/self/statm.
double
RssNowMb()
{
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0;
    uint64_t resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t ranks = 256;
    std::string fabric = "fattree";
    std::string collective = "allreduce";
    std::string algorithm = "ring";
    std::string bytesText = "1MiB";
    std::string levelText = "packet";
    std::string scheduleText = "generated";
    bool messages = false;
    bool lockStep = false;
    bool tsv = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("ranks", "ranks of the fabric and the collective", ranks);
    cmd.AddValue("fabric", "registered fabric name", fabric);
    cmd.AddValue("collective", "collective name (CollectiveFactory)", collective);
    cmd.AddValue("algorithm", "algorithm name (CollectiveFactory)", algorithm);
    cmd.AddValue("bytes", "collective bytes, e.g. 1MiB", bytesText);
    cmd.AddValue("level", "packet (devices, UDP) or flow (a graph, no devices)", levelText);
    cmd.AddValue("schedule",
                 "generated (the program replayed step by step) or written (GetSchedule first)",
                 scheduleText);
    cmd.AddValue("messages", "keep every message's timing (PredictTimeline)", messages);
    cmd.AddValue("lockStep", "also time PredictLockStep", lockStep);
    cmd.AddValue("tsv", "one tab-separated result line", tsv);
    cmd.Parse(argc, argv);
    try
    {
        const uint64_t bytes = ValueParser::Bytes("bytes", bytesText);
        const RunLevel level = ParseRunLevel(levelText);
        if (scheduleText != "generated" && scheduleText != "written")
        {
            throw std::invalid_argument("--schedule=" + scheduleText +
                                        " is not known; use --schedule=generated or "
                                        "--schedule=written");
        }
        const bool written = scheduleText == "written";
        if (level == RunLevel::ANALYTIC)
        {
            throw std::invalid_argument("--level=analytic has no fabric to replay on; use "
                                        "--level=packet or --level=flow");
        }
        auto t0 = std::chrono::steady_clock::now();
        FabricRequest request;
        request.fabric = fabric;
        request.ranks = ranks;
        request.dataPath = level == RunLevel::FLOW ? "none" : "fast";
        Ptr<Cluster> cluster = FabricRegistry::Build(request);
        Ptr<MessageTransport> transport = TransportChoice::Create("udp", level);
        transport->Install(cluster);
        const double fabricS = WallSince(t0);

        t0 = std::chrono::steady_clock::now();
        Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
        model->SetCluster(cluster);
        model->SetPacketization(transport);
        const double bindS = WallSince(t0);

        const double rssBeforeSchedule = RssNowMb();
        t0 = std::chrono::steady_clock::now();
        Ptr<Collective> c = CollectiveFactory::Create(collective, algorithm);
        std::vector<uint32_t> members(cluster->GetNRanks());
        std::iota(members.begin(), members.end(), 0);
        c->Setup(transport, members, bytes);
        std::vector<CollectiveStep> schedule;
        uint64_t nMessages = 0;
        if (written)
        {
            schedule = c->GetSchedule();
            for (const auto& s : schedule)
            {
                nMessages += s.messages.size();
            }
        }
        else
        {
            Ptr<StepwiseCollective> program = DynamicCast<StepwiseCollective>(c);
            nMessages = program ? program->CountMessages() : 0;
        }
        const double scheduleS = WallSince(t0);

        const double rssBefore = RssNowMb();
        const double cpu0 = CpuNow();
        t0 = std::chrono::steady_clock::now();
        Time predicted;
        uint64_t rateUpdates = 0;
        if (messages)
        {
            TimelinePrediction p =
                written ? model->PredictTimeline(schedule) : model->PredictTimeline(c);
            predicted = p.total;
            rateUpdates = p.rateUpdates;
        }
        else
        {
            predicted = written ? model->Predict(schedule) : model->Predict(c);
        }
        const double replayS = WallSince(t0);
        const double replayCpuS = CpuNow() - cpu0;
        double lockStepS = 0;
        double lockStepCpuS = 0;
        if (lockStep)
        {
            const double cpu1 = CpuNow();
            t0 = std::chrono::steady_clock::now();
            written ? model->PredictLockStep(schedule) : model->PredictLockStep(c);
            lockStepS = WallSince(t0);
            lockStepCpuS = CpuNow() - cpu1;
        }
        const double maxRss = MaxRssMb();
        if (tsv)
        {
            std::printf(
                "result\t%s\t%s/%s\t%u\t%llu\t%llu\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%.12e"
                "\t%llu\t%.3f\t%.3f\t%.3f\t%.1f\n",
                fabric.c_str(),
                collective.c_str(),
                algorithm.c_str(),
                cluster->GetNRanks(),
                static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(nMessages),
                fabricS,
                bindS,
                scheduleS,
                replayS,
                rssBefore,
                maxRss,
                predicted.GetSeconds(),
                static_cast<unsigned long long>(rateUpdates),
                lockStepS,
                replayCpuS,
                lockStepCpuS,
                rssBeforeSchedule);
        }
        else
        {
            std::printf("twin-bench: %s (%s level) %s/%s, %u ranks, %s, %llu messages, "
                        "schedule %s\n",
                        fabric.c_str(),
                        levelText.c_str(),
                        collective.c_str(),
                        algorithm.c_str(),
                        cluster->GetNRanks(),
                        bytesText.c_str(),
                        static_cast<unsigned long long>(nMessages),
                        scheduleText.c_str());
            std::printf("  replay CPU %.3f s\n", replayCpuS);
            std::printf("  fabric %.3f s, bind (routes) %.3f s, schedule %.3f s, replay %.3f s\n",
                        fabricS,
                        bindS,
                        scheduleS,
                        replayS);
            std::printf(
                "  RSS before the schedule %.1f MB, before the replay %.1f MB, peak %.1f MB\n",
                rssBeforeSchedule,
                rssBefore,
                maxRss);
            if (lockStep)
            {
                std::printf("  lock-step %.3f s\n", lockStepS);
            }
            std::printf("  predicted %.9f s\n", predicted.GetSeconds());
        }
        Simulator::Destroy();
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
