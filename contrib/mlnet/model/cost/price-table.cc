// SPDX-License-Identifier: GPL-2.0-only
#include "price-table.h"

#include "ns3/data-file.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
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

/// \return a number field >= 0 (throws naming the entry and the field)
double
NonNegative(const Json& v, const std::string& where, const std::string& field, const char* unit)
{
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    {
        throw std::invalid_argument(where + ": " + field + " is " + v.dump() +
                                    "; give a number >= 0 (" + unit + ")");
    }
    return v.get<double>();
}

/// \return a count field > 0 (throws naming the entry and the field)
uint32_t
Positive(const Json& v, const std::string& where, const std::string& field)
{
    if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > 1000000)
    {
        throw std::invalid_argument(where + ": " + field + " is " + v.dump() +
                                    "; give a whole number > 0 (leave it out for a part priced "
                                    "the same at every " +
                                    (field == "gbps" ? "speed" : "port count") + ")");
    }
    return static_cast<uint32_t>(v.get<uint64_t>());
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
    std::string file = path.empty() ? DefaultPath() : path;
    std::ifstream in(file);
    if (!in)
    {
        throw std::invalid_argument("cannot read price table '" + file +
                                    "'; check the path (Path attribute or " + kEnvironment + ")");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    LoadJson(ss.str(), file);
}

void
PriceTable::LoadJson(const std::string& text, const std::string& origin)
{
    const std::string where = "price table '" + origin + "'";
    Json j;
    try
    {
        j = Json::parse(text);
    }
    catch (const Json::exception& e)
    {
        std::string msg = e.what();
        throw std::invalid_argument(where + " is not valid JSON (" + msg.substr(0, msg.find('\n')) +
                                    "); fix the syntax");
    }
    if (!j.is_object() || !j.contains("parts") || !j["parts"].is_array())
    {
        throw std::invalid_argument(where +
                                    " must be an object with a \"parts\" array: {\"parts\": "
                                    "[{\"part\": \"fiber\", \"price_usd\": 50, \"source\": "
                                    "\"...\"}, ...]}");
    }
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (it.key() != "format" && it.key() != "version" && it.key() != "about" &&
            it.key() != "parts")
        {
            throw std::invalid_argument(where + ": unknown key \"" + it.key() +
                                        "\"; use format, version, about and parts");
        }
    }
    if (j.contains("format") && j["format"] != "mlnet-prices")
    {
        throw std::invalid_argument(where + ": format is " + j["format"].dump() +
                                    "; a price table has \"format\": \"mlnet-prices\"");
    }
    std::vector<PricedPart> parts;
    const Json& list = j["parts"];
    for (size_t i = 0; i < list.size(); ++i)
    {
        const Json& e = list[i];
        std::string at = where + ", parts[" + std::to_string(i) + "]";
        if (!e.is_object() || !e.contains("part") || !e["part"].is_string() ||
            e["part"].get<std::string>().empty())
        {
            throw std::invalid_argument(at + ": an entry is an object with a \"part\" name, e.g. "
                                             "{\"part\": \"fiber\", \"price_usd\": 50, "
                                             "\"source\": \"...\"}");
        }
        PricedPart p;
        p.part = e["part"].get<std::string>();
        at += " (\"" + p.part + "\")";
        for (const char* required : {"price_usd", "source"})
        {
            if (!e.contains(required))
            {
                throw std::invalid_argument(at + ": \"" + required +
                                            "\" is missing; every part needs a price in USD and "
                                            "a source (\"unverified estimate\" if it is one)");
            }
        }
        for (auto f = e.begin(); f != e.end(); ++f)
        {
            const std::string& k = f.key();
            if (k == "part")
            {
                continue;
            }
            else if (k == "gbps")
            {
                p.gbps = Positive(f.value(), at, k);
            }
            else if (k == "ports")
            {
                p.ports = Positive(f.value(), at, k);
            }
            else if (k == "price_usd")
            {
                p.item.priceUsd = NonNegative(f.value(), at, k, "USD per unit");
            }
            else if (k == "power_w")
            {
                p.item.powerW = NonNegative(f.value(), at, k, "W per unit");
            }
            else if (k == "verified")
            {
                if (!f.value().is_boolean())
                {
                    throw std::invalid_argument(at + ": verified is " + f.value().dump() +
                                                "; give true or false");
                }
                p.item.verified = f.value().get<bool>();
            }
            else if (k == "source")
            {
                if (!f.value().is_string() || f.value().get<std::string>().empty())
                {
                    throw std::invalid_argument(at + ": source is " + f.value().dump() +
                                                "; say where the numbers come from (or "
                                                "\"unverified estimate\")");
                }
                p.item.source = f.value().get<std::string>();
            }
            else
            {
                throw std::invalid_argument(at + ": unknown field \"" + k +
                                            "\"; use part, gbps, ports, price_usd, power_w, "
                                            "verified, source");
            }
        }
        for (const auto& q : parts)
        {
            if (q.part == p.part && q.gbps == p.gbps && q.ports == p.ports)
            {
                throw std::invalid_argument(at + ": " + Describe(p.part, p.gbps, p.ports) +
                                            " is listed twice; keep one entry");
            }
        }
        parts.push_back(p);
    }
    m_parts = std::move(parts);
    m_origin = origin;
    NS_LOG_INFO("read " << m_parts.size() << " parts from " << origin);
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
