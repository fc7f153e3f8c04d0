// SPDX-License-Identifier: GPL-2.0-only
#include "rail-cost-model.h"

#include "ns3/boolean.h"
#include "ns3/json-reader.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailonlyRailCostModel");
NS_OBJECT_ENSURE_REGISTERED(RailCostModel);

namespace
{
uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}
} // namespace

TypeId
RailCostModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RailCostModel")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<RailCostModel>()
            .AddAttribute("Radix",
                          "Switch radix k (ports per switch, count); 64 is a QM9700 (64 x 400G).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RailCostModel::m_radix),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("IncludeNics",
                          "Count one NIC per GPU in cost and power (equal in both designs, so "
                          "it only dilutes the reduction).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RailCostModel::m_includeNics),
                          MakeBooleanChecker())
            .AddTraceSource("Evaluated",
                            "A design was counted and priced.",
                            MakeTraceSourceAccessor(&RailCostModel::m_evaluatedTrace),
                            "ns3::RailCostModel::EvaluatedCallback");
    return tid;
}

RailCostModel::RailCostModel()
{
    SetPriceTable(CreateObject<PriceTable>());
}

void
RailCostModel::SetPriceTable(Ptr<const PriceTable> table)
{
    std::map<std::string, PriceItem> items;
    items["switch"] =
        table->Get("switch", kLinkGbps, table->Has("switch", kLinkGbps, m_radix) ? m_radix : 0);
    for (const char* part : {"switch_transceiver", "nic_transceiver", "nic"})
    {
        items[part] = table->Get(part, kLinkGbps);
    }
    items["fiber"] = table->Get("fiber");
    m_table = items;
}

RailCostModel::~RailCostModel() = default;

ClosCount
RailCostModel::Clos(uint64_t endpoints, uint32_t radix)
{
    if (endpoints == 0)
    {
        throw std::invalid_argument("a Clos needs at least 1 endpoint, got 0");
    }
    if (radix < 2)
    {
        throw std::invalid_argument("switch radix " + std::to_string(radix) +
                                    " is too small; give at least 2 ports");
    }
    const uint64_t k = radix;
    ClosCount c;
    c.endpoints = endpoints;
    c.radix = radix;
    if (endpoints <= k)
    {
        c.tiers = 1;
        c.switchesByTier = {1};
    }
    else
    {
        if (k % 2 != 0)
        {
            throw std::invalid_argument("radix " + std::to_string(radix) +
                                        " is odd; a multi-tier Clos splits ports in half");
        }
        if (endpoints <= k * k / 2)
        {
            c.tiers = 2;
            c.switchesByTier = {CeilDiv(2 * endpoints, k), CeilDiv(endpoints, k)};
        }
        else if (endpoints <= k * k * k / 4)
        {
            c.tiers = 3;
            c.switchesByTier = {CeilDiv(2 * endpoints, k),
                                CeilDiv(2 * endpoints, k),
                                CeilDiv(endpoints, k)};
        }
        else
        {
            std::ostringstream os;
            os << endpoints << " endpoints need more than 3 tiers at radix " << radix
               << " (3 tiers hold k^3/4 = " << k * k * k / 4 << "); use a larger radix";
            throw std::invalid_argument(os.str());
        }
    }
    for (uint64_t s : c.switchesByTier)
    {
        c.switches += s;
    }
    c.links = c.tiers * endpoints;
    return c;
}

DesignCost
RailCostModel::Price(DesignCost d) const
{
    d.nicTransceivers = d.gpus;
    d.switchTransceivers = 2 * d.links - d.gpus;
    d.transceivers = d.nicTransceivers + d.switchTransceivers;
    auto add = [&](const char* name, double count) {
        const PriceItem& item = m_table.at(name);
        d.cost += count * item.priceUsd;
        d.powerW += count * item.powerW;
    };
    add("switch", d.switches);
    add("switch_transceiver", d.switchTransceivers);
    add("nic_transceiver", d.nicTransceivers);
    add("fiber", d.links);
    if (m_includeNics)
    {
        add("nic", d.gpus);
    }
    m_evaluatedTrace(d);
    return d;
}

DesignCost
RailCostModel::RailOptimized(uint64_t gpus, uint32_t hbDomain) const
{
    if (hbDomain == 0)
    {
        throw std::invalid_argument("HB domain size is 0; give the GPUs per domain K >= 1");
    }
    if (gpus % hbDomain != 0)
    {
        throw std::invalid_argument(std::to_string(gpus) +
                                    " GPUs do not split into HB domains of " +
                                    std::to_string(hbDomain) + "; give a multiple of K");
    }
    ClosCount c = Clos(gpus, m_radix);
    DesignCost d;
    d.design = "rail-optimized";
    d.gpus = gpus;
    d.hbDomain = hbDomain;
    d.radix = m_radix;
    d.tiers = c.tiers;
    d.switches = c.switches;
    d.switchesByTier = c.switchesByTier;
    d.links = c.links;
    return Price(d);
}

DesignCost
RailCostModel::RailOnly(uint64_t gpus, uint32_t hbDomain) const
{
    if (hbDomain == 0)
    {
        throw std::invalid_argument("HB domain size is 0; give the GPUs per domain K >= 1");
    }
    if (gpus == 0 || gpus % hbDomain != 0)
    {
        throw std::invalid_argument(std::to_string(gpus) +
                                    " GPUs do not split into HB domains of " +
                                    std::to_string(hbDomain) + "; give a positive multiple of K");
    }
    ClosCount rail = Clos(gpus / hbDomain, m_radix);
    DesignCost d;
    d.design = "rail-only";
    d.gpus = gpus;
    d.hbDomain = hbDomain;
    d.radix = m_radix;
    d.tiers = rail.tiers;
    d.switches = rail.switches * hbDomain;
    for (uint64_t s : rail.switchesByTier)
    {
        d.switchesByTier.push_back(s * hbDomain);
    }
    d.links = rail.links * hbDomain;
    return Price(d);
}

