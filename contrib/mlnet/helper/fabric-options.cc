#include "fabric-options.h"

#include "ns3/distributed-session.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/graph-fabric-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/queue-size.h"
#include "ns3/torus-helper.h"

#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ns3
{

void
FabricOptions::AddToCommandLine(CommandLine& cmd)
{
    cmd.AddValue("fabric", "fabric: ideal | fattree | torus | mesh | graph", fabric);
    cmd.AddValue("ranks", "number of ranks (default 8; torus/mesh: must match --torusDims)", ranks);
    cmd.AddValue("torusDims", "torus or mesh dimensions, e.g. 4x4x4", torusDims);
    cmd.AddValue("graph", "JSON edge list for --fabric=graph", graphFile);
    cmd.AddValue("rate", "link rate, e.g. 100Gbps", rate);
    cmd.AddValue("delay", "link propagation delay, e.g. 1us", delay);
    cmd.AddValue("mtu", "device MTU in bytes", mtu);
    cmd.AddValue("queue", "switch port queue, e.g. 1000p or 10MB", queue);
    cmd.AddValue("tiers", "fat-tree switch tiers (2 or 3)", tiers);
    cmd.AddValue("radix", "fat-tree switch radix (0 = smallest that fits)", radix);
    cmd.AddValue("oversubscription",
                 "fat-tree ToR oversubscription ratio (>= 1)",
                 oversubscription);
    cmd.AddValue("failLinks",
                 "fail this many fabric links at random (seeded by --RngRun)",
                 failLinks);
    cmd.AddValue("ecn", "RED-ECN marking on switch ports (for DCTCP)", ecn);
    cmd.AddValue("dataPath",
                 "data path: ipv4 (Internet stack, any transport) or fast (table-driven "
                 "forwarding without IPv4, udp transport only; same completion times)",
                 dataPath);
    traces.AddToCommandLine(cmd);
}

uint64_t
ParseByteSize(const std::string& text)
{
    static const std::regex form(R"(^\s*([0-9]+)\s*(B|KiB|MiB|GiB|KB|MB|GB|k|K|M|G)?\s*$)");
    std::smatch m;
    if (!std::regex_match(text, m, form) || m[1].str().size() > 15)
    {
        throw std::invalid_argument("size '" + text +
                                    "' is not a byte count; write e.g. 4096, 64KiB or 8MiB");
    }
    uint64_t value = std::stoull(m[1].str());
    std::string unit = m[2].str();
    uint64_t mult = 1;
    if (unit == "KiB" || unit == "k" || unit == "K")
    {
        mult = 1ull << 10;
    }
    else if (unit == "MiB" || unit == "M")
    {
        mult = 1ull << 20;
    }
    else if (unit == "GiB" || unit == "G")
    {
        mult = 1ull << 30;
    }
    else if (unit == "KB")
    {
        mult = 1000;
    }
    else if (unit == "MB")
    {
        mult = 1000000;
    }
    else if (unit == "GB")
    {
        mult = 1000000000;
    }
    if (value == 0)
    {
        throw std::invalid_argument("size '" + text + "' is zero; give a positive size");
    }
    return value * mult;
}

DataRate
ParseDataRate(const std::string& text)
{
    DataRateValue v;
    if (!v.DeserializeFromString(text, MakeDataRateChecker()))
    {
        throw std::invalid_argument("rate '" + text + "' is not a data rate; write e.g. 100Gbps");
    }
    if (v.Get().GetBitRate() == 0)
    {
        throw std::invalid_argument("rate '" + text + "' is zero; give a positive rate");
    }
    return v.Get();
}

Time
ParseTime(const std::string& text)
{
    // ns-3's Time parser aborts on an unknown unit: check the form first.
    static const std::regex form(R"(^([0-9]+(\.[0-9]*)?)(s|ms|us|ns|ps)$)");
    if (!std::regex_match(text, form))
    {
        throw std::invalid_argument("time '" + text + "' is not a duration; write e.g. 1us");
    }
    return Time(text);
}

Ptr<Cluster>
FabricOptions::Build() const
{
    std::unique_ptr<FabricHelper> helper;
    uint32_t n = ranks ? ranks : 8;
    if (fabric == "ideal")
    {
        helper = std::make_unique<IdealSwitchHelper>(n);
    }
    else if (fabric == "fattree")
    {
        auto ft = std::make_unique<FatTreeHelper>(n);
        ft->SetTiers(tiers);
        ft->SetRadix(radix);
        ft->SetOversubscription(oversubscription);
        helper = std::move(ft);
    }
    else if (fabric == "torus" || fabric == "mesh")
    {
        std::vector<uint32_t> dims = TorusHelper::ParseDims(torusDims);
        uint64_t product = 1;
        for (uint32_t k : dims)
        {
            product *= k;
        }
        if (ranks != 0 && ranks != product)
        {
            throw std::invalid_argument(
                "--ranks=" + std::to_string(ranks) + " does not match --torusDims=" + torusDims +
                " (" + std::to_string(product) + " ranks); drop --ranks or change the dimensions");
        }
        auto torus = std::make_unique<TorusHelper>(dims);
        torus->SetWrap(fabric == "torus");
        helper = std::move(torus);
    }
    else if (fabric == "graph")
    {
        if (graphFile.empty())
        {
            throw std::invalid_argument("--fabric=graph needs --graph=FILE (a JSON edge list)");
        }
        auto graph = std::make_unique<GraphFabricHelper>();
        graph->ReadFile(graphFile);
        helper = std::move(graph);
    }
    else
    {
        throw std::invalid_argument("unknown fabric '" + fabric +
                                    "'; valid: ideal, fattree, torus, mesh, graph");
    }
    Configure(*helper);
    Ptr<Cluster> cluster = helper->Install();
    if (failLinks > 0)
    {
        FabricHelper::FailRandomLinks(cluster, failLinks, FailableLinkClasses());
    }
    traces.Attach(cluster);
    return cluster;
}

void
FabricOptions::Configure(FabricHelper& helper) const
{
    helper.SetLinkRate(ParseDataRate(rate));
    helper.SetLinkDelay(ParseTime(delay));
    helper.SetMtu(mtu);
    // QueueSize's own parser aborts on bad text: check the form first.
    static const std::regex queueForm(R"(^[1-9][0-9]{0,9}(p|B|KB|MB|KiB|MiB)$)");
    if (!std::regex_match(queue, queueForm))
    {
        throw std::invalid_argument("queue '" + queue +
                                    "' is not a queue size; write e.g. 1000p or 10MB");
    }
    helper.SetQueueSize(QueueSize(queue));
    helper.SetSwitchEcn(ecn);
    helper.SetDataPath(dataPath);
    // Under mpirun (DistributedSession) the fabric is split over the processes.
    helper.SetPartitions(DistributedSession::GetProcessCount());
}

std::vector<std::string>
FabricOptions::FailableLinkClasses() const
{
    if (fabric == "fattree")
    {
        return {"tor-agg", "agg-core"};
    }
    if (fabric == "torus" || fabric == "mesh")
    {
        return {"torus"};
    }
    if (fabric == "graph")
    {
        return {"graph"};
    }
    return {};
}

std::string
FabricOptions::Label() const
{
    std::ostringstream os;
    os << fabric;
    if (fabric == "torus" || fabric == "mesh")
    {
        os << "(" << torusDims << ")";
    }
    else if (fabric == "fattree" && oversubscription != 1.0)
    {
        os << "(r=" << oversubscription << ")";
    }
    return os.str();
}

} // namespace ns3
