// SPDX-License-Identifier: GPL-2.0-only
#include "cost-model.h"

#include "ns3/double.h"
#include "ns3/json-reader.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopooptCostModel");
NS_OBJECT_ENSURE_REGISTERED(CostModel);

namespace
{
using Json = nlohmann::json;

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("CostModel: " + what);
}
} // namespace

TypeId
CostModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CostModel")
            .SetParent<Object>()
            .SetGroupName("Topoopt")
            .AddConstructor<CostModel>()
            .AddAttribute("MaxOversubscription",
                          "Largest ToR oversubscription ratio the similar-cost solver may "
                          "propose (ratio, >= 1)",
                          DoubleValue(16.0),
                          MakeDoubleAccessor(&CostModel::m_maxOversubscription),
                          MakeDoubleChecker<double>(1.0));
    return tid;
}

CostModel::CostModel()
    : m_prices(DefaultPrices()),
      m_maxOversubscription(16.0)
{
}

std::map<uint32_t, PriceEntry>
CostModel::DefaultPrices()
{
    return PricesFrom(*CreateObject<PriceTable>());
}

std::map<uint32_t, PriceEntry>
CostModel::PricesFrom(const PriceTable& table)
{
    const std::vector<std::pair<std::string, double PriceEntry::*>> parts = {
        {"transceiver", &PriceEntry::transceiver},
        {"nic_port", &PriceEntry::nicPort},
        {"switch_port", &PriceEntry::switchPort},
        {"panel_port", &PriceEntry::panelPort},
        {"ocs_port", &PriceEntry::ocsPort},
    };
    std::vector<uint32_t> speeds;
    for (const char* perSpeed : {"transceiver", "nic_port", "switch_port"})
    {
        for (uint32_t s : table.Speeds(perSpeed))
        {
            if (std::find(speeds.begin(), speeds.end(), s) == speeds.end())
            {
                speeds.push_back(s);
            }
        }
    }
    if (speeds.empty())
    {
        Fail("price table '" + table.GetOrigin() +
             "' prices no transceiver, nic_port or switch_port at any speed; add entries with "
             "\"gbps\"");
    }
    std::map<uint32_t, PriceEntry> prices;
    for (uint32_t s : speeds)
    {
        PriceEntry e;
        for (const auto& [name, member] : parts)
        {
            // Get names the file and the entry to add when the part is missing.
            e.*member = table.Get(name, s).priceUsd;
        }
        prices[s] = e;
    }
    return prices;
}

void
CostModel::SetPriceTable(Ptr<const PriceTable> table)
{
    m_prices = PricesFrom(*table);
}

void
CostModel::LoadJson(const std::string& text, const std::string& name)
{
    Read(JsonReader::FromText(text, name).Root());
}

void
CostModel::LoadFile(const std::string& path)
{
    Read(JsonReader::FromFile(path).Root());
}

void
CostModel::Read(const JsonField& doc)
{
    if (doc.Has("parts"))
    {
        // A whole PriceTable document (the format of contrib/mlnet/data/prices.json).
        Ptr<PriceTable> table = CreateObject<PriceTable>();
        table->Read(doc);
        SetPriceTable(table);
        return;
    }
    const JsonField j = doc.Has("prices") ? doc.At("prices") : doc;
    if (!j.IsObject())
    {
        j.Expected("a price table object {\"<Gbps>\": {\"transceiver\": ..., ...}}");
    }
    std::map<uint32_t, PriceEntry> table = m_prices;
    const std::vector<std::pair<std::string, double PriceEntry::*>> fields = {
        {"transceiver", &PriceEntry::transceiver},
        {"nic_port", &PriceEntry::nicPort},
        {"switch_port", &PriceEntry::switchPort},
        {"panel_port", &PriceEntry::panelPort},
        {"ocs_port", &PriceEntry::ocsPort},
    };
    for (const std::string& key : j.Keys())
    {
        const JsonField v = j.At(key);
        uint32_t speed = 0;
        if (!key.empty() && key.size() <= 6 &&
            key.find_first_not_of("0123456789") == std::string::npos)
        {
            speed = static_cast<uint32_t>(std::stoul(key));
        }
        if (speed == 0 || speed > 100000)
        {
            v.Fail("the key is not a speed in Gbps in [1, 100000] (e.g. \"100\")");
        }
        v.CheckKeys({"transceiver", "nic_port", "switch_port", "panel_port", "ocs_port"});
        bool isNew = table.count(speed) == 0;
        PriceEntry e = isNew ? PriceEntry() : table[speed];
        for (const auto& [name, member] : fields)
        {
            if (auto f = v.Optional(name))
            {
                e.*member = f->AsDouble(0, 1e9, "USD");
            }
            else if (isNew)
            {
                v.At(name).Fail("is missing; a new speed must list every price");
            }
        }
        table[speed] = e;
    }
    m_prices = table;
}

