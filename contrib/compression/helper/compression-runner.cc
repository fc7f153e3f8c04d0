// SPDX-License-Identifier: GPL-2.0-only
#include "compression-runner.h"

#include "ns3/bf16-codec.h"
#include "ns3/boolean.h"
#include "ns3/compressed-trainer.h"
#include "ns3/compression-cost-model.h"
#include "ns3/data-path-choice.h"
#include "ns3/double.h"
#include "ns3/fabric-registry.h"
#include "ns3/fp32-codec.h"
#include "ns3/power-sgd-codec.h"
#include "ns3/quantization-codec.h"
#include "ns3/run-health.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/top-k-codec.h"
#include "ns3/traffic-accounting.h"
#include "ns3/transport-choice.h"
#include "ns3/uinteger.h"

#include <numeric>
#include <stdexcept>

namespace ns3
{

Ptr<GradientCodec>
CompressionRunner::MakeCodec(const CompressionConfig& c)
{
    Ptr<GradientCodec> codec;
    if (c.scheme == "fp32")
    {
        codec = CreateObject<Fp32Codec>();
    }
    else if (c.scheme == "bf16" || c.scheme == "fp16")
    {
        codec = CreateObject<Bf16Codec>();
        codec->SetAttribute("Format", StringValue(c.scheme));
    }
    else if (c.scheme == "topk")
    {
        codec = CreateObject<TopKCodec>();
        codec->SetAttribute("Density", DoubleValue(c.density));
    }
    else if (c.scheme == "quant")
    {
        codec = CreateObject<QuantizationCodec>();
        codec->SetAttribute("Bits", UintegerValue(c.bits));
    }
    else if (c.scheme == "powersgd")
    {
        codec = CreateObject<PowerSgdCodec>();
        codec->SetAttribute("Rank", UintegerValue(c.rank));
    }
    else
    {
        throw std::invalid_argument("unknown --scheme '" + c.scheme +
                                    "': use bf16, fp16, fp32, topk, quant or powersgd");
    }
    codec->SetAttribute("DeviceMemoryBandwidth", DoubleValue(c.memoryBandwidth));
    return codec;
}

std::string
CompressionConfig::DataPath() const
{
    return DataPathChoice::Resolve(dataPath, "udp", {}, level, {});
}

void
CompressionConfig::Validate() const
{
    DataPath();
    if (iterations == 0)
    {
        throw std::invalid_argument("--iterations must be at least 1");
    }
    if (workers < 2)
    {
        throw std::invalid_argument("--workers must be at least 2");
    }
    if (!(targetAccuracy > 0 && targetAccuracy <= 1))
    {
        throw std::invalid_argument("--targetAccuracy must be in (0, 1]");
    }
    // Checked for every scheme, so a sweep whose quant row comes later fails before the
    // first simulation (QuantizationCodec keeps its own check for API users).
    if (bits != 2 && bits != 4 && bits != 8)
    {
        throw std::invalid_argument("--bits=" + std::to_string(bits) +
                                    ": quantization packs 2, 4 or 8 bits per value; give one of "
                                    "them");
    }
}

nlohmann::json
CompressionRunner::Run(const CompressionConfig& c)
{
    c.Validate();
    Ptr<GradientCodec> codec = MakeCodec(c);
    FabricRequest fabric;
    fabric.fabric = "ideal";
    fabric.ranks = c.workers;
    fabric.linkRate = c.bandwidth;
    fabric.linkDelay = c.delay;
    fabric.dataPath = c.DataPath();
    Ptr<Cluster> cluster = FabricRegistry::Build(fabric);
    // Encoded values travel as real message bytes at both levels.
    Ptr<MessageTransport> transport = TransportChoice::Create("udp", c.level);
    transport->Install(cluster);
    Ptr<RealModel> model = CreateObject<RealModel>();
    model->SetAttribute("Inputs", UintegerValue(c.inputs));
    model->SetAttribute("Hidden", UintegerValue(c.hidden));
    model->SetAttribute("Classes", UintegerValue(c.classes));
    Ptr<SyntheticDataset> data = CreateObject<SyntheticDataset>();
    ObjectFactory opt("ns3::SgdMomentum");
    opt.Set("LearningRate", DoubleValue(c.learningRate));
    Ptr<CompressedTrainer> trainer = CreateObject<CompressedTrainer>();
    trainer->SetAttribute("ComputeTime", TimeValue(c.computeTime));
    trainer->SetAttribute("BatchSize", UintegerValue(c.batch));
    std::vector<uint32_t> ranks(c.workers);
    std::iota(ranks.begin(), ranks.end(), 0);
    trainer->Setup(transport, ranks, model, data, opt);
    trainer->SetCodec(codec); // throws for impossible codec parameters
    Ptr<TrafficAccounting> accounting = TrafficAccounting::Attach(cluster, transport);
    trainer->Run(0, c.iterations);
    Simulator::Run();
    accounting->Close(); // throws when a frame or message is unaccounted for

    Ptr<CompressionCostModel> twin = CreateObject<CompressionCostModel>();
    twin->FromLink(c.bandwidth,
                   c.delay,
                   transport->GetMaxPayload(),
                   transport->GetPerPacketOverhead());
    const auto& records = trainer->GetRecords();
    const auto& ex = trainer->GetExchangeRecords();
    NS_ASSERT(records.size() == c.iterations && ex.size() == c.iterations);
    double comm = 0;
    double encode = 0;
    double decode = 0;
    for (const auto& e : ex)
    {
        comm += e.communication.GetSeconds() + e.gaps.GetSeconds();
        encode += e.encode.GetSeconds();
        decode += e.decode.GetSeconds();
    }
    nlohmann::json ttt = nullptr;
    nlohmann::json itt = nullptr;
    for (const auto& r : records)
    {
        if (r.accuracy >= c.targetAccuracy)
        {
            ttt = r.end.GetSeconds();
            itt = r.iteration + 1;
            break;
        }
    }
    std::string algorithm;
    for (const auto& a : ex.front().algorithms)
    {
        algorithm += (algorithm.empty() ? "" : "+") + a;
    }
    double n = static_cast<double>(c.iterations);
    nlohmann::json row = {
        {"scheme", codec->GetName()},
        {"bandwidth_gbps", c.bandwidth.GetBitRate() / 1e9},
        {"workers", c.workers},
        {"parameters", model->GetParameterCount()},
        {"density", c.scheme == "topk" ? nlohmann::json(c.density) : nlohmann::json(nullptr)},
        {"bits", c.scheme == "quant" ? nlohmann::json(c.bits) : nlohmann::json(nullptr)},
        {"rank", c.scheme == "powersgd" ? nlohmann::json(c.rank) : nlohmann::json(nullptr)},
        {"algorithm", algorithm},
        {"bytes_on_wire", codec->GetBytesOnWire()},
        {"iteration_s", records.back().end.GetSeconds() / n},
        {"comm_s", comm / n},
        {"analytical_comm_s", twin->CommunicationTime(codec)},
        {"encode_s", encode / n},
        {"decode_s", decode / n},
        {"analytical_exchange_s", twin->ExchangeTime(codec)},
        {"time_to_target_s", ttt},
        {"iterations_to_target", itt},
        {"final_loss", records.back().loss},
        {"final_accuracy", records.back().accuracy},
    };
    // The packet-level exchange against its twin (the communication time both model).
    RunHealth::Measure(cluster, c.level == RunLevel::FLOW)
        .Annotate(row,
                  codec->GetName(),
                  row["comm_s"].get<double>(),
                  row["analytical_comm_s"].get<double>());
    trainer->Dispose();
    return row;
}

std::vector<std::string>
CompressionRunner::SplitList(const std::string& list)
{
    std::vector<std::string> out;
    std::string item;
    for (char ch : list + ",")
    {
        if (ch == ',')
        {
            if (!item.empty())
            {
                out.push_back(item);
            }
            item.clear();
        }
        else
        {
            item += ch;
        }
    }
    return out;
}

nlohmann::json
CompressionRunner::Sweep(const CompressionConfig& base,
                         const std::vector<DataRate>& bandwidths,
                         const std::vector<std::string>& schemes,
                         const std::function<void()>& afterRun)
{
    base.Validate(); // before the first row is simulated
    nlohmann::json rows = nlohmann::json::array();
    for (const DataRate& rate : bandwidths)
    {
        nlohmann::json group = nlohmann::json::array();
        nlohmann::json bf16 = nullptr;
        nlohmann::json fp32 = nullptr;
        for (const std::string& scheme : schemes)
        {
            CompressionConfig c = base;
            c.bandwidth = rate;
            c.scheme = scheme;
            nlohmann::json row = Run(c);
            if (afterRun)
            {
                afterRun();
            }
            Simulator::Destroy();
            if (scheme == "bf16")
            {
                bf16 = row["time_to_target_s"];
            }
            if (scheme == "fp32")
            {
                fp32 = row["time_to_target_s"];
            }
            group.push_back(row);
        }
        for (auto& row : group)
        {
            const nlohmann::json& t = row["time_to_target_s"];
            auto ratio = [&t](const nlohmann::json& b) {
                return (t.is_null() || b.is_null())
                           ? nlohmann::json(nullptr)
                           : nlohmann::json(t.get<double>() / b.get<double>());
            };
            row["tta_vs_bf16"] = ratio(bf16);
            row["tta_vs_fp32"] = ratio(fp32);
            rows.push_back(row);
        }
    }
    return rows;
}

} // namespace ns3
