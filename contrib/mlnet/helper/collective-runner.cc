// SPDX-License-Identifier: GPL-2.0-only
#include "collective-runner.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-closed-forms.h"
#include "ns3/collective-factory.h"
#include "ns3/distributed-session.h"
#include "ns3/fabric-options.h"
#include "ns3/log.h"
#include "ns3/progress-scheduler.h"
#include "ns3/roce-message-transport.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/trace-names.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"
#include "ns3/udp-message-transport.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetCollectiveRunner");

namespace
{

/// The distinct collective (first) or algorithm (!first) names CollectiveFactory knows.
std::vector<std::string>
FactoryNames(bool first)
{
    std::vector<std::string> names;
    for (const auto& [collective, algorithm] : CollectiveFactory::List())
    {
        const std::string& name = first ? collective : algorithm;
        if (std::find(names.begin(), names.end(), name) == names.end())
        {
            names.push_back(name);
        }
    }
    return names;
}

} // namespace

void
CollectiveRunOptions::AddToCommandLine(ScenarioCommandLine& cmd)
{
    // Choices over the factory's names: a typo is an error naming the flag at parse time.
    // Which algorithms a collective has is the factory's check (CollectiveFactory::Create).
    const std::vector<std::string> collectives = FactoryNames(true);
    const std::vector<std::string> algorithms = FactoryNames(false);
    cmd.AddChoice("collective", ValueParser::JoinChoices(collectives), collective, collectives);
    cmd.AddChoice("algorithm", ValueParser::JoinChoices(algorithms), algorithm, algorithms);
    cmd.AddValue("groupSize",
                 "hierarchical all-reduce: ranks per group, consecutive ranks (a server, an "
                 "HB domain); 0: the fabric's HB domain size",
                 groupSize,
                 0,
                 FabricOptions::MAX_RANKS);
    cmd.AddBytes("bytes",
                 "bytes of the vector each rank holds (all-to-all: bytes to each other rank), "
                 "e.g. 8MiB (at most 16GiB)",
                 bytes,
                 MAX_BYTES);
    TransportChoice::AddToCommandLine(cmd, transport);
    cmd.AddValue("real", "carry real float values and check the result", real);
}

nlohmann::json
CollectiveRunResult::ToJson() const
{
    nlohmann::json row;
    row["collective"] = record.collective;
    row["algorithm"] = record.algorithm;
    row["ranks"] = record.ranks;
    row["bytes"] = record.bytes;
    // Packet level: the simulated time with its twin beside it. Flow level: the fluid
    // run's time; the twin is the same fluid replayed from the schedule, not repeated.
    const bool packet = level == RunLevel::PACKET;
    row["level"] = ToString(level);
    row["simulated_s"] = simulatedS;
    row["analytical_s"] = packet ? nlohmann::json(analyticalS) : nlohmann::json(nullptr);
    row["analytical_lockstep_s"] = packet ? nlohmann::json(lockStepS) : nlohmann::json(nullptr);
    row["error"] = packet ? nlohmann::json(error) : nlohmann::json(nullptr);
    // twin_gap (null at the flow level, whose twin is itself) and health
    health.Annotate(row, run, simulatedS, packet ? analyticalS : 0.0);
    row["busbw_gbps"] = busBandwidthGbps;
    row["link_bytes"] = linkBytes;
    row["bytes_by_link_class"] = bytesByLinkClass;
    row["events"] = events;
    row["wall_s"] = wallS;
    nlohmann::json ends = nlohmann::json::array();
    for (const Time& t : memberEnds)
    {
        ends.push_back(t.GetPicoSeconds());
    }
    row["member_end_ps"] = ends;
    if (realCorrect >= 0)
    {
        row["real_result_exact"] = realCorrect == 1;
    }
    return row;
}

namespace
{

/**
 * Give every member of a collective a real vector of `floats` small integers (so every
 * sum is exact in float whatever the order of reduction).
 * \return their sum, the exact all-reduce result
 */
Eigen::VectorXf
SetRealInputs(Ptr<Collective> collective, uint64_t floats, std::mt19937& gen)
{
    std::uniform_int_distribution<int> pick(-8, 8);
    Eigen::VectorXf expected = Eigen::VectorXf::Zero(floats);
    for (uint32_t m = 0; m < collective->GetRanks().size(); ++m)
    {
        Eigen::VectorXf v(floats);
        for (uint64_t i = 0; i < floats; ++i)
        {
            v[i] = static_cast<float>(pick(gen));
        }
        expected += v;
        collective->SetInput(m, v);
    }
    return expected;
}

} // namespace

CollectiveRunResult
CollectiveRunner::Run(Ptr<Cluster> cluster, const CollectiveRunOptions& options)
{
    std::vector<uint32_t> all(cluster->GetNRanks());
    for (uint32_t i = 0; i < all.size(); ++i)
    {
        all[i] = i;
    }
    return RunGroups(cluster, options, {all}).front();
}