std::string
CostModel::ToJson(int indent) const
{
    Json prices = Json::object();
    for (const auto& [speed, e] : m_prices)
    {
        prices[std::to_string(speed)] = {{"transceiver", e.transceiver},
                                         {"nic_port", e.nicPort},
                                         {"switch_port", e.switchPort},
                                         {"panel_port", e.panelPort},
                                         {"ocs_port", e.ocsPort}};
    }
    Json j;
    j["prices"] = prices;
    return j.dump(indent);
}

std::vector<uint32_t>
CostModel::Speeds() const
{
    std::vector<uint32_t> s;
    for (const auto& kv : m_prices)
    {
        s.push_back(kv.first);
    }
    return s;
}

const PriceEntry&
CostModel::GetPrices(uint32_t gbps) const
{
    auto it = m_prices.find(gbps);
    if (it == m_prices.end())
    {
        std::string known;
        for (uint32_t s : Speeds())
        {
            known += (known.empty() ? "" : ", ") + std::to_string(s);
        }
        Fail("no prices for " + std::to_string(gbps) + " Gbps; the table has " + known +
             " (add the speed with LoadJson)");
    }
    return it->second;
}

double
CostModel::TopoOptCostPerServer(uint32_t degree, uint32_t gbps, OpticalDevice device) const
{
    const PriceEntry& p = GetPrices(gbps);
    double port = device == OpticalDevice::OCS ? p.ocsPort : p.panelPort;
    return degree * (p.nicPort + p.transceiver + port);
}

double
CostModel::FatTreeCostPerServer(uint32_t gbps, double r) const
{
    if (!(r >= 1.0) || !std::isfinite(r))
    {
        Fail("oversubscription " + std::to_string(r) + " must be a finite ratio >= 1");
    }
    const PriceEntry& p = GetPrices(gbps);
    double switchPorts = 1.0 + 4.0 / r;
    double links = 1.0 + 2.0 / r;
    return p.nicPort + switchPorts * p.switchPort + links * 2.0 * p.transceiver;
}

double
CostModel::IdealSwitchCostPerServer(uint32_t degree, uint32_t gbps) const
{
    return degree * FatTreeCostPerServer(gbps, 1.0);
}

SimilarCostFatTree
CostModel::SimilarCost(double budget) const
{
    if (!(budget >= 0) || !std::isfinite(budget))
    {
        Fail("budget per server must be a finite amount >= 0");
    }
    SimilarCostFatTree out;
    out.budgetPerServer = budget;
    for (uint32_t s : Speeds())
    {
        const PriceEntry& p = GetPrices(s);
        double full = FatTreeCostPerServer(s, 1.0);
        if (full <= budget)
        {
            out.fullBisectionGbps = s;
            out.fullBisectionCost = full;
        }
        // cost(r) = fixed + upper / r; the smallest affordable r, if within the cap.
        double fixed = p.nicPort + p.switchPort + 2.0 * p.transceiver;
        double upper = 4.0 * p.switchPort + 4.0 * p.transceiver;
        double r = 1.0;
        if (full > budget)
        {
            if (budget <= fixed)
            {
                continue;
            }
            r = upper / (budget - fixed);
            if (r > m_maxOversubscription)
            {
                continue;
            }
        }
        double bw = s / r;
        if (bw > out.bandwidthPerServerGbps + 1e-9)
        {
            out.gbps = s;
            out.oversubscription = r;
            out.bandwidthPerServerGbps = bw;
            out.costPerServer = FatTreeCostPerServer(s, r);
        }
    }
    return out;
}

} // namespace ns3
