// SPDX-License-Identifier: GPL-2.0-only
/*
 * LoadBalancer: how a node of the fast data path picks one of a destination's
 * candidate output devices (the next-hop set RoutePlanner put in its RankTable).
 *
 * Policies (attribute Policy, FabricRequest::loadBalancing, flag --loadBalancing):
 *  - hash: the seeded 5-tuple flow hash indexes the set, as FlowHashRouting does on
 *    the IPv4 path (ECMP): one path per flow. FastForwarding without a LoadBalancer
 *    does exactly this (the default, no state, no cost).
 *  - spray: per packet, round-robin over the set (one counter per node and set, so
 *    every destination behind the same set shares it): deterministic, and the bytes
 *    of a node's frames split evenly over the set whatever the flows.
 *  - flowlet: per flow (its flow hash), the flow keeps its device while its frames
 *    follow each other within FlowletTimeout; a frame after a longer gap starts a new
 *    flowlet, which takes the least-loaded candidate, as CONGA does: fewest
 *    FastForwarding::GetQueuedBytes, then the least recent traffic (frames this node
 *    sent by the device, decayed exponentially with time constant FlowletTimeout: a
 *    discounting rate estimator, CONGA's DRE), then the flow hash. The queue alone
 *    would not do: at line rate a port busy with one flow has an empty queue (the
 *    frame on the wire is not queued), so every new flowlet would follow the hash.
 *  - adaptive: per packet, the least-loaded candidate (fewest queued bytes), ties
 *    broken by the flow hash (the scan starts at the candidate the hash picks).
 *
 * Every policy is deterministic: it reads only the frame's flow hash, the node's
 * counters and the device queues, so the same run gives the same times.
 *
 * Left out: path-level congestion feedback (CONGA's remote metrics; adaptive and
 * flowlet see only this node's egress queues), reordering repair in the network
 * (spray and adaptive reorder frames of a flow; the receiver must tolerate it, as
 * UdpMessageTransport's does), ageing of the flowlet table (one entry per flow hash
 * the node has forwarded, kept for the run; flows whose hashes collide share one).
 */
#ifndef MLNET_LOAD_BALANCER_H
#define MLNET_LOAD_BALANCER_H

#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FastForwarding;

/**
 * \brief Per-node choice among a destination's candidate devices: hash, spray,
 * flowlet or adaptive.
 */
class LoadBalancer : public Object
{
public:
    /// The policies, in the order of Names().
    enum Policy
    {
        HASH,     //!< per flow: the seeded flow hash (ECMP)
        SPRAY,    //!< per packet: round-robin over the candidate set
        FLOWLET,  //!< per flowlet: least-loaded candidate after a gap > FlowletTimeout
        ADAPTIVE, //!< per packet: least-loaded candidate, ties by the flow hash
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LoadBalancer();
    ~LoadBalancer() override;

    /// \return the policy names, "hash", "spray", "flowlet", "adaptive" (Policy order)
    static const std::vector<std::string>& Names();
    /**
     * \brief The policy of a name.
     * \param name one of Names()
     * \return the policy; throws std::invalid_argument naming --loadBalancing and the
     *         choices for any other name
     */
    static Policy Parse(const std::string& name);
    /// \return the name of a policy
    static std::string ToString(Policy policy);

    /// \brief Set the policy (attribute Policy).
    void SetPolicy(Policy policy);
    /// \return the policy
    Policy GetPolicy() const;

    /**
     * \brief Pick the device a frame leaves by.
     * \param choices the destination's candidates (at least two), in RankTable order
     * \param flowHash the frame's seeded flow hash (FlowHashRouting::HashFlow)
     * \param node the node's forwarding, whose GetQueuedBytes the load-aware policies read
     * \return one of `choices`
     */
    Ptr<NetDevice> Select(const std::vector<Ptr<NetDevice>>& choices,
                          uint32_t flowHash,
                          const FastForwarding& node);

    /// \return flowlets started so far (policy flowlet; a flow's first frame starts one)
    uint64_t GetFlowlets() const;

    /// Signature of the Flowlet trace: the flow hash, the device the flowlet takes.
    using FlowletTracedCallback = void (*)(uint32_t, Ptr<NetDevice>);

protected:
    void DoDispose() override;

private:
    /// Index of the candidate with the fewest queued bytes, scanning from flowHash % n;
    /// with `recent`, ties go to the least recent traffic (RecentFrames) first.
    size_t LeastLoaded(const std::vector<Ptr<NetDevice>>& choices,
                       uint32_t flowHash,
                       const FastForwarding& node,
                       bool recent);
    /// Frames sent by a device lately (decayed with time constant FlowletTimeout), now.
    double RecentFrames(const Ptr<NetDevice>& device);

    /// A device's discounted frame count (policy flowlet).
    struct Recent
    {
        double frames{0}; //!< value at `at`
        Time at;          //!< when it was last brought up to date
    };

    /// One flow's current flowlet.
    struct Flowlet
    {
        Time last;      //!< when its last frame passed
        size_t index;   //!< the candidate it takes
        size_t setSize; //!< size of the set it was chosen from (a new table resets it)
    };

    Policy m_policy{HASH};                                   //!< attribute Policy
    Time m_flowletTimeout;                                   //!< attribute FlowletTimeout
    std::unordered_map<const void*, uint32_t> m_sprayNext;   //!< next index, by candidate set
    std::unordered_map<uint32_t, Flowlet> m_flowlets;        //!< by flow hash
    std::unordered_map<const NetDevice*, Recent> m_recent;   //!< flowlet: traffic by device
    uint64_t m_flowletCount{0};                              //!< flowlets started
    TracedCallback<uint32_t, Ptr<NetDevice>> m_flowletTrace; //!< a flowlet starts
};

} // namespace ns3

#endif // MLNET_LOAD_BALANCER_H
