// SPDX-License-Identifier: GPL-2.0-only
#include "fault-plan.h"

#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/random-variable-stream.h"
#include "ns3/route-planner.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFaultPlan");
NS_OBJECT_ENSURE_REGISTERED(FaultPlan);

namespace
{

const char* const kSyntax =
    "write link:<id>, link:<node>-<node>, <class>:<index>, node:<node>, nic:rank<N>[.<k>] or "
    "random:<N>, each optionally @<time> (e.g. tor-agg:0@200us); <node> is rank<N> or "
    "switch<N>";

/// Strict unsigned integer (digits only, fits 32 bits).
bool
ParseIndex(const std::string& text, uint32_t& value)
{
    if (text.empty() || text.size() > 10 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    {
        return false;
    }
    uint64_t v = std::stoull(text);
    if (v > UINT32_MAX)
    {
        return false;
    }
    value = static_cast<uint32_t>(v);
    return true;
}

std::string
Join(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
    {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

} // namespace

TypeId
FaultPlan::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FaultPlan")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<FaultPlan>()
            .AddAttribute("Convergence",
                          "Delay from a failure during the run to the installation of routes "
                          "around it; until then packets keep the old routes (s).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FaultPlan::m_convergence),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Stream",
                          "Random-variable stream random failures are drawn from, so that "
                          "they depend only on the fabric, the classes and the run number.",
                          IntegerValue(kDefaultStream),
                          MakeIntegerAccessor(&FaultPlan::m_stream),
                          MakeIntegerChecker<int64_t>(0))
            .AddTraceSource("LinkDown",
                            "A planned fault took a link down: link id.",
                            MakeTraceSourceAccessor(&FaultPlan::m_linkDownTrace),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("RoutesInstalled",
                            "Routes around the failed links were installed: number of links "
                            "down so far.",
                            MakeTraceSourceAccessor(&FaultPlan::m_routesInstalledTrace),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

FaultPlan::FaultPlan() = default;
FaultPlan::~FaultPlan() = default;

void
FaultPlan::DoDispose()
{
    m_faults.clear();
    Object::DoDispose();
}

std::vector<FaultSpec>
FaultPlan::Parse(const std::string& list)
{
    static const std::regex itemForm(R"(^([A-Za-z][A-Za-z0-9_-]*):([^@]+)(@(.*))?$)");
    static const std::regex timeForm(R"(^([0-9]+(\.[0-9]*)?)(s|ms|us|ns|ps)$)");
    static const std::regex nodeForm(R"(^(rank|switch)[0-9]+$)");
    static const std::regex endsForm(R"(^((rank|switch)[0-9]+)-((rank|switch)[0-9]+)$)");
    static const std::regex nicForm(R"(^(rank[0-9]+)(\.([0-9]+))?$)");
    std::vector<FaultSpec> out;
    if (list.empty())
    {
        return out;
    }
    std::stringstream ss(list);
    std::string item;
    size_t count = 0;
    for (char c : list)
    {
        count += c == ',';
    }
    std::vector<std::string> items;
    while (std::getline(ss, item, ','))
    {
        items.push_back(item);
    }
    if (items.size() != count + 1)
    {
        items.push_back(""); // a trailing comma: an empty item
    }
    for (const std::string& text : items)
    {
        auto bad = [&](const std::string& why) {
            return std::invalid_argument("fault '" + text + "' " + why + "; " + kSyntax);
        };
        std::smatch m;
        if (text.empty())
        {
            throw std::invalid_argument(std::string("empty fault in the list; ") + kSyntax);
        }
        if (!std::regex_match(text, m, itemForm))
        {
            throw bad("is not a fault");
        }
        FaultSpec f;
        f.item = text;
        const std::string kind = m[1].str();
        const std::string arg = m[2].str();
        if (m[3].matched)
        {
            const std::string t = m[4].str();
            if (!t.empty() && t[0] == '-')
            {
                throw bad("has a negative time; a fault's time is >= 0");
            }
            if (!std::regex_match(t, timeForm))
            {
                throw bad("has no valid time after @ (a number and s, ms, us, ns or ps)");
            }
            f.at = Time(t);
        }
        if (kind == "link")
        {
            if (ParseIndex(arg, f.index))
            {
                f.target = FaultSpec::Target::LINK_ID;
            }
            else if (std::regex_match(arg, m, endsForm))
            {
                f.target = FaultSpec::Target::LINK_ENDS;
                f.nodeA = m[1].str();
                f.nodeB = m[3].str();
            }
            else
            {
                throw bad("names no link (a link id or two nodes, e.g. link:rank0-switch0)");
            }
        }
        else if (kind == "node")
        {
            if (!std::regex_match(arg, nodeForm))
            {
                throw bad("names no node (rank<N> or switch<N>)");
            }
            f.target = FaultSpec::Target::NODE;
            f.nodeA = arg;
        }
        else if (kind == "nic")
        {
            if (!std::regex_match(arg, m, nicForm) ||
                (m[2].matched && !ParseIndex(m[3].str(), f.index)))
            {
                throw bad("names no NIC (rank<N>, or rank<N>.<k> for its k-th link)");
            }
            f.target = FaultSpec::Target::NIC;
            f.nodeA = m[1].str();
            f.allNics = !m[2].matched;
        }
        else if (kind == "random")
        {
            if (!ParseIndex(arg, f.index) || f.index == 0)
            {
                throw bad("has no count of links (a positive integer)");
            }
            f.target = FaultSpec::Target::RANDOM;
        }
        else
        {
            if (!ParseIndex(arg, f.index))
            {
                throw bad("has no link index after the class (a non-negative integer)");
            }
            f.target = FaultSpec::Target::LINK_CLASS;
            f.linkClass = kind;
        }
        out.push_back(f);
    }
    return out;
}

void
FaultPlan::Add(const std::string& list)
{
    for (const FaultSpec& f : Parse(list))
    {
        Add(f);
    }
}

void
FaultPlan::Add(const FaultSpec& fault)
{
    NS_ASSERT_MSG(!m_applied, "FaultPlan::Add after Apply");
    m_faults.push_back(fault);
}

void
FaultPlan::AddRandom(uint32_t count, Time at, const std::string& item)
{
    if (count == 0)
    {
        return;
    }
    FaultSpec f;
    f.target = FaultSpec::Target::RANDOM;
    f.index = count;
    f.at = at;
    f.item = item;
    if (item.empty())
    {
        std::ostringstream os;
        os << "random:" << count;
        if (!at.IsZero())
        {
            os << "@" << at.GetPicoSeconds() << "ps";
        }
        f.item = os.str();
    }
    Add(f);
}

const std::vector<FaultSpec>&
FaultPlan::GetFaults() const
{
    return m_faults;
}

const std::vector<FaultRecord>&
FaultPlan::GetRecords() const
{
    return m_records;
}

std::string
FaultPlan::NodeName(Ptr<Cluster> cluster, uint32_t nodeId)
{
    uint32_t rank = cluster->GetRankOfNode(nodeId);
    if (rank != UINT32_MAX)
    {
        return "rank" + std::to_string(rank);
    }
    const NodeContainer& switches = cluster->GetSwitchNodes();
    for (uint32_t i = 0; i < switches.GetN(); ++i)
    {
        if (switches.Get(i)->GetId() == nodeId)
        {
            return "switch" + std::to_string(i);
        }
    }
    return "node" + std::to_string(nodeId);
}

uint32_t
FaultPlan::NodeOf(Ptr<Cluster> cluster, const std::string& name, const FaultSpec& f) const
{
    const bool rank = name.rfind("rank", 0) == 0;
    uint32_t i = 0;
    if (!ParseIndex(name.substr(rank ? 4 : 6), i))
    {
        i = UINT32_MAX; // too many digits: no such node
    }
    const uint32_t n = rank ? cluster->GetNRanks() : cluster->GetSwitchNodes().GetN();
    if (i >= n)
    {
        throw std::invalid_argument("fault '" + f.item + "': no " + name + " on this fabric; " +
                                    (n == 0
                                         ? std::string("it has no switches")
                                         : std::string(rank ? "ranks" : "switches") + " are " +
                                               (rank ? "rank" : "switch") + "0.." +
                                               (rank ? "rank" : "switch") + std::to_string(n - 1)));
    }
    return rank ? cluster->GetRankNode(i)->GetId() : cluster->GetSwitchNodes().Get(i)->GetId();
}

std::vector<uint32_t>
FaultPlan::Resolve(Ptr<Cluster> cluster, const FaultSpec& f) const
{
    const auto& links = cluster->GetLinks();
    switch (f.target)
    {
    case FaultSpec::Target::LINK_ID:
        if (f.index >= links.size())
        {
            throw std::invalid_argument("fault '" + f.item + "': no link " +
                                        std::to_string(f.index) + "; links are 0.." +
                                        std::to_string(links.size() - 1));
        }
        return {f.index};
    case FaultSpec::Target::LINK_CLASS: {
        std::vector<uint32_t> ofClass;
        std::vector<std::string> classes;
        for (const auto& l : links)
        {
            if (l.linkClass == f.linkClass)
            {
                ofClass.push_back(l.id);
            }
            if (std::find(classes.begin(), classes.end(), l.linkClass) == classes.end())
            {
                classes.push_back(l.linkClass);
            }
        }
        if (ofClass.empty())
        {
            throw std::invalid_argument("fault '" + f.item + "': this fabric has no link class '" +
                                        f.linkClass + "'; its classes are " + Join(classes));
        }
        if (f.index >= ofClass.size())
        {
            throw std::invalid_argument("fault '" + f.item + "': index " + std::to_string(f.index) +
                                        " out of range; " + f.linkClass + " links are " +
                                        f.linkClass + ":0.." + f.linkClass + ":" +
                                        std::to_string(ofClass.size() - 1));
        }
        return {ofClass[f.index]};
    }
    case FaultSpec::Target::LINK_ENDS: {
        uint32_t a = NodeOf(cluster, f.nodeA, f);
        uint32_t b = NodeOf(cluster, f.nodeB, f);
        std::vector<uint32_t> between;
        for (uint32_t id : cluster->GetLinksOfNode(a))
        {
            const ClusterLink& l = links[id];
            if ((l.nodeA == a && l.nodeB == b) || (l.nodeA == b && l.nodeB == a))
            {
                between.push_back(id);
            }
        }
        if (between.empty())
        {
            throw std::invalid_argument("fault '" + f.item + "': no link joins " + f.nodeA +
                                        " and " + f.nodeB);
        }
        return between; // parallel links between two nodes all fail
    }
    case FaultSpec::Target::NODE:
        return cluster->GetLinksOfNode(NodeOf(cluster, f.nodeA, f));
    case FaultSpec::Target::NIC: {
        const std::vector<uint32_t>& own = cluster->GetLinksOfNode(NodeOf(cluster, f.nodeA, f));
        if (f.allNics)
        {
            return own;
        }
        if (f.index >= own.size())
        {
            throw std::invalid_argument("fault '" + f.item + "': " + f.nodeA + " has links " +
                                        f.nodeA + ".0.." + f.nodeA + "." +
                                        std::to_string(own.size() - 1));
        }
        return {own[f.index]};
    }
    case FaultSpec::Target::RANDOM:
        break;
    }
    return {};
}

bool
FaultPlan::RanksConnected(Ptr<Cluster> cluster, const std::vector<bool>& down)
{
    return UnreachableRank(cluster, down) == UINT32_MAX;
}

uint32_t
FaultPlan::UnreachableRank(Ptr<Cluster> cluster, const std::vector<bool>& down)
{
    const auto& links = cluster->GetLinks();
    uint32_t nv = 0;
    for (const auto& l : links)
    {
        nv = std::max({nv, l.nodeA + 1, l.nodeB + 1});
    }
    for (uint32_t r = 0; r < cluster->GetNRanks(); ++r)
    {
        nv = std::max(nv, cluster->GetRankNode(r)->GetId() + 1);
    }
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> g(nv);
    for (const auto& l : links)
    {
        if (!down[l.id])
        {
            boost::add_edge(l.nodeA, l.nodeB, g);
        }
    }
    std::vector<int> comp(nv);
    boost::connected_components(g, comp.data());
    int c0 = comp[cluster->GetRankNode(0)->GetId()];
    for (uint32_t r = 1; r < cluster->GetNRanks(); ++r)
    {
        if (comp[cluster->GetRankNode(r)->GetId()] != c0)
        {
            return r;
        }
    }
    return UINT32_MAX;
}

std::vector<uint32_t>
FaultPlan::ChooseRandomLinks(Ptr<Cluster> cluster,
                             uint32_t count,
                             const std::vector<std::string>& classes,
                             std::vector<bool>& down,
                             int64_t stream)
{
    std::vector<uint32_t> candidates;
    for (const auto& l : cluster->GetLinks())
    {
        if (!down[l.id] && std::find(classes.begin(), classes.end(), l.linkClass) != classes.end())
        {
            candidates.push_back(l.id);
        }
    }
    // Its own stream: the draw must not depend on how many random variables the data
    // path created before (the IPv4 stack makes many, the fast path none).
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(stream);
    std::vector<uint32_t> picked;
    while (picked.size() < count && !candidates.empty())
    {
        uint32_t pick = rng->GetInteger(0, candidates.size() - 1);
        uint32_t id = candidates[pick];
        candidates.erase(candidates.begin() + pick);
        down[id] = true;
        if (RanksConnected(cluster, down))
        {
            picked.push_back(id);
        }
        else
        {
            down[id] = false;
        }
    }
    if (picked.size() < count)
    {
        for (uint32_t id : picked)
        {
            down[id] = false;
        }
        std::ostringstream os;
        os << "cannot fail " << count << " random links of class " << Join(classes)
           << " and keep every rank reachable: the draw found " << picked.size()
           << " that can fail together on this fabric; ask for fewer";
        throw std::invalid_argument(os.str());
    }
    return picked;
}

void
FaultPlan::Apply(Ptr<Cluster> cluster, const std::vector<std::string>& failable)
{
    NS_LOG_FUNCTION(this << cluster);
    if (m_applied || cluster->GetObject<FaultPlan>())
    {
        throw std::invalid_argument("a fault plan is applied once, to one fabric, and a fabric "
                                    "takes one plan; put every fault in one list");
    }
    const auto& links = cluster->GetLinks();
    std::vector<bool> down(links.size(), false);
    std::map<uint32_t, std::string> failedBy;
    for (const auto& l : links)
    {
        down[l.id] = l.failed;
    }
    // Named faults first, in the order given, then the random ones among what is left.
    std::vector<const FaultSpec*> ordered;
    for (const FaultSpec& f : m_faults)
    {
        if (f.target != FaultSpec::Target::RANDOM)
        {
            ordered.push_back(&f);
        }
    }
    for (const FaultSpec& f : m_faults)
    {
        if (f.target == FaultSpec::Target::RANDOM)
        {
            ordered.push_back(&f);
        }
    }
    std::vector<std::pair<const FaultSpec*, std::vector<uint32_t>>> resolved;
    for (const FaultSpec* f : ordered)
    {
        if (f->at < Simulator::Now())
        {
            throw std::invalid_argument("fault '" + f->item + "' is in the past; the run is at " +
                                        std::to_string(Simulator::Now().GetSeconds()) + " s");
        }
        if (f->target == FaultSpec::Target::RANDOM)
        {
            if (failable.empty())
            {
                throw std::invalid_argument("fault '" + f->item +
                                            "': this fabric has no link class random failures "
                                            "may pick from; name the links instead");
            }
            try
            {
                for (uint32_t id : ChooseRandomLinks(cluster, f->index, failable, down, m_stream))
                {
                    resolved.push_back({f, {id}}); // one record per pick
                }
            }
            catch (const std::invalid_argument& e)
            {
                throw std::invalid_argument("fault '" + f->item + "': " + e.what());
            }
            continue;
        }
        std::vector<uint32_t> ids = Resolve(cluster, *f);
        for (uint32_t id : ids)
        {
            if (down[id])
            {
                auto it = failedBy.find(id);
                throw std::invalid_argument(
                    "fault '" + f->item + "': link " + std::to_string(id) + " is already down" +
                    (it != failedBy.end() ? " by '" + it->second + "'" : std::string()) +
                    "; fail each link once");
            }
            down[id] = true;
            failedBy[id] = f->item;
        }
        if (uint32_t lost = UnreachableRank(cluster, down); lost != UINT32_MAX)
        {
            throw std::invalid_argument("fault '" + f->item + "' leaves rank " +
                                        std::to_string(lost) +
                                        " unreachable from rank 0 (with the faults before "
                                        "it); ranks must stay connected: fail other links");
        }
        resolved.push_back({f, ids});
    }

    m_applied = true;
    cluster->AggregateObject(this);
    const std::string fabric = cluster->GetFabricSpec().kind;
    std::vector<uint32_t> now;
    std::map<Time, std::vector<uint32_t>> later;
    for (const auto& [f, ids] : resolved)
    {
        FaultRecord r;
        r.item = f->item;
        r.element = f->target == FaultSpec::Target::NODE  ? "node"
                    : f->target == FaultSpec::Target::NIC ? "nic"
                                                          : "link";
        r.fabric = fabric;
        r.node = r.element == "link" ? "" : f->nodeA;
        r.links = ids;
        for (uint32_t id : ids)
        {
            const ClusterLink& l = links[id];
            r.classes.push_back(l.linkClass);
            r.endpoints.push_back(NodeName(cluster, l.nodeA) + "-" + NodeName(cluster, l.nodeB));
        }
        // Seconds from whole picoseconds: 50us is 5e-05, not Time::GetSeconds's 4.99..e-05.
        r.atSeconds = static_cast<double>(f->at.GetPicoSeconds()) / 1e12;
        const bool before = f->at.IsZero();
        r.convergedSeconds =
            before ? 0.0 : static_cast<double>((f->at + m_convergence).GetPicoSeconds()) / 1e12;
        size_t position = FaultLog::Record(r);
        m_records.push_back(r);
        // Frames the flow level loses on its links (no device drops them there).
        cluster->TraceConnectWithoutContext(
            "FramesLost",
            MakeBoundCallback(
                +[](size_t pos, std::vector<uint32_t> mine, uint32_t link, uint64_t frames) {
                    if (std::find(mine.begin(), mine.end(), link) != mine.end())
                    {
                        FaultLog::AddFrameLost(pos, frames);
                    }
                },
                position,
                ids));
        for (uint32_t id : ids)
        {
            for (auto dev : {links[id].devA, links[id].devB})
            {
                if (!dev)
                {
                    continue; // a graph link (no devices): no frames to lose
                }
                // Every frame the failed link's receivers drop is a frame this fault lost.
                dev->TraceConnectWithoutContext(
                    "PhyRxDrop",
                    MakeBoundCallback(
                        +[](size_t pos, Ptr<const Packet>) { FaultLog::AddFrameLost(pos); },
                        position));
            }
            (before ? now : later[f->at]).push_back(id);
        }
    }
    if (!now.empty())
    {
        FailNow(now);
        Converge();
    }
    for (const auto& [at, ids] : later)
    {
        Simulator::Schedule(at - Simulator::Now(), &FaultPlan::FailNow, Ptr<FaultPlan>(this), ids);
        Simulator::Schedule(at + m_convergence - Simulator::Now(),
                            &FaultPlan::Converge,
                            Ptr<FaultPlan>(this));
    }
}

void
FaultPlan::FailNow(std::vector<uint32_t> links)
{
    Ptr<Cluster> cluster = GetObject<Cluster>();
    cluster->HoldRoutes(); // until Converge: frames keep the old routes
    for (uint32_t id : links)
    {
        NS_LOG_INFO("link " << id << " down at " << Simulator::Now().As(Time::US));
        cluster->FailLink(id);
        m_linkDownTrace(id);
    }
}

void
FaultPlan::Converge()
{
    Ptr<Cluster> cluster = GetObject<Cluster>();
    cluster->ReleaseRoutes();
    RoutePlanner(cluster).Install();
    uint32_t n = 0;
    for (const auto& l : cluster->GetLinks())
    {
        n += l.failed;
    }
    NS_LOG_INFO("routes around " << n << " failed links at " << Simulator::Now().As(Time::US));
    m_routesInstalledTrace(n);
}

} // namespace ns3
