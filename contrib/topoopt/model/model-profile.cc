// SPDX-License-Identifier: GPL-2.0-only
#include "model-profile.h"

#include "ns3/data-file.h"
#include "ns3/log.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptModelProfile");

namespace
{

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("model profile: " + what);
}

const std::set<std::string> kTopKeys = {"format",
                                        "version",
                                        "name",
                                        "description",
                                        "assumptions",
                                        "batch_per_gpu",
                                        "gpus_per_server",
                                        "bucket_bytes",
                                        "layers"};
const std::set<std::string> kLayerKeys =
    {"name", "forward_us", "backward_us", "param_bytes", "embedding", "activation_bytes"};

uint64_t
ReadCount(const nlohmann::json& obj, const std::string& key, const std::string& where)
{
    const auto& v = obj.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < 0)
    {
        Fail(where + "." + key + " must be an integer >= 0 (got " + v.dump() + ")");
    }
    return v.get<uint64_t>();
}

} // namespace

ModelProfile::ModelProfile() = default;

ModelProfile
ModelProfile::FromJson(const nlohmann::json& doc)
{
    if (!doc.is_object())
    {
        Fail("the document must be a JSON object with \"format\": \"topoopt-profile\"");
    }
    for (const auto& [key, value] : doc.items())
    {
        if (kTopKeys.count(key) == 0)
        {
            Fail("unknown key '" + key + "' (check the spelling; see doc/profiles.md)");
        }
    }
    if (doc.value("format", std::string()) != "topoopt-profile")
    {
        Fail("\"format\" must be \"topoopt-profile\"");
    }
    if (doc.contains("version") && doc["version"] != 1)
    {
        Fail("unsupported \"version\" " + doc["version"].dump() + " (this reader knows 1)");
    }
    if (!doc.contains("layers") || !doc["layers"].is_array() || doc["layers"].empty())
    {
        Fail("\"layers\" must be a non-empty array of layer objects");
    }
    ModelProfile p;
    p.m_description = doc.value("description", std::string());
    if (doc.contains("batch_per_gpu"))
    {
        p.m_batchPerGpu = ReadCount(doc, "batch_per_gpu", "profile");
    }
    if (doc.contains("gpus_per_server"))
    {
        p.m_gpusPerServer = ReadCount(doc, "gpus_per_server", "profile");
    }
    // The fields shared with mlnet's workload format are validated by its parser.
    nlohmann::json workload = {{"layers", nlohmann::json::array()}};
    workload["name"] = doc.contains("name") ? doc["name"] : nlohmann::json();
    if (doc.contains("bucket_bytes"))
    {
        workload["bucket_bytes"] = doc["bucket_bytes"];
    }
    std::vector<std::pair<bool, uint64_t>> extra;
    for (size_t i = 0; i < doc["layers"].size(); ++i)
    {
        const auto& l = doc["layers"][i];
        std::string where = "layers[" + std::to_string(i) + "]";
        if (!l.is_object())
        {
            Fail(where + " must be an object");
        }
        nlohmann::json shared = nlohmann::json::object();
        for (const auto& [key, value] : l.items())
        {
            if (kLayerKeys.count(key) == 0)
            {
                Fail("unknown key '" + key + "' in " + where +
                     "; known keys are name, forward_us, backward_us, param_bytes, embedding, "
                     "activation_bytes");
            }
            if (key != "embedding" && key != "activation_bytes")
            {
                shared[key] = value;
            }
        }
        bool emb = false;
        if (l.contains("embedding"))
        {
            if (!l["embedding"].is_boolean())
            {
                Fail(where + ".embedding must be true or false");
            }
            emb = l["embedding"].get<bool>();
        }
        uint64_t act = 0;
        if (emb)
        {
            if (!l.contains("activation_bytes"))
            {
                Fail(where + " is an embedding and needs \"activation_bytes\" (its output "
                             "bytes for one server's batch)");
            }
            act = ReadCount(l, "activation_bytes", where);
            if (act == 0)
            {
                Fail(where + ".activation_bytes must be > 0");
            }
        }
        else if (l.contains("activation_bytes"))
        {
            Fail(where + ".activation_bytes is only meaningful with \"embedding\": true");
        }
        workload["layers"].push_back(shared);
        extra.emplace_back(emb, act);
    }
    TrainingWorkload w;
    try
    {
        w = TrainingWorkload::FromJson(workload);
    }
    catch (const std::invalid_argument& e)
    {
        std::string msg = e.what();
        const std::string prefix = "workload: ";
        if (msg.rfind(prefix, 0) == 0)
        {
            msg = msg.substr(prefix.size());
        }
        Fail(msg);
    }
    p.m_name = w.GetName();
    p.m_bucketBytes = w.GetBucketBytes();
    const auto& layers = w.GetLayers();
    for (size_t i = 0; i < layers.size(); ++i)
    {
        ProfileLayer pl;
        pl.name = layers[i].name;
        pl.forward = layers[i].forward;
        pl.backward = layers[i].backward;
        pl.paramBytes = layers[i].paramBytes;
        pl.embedding = extra[i].first;
        pl.activationBytes = extra[i].second;
        p.m_layers.push_back(pl);
    }
    return p;
}

