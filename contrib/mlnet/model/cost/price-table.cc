// SPDX-License-Identifier: GPL-2.0-only
#include "price-table.h"

#include "ns3/data-file.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetPriceTable");
NS_OBJECT_ENSURE_REGISTERED(PriceTable);

namespace
{
using Json = nlohmann::json;

/// \return "switch at 400 Gbps with 64 ports", "fiber"
std::string
Describe(const std::string& part, uint32_t gbps, uint32_t ports)
{
    std::string s = "\"" + part + "\"";
    if (gbps != 0)
    {
        s += " at " + std::to_string(gbps) + " Gbps";
    }
    if (ports != 0)
    {
        s += " with " + std::to_string(ports) + " ports";
    }
    return s;
}

/// Largest price (USD) and power (W) of one part, and most parts in a table.
constexpr double kMaxPriceUsd = 1e9;
constexpr double kMaxPowerW = 1e7;
constexpr size_t kMaxParts = 65536;

/// A speed or port count > 0.
uint32_t
Positive(const JsonField& f, const std::string& unit)
{
    return f.AsUint32(1, 1000000, unit);
}
} // namespace

TypeId
PriceTable::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PriceTable")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<PriceTable>()
            .AddAttribute("Path",
                          "JSON price table to read (file path); empty: $MLNET_PRICE_TABLE if "
                          "set, else the shipped contrib/mlnet/data/prices.json",
                          StringValue(""),
                          MakeStringAccessor(&PriceTable::SetPath, &PriceTable::GetPath),
                          MakeStringChecker());
    return tid;
}

PriceTable::PriceTable() = default;

PriceTable::~PriceTable() = default;

std::string
PriceTable::DefaultPath()
{
    const char* env = std::getenv(kEnvironment);
    if (env && *env)
    {
        return env;
    }
    return DataFile::Find("contrib/mlnet/data/prices.json");
}

Ptr<PriceTable>
PriceTable::FromFile(const std::string& path)
{
    return CreateObjectWithAttributes<PriceTable>("Path", StringValue(path));
}

void
PriceTable::SetPath(const std::string& path)
{
    Load(path);
    m_path = path;
}

std::string
PriceTable::GetPath() const
{
    return m_path;
}

void
PriceTable::Load(const std::string& path)
{
    const std::string file = path.empty() ? DefaultPath() : path;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
    {
        throw std::invalid_argument(file +
                                    ": no such file; check the path (the price table's Path "
                                    "attribute or " +
                                    kEnvironment + ")");
    }
    Read(JsonReader::FromFile(file).Root());
}

void
PriceTable::LoadJson(const std::string& text, const std::string& origin)
{
    Read(JsonReader::FromText(text, origin).Root());
}

void
PriceTable::Read(const JsonField& j)
{
    if (!j.Has("parts"))
    {
        j.Expected("an object with a \"parts\" array: {\"parts\": [{\"part\": \"fiber\", "
                   "\"price_usd\": 50, \"source\": \"...\"}, ...]}");
    }
    j.CheckKeys({"format", "version", "about", "parts"});
    if (auto f = j.Optional("format"))
    {
        if (!f->IsString() || f->Raw() != "mlnet-prices")
        {
            f->Expected("\"mlnet-prices\"");
        }
    }
    std::vector<PricedPart> parts;
    for (const JsonField& e : j.At("parts").AsArray(kMaxParts, 0, "part objects"))
    {
        if (!e.IsObject())
        {
            e.Expected("an entry {\"part\": \"fiber\", \"price_usd\": 50, \"source\": \"...\"}");
        }
        e.CheckKeys({"part", "gbps", "ports", "price_usd", "power_w", "verified", "source"});
        PricedPart p;
        p.part = e.At("part").AsString(64);
        if (auto g = e.Optional("gbps"))
        {
            p.gbps = Positive(*g, "Gbps (leave it out for a part priced the same at every speed)");
        }
        if (auto n = e.Optional("ports"))
        {
            p.ports =
                Positive(*n, "ports (leave it out for a part priced the same at every port count)");
        }
        // Every part needs a price in USD and a source ("unverified estimate" if it is one).
        p.item.priceUsd = e.At("price_usd").AsDouble(0, kMaxPriceUsd, "USD per unit");
        if (auto w = e.Optional("power_w"))
        {
            p.item.powerW = w->AsDouble(0, kMaxPowerW, "W per unit");
        }
        if (auto v = e.Optional("verified"))
        {
            p.item.verified = v->AsBool();
        }
        p.item.source = e.At("source").AsString(4096);
        for (const auto& q : parts)
        {
            if (q.part == p.part && q.gbps == p.gbps && q.ports == p.ports)
            {
                e.Fail(Describe(p.part, p.gbps, p.ports) + " is listed twice; keep one entry");
            }
        }
        parts.push_back(p);
    }
    m_parts = std::move(parts);
    m_origin = j.GetSource();
    NS_LOG_INFO("read " << m_parts.size() << " parts from " << m_origin);
}

