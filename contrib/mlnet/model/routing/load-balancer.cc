// SPDX-License-Identifier: GPL-2.0-only
#include "load-balancer.h"

#include "ns3/enum.h"
#include "ns3/fast-forwarding.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetLoadBalancer");
NS_OBJECT_ENSURE_REGISTERED(LoadBalancer);

TypeId
LoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LoadBalancer")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<LoadBalancer>()
            .AddAttribute("Policy",
                          "How the node picks among a destination's candidate devices: hash "
                          "(per flow, seeded flow hash: ECMP), spray (per packet, round-robin "
                          "over the candidate set), flowlet (per flowlet: a flow keeps its "
                          "device until a gap longer than FlowletTimeout, then takes the "
                          "least-loaded one) or adaptive (per packet, the least-loaded "
                          "device; ties by the flow hash).",
                          EnumValue(LoadBalancer::HASH),
                          MakeEnumAccessor(&LoadBalancer::m_policy),
                          MakeEnumChecker(LoadBalancer::HASH,
                                          "hash",
                                          LoadBalancer::SPRAY,
                                          "spray",
                                          LoadBalancer::FLOWLET,
                                          "flowlet",
                                          LoadBalancer::ADAPTIVE,
                                          "adaptive"))
            .AddAttribute("FlowletTimeout",
                          "Gap between two frames of a flow after which the second starts a "
                          "new flowlet (policy flowlet). 10 us: CONGA's 500 us and LetFlow's "
                          "50-500 us are for TCP at 10 Gb/s with RTTs of 100s of us; at "
                          "100 Gb/s with 1 us links a fabric RTT is ~10 us and a 9 KB frame "
                          "takes 0.72 us, so 10 us is a pause of a dozen frames, longer than "
                          "a frame spacing within a message and shorter than a collective "
                          "step.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&LoadBalancer::m_flowletTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("Flowlet",
                            "A flowlet starts (policy flowlet): flow hash, device it takes.",
                            MakeTraceSourceAccessor(&LoadBalancer::m_flowletTrace),
                            "ns3::LoadBalancer::FlowletTracedCallback");
    return tid;
}

LoadBalancer::LoadBalancer() = default;

LoadBalancer::~LoadBalancer() = default;

void
LoadBalancer::DoDispose()
{
    m_sprayNext.clear();
    m_flowlets.clear();
    m_recent.clear();
    Object::DoDispose();
}

const std::vector<std::string>&
LoadBalancer::Names()
{
    static const std::vector<std::string> names{"hash", "spray", "flowlet", "adaptive"};
    return names;
}

LoadBalancer::Policy
LoadBalancer::Parse(const std::string& name)
{
    const std::vector<std::string>& names = Names();
    for (size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == name)
        {
            return static_cast<Policy>(i);
        }
    }
    throw std::invalid_argument("unknown --loadBalancing=" + name +
                                "; use hash (per-flow ECMP, the default), spray (per packet), "
                                "flowlet or adaptive (least-loaded next hop)");
}

std::string
LoadBalancer::ToString(Policy policy)
{
    return Names().at(static_cast<size_t>(policy));
}

void
LoadBalancer::SetPolicy(Policy policy)
{
    m_policy = policy;
}

LoadBalancer::Policy
LoadBalancer::GetPolicy() const
{
    return m_policy;
}

uint64_t
LoadBalancer::GetFlowlets() const
{
    return m_flowletCount;
}

double
LoadBalancer::RecentFrames(const Ptr<NetDevice>& device)
{
    Recent& r = m_recent[PeekPointer(device)];
    Time now = Simulator::Now();
    if (now > r.at)
    {
        double tau = m_flowletTimeout.GetSeconds();
        r.frames = tau > 0 ? r.frames * std::exp(-(now - r.at).GetSeconds() / tau) : 0;
        r.at = now;
    }
    return r.frames;
}

size_t
LoadBalancer::LeastLoaded(const std::vector<Ptr<NetDevice>>& choices,
                          uint32_t flowHash,
                          const FastForwarding& node,
                          bool recent)
{
    const size_t n = choices.size();
    size_t best = flowHash % n;
    uint64_t bestBytes = node.GetQueuedBytes(choices[best]);
    double bestRecent = recent ? RecentFrames(choices[best]) : 0;
    // Without the recent-traffic tie-break nothing beats an empty queue: stop there.
    for (size_t k = 1; k < n && (recent || bestBytes > 0); ++k)
    {
        size_t i = (flowHash + k) % n;
        uint64_t bytes = node.GetQueuedBytes(choices[i]);
        double r = recent ? RecentFrames(choices[i]) : 0;
        if (bytes < bestBytes || (bytes == bestBytes && r < bestRecent))
        {
            best = i;
            bestBytes = bytes;
            bestRecent = r;
        }
    }
    return best;
}

Ptr<NetDevice>
LoadBalancer::Select(const std::vector<Ptr<NetDevice>>& choices,
                     uint32_t flowHash,
                     const FastForwarding& node)
{
    NS_ASSERT(choices.size() >= 2);
    switch (m_policy)
    {
    case HASH:
        break;
    case SPRAY: {
        // One counter per candidate set (the RankTable keeps each set once, so the
        // vector's storage names it): every frame this node sends through the set
        // takes the next device.
        uint32_t& next = m_sprayNext[choices.data()];
        Ptr<NetDevice> out = choices[next % choices.size()];
        next = (next + 1) % choices.size();
        return out;
    }
    case ADAPTIVE:
        return choices[LeastLoaded(choices, flowHash, node, false)];
    case FLOWLET: {
        Time now = Simulator::Now();
        auto [it, fresh] = m_flowlets.try_emplace(flowHash);
        Flowlet& f = it->second;
        if (fresh || now - f.last > m_flowletTimeout || f.setSize != choices.size())
        {
            f.index = LeastLoaded(choices, flowHash, node, true);
            f.setSize = choices.size();
            ++m_flowletCount;
            m_flowletTrace(flowHash, choices[f.index]);
        }
        f.last = now;
        RecentFrames(choices[f.index]); // decay to now, then count this frame
        m_recent[PeekPointer(choices[f.index])].frames += 1;
        return choices[f.index];
    }
    }
    return choices[flowHash % choices.size()];
}

} // namespace ns3