ModelProfile
ModelProfile::FromString(const std::string& text)
{
    nlohmann::json doc;
    try
    {
        doc = nlohmann::json::parse(text);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        Fail(std::string("malformed JSON: ") + e.what());
    }
    return FromJson(doc);
}

ModelProfile
ModelProfile::FromFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail("cannot open '" + path + "' (check the path)");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try
    {
        return FromString(ss.str());
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string(e.what()) + " [" + path + "]");
    }
}

std::string
ModelProfile::ProfileDirectory()
{
    const char* env = std::getenv("TOPOOPT_PROFILE_DIR");
    if (env && *env)
    {
        return env;
    }
    return DataFile::Find("workloads/models");
}

std::vector<std::string>
ModelProfile::KnownModels()
{
    return {"dlrm", "bert", "candle-uno", "vgg16", "resnet50", "ncf"};
}

ModelProfile
ModelProfile::FromName(const std::string& name)
{
    std::string known;
    for (const auto& m : KnownModels())
    {
        if (m == name)
        {
            return FromFile(ProfileDirectory() + "/" + name + ".json");
        }
        known += (known.empty() ? "" : ", ") + m;
    }
    Fail("unknown model '" + name + "'; known models are " + known +
         " (or pass a profile file with --profile)");
}

const std::string&
ModelProfile::GetName() const
{
    return m_name;
}

const std::vector<ProfileLayer>&
ModelProfile::GetLayers() const
{
    return m_layers;
}

uint32_t
ModelProfile::GetBatchPerGpu() const
{
    return m_batchPerGpu;
}

uint64_t
ModelProfile::GetBucketBytes() const
{
    return m_bucketBytes;
}

uint64_t
ModelProfile::GetTotalParamBytes() const
{
    uint64_t s = 0;
    for (const auto& l : m_layers)
    {
        s += l.paramBytes;
    }
    return s;
}

std::vector<uint32_t>
ModelProfile::GetEmbeddingLayers() const
{
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < m_layers.size(); ++i)
    {
        if (m_layers[i].embedding)
        {
            out.push_back(i);
        }
    }
    return out;
}

ModelProfile
ModelProfile::Scaled(double bytesFactor, double timeFactor) const
{
    auto ok = [](double f) { return std::isfinite(f) && f > 0 && f <= 1e6; };
    if (!ok(bytesFactor) || !ok(timeFactor))
    {
        Fail("scale factors must be in (0, 1e6]");
    }
    auto scaleBytes = [bytesFactor](uint64_t b) -> uint64_t {
        if (b == 0)
        {
            return 0;
        }
        return std::max<uint64_t>(1, std::llround(b * bytesFactor));
    };
    ModelProfile p = *this;
    p.m_bucketBytes = scaleBytes(m_bucketBytes);
    for (auto& l : p.m_layers)
    {
        l.paramBytes = scaleBytes(l.paramBytes);
        l.activationBytes = scaleBytes(l.activationBytes);
        l.forward = PicoSeconds(std::llround(l.forward.GetPicoSeconds() * timeFactor));
        l.backward = PicoSeconds(std::llround(l.backward.GetPicoSeconds() * timeFactor));
    }
    return p;
}

TrainingWorkload
ModelProfile::ToWorkload(const std::vector<bool>& dataParallel) const
{
    if (dataParallel.size() != m_layers.size())
    {
        Fail("ToWorkload needs one flag per layer (" + std::to_string(m_layers.size()) + "), got " +
             std::to_string(dataParallel.size()));
    }
    nlohmann::json doc = {{"name", m_name},
                          {"bucket_bytes", m_bucketBytes},
                          {"layers", nlohmann::json::array()}};
    for (size_t i = 0; i < m_layers.size(); ++i)
    {
        if (dataParallel[i])
        {
            const auto& l = m_layers[i];
            doc["layers"].push_back({{"name", l.name},
                                     {"forward_us", l.forward.GetSeconds() * 1e6},
                                     {"backward_us", l.backward.GetSeconds() * 1e6},
                                     {"param_bytes", l.paramBytes}});
        }
    }
    if (doc["layers"].empty())
    {
        Fail("no data-parallel layer selected");
    }
    return TrainingWorkload::FromJson(doc);
}

nlohmann::json
ModelProfile::ToJson() const
{
    nlohmann::json doc = {{"format", "topoopt-profile"},
                          {"version", 1},
                          {"name", m_name},
                          {"bucket_bytes", m_bucketBytes},
                          {"gpus_per_server", m_gpusPerServer},
                          {"layers", nlohmann::json::array()}};
    if (!m_description.empty())
    {
        doc["description"] = m_description;
    }
    if (m_batchPerGpu > 0)
    {
        doc["batch_per_gpu"] = m_batchPerGpu;
    }
    for (const auto& l : m_layers)
    {
        nlohmann::json j = {{"name", l.name},
                            {"forward_us", l.forward.GetSeconds() * 1e6},
                            {"backward_us", l.backward.GetSeconds() * 1e6},
                            {"param_bytes", l.paramBytes}};
        if (l.embedding)
        {
            j["embedding"] = true;
            j["activation_bytes"] = l.activationBytes;
        }
        doc["layers"].push_back(j);
    }
    return doc;
}

} // namespace ns3
