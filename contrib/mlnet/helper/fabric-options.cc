// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-options.h"

#include "ns3/data-path-choice.h"
#include "ns3/distributed-session.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-plan.h"
#include "ns3/graph-fabric-helper.h"
#include "ns3/ideal-switch-helper.h"
#include "ns3/load-balancer.h"
#include "ns3/queue-size.h"
#include "ns3/torus-helper.h"
#include "ns3/transport-choice.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{

void
FabricOptions::AddToCommandLine(ScenarioCommandLine& cmd)
{
    // A choice over the registered names (and the scenario's own), so a typo is an
    // error naming --fabric at parse time, not the registry's message after set-up.
    std::vector<std::string> names = FabricRegistry::Names();
    names.insert(names.end(), extraFabrics.begin(), extraFabrics.end());
    cmd.AddChoice("fabric",
                  fabricHelp.empty() ? "fabric: " + FabricRegistry::NameList() : fabricHelp,
                  fabric,
                  names);
    // The bracket CommandLine prints is the real default; say what 0 means.
    cmd.AddValue("ranks",
                 (ranks == 0 ? std::string("number of ranks (0 = 8, or the product of "
                                           "--torusDims for torus/mesh; at most ")
                             : std::string("number of ranks (torus/mesh: must match "
                                           "--torusDims; at most ")) +
                     std::to_string(MAX_RANKS) + ")",
                 ranks,
                 0,
                 MAX_RANKS);
    cmd.AddValue("torusDims", "torus or mesh dimensions, e.g. 4x4x4", torusDims);
    cmd.AddValue("graph", "JSON edge list for --fabric=graph", graphFile);
    cmd.AddRate("rate", "link rate, e.g. 100Gbps", rate);
    cmd.AddTime("delay",
                "link propagation delay, e.g. 1us (at most 1s)",
                delay,
                Time(0),
                Seconds(1));
    cmd.AddTime("linkJitter",
                "largest random extra delay of a frame on a link, e.g. 10ns (packet level: "
                "breaks the lockstep of equal-rate senders at full ports; default 0)",
                linkJitter,
                Time(0),
                MicroSeconds(1));
    cmd.AddValue("mtu", "device MTU in bytes (68..65535)", mtu, 68, 65535);
    cmd.AddValue("queue",
                 "switch port queue, e.g. 1000p or 10MB",
                 queue,
                 [](const std::string& f, const std::string& t) { ValueParser::Queue(f, t); });
    cmd.AddValue("tiers", "fat-tree switch tiers (2 or 3)", tiers, 2, 3);
    cmd.AddValue("radix",
                 "fat-tree switch radix (0 = smallest that fits; at most 1024)",
                 radix,
                 0,
                 1024);
    cmd.AddValue("oversubscription",
                 "fat-tree ToR oversubscription ratio (1..64)",
                 oversubscription,
                 1,
                 64);
    cmd.AddValue("failLinks",
                 "fail this many fabric links at random (seeded by --RngRun)",
                 failLinks,
                 0,
                 1000000);
    cmd.AddValue("ecn",
                 "ECN marking on switch ports: RED on the IPv4 path (on by default with "
                 "--transport=dctcp), EcnMarker on the fast path (on by default with "
                 "--transport=roce)",
                 ecn);
    cmd.AddValue("pfc",
                 "priority flow control (802.1Qbb PAUSE, shared switch buffer) at every node "
                 "of a fast-path fabric (on by default with --transport=roce); tune with "
                 "--ns3::PriorityFlowControl::<attribute>",
                 pfc);
    cmd.OnParsed([this, &cmd]() {
        ecnGiven = cmd.WasGiven("ecn");
        pfcGiven = cmd.WasGiven("pfc");
    });
    DataPathChoice::AddToCommandLine(cmd, dataPath);
    AddLoadBalancingFlag(cmd, loadBalancing);
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

void
FabricOptions::AddLoadBalancingFlag(ScenarioCommandLine& cmd, std::string& value)
{
    cmd.AddChoice("loadBalancing",
                  "how switches pick among equal-cost next hops (fast data path): hash "
                  "(per-flow ECMP, the default), spray (per packet, round-robin), flowlet "
                  "(least-loaded next hop per flowlet) or adaptive (least-loaded per packet)",
                  value,
                  LoadBalancer::Names());
}

void
FabricOptions::CheckRankCount(const std::string& flags, uint64_t ranks)
{
    if (ranks > MAX_RANKS)
    {
        throw std::invalid_argument(flags + " = " + std::to_string(ranks) + " ranks; at most " +
                                    std::to_string(MAX_RANKS) + " fit a run here");
    }
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
    r.linkJitter = ParseTime(linkJitter);
    r.mtu = mtu;
    r.queue = ValueParser::Queue("queue", queue);
    r.dataPath = ResolvedDataPath(); // an explicit --ecn or --pfc keeps the devices
    TransportChoice::SetFabricFeatures(transport, r, ecn, ecnGiven, pfc, pfcGiven);
    r.loadBalancing = loadBalancing;
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

std::string
FabricOptions::ResolvedDataPath() const
{
    return DataPathChoice::ResolveFromFlags(dataPath, transport, traces, level, ecn, pfc);
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
