// SPDX-License-Identifier: GPL-2.0-only
#include "graph-fabric-helper.h"

#include "ns3/fabric-registry.h"
#include "ns3/value-parser.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <cstdlib>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace ns3
{

namespace
{
/// Most links a graph may have.
constexpr size_t kMaxLinks = 1ULL << 22;
/// Largest link rate (bit/s) and delay (s) accepted.
constexpr double kMaxRateBps = 1e14;
constexpr double kMaxDelaySeconds = 1.0;

/**
 * Throw (naming `links`) unless every rank can reach rank 0 over the links, switches
 * included; a switch nothing reaches is allowed (it carries no traffic).
 */
void
CheckConnected(const GraphDescription& g, const JsonField& links)
{
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    Graph graph(g.ranks + g.switches);
    auto vertex = [&g](bool isRank, uint32_t i) { return isRank ? i : g.ranks + i; };
    for (const GraphLink& l : g.links)
    {
        boost::add_edge(vertex(l.aIsRank, l.a), vertex(l.bIsRank, l.b), graph);
    }
    std::vector<int> component(boost::num_vertices(graph));
    boost::connected_components(graph, component.data());
    for (uint32_t r = 1; r < g.ranks; ++r)
    {
        if (component[r] != component[0])
        {
            links.Fail("rank " + std::to_string(r) +
                       " cannot be reached from rank 0; add links joining every rank (directly "
                       "or through switches) to the others");
        }
    }
}

/// Index of a node named r<i> or s<j>; throws naming the field for anything else.
std::pair<bool, uint32_t>
ParseName(const JsonField& f, uint32_t ranks, uint32_t switches)
{
    const std::string name = f.AsString(16);
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
    std::string valid = "r0..r" + std::to_string(ranks - 1);
    if (switches > 0)
    {
        valid += " or s0..s" + std::to_string(switches - 1);
    }
    f.Expected("a node name " + valid);
}

DataRate
ReadRate(const JsonField& f)
{
    const std::string expected = "a rate like \"100Gbps\" in (0, 100Tbps]";
    if (!f.IsString() || f.Raw().get_ref<const std::string&>().size() > 32)
    {
        f.Expected(expected);
    }
    try
    {
        return ValueParser::Rate("rate",
                                 f.Raw().get_ref<const std::string&>(),
                                 static_cast<uint64_t>(kMaxRateBps));
    }
    catch (const std::invalid_argument&)
    {
        f.Expected(expected);
    }
}

Time
ReadDelay(const JsonField& f)
{
    const std::string expected = "a delay like \"1us\" (unit s, ms, us, ns or ps) in [0, 1s]";
    if (!f.IsString() || f.Raw().get_ref<const std::string&>().size() > 32)
    {
        f.Expected(expected);
    }
    try
    {
        return ValueParser::Duration("delay",
                                     f.Raw().get_ref<const std::string&>(),
                                     Time(0),
                                     Seconds(kMaxDelaySeconds));
    }
    catch (const std::invalid_argument&)
    {
        f.Expected(expected);
    }
}
} // namespace

GraphFabricHelper::GraphFabricHelper() = default;

void
GraphFabricHelper::SetJson(const std::string& text, const std::string& name)
{
    m_text = text;
    m_name = name;
    m_file.reset();
}

void
GraphFabricHelper::ReadFile(const std::string& path)
{
    m_file = JsonReader::FromFile(path);
}

GraphDescription
GraphFabricHelper::Parse(const std::string& text, const std::string& name)
{
    return Read(JsonReader::FromText(text, name).Root());
}

GraphDescription
GraphFabricHelper::Read(const JsonField& doc)
{
    if (!doc.IsObject())
    {
        doc.Expected("a graph object {\"ranks\": N, \"switches\": M, \"links\": [[\"r0\",\"s0\"], "
                     "...]}");
    }
    doc.CheckKeys({"ranks", "switches", "links", "description"});
    if (auto d = doc.Optional("description"))
    {
        d->AsString(JsonReader::kMaxFileBytes, true);
    }
    GraphDescription g;
    g.ranks = doc.At("ranks").AsUint32(2, JsonReader::kMaxCount, "ranks");
    if (auto s = doc.Optional("switches"))
    {
        g.switches = s->AsUint32(0, JsonReader::kMaxCount, "switches");
    }
    for (const JsonField& link : doc.At("links").AsArray(kMaxLinks, 0, "links"))
    {
        GraphLink l;
        l.linkClass = "graph";
        JsonField a = link;
        JsonField b = link;
        if (link.IsArray())
        {
            link.AsArray(2, 2, "node names [\"a\", \"b\"]");
            a = link.At(size_t(0));
            b = link.At(size_t(1));
        }
        else if (link.IsObject())
        {
            link.CheckKeys({"a", "b", "class", "rate", "delay"});
            a = link.At("a");
            b = link.At("b");
            if (auto c = link.Optional("class"))
            {
                l.linkClass = c->AsString(64);
            }
            if (auto r = link.Optional("rate"))
            {
                l.rate = ReadRate(*r);
            }
            if (auto d = link.Optional("delay"))
            {
                l.delay = ReadDelay(*d);
            }
        }
        else
        {
            link.Expected("a link [\"a\", \"b\"] or {\"a\": .., \"b\": ..}");
        }
        std::tie(l.aIsRank, l.a) = ParseName(a, g.ranks, g.switches);
        std::tie(l.bIsRank, l.b) = ParseName(b, g.ranks, g.switches);
        if (l.aIsRank == l.bIsRank && l.a == l.b)
        {
            link.Fail("joins '" + a.AsString(16) + "' to itself; a link needs two nodes");
        }
        g.links.push_back(l);
    }
    CheckConnected(g, doc.At("links"));
    return g;
}

Ptr<Cluster>
GraphFabricHelper::Install()
{
    ValidateCommon();
    const GraphDescription g =
        m_file ? Read(m_file->Root()) : Read(JsonReader::FromText(m_text, m_name).Root());
    Ptr<Cluster> cluster = CreateObject<Cluster>();
    NodeContainer rankNodes = CreateNodes(g.ranks);
    NodeContainer switchNodes = g.switches ? CreateNodes(g.switches) : NodeContainer();
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        cluster->AddRankNode(rankNodes.Get(r));
    }
    for (uint32_t s = 0; s < g.switches; ++s)
    {
        cluster->AddSwitchNode(switchNodes.Get(s));
    }
    auto node = [&](bool isRank, uint32_t i) {
        return isRank ? rankNodes.Get(i) : switchNodes.Get(i);
    };
    for (const GraphLink& l : g.links)
    {
        Connect(cluster, node(l.aIsRank, l.a), node(l.bIsRank, l.b), l.linkClass, l.rate, l.delay);
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
