// SPDX-License-Identifier: GPL-2.0-only
#include "model-profile.h"

#include "ns3/data-file.h"
#include "ns3/json-reader.h"
#include "ns3/log.h"

#include <cmath>
#include <cstdlib>
#include <set>
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

} // namespace

ModelProfile::ModelProfile() = default;

ModelProfile
ModelProfile::FromJson(const nlohmann::json& doc, const std::string& name)
{
    return Read(JsonReader::FromDocument(doc, name).Root());
}

ModelProfile
ModelProfile::FromString(const std::string& text, const std::string& name)
{
    return Read(JsonReader::FromText(text, name).Root());
}

ModelProfile
ModelProfile::FromFile(const std::string& path)
{
    return Read(JsonReader::FromFile(path).Root());
}

ModelProfile
ModelProfile::Read(const JsonField& doc)
{
    if (!doc.IsObject())
    {
        doc.Expected("a profile object with \"format\": \"topoopt-profile\"");
    }
    doc.CheckKeys(kTopKeys);
    const JsonField format = doc.At("format");
    if (!format.IsString() || format.AsString(64) != "topoopt-profile")
    {
        format.Expected("\"topoopt-profile\"");
    }
    if (auto v = doc.Optional("version"))
    {
        if (!v->IsNumber() || v->Raw() != 1)
        {
            v->Expected("1 (the only version this reader knows)");
        }
    }
    const std::vector<JsonField> layers = doc.At("layers").AsArray(65536, 1, "layer objects");
    ModelProfile p;
    if (auto d = doc.Optional("description"))
    {
        p.m_description = d->AsString(JsonReader::kMaxFileBytes, true);
    }
    if (auto a = doc.Optional("assumptions"))
    {
        if (!a->IsObject() && !a->IsString() && !a->IsArray())
        {
            a->Expected("notes: a string, an array or an object");
        }
    }
    if (auto b = doc.Optional("batch_per_gpu"))
    {
        p.m_batchPerGpu = b->AsUint32(0, JsonReader::kMaxCount, "samples");
    }
    if (auto g = doc.Optional("gpus_per_server"))
    {
        p.m_gpusPerServer = g->AsUint32(0, 1024, "GPUs");
    }
    // The fields shared with mlnet's workload format are read by its parser, from a
    // document of the same shape, so that its messages carry the same paths.
    nlohmann::json workload = {{"layers", nlohmann::json::array()}};
    if (doc.Has("name"))
    {
        workload["name"] = doc.At("name").Raw();
    }
    if (doc.Has("bucket_bytes"))
    {
        workload["bucket_bytes"] = doc.At("bucket_bytes").Raw();
    }
    std::vector<std::pair<bool, uint64_t>> extra;
    for (const JsonField& l : layers)
    {
        if (!l.IsObject())
        {
            l.Expected("a layer object {name, forward_us, backward_us, param_bytes, ...}");
        }
        l.CheckKeys(kLayerKeys);
        nlohmann::json shared = nlohmann::json::object();
        for (const std::string& key : l.Keys())
        {
            if (key != "embedding" && key != "activation_bytes")
            {
                shared[key] = l.At(key).Raw();
            }
        }
        bool emb = false;
        if (auto e = l.Optional("embedding"))
        {
            emb = e->AsBool();
        }
        uint64_t act = 0;
        if (emb)
        {
            // Its output bytes for one server's batch.
            act = l.At("activation_bytes").AsUint64(1, JsonReader::kMaxBytes, "bytes");
        }
        else if (l.Has("activation_bytes"))
        {
            l.At("activation_bytes").Fail("is only meaningful with \"embedding\": true");
        }
        workload["layers"].push_back(shared);
        extra.emplace_back(emb, act);
    }
    TrainingWorkload w = TrainingWorkload::FromJson(workload, doc.GetSource());
    p.m_name = w.GetName();
    p.m_bucketBytes = w.GetBucketBytes();
    const auto& wl = w.GetLayers();
    for (size_t i = 0; i < wl.size(); ++i)
    {
        ProfileLayer pl;
        pl.name = wl[i].name;
        pl.forward = wl[i].forward;
        pl.backward = wl[i].backward;
        pl.paramBytes = wl[i].paramBytes;
        pl.embedding = extra[i].first;
        pl.activationBytes = extra[i].second;
        p.m_layers.push_back(pl);
    }
    return p;
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
