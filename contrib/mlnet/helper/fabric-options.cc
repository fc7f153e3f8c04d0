// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-options.h"

#include "ns3/distributed-session.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-plan.h"
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
    cmd.AddValue("fabric",
                 fabricHelp.empty() ? "fabric: " + FabricRegistry::NameList() : fabricHelp,
                 fabric);
    // The bracket CommandLine prints is the real default; say what 0 means.
    cmd.AddValue("ranks",
                 ranks == 0 ? "number of ranks (0 = 8, or the product of --torusDims for "
                              "torus/mesh)"
                            : "number of ranks (torus/mesh: must match --torusDims)",
                 ranks);
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
    // Faults (FaultPlan).
    cmd.AddValue("fail",
                 "faults, comma-separated: link:<id>, link:<node>-<node>, <class>:<index>, "
                 "node:<node>, nic:rank<N>[.<k>], random:<N>, each optionally @<time>; "
                 "<node> is rank<N> or switch<N> (e.g. tor-agg:0@200us,node:switch2@1ms)",
                 fail);
    cmd.AddValue("failAt",
                 "simulated time of the --failLinks failures (0 = before the run)",
                 failAt);
    cmd.AddValue("convergence",
                 "delay from a failure during the run to routes around it (e.g. 50us)",
                 convergence);
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

FabricRequest
FabricOptions::Request() const
{
    FabricRequest r;
    r.fabric = fabric;
    const bool grid = fabric == "torus" || fabric == "mesh";
    r.ranks = ranks ? ranks : (grid ? 0 : 8);
    if (grid)
    {
        r.dims = TorusHelper::ParseDims(torusDims);
    }
    r.graphFile = graphFile;
    r.linkRate = ParseDataRate(rate);
    r.linkDelay = ParseTime(delay);
    r.mtu = mtu;
    // QueueSize's own parser aborts on bad text: check the form first.
    static const std::regex queueForm(R"(^[1-9][0-9]{0,9}(p|B|KB|MB|KiB|MiB)$)");
    if (!std::regex_match(queue, queueForm))
    {
        throw std::invalid_argument("queue '" + queue +
                                    "' is not a queue size; write e.g. 1000p or 10MB");
    }
    r.queue = QueueSize(queue);
    r.ecn = ecn;
    r.dataPath = dataPath;
    r.tiers = tiers;
    r.radix = radix;
    r.oversubscription = oversubscription;
    // Under mpirun (DistributedSession) the fabric is split over the processes.
    r.partitions = DistributedSession::GetProcessCount();
    return r;
}

Ptr<Cluster>
FabricOptions::Build() const
{
    return Build(Request());
}

Ptr<Cluster>
FabricOptions::Build(const FabricRequest& request, std::shared_ptr<FabricHelper>* helper) const
{
    Ptr<Cluster> cluster = FabricRegistry::Build(request, helper);
    ApplyFaults(cluster, request.fabric);
    traces.Attach(cluster);
    return cluster;
}

bool
FabricOptions::HasFaults() const
{
    return failLinks > 0 || !fail.empty();
}

void
FabricOptions::ApplyFaults(Ptr<Cluster> cluster, const std::string& fabricName) const
{
    // Every flag is checked, faults or not, so a typo never passes unnoticed.
    auto flagTime = [](const std::string& flag, const std::string& value) {
        try
        {
            return ParseTime(value);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument("--" + flag + ": " + e.what());
        }
    };
    const Time at = flagTime("failAt", failAt);
    const Time delay = flagTime("convergence", convergence);
    if (!at.IsZero() && failLinks == 0)
    {
        throw std::invalid_argument("--failAt=" + failAt +
                                    " times --failLinks failures; give --failLinks=N too, or "
                                    "time named faults in --fail with @<time>");
    }
    Ptr<FaultPlan> plan = CreateObject<FaultPlan>();
    plan->SetAttribute("Convergence", TimeValue(delay));
    try
    {
        plan->Add(fail);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("--fail: ") + e.what());
    }
    plan->AddRandom(failLinks, at, "failLinks=" + std::to_string(failLinks));
    if (plan->GetFaults().empty())
    {
        return;
    }
    try
    {
        plan->Apply(cluster,
                    FabricRegistry::Has(fabricName)
                        ? FabricRegistry::FailableLinkClasses(fabricName)
                        : std::vector<std::string>{});
    }
    catch (const std::invalid_argument& e)
    {
        const std::string flags = fail.empty()     ? "--failLinks"
                                  : failLinks == 0 ? "--fail"
                                                   : "--fail/--failLinks";
        throw std::invalid_argument(flags + ": " + e.what());
    }
}

std::vector<std::string>
FabricOptions::FailableLinkClasses() const
{
    return FabricRegistry::Has(fabric) ? FabricRegistry::FailableLinkClasses(fabric)
                                       : std::vector<std::string>{};
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
    else if (fabric == "graph" && !graphFile.empty())
    {
        // Two edge lists are two fabrics: name the file (its stem) so rows differ.
        std::string stem = graphFile.substr(graphFile.find_last_of('/') + 1);
        os << "(" << stem.substr(0, stem.rfind(".json")) << ")";
    }
    else if (fabric == "fattree" && oversubscription != 1.0)
    {
        os << "(r=" << oversubscription << ")";
    }
    return os.str();
}

} // namespace ns3