CostComparison
RailCostModel::Compare(uint64_t gpus, uint32_t hbDomain) const
{
    CostComparison c;
    c.railOnly = RailOnly(gpus, hbDomain);
    c.railOptimized = RailOptimized(gpus, hbDomain);
    c.costReduction = 1.0 - c.railOnly.cost / c.railOptimized.cost;
    c.powerReduction = 1.0 - c.railOnly.powerW / c.railOptimized.powerW;
    return c;
}

std::vector<CostComparison>
RailCostModel::Sweep(const std::vector<uint64_t>& gpus,
                     const std::vector<uint32_t>& hbDomains) const
{
    std::vector<CostComparison> rows;
    const uint64_t k = m_radix;
    for (uint64_t n : gpus)
    {
        for (uint32_t h : hbDomains)
        {
            if (h == 0 || n % h != 0 || n > k * k * k / 4)
            {
                continue;
            }
            rows.push_back(Compare(n, h));
        }
    }
    return rows;
}

void
RailCostModel::SetRadix(uint32_t radix)
{
    if (radix < 2)
    {
        throw std::invalid_argument("switch radix " + std::to_string(radix) +
                                    " is too small; give at least 2 ports");
    }
    m_radix = radix;
}

uint32_t
RailCostModel::GetRadix() const
{
    return m_radix;
}

const std::map<std::string, PriceItem>&
RailCostModel::GetTable() const
{
    return m_table;
}

void
RailCostModel::SetItem(const std::string& name, const PriceItem& item)
{
    if (m_table.find(name) == m_table.end())
    {
        throw std::invalid_argument("unknown price-table item '" + name +
                                    "'; use switch, switch_transceiver, nic_transceiver, "
                                    "fiber or nic");
    }
    m_table[name] = item;
}

void
RailCostModel::LoadJson(const std::string& text, const std::string& name)
{
    Read(JsonReader::FromText(text, name).Root());
}

void
RailCostModel::LoadJsonFile(const std::string& path)
{
    Read(JsonReader::FromFile(path).Root());
}

void
RailCostModel::Read(const JsonField& j)
{
    if (!j.IsObject())
    {
        j.Expected("a price table object of items {\"switch\": {\"price_usd\": ..}, ...}");
    }
    if (j.Has("parts"))
    {
        // A whole PriceTable document (the format of contrib/mlnet/data/prices.json).
        Ptr<PriceTable> table = CreateObject<PriceTable>();
        table->Read(j);
        SetPriceTable(table);
        return;
    }
    // Checked completely before anything changes: a bad file leaves the model as it was.
    std::map<std::string, PriceItem> items = m_table;
    bool includeNics = m_includeNics;
    uint32_t radix = m_radix;
    for (const std::string& key : j.Keys())
    {
        const JsonField v = j.At(key);
        if (key == "include_nics")
        {
            includeNics = v.AsBool();
            continue;
        }
        if (key == "radix")
        {
            radix = v.AsUint32(2, 1000000, "ports");
            continue;
        }
        auto found = items.find(key);
        if (found == items.end())
        {
            v.Fail("unknown price-table item; use switch, switch_transceiver, nic_transceiver, "
                   "fiber, nic, radix or include_nics");
        }
        v.CheckKeys(
            key == "switch"
                ? std::set<std::string>{"price_usd", "power_w", "verified", "source", "ports"}
                : std::set<std::string>{"price_usd", "power_w", "verified", "source"});
        PriceItem& item = found->second;
        if (auto f = v.Optional("price_usd"))
        {
            item.priceUsd = f->AsDouble(0, 1e9, "USD per unit");
        }
        if (auto f = v.Optional("power_w"))
        {
            item.powerW = f->AsDouble(0, 1e7, "W per unit");
        }
        if (auto f = v.Optional("verified"))
        {
            item.verified = f->AsBool();
        }
        if (auto f = v.Optional("source"))
        {
            item.source = f->AsString(4096, true);
        }
        if (auto f = v.Optional("ports"))
        {
            radix = f->AsUint32(2, 1000000, "ports");
        }
    }
    m_table = items;
    m_includeNics = includeNics;
    m_radix = radix;
}

std::string
RailCostModel::GetTableJson() const
{
    nlohmann::json j;
    for (const auto& [name, item] : m_table)
    {
        j[name] = {{"price_usd", item.priceUsd},
                   {"power_w", item.powerW},
                   {"verified", item.verified},
                   {"source", item.source}};
    }
    j["switch"]["ports"] = m_radix;
    j["include_nics"] = m_includeNics;
    return j.dump(2);
}

std::string
RailCostModel::RowsToJson(const std::vector<CostComparison>& rows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : rows)
    {
        for (const DesignCost* d : {&c.railOptimized, &c.railOnly})
        {
            bool ro = d == &c.railOnly;
            out.push_back({{"gpus", d->gpus},
                           {"hb_domain", d->hbDomain},
                           {"design", d->design},
                           {"radix", d->radix},
                           {"tiers", d->tiers},
                           {"switches", d->switches},
                           {"links", d->links},
                           {"transceivers", d->transceivers},
                           {"cost_usd", d->cost},
                           {"power_w", d->powerW},
                           {"cost_reduction", ro ? c.costReduction : 0.0},
                           {"power_reduction", ro ? c.powerReduction : 0.0}});
        }
    }
    return nlohmann::json{{"rows", out}}.dump(2);
}

} // namespace ns3
