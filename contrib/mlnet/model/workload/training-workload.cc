// SPDX-License-Identifier: GPL-2.0-only
#include "training-workload.h"

#include "ns3/collective-factory.h"
#include "ns3/json-reader.h"
#include "ns3/log.h"

#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTrainingWorkload");

namespace
{

/// Longest name (workload, layer, algorithm) accepted.
constexpr size_t kMaxNameLength = 256;
/// Most layers a workload may have (the graph has ranks x layers x 2 tasks).
constexpr size_t kMaxLayers = 65536;

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("workload: " + what);
}

/// A time in microseconds, finite, > 0 (or >= 0), at most kMaxMicroseconds.
Time
ReadMicroseconds(const JsonField& f, bool allowZero)
{
    return Time::FromDouble(f.AsDouble(0, JsonReader::kMaxMicroseconds, "microseconds", !allowZero),
                            Time::US);
}

} // namespace

TrainingWorkload::TrainingWorkload() = default;

TrainingWorkload
TrainingWorkload::FromJson(const nlohmann::json& doc, const std::string& name)
{
    return Read(JsonReader::FromDocument(doc, name).Root());
}

TrainingWorkload
TrainingWorkload::FromString(const std::string& text, const std::string& name)
{
    // Comments (// and /* */) are allowed: workload files are written by hand.
    return Read(JsonReader::FromText(text, name, true).Root());
}

TrainingWorkload
TrainingWorkload::FromFile(const std::string& path)
{
    return Read(JsonReader::FromFile(path, true).Root());
}

TrainingWorkload
TrainingWorkload::Read(const JsonField& doc)
{
    if (!doc.IsObject())
    {
        doc.Expected("a workload object { \"name\": ..., \"layers\": [...] }");
    }
    doc.CheckKeys({"name",
                   "description",
                   "layers",
                   "bucket_bytes",
                   "optimizer_us",
                   "parallelism",
                   "collective"});
    TrainingWorkload w;
    w.m_name = doc.At("name").AsString(kMaxNameLength);
    if (auto d = doc.Optional("description"))
    {
        d->AsString(JsonReader::kMaxFileBytes, true);
    }
    std::set<std::string> names;
    uint64_t total = 0;
    for (const JsonField& l :
         doc.At("layers").AsArray(kMaxLayers,
                                  1,
                                  "layer objects {name, forward_us, backward_us, param_bytes}"))
    {
        if (!l.IsObject())
        {
            l.Expected("a layer object {name, forward_us, backward_us, param_bytes}");
        }
        l.CheckKeys({"name", "forward_us", "backward_us", "param_bytes"});
        WorkloadLayer layer;
        layer.name = l.At("name").AsString(kMaxNameLength);
        if (!names.insert(layer.name).second)
        {
            l.At("name").Fail("'" + layer.name + "' is used twice; give each layer its own name");
        }
        layer.forward = ReadMicroseconds(l.At("forward_us"), false);
        layer.backward = ReadMicroseconds(l.At("backward_us"), false);
        const JsonField bytes = l.At("param_bytes");
        layer.paramBytes = bytes.AsUint64(0, JsonReader::kMaxBytes, "bytes");
        if (layer.paramBytes > JsonReader::kMaxBytes - total)
        {
            bytes.Fail("the layers' param_bytes sum to more than " +
                       JsonReader::FormatBound(JsonReader::kMaxBytes) +
                       " bytes (the sanity bound of a model's size)");
        }
        total += layer.paramBytes;
        w.m_layers.push_back(layer);
    }

    if (auto b = doc.Optional("bucket_bytes"))
    {
        w.m_bucketBytes = b->AsUint64(1, JsonReader::kMaxBytes, "bytes");
    }
    if (auto o = doc.Optional("optimizer_us"))
    {
        w.m_optimizer = ReadMicroseconds(*o, true);
    }
    if (auto p = doc.Optional("parallelism"))
    {
        p->CheckKeys({"data"});
        if (auto data = p->Optional("data"))
        {
            w.m_data = data->AsUint32(1, JsonReader::kMaxCount, "ranks");
        }
    }
    if (auto c = doc.Optional("collective"))
    {
        c->CheckKeys({"algorithm"});
        if (auto a = c->Optional("algorithm"))
        {
            w.m_algorithm = a->AsString(kMaxNameLength);
            try
            {
                CollectiveFactory::Check("allreduce", w.m_algorithm); // the buckets' collective
            }
            catch (const std::invalid_argument& e)
            {
                a->Fail(e.what()); // the same message, with the file and the field
            }
        }
    }
    NS_LOG_INFO("workload '" << w.m_name << "': " << w.m_layers.size() << " layers, "
                             << w.GetTotalParamBytes() << " param bytes");
    return w;
}

const std::string&
TrainingWorkload::GetName() const
{
    return m_name;
}

const std::vector<WorkloadLayer>&
TrainingWorkload::GetLayers() const
{
    return m_layers;
}

uint64_t
TrainingWorkload::GetBucketBytes() const
{
    return m_bucketBytes;
}

Time
TrainingWorkload::GetOptimizerTime() const
{
    return m_optimizer;
}

