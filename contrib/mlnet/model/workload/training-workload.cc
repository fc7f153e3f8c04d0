// SPDX-License-Identifier: GPL-2.0-only
#include "training-workload.h"

#include "ns3/log.h"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTrainingWorkload");

namespace
{

/// Every message starts with this, so that a user knows which input is wrong.
const std::string kPrefix = "workload: ";

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument(kPrefix + what);
}

std::string
Join(const std::set<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
    {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

void
CheckKeys(const nlohmann::json& obj, const std::set<std::string>& allowed, const std::string& where)
{
    for (const auto& [key, value] : obj.items())
    {
        if (allowed.count(key) == 0)
        {
            Fail("unknown key '" + key + "' in " + where + "; known keys are " + Join(allowed) +
                 " (check the spelling)");
        }
    }
}

/// A number of microseconds; required unless a default is given; > 0 or >= 0.
Time
ReadMicroseconds(const nlohmann::json& obj,
                 const std::string& key,
                 const std::string& field,
                 bool allowZero)
{
    const std::string bound = allowZero ? ">= 0" : "> 0";
    if (!obj.contains(key))
    {
        Fail(field + " is missing; give a time in microseconds " + bound);
    }
    const auto& v = obj.at(key);
    if (!v.is_number())
    {
        Fail(field + " must be a number of microseconds " + bound + ", got " + v.dump());
    }
    double us = v.get<double>();
    if (us < 0 || (!allowZero && us == 0))
    {
        Fail(field + " is " + v.dump() + "; it must be a time in microseconds " + bound);
    }
    return Time::FromDouble(us, Time::US);
}

/// A whole number of bytes (or ranks); > 0 or >= 0.
uint64_t
ReadCount(const nlohmann::json& obj,
          const std::string& key,
          const std::string& field,
          const std::string& unit,
          bool allowZero)
{
    const std::string bound = allowZero ? ">= 0" : "> 0";
    if (!obj.contains(key))
    {
        Fail(field + " is missing; give a whole number of " + unit + " " + bound);
    }
    const auto& v = obj.at(key);
    // Parsed text gives unsigned numbers; documents built in C++ give signed ones.
    if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0))
    {
        uint64_t x = v.get<uint64_t>();
        if (x == 0 && !allowZero)
        {
            Fail(field + " is 0; it must be a whole number of " + unit + " " + bound);
        }
        return x;
    }
    if (v.is_number_integer())
    {
        Fail(field + " is " + v.dump() + "; it must be a whole number of " + unit + " " + bound);
    }
    Fail(field + " must be a whole number of " + unit + " " + bound + ", got " + v.dump());
}

std::string
ReadString(const nlohmann::json& obj, const std::string& key, const std::string& field)
{
    if (!obj.contains(key))
    {
        Fail(field + " is missing; give a non-empty string");
    }
    const auto& v = obj.at(key);
    if (!v.is_string() || v.get<std::string>().empty())
    {
        Fail(field + " must be a non-empty string, got " + v.dump());
    }
    return v.get<std::string>();
}

} // namespace

TrainingWorkload::TrainingWorkload() = default;

TrainingWorkload
TrainingWorkload::FromJson(const nlohmann::json& doc)
{
    if (!doc.is_object())
    {
        Fail("the document must be a JSON object ({ \"name\": ..., \"layers\": [...] }), got " +
             std::string(doc.type_name()));
    }
    CheckKeys(doc,
              {"name",
               "description",
               "layers",
               "bucket_bytes",
               "optimizer_us",
               "parallelism",
               "collective"},
              "the workload");
    TrainingWorkload w;
    w.m_name = ReadString(doc, "name", "name");
    if (doc.contains("description") && !doc.at("description").is_string())
    {
        Fail("description must be a string");
    }

    if (!doc.contains("layers"))
    {
        Fail("layers is missing; give a non-empty array of {name, forward_us, backward_us, "
             "param_bytes}");
    }
    const auto& layers = doc.at("layers");
    if (!layers.is_array() || layers.empty())
    {
        Fail("layers must be a non-empty array of {name, forward_us, backward_us, param_bytes}");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < layers.size(); ++i)
    {
        const std::string where = "layers[" + std::to_string(i) + "]";
        const auto& l = layers[i];
        if (!l.is_object())
        {
            Fail(where + " must be an object {name, forward_us, backward_us, param_bytes}");
        }
        CheckKeys(l, {"name", "forward_us", "backward_us", "param_bytes"}, where);
        WorkloadLayer layer;
        layer.name = ReadString(l, "name", where + ".name");
        if (!names.insert(layer.name).second)
        {
            Fail(where + ".name '" + layer.name + "' is used twice; give each layer its own name");
        }
        layer.forward = ReadMicroseconds(l, "forward_us", where + ".forward_us", false);
        layer.backward = ReadMicroseconds(l, "backward_us", where + ".backward_us", false);
        layer.paramBytes = ReadCount(l, "param_bytes", where + ".param_bytes", "bytes", true);
        w.m_layers.push_back(layer);
    }

    if (doc.contains("bucket_bytes"))
    {
        w.m_bucketBytes = ReadCount(doc, "bucket_bytes", "bucket_bytes", "bytes", false);
    }
    if (doc.contains("optimizer_us"))
    {
        w.m_optimizer = ReadMicroseconds(doc, "optimizer_us", "optimizer_us", true);
    }
    if (doc.contains("parallelism"))
    {
        const auto& p = doc.at("parallelism");
        if (!p.is_object())
        {
            Fail("parallelism must be an object like {\"data\": 8}");
        }
        CheckKeys(p, {"data"}, "parallelism");
        if (p.contains("data"))
        {
            uint64_t data = ReadCount(p, "data", "parallelism.data", "ranks", false);
            if (data > UINT32_MAX)
            {
                Fail("parallelism.data is too large");
            }
            w.m_data = static_cast<uint32_t>(data);
        }
    }
    if (doc.contains("collective"))
    {
        const auto& c = doc.at("collective");
        if (!c.is_object())
        {
            Fail("collective must be an object like {\"algorithm\": \"ring\"}");
        }
        CheckKeys(c, {"algorithm"}, "collective");
        if (c.contains("algorithm"))
        {
            w.m_algorithm = ReadString(c, "algorithm", "collective.algorithm");
        }
    }
    NS_LOG_INFO("workload '" << w.m_name << "': " << w.m_layers.size() << " layers, "
                             << w.GetTotalParamBytes() << " param bytes");
    return w;
}

TrainingWorkload
TrainingWorkload::FromString(const std::string& text)
{
    nlohmann::json doc;
    try
    {
        // Comments (// and /* */) are allowed: workload files are written by hand.
        doc = nlohmann::json::parse(text, nullptr, true, true);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        // e.what() reads "[json.exception.parse_error.101] parse error at line L, column C: ..."
        std::string what = e.what();
        auto pos = what.find("] ");
        Fail("malformed JSON (byte " + std::to_string(e.byte) +
             "): " + (pos == std::string::npos ? what : what.substr(pos + 2)));
    }
    return FromJson(doc);
}

TrainingWorkload
TrainingWorkload::FromFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail("cannot read '" + path + "'; check the path");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try
    {
        return FromString(ss.str());
    }
    catch (const std::invalid_argument& e)
    {
        // Name the file: "workload: x" becomes "workload 'path': x".
        std::string what = e.what();
        throw std::invalid_argument("workload '" + path + "': " + what.substr(kPrefix.size()));
    }
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