std::vector<CollectiveRunResult>
CollectiveRunner::RunGroups(Ptr<Cluster> cluster,
                            const CollectiveRunOptions& options,
                            const std::vector<std::vector<uint32_t>>& communicators)
{
    uint64_t bytes = ParseByteSize(options.bytes);
    if (communicators.empty())
    {
        throw std::invalid_argument("no communicator to run the " + options.collective + " on");
    }
    if (options.real && bytes % 4 != 0)
    {
        throw std::invalid_argument("--real needs --bytes to be a multiple of 4 (floats)");
    }
    if (options.real && options.collective != "allreduce")
    {
        throw std::invalid_argument("--real checks all-reduce results; use "
                                    "--collective=allreduce or drop --real");
    }
    if (options.level == RunLevel::ANALYTIC)
    {
        throw std::invalid_argument("CollectiveRunner runs the packet or flow level; "
                                    "use --level=packet or --level=flow");
    }
    if (options.groupSize > 0 && options.algorithm != "hierarchical")
    {
        throw std::invalid_argument("--groupSize sets the hierarchical all-reduce's groups; "
                                    "use --algorithm=hierarchical or drop --groupSize");
    }
    const bool packet = options.level == RunLevel::PACKET;
    // At flow level, the same collectives over fluid flows standing in for packets.
    Ptr<MessageTransport> transport = TransportChoice::Create(options.transport, options.level);
    transport->Install(cluster);
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetCluster(cluster);
    model->SetPacketization(transport);

    struct Group
    {
        Ptr<Collective> collective;
        Eigen::VectorXf expected; //!< exact all-reduce result (real payloads)
        Time analytical;
        Time lockStep;
    };

    std::vector<Group> groups(communicators.size());
    std::mt19937 gen(12345);
    uint32_t pending = static_cast<uint32_t>(groups.size());
    for (size_t g = 0; g < groups.size(); ++g)
    {
        Group& group = groups[g];
        group.collective = CollectiveFactory::Create(options.collective, options.algorithm);
        if (options.groupSize > 0)
        {
            group.collective->SetAttribute("GroupSize", UintegerValue(options.groupSize));
        }
        group.collective->Setup(transport, communicators[g], bytes);
        TraceNames::Register(group.collective, "Collective");
        if (options.real)
        {
            group.expected = SetRealInputs(group.collective, bytes / 4, gen);
        }
        if (packet)
        {
            group.analytical = model->Predict(group.collective);
            group.lockStep = model->PredictLockStep(group.collective);
        }
        group.collective->SetDoneCallback(
            Callback<void, Ptr<Collective>>([cluster, &pending](Ptr<Collective>) {
                if (--pending == 0)
                {
                    cluster->NotifyWorkloadDone();
                }
            }));
    }

    // Bus bandwidth as nccl-tests defines it; send/recv has no bus factor (its algbw).
    auto busBandwidthGbps = [&](uint32_t n, double seconds) {
        return (options.collective == "sendrecv"
                    ? bytes / seconds
                    : CollectiveClosedForms::BusBandwidth(options.collective, n, bytes, seconds)) *
               8e-9;
    };
    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(cluster, transport);
    uint64_t eventsBefore = Simulator::GetEventCount();
    auto wall0 = std::chrono::steady_clock::now();
    Time expectedEnd;
    for (Group& group : groups)
    {
        // Started by the first event, inside Simulator::Run: before it, ns-3 records
        // every Time object constructed (Time::Mark, for a later SetResolution) in a
        // std::set, and a collective issuing its first messages makes millions.
        Simulator::ScheduleNow(&Collective::Start, group.collective);
        expectedEnd = Max(expectedEnd, Simulator::Now() + group.analytical);
    }
    if (packet)
    {
        ProgressScheduler::SetExpectedEnd(expectedEnd);
    }
    Simulator::Run();
    double wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    // A distributed run: each process saw its own members and devices; merge them.
    uint64_t events =
        DistributedSession::SumAll({Simulator::GetEventCount() - eventsBefore}).front();
    wallS = static_cast<double>(
                DistributedSession::MaxAll({static_cast<int64_t>(wallS * 1e9)}).front()) *
            1e-9;
    DistributedSession::MergeLinkCounters(cluster);
    accounting->Close(); // throws when a frame or message is unaccounted for
    const RunHealth health = RunHealth::Measure(cluster, !packet);

    std::vector<CollectiveRunResult> results;
    for (Group& group : groups)
    {
        GatheredCollective gathered = DistributedSession::Gather(group.collective);
        if (!gathered.done)
        {
            // Bounded, not a hang: the transport gave up (UDP: MaxRetries silent
            // timeouts) and the simulator ran out of events; say how much it gave up.
            Ptr<UdpMessageTransport> udp = DynamicCast<UdpMessageTransport>(transport);
            const std::string abandoned = udp ? ", " + std::to_string(udp->GetMessagesAbandoned()) +
                                                    " messages abandoned after MaxRetries timeouts"
                                              : "";
            throw std::runtime_error("the " + options.collective +
                                     " did not finish: traffic was lost for good" + abandoned +
                                     " (see the transport's counters)");
        }
        const uint32_t n = static_cast<uint32_t>(group.collective->GetRanks().size());
        CollectiveRunResult r;
        r.level = options.level;
        r.wallS = wallS;
        r.events = events;
        r.health = health;
        r.run = cluster->GetFabricSpec().kind + "/" + options.collective + "/" + options.algorithm;
        r.record = group.collective->GetRecord();
        r.record.end = gathered.end;
        r.memberEnds = gathered.memberEnds;
        r.simulatedS = (gathered.end - gathered.start).GetSeconds();
        r.analyticalS = group.analytical.GetSeconds();
        r.lockStepS = group.lockStep.GetSeconds();
        r.error = packet ? (r.simulatedS - r.analyticalS) / r.simulatedS : 0.0;
        r.busBandwidthGbps = busBandwidthGbps(n, r.simulatedS);
        r.linkBytes = cluster->GetTotalLinkBytes();
        r.bytesByLinkClass = cluster->GetBytesByLinkClass();
        if (options.real)
        {
            uint64_t wrong = 0;
            for (uint32_t m = 0; m < n; ++m)
            {
                if (group.collective->IsLocalMember(m) &&
                    group.collective->GetOutput(m) != group.expected)
                {
                    ++wrong;
                }
            }
            r.realCorrect = DistributedSession::SumAll({wrong}).front() == 0 ? 1 : 0;
        }
        results.push_back(r);
    }
    return results;
}

} // namespace ns3
