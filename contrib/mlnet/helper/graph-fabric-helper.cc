// SPDX-License-Identifier: GPL-2.0-only
#include "graph-fabric-helper.h"

#include "ns3/fabric-registry.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{
/// Index of a node named r<i> or s<j>; throws for anything else.
std::pair<bool, uint32_t>
ParseName(const std::string& name, uint32_t ranks, uint32_t switches)
{
    if (name.size() >= 2 && (name[0] == 'r' || name[0] == 's') &&
        name.find_first_not_of("0123456789", 1) == std::string::npos && name.size() < 9)
    {
        uint32_t i = static_cast<uint32_t>(std::stoul(name.substr(1)));
        bool rank = name[0] == 'r';
        if (i < (rank ? ranks : switches))
        {
            return {rank, i};
        }
    }
    std::ostringstream os;
    os << "graph: unknown node '" << name << "'; valid names are r0..r" << ranks - 1;
    if (switches > 0)
    {
        os << " and s0..s" << switches - 1;
    }
    throw std::invalid_argument(os.str());
}
} // namespace

GraphFabricHelper::GraphFabricHelper() = default;

void
GraphFabricHelper::SetJson(const std::string& text)
{
    m_text = text;
}

void
GraphFabricHelper::ReadFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::invalid_argument("graph: cannot read '" + path + "'");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    m_text = ss.str();
}

Ptr<Cluster>
GraphFabricHelper::Install()
{
    ValidateCommon();
    nlohmann::json doc;
    try
    {
        doc = nlohmann::json::parse(m_text);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        throw std::invalid_argument(std::string("graph: malformed JSON (") + e.what() + ")");
    }
    if (!doc.is_object() || !doc.contains("ranks") || !doc["ranks"].is_number_unsigned() ||
        !doc.contains("links") || !doc["links"].is_array())
    {
        throw std::invalid_argument(
            "graph: expected {\"ranks\": N, \"switches\": M, \"links\": [[\"r0\",\"s0\"], ...]}");
    }
    uint32_t ranks = doc["ranks"].get<uint32_t>();
    uint32_t switches = doc.value("switches", 0u);
    if (ranks < 2)
    {
        throw std::invalid_argument("graph: needs at least 2 ranks");
    }
    Ptr<Cluster> cluster = CreateObject<Cluster>();
    NodeContainer rankNodes = CreateNodes(ranks);
    NodeContainer switchNodes = switches ? CreateNodes(switches) : NodeContainer();
    for (uint32_t r = 0; r < ranks; ++r)
    {
        cluster->AddRankNode(rankNodes.Get(r));
    }
    for (uint32_t s = 0; s < switches; ++s)
    {
        cluster->AddSwitchNode(switchNodes.Get(s));
    }
    auto node = [&](const std::string& name) {
        auto [isRank, i] = ParseName(name, ranks, switches);
        return isRank ? rankNodes.Get(i) : switchNodes.Get(i);
    };
    uint32_t index = 0;
    for (const auto& link : doc["links"])
    {
        std::string a;
        std::string b;
        std::string cls = "graph";
        DataRate rate(0);
        Time delay(-1);
        if (link.is_array() && link.size() == 2 && link[0].is_string() && link[1].is_string())
        {
            a = link[0];
            b = link[1];
        }
        else if (link.is_object() && link.contains("a") && link.contains("b") &&
                 link["a"].is_string() && link["b"].is_string())
        {
            a = link["a"];
            b = link["b"];
            cls = link.value("class", cls);
            if (link.contains("rate"))
            {
                DataRateValue v;
                if (!link["rate"].is_string() ||
                    !v.DeserializeFromString(link["rate"].get<std::string>(),
                                             MakeDataRateChecker()) ||
                    v.Get().GetBitRate() == 0)
                {
                    throw std::invalid_argument("graph: link " + std::to_string(index) +
                                                " has a bad rate; write e.g. \"100Gbps\"");
                }
                rate = v.Get();
            }
            if (link.contains("delay"))
            {
                std::string text =
                    link["delay"].is_string() ? link["delay"].get<std::string>() : "";
                // Time's parser aborts on unknown units: check the form first.
                size_t unit = text.find_first_not_of("0123456789.");
                static const char* units[] = {"s", "ms", "us", "ns", "ps"};
                bool ok = unit != std::string::npos && unit > 0 &&
                          std::find(std::begin(units), std::end(units), text.substr(unit)) !=
                              std::end(units);
                if (!ok)
                {
                    throw std::invalid_argument("graph: link " + std::to_string(index) +
                                                " has a bad delay; write e.g. \"1us\"");
                }
                delay = Time(text);
            }
        }
        else
        {
            throw std::invalid_argument("graph: link " + std::to_string(index) +
                                        " must be [\"a\",\"b\"] or {\"a\":..,\"b\":..}");
        }
        if (a == b)
        {
            throw std::invalid_argument("graph: link " + std::to_string(index) + " joins '" + a +
                                        "' to itself");
        }
        Connect(cluster, node(a), node(b), cls, rate, delay);
        ++index;
    }
    FabricSpec spec;
    spec.kind = "graph";
    Finish(cluster, spec);
    return cluster;
}

namespace
{
const FabricRegistration g_graph("graph",
                                 "any graph of hosts and switches from a JSON edge list",
                                 {"graph"},
                                 [](const FabricRequest& r) {
                                     if (r.graphFile.empty())
                                     {
                                         throw std::invalid_argument(
                                             "--fabric=graph needs --graph=FILE (a JSON edge "
                                             "list)");
                                     }
                                     auto h = std::make_shared<GraphFabricHelper>();
                                     h->ReadFile(r.graphFile);
                                     return h;
                                 });
} // namespace

} // namespace ns3