uint32_t
TrainingWorkload::GetDataDegree() const
{
    return m_data;
}

const std::string&
TrainingWorkload::GetAlgorithm() const
{
    return m_algorithm;
}

uint64_t
TrainingWorkload::GetTotalParamBytes() const
{
    uint64_t sum = 0;
    for (const auto& l : m_layers)
    {
        sum += l.paramBytes;
    }
    return sum;
}

Time
TrainingWorkload::GetComputeTime() const
{
    Time t = m_optimizer;
    for (const auto& l : m_layers)
    {
        t += l.forward + l.backward;
    }
    return t;
}

std::vector<GradientBucket>
TrainingWorkload::GetBuckets() const
{
    std::vector<GradientBucket> buckets;
    GradientBucket current;
    for (size_t i = m_layers.size(); i-- > 0;)
    {
        current.layers.push_back(static_cast<uint32_t>(i));
        current.bytes += m_layers[i].paramBytes;
        if (current.bytes >= m_bucketBytes)
        {
            current.index = static_cast<uint32_t>(buckets.size());
            buckets.push_back(current);
            current = GradientBucket();
        }
    }
    // The last bucket may be smaller; layers without parameters alone make no bucket.
    if (current.bytes > 0)
    {
        current.index = static_cast<uint32_t>(buckets.size());
        buckets.push_back(current);
    }
    return buckets;
}

std::vector<std::vector<uint32_t>>
TrainingWorkload::GetDataParallelGroups(uint32_t nRanks) const
{
    if (nRanks == 0)
    {
        Fail("the cluster has no ranks");
    }
    uint32_t data = m_data == 0 ? nRanks : m_data;
    if (data > nRanks || nRanks % data != 0)
    {
        Fail("parallelism.data = " + std::to_string(data) + " does not divide the " +
             std::to_string(nRanks) + " ranks of the cluster; use a divisor of " +
             std::to_string(nRanks) + " or omit it to use every rank");
    }
    std::vector<std::vector<uint32_t>> groups(nRanks / data);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        groups[r / data].push_back(r);
    }
    return groups;
}

IterationGraph
TrainingWorkload::BuildGraph(uint32_t nRanks) const
{
    NS_ASSERT_MSG(!m_layers.empty(), "build a workload with FromJson/FromString/FromFile");
    auto groups = GetDataParallelGroups(nRanks);
    auto buckets = GetBuckets();
    const uint32_t nLayers = static_cast<uint32_t>(m_layers.size());
    IterationGraph g;
    // Per rank: forward in order, then backward in reverse, on the rank's compute stream.
    std::vector<std::vector<IterationGraph::TaskId>> bwd(
        nRanks,
        std::vector<IterationGraph::TaskId>(nLayers));
    std::vector<IterationGraph::TaskId> lastBackward(nRanks);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        std::vector<IterationGraph::TaskId> prev;
        const std::string p = "r" + std::to_string(r) + "/";
        for (uint32_t l = 0; l < nLayers; ++l)
        {
            prev = {g.AddCompute(p + "fwd/" + m_layers[l].name, r, m_layers[l].forward, prev)};
        }
        for (uint32_t l = nLayers; l-- > 0;)
        {
            bwd[r][l] = g.AddCompute(p + "bwd/" + m_layers[l].name, r, m_layers[l].backward, prev);
            prev = {bwd[r][l]};
        }
        lastBackward[r] = prev.front();
    }
    // Per group: bucket k's all-reduce waits for its last layer's backward on every
    // member and for bucket k-1's all-reduce (one communication stream per group).
    for (uint32_t gi = 0; gi < groups.size(); ++gi)
    {
        const auto& group = groups[gi];
        std::vector<IterationGraph::TaskId> lastAllReduce;
        if (group.size() >= 2)
        {
            for (const auto& b : buckets)
            {
                std::vector<IterationGraph::TaskId> deps = lastAllReduce;
                for (uint32_t r : group)
                {
                    deps.push_back(bwd[r][b.layers.back()]);
                }
                lastAllReduce = {g.AddCollective("g" + std::to_string(gi) + "/allreduce/b" +
                                                     std::to_string(b.index),
                                                 "allreduce",
                                                 m_algorithm,
                                                 group,
                                                 b.bytes,
                                                 deps)};
            }
        }
        if (m_optimizer.IsStrictlyPositive())
        {
            for (uint32_t r : group)
            {
                std::vector<IterationGraph::TaskId> deps = lastAllReduce;
                deps.push_back(lastBackward[r]);
                g.AddCompute("r" + std::to_string(r) + "/optimizer", r, m_optimizer, deps);
            }
        }
    }
    return g;
}

Time
TrainingWorkload::EstimateIterationTime(uint32_t nRanks, const AllReduceTime& allReduceTime) const
{
    IterationGraph g = BuildGraph(nRanks);
    return g.EstimateIterationTime([&allReduceTime](const IterationTask& t) {
        NS_ASSERT(t.kind == TaskKind::COLLECTIVE);
        return allReduceTime(t.bytes);
    });
}

} // namespace ns3
