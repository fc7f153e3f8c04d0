#include "collective-runner.h"

#include "fabric-options.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-factory.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-message-transport.h"
#include "ns3/udp-message-transport.h"

#include <chrono>
#include <random>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetCollectiveRunner");

void
CollectiveRunOptions::AddToCommandLine(CommandLine& cmd)
{
    cmd.AddValue("collective",
                 "allreduce | allgather | reducescatter | alltoall | broadcast | sendrecv",
                 collective);
    cmd.AddValue("algorithm", "ring | hd | torus | pairwise | direct", algorithm);
    cmd.AddValue("bytes",
                 "bytes of the vector each rank holds (all-to-all: bytes to each other rank), "
                 "e.g. 8MiB",
                 bytes);
    cmd.AddValue("transport", "udp | tcp | dctcp", transport);
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
    row["simulated_s"] = simulatedS;
    row["analytical_s"] = analyticalS;
    row["analytical_lockstep_s"] = lockStepS;
    row["error"] = error;
    row["busbw_gbps"] = busBandwidthGbps;
    row["link_bytes"] = linkBytes;
    row["bytes_by_link_class"] = bytesByLinkClass;
    row["events"] = events;
    row["wall_s"] = wallS;
    if (realCorrect >= 0)
    {
        row["real_result_exact"] = realCorrect == 1;
    }
    return row;
}

Ptr<MessageTransport>
CollectiveRunner::CreateTransport(const std::string& name)
{
    if (name == "udp")
    {
        return CreateObject<UdpMessageTransport>();
    }
    if (name == "tcp" || name == "dctcp")
    {
        Ptr<TcpMessageTransport> tcp = CreateObject<TcpMessageTransport>();
        if (name == "dctcp")
        {
            tcp->SetAttribute("SocketType", StringValue("ns3::TcpDctcp"));
        }
        return tcp;
    }
    throw std::invalid_argument("unknown transport '" + name + "'; valid: udp, tcp, dctcp");
}

CollectiveRunResult
CollectiveRunner::Run(Ptr<Cluster> cluster, const CollectiveRunOptions& options)
{
    uint64_t bytes = ParseByteSize(options.bytes);
    Ptr<MessageTransport> transport = CreateTransport(options.transport);
    Ptr<Collective> collective = CollectiveFactory::Create(options.collective, options.algorithm);
    transport->Install(cluster);
    uint32_t n = cluster->GetNRanks();
    std::vector<uint32_t> ranks(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        ranks[i] = i;
    }
    collective->Setup(transport, ranks, bytes);

    // Real payloads: small integers, so every sum is exact in float whatever the order.
    Eigen::VectorXf expected;
    if (options.real)
    {
        if (bytes % 4 != 0)
        {
            throw std::invalid_argument("--real needs --bytes to be a multiple of 4 (floats)");
        }
        if (options.collective != "allreduce")
        {
            throw std::invalid_argument("--real checks all-reduce results; use "
                                        "--collective=allreduce or drop --real");
        }
        std::mt19937 gen(12345);
        std::uniform_int_distribution<int> pick(-8, 8);
        uint64_t floats = bytes / 4;
        expected = Eigen::VectorXf::Zero(floats);
        for (uint32_t m = 0; m < n; ++m)
        {
            Eigen::VectorXf v(floats);
            for (uint64_t i = 0; i < floats; ++i)
            {
                v[i] = static_cast<float>(pick(gen));
            }
            expected += v;
            collective->SetInput(m, v);
        }
    }

    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetCluster(cluster);
    model->SetPacketization(transport);
    Time analytical = model->Predict(collective);
    Time lockStep = model->PredictLockStep(collective);

    uint64_t eventsBefore = Simulator::GetEventCount();
    auto wall0 = std::chrono::steady_clock::now();
    collective->SetDoneCallback(Callback<void, Ptr<Collective>>(
        [cluster](Ptr<Collective>) { cluster->NotifyWorkloadDone(); }));
    collective->Start();
    Simulator::Run();
    CollectiveRunResult r;
    r.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    r.events = Simulator::GetEventCount() - eventsBefore;
    if (!collective->IsDone())
    {
        throw std::runtime_error("the " + options.collective +
                                 " did not finish: traffic was "
                                 "lost for good (see the transport's counters)");
    }
    r.record = collective->GetRecord();
    r.simulatedS = collective->GetDuration().GetSeconds();
    r.analyticalS = analytical.GetSeconds();
    r.lockStepS = lockStep.GetSeconds();
    r.error = (r.simulatedS - r.analyticalS) / r.simulatedS;
    // Bus bandwidth as nccl-tests defines it; send/recv has no bus factor (its algbw).
    r.busBandwidthGbps =
        (options.collective == "sendrecv"
             ? bytes / r.simulatedS
             : AlphaBetaModel::BusBandwidth(options.collective, n, bytes, r.simulatedS)) *
        8e-9;
    r.linkBytes = cluster->GetTotalLinkBytes();
    r.bytesByLinkClass = cluster->GetBytesByLinkClass();
    if (options.real)
    {
        bool exact = true;
        for (uint32_t m = 0; m < n && exact; ++m)
        {
            exact = collective->GetOutput(m) == expected;
        }
        r.realCorrect = exact ? 1 : 0;
    }
    return r;
}

} // namespace ns3