const std::string&
PriceTable::GetOrigin() const
{
    return m_origin;
}

std::vector<const PricedPart*>
PriceTable::Match(const std::string& part, uint32_t gbps, uint32_t ports) const
{
    std::vector<const PricedPart*> exact;
    std::vector<const PricedPart*> anySpeed;
    for (const auto& p : m_parts)
    {
        if (p.part != part || (ports != 0 && p.ports != ports))
        {
            continue;
        }
        if (p.gbps == gbps)
        {
            exact.push_back(&p);
        }
        else if (p.gbps == 0)
        {
            anySpeed.push_back(&p);
        }
    }
    return exact.empty() ? anySpeed : exact;
}

bool
PriceTable::Has(const std::string& part, uint32_t gbps, uint32_t ports) const
{
    return Match(part, gbps, ports).size() == 1;
}

const PriceItem&
PriceTable::Get(const std::string& part, uint32_t gbps, uint32_t ports) const
{
    std::vector<const PricedPart*> found = Match(part, gbps, ports);
    if (found.size() == 1)
    {
        return found.front()->item;
    }
    std::string listed;
    for (const auto& p : m_parts)
    {
        if (p.part == part)
        {
            listed += (listed.empty() ? "" : ", ") + Describe(p.part, p.gbps, p.ports);
        }
    }
    std::string want = Describe(part, gbps, ports);
    if (found.empty())
    {
        throw std::invalid_argument(
            "price table '" + m_origin + "' has no " + want + " (it lists " +
            (listed.empty() ? std::string("no such part") : listed) + "); add {\"part\": \"" +
            part + "\"" + (gbps ? ", \"gbps\": " + std::to_string(gbps) : std::string()) +
            (ports ? ", \"ports\": " + std::to_string(ports) : std::string()) +
            ", \"price_usd\": ..., \"power_w\": ..., \"source\": \"...\"} to its parts");
    }
    throw std::invalid_argument("price table '" + m_origin + "' has several " + want + " (" +
                                listed + "); ask for one port count");
}

std::vector<uint32_t>
PriceTable::Speeds(const std::string& part) const
{
    std::vector<uint32_t> s;
    for (const auto& p : m_parts)
    {
        if (p.part == part && p.gbps != 0 && std::find(s.begin(), s.end(), p.gbps) == s.end())
        {
            s.push_back(p.gbps);
        }
    }
    std::sort(s.begin(), s.end());
    return s;
}

const std::vector<PricedPart>&
PriceTable::GetParts() const
{
    return m_parts;
}

std::string
PriceTable::ToJson(int indent) const
{
    Json parts = Json::array();
    for (const auto& p : m_parts)
    {
        Json e = {{"part", p.part}};
        if (p.gbps)
        {
            e["gbps"] = p.gbps;
        }
        if (p.ports)
        {
            e["ports"] = p.ports;
        }
        e["price_usd"] = p.item.priceUsd;
        e["power_w"] = p.item.powerW;
        e["verified"] = p.item.verified;
        e["source"] = p.item.source;
        parts.push_back(e);
    }
    return Json{{"format", "mlnet-prices"}, {"version", 1}, {"parts", parts}}.dump(indent);
}

} // namespace ns3
