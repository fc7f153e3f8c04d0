// SPDX-License-Identifier: GPL-2.0-only
/*
 * FlowHashRouting: table-driven IPv4 forwarding for training fabrics.
 *
 * Each node holds, per destination rank, the set of output interfaces that lie
 * on a route to it (computed by RoutePlanner from the Cluster's links; a RankTable,
 * each distinct set stored once). When a
 * set has several entries the node picks one by hashing the flow's 5-tuple
 * (source and destination address, protocol, source and destination port) with
 * a per-node seed, so one flow always takes one path (no TCP reordering) and
 * different switches do not make correlated choices (no hash polarization).
 * ns-3 3.37's global routing offers only per-packet random ECMP.
 *
 * Locally generated packets are hashed without ports, because ns-3's UDP asks
 * for a route before it adds its header. Not modelled: multicast, routing
 * protocols, interface events (the tables are recomputed by RoutePlanner after
 * a failure instead).
 */
#ifndef MLNET_FLOW_HASH_ROUTING_H
#define MLNET_FLOW_HASH_ROUTING_H

#include "ns3/flow-key.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/rank-table.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief Flow-hash ECMP forwarding by destination rank.
 */
class FlowHashRouting : public Ipv4RoutingProtocol
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowHashRouting();
    ~FlowHashRouting() override;

    /// Map from an IPv4 address (as uint32) to the rank that owns it.
    using AddressMap = std::unordered_map<uint32_t, uint32_t>;

    /**
     * \brief Replace the forwarding table.
     * \param ranks address -> rank map shared by all nodes of a cluster
     * \param next next[rank] = output interface indexes towards that rank
     */
    void SetTable(std::shared_ptr<const AddressMap> ranks,
                  const std::vector<std::vector<uint32_t>>& next);
    /**
     * \brief Replace the forwarding table with one in compact form (what
     * RoutePlanner::Install gives: each distinct interface set once).
     */
    void SetTable(std::shared_ptr<const AddressMap> ranks, RankTable<uint32_t> table);
    /**
     * \brief Replace the forwarding table with one made on the first lookup
     * (RoutePlanner::Install: a node that forwards nothing never makes its table).
     */
    void DeferTable(std::shared_ptr<const AddressMap> ranks,
                    DeferredRankTable<uint32_t>::Maker make);
    /// \return whether the table is made (false until the first lookup after DeferTable)
    bool IsTableMade() const;
    /// \return the output interfaces towards a rank (empty if none)
    std::vector<uint32_t> GetInterfaces(uint32_t rank) const;
    /**
     * \brief The interface a flow takes: what forwarding decides for these fields.
     * \return the interface index, or UINT32_MAX when there is no route
     */
    uint32_t SelectInterface(uint32_t rank,
                             Ipv4Address src,
                             Ipv4Address dst,
                             uint8_t protocol,
                             uint16_t srcPort,
                             uint16_t dstPort) const;

    /**
     * \brief The flow hash every forwarding decision of a fabric uses (Murmur3 over the
     * 5-tuple and a per-node seed). Shared by FlowHashRouting and FastForwarding so
     * both data paths make the same path choices.
     * \param srcPort, dstPort the ports as the 16-bit words read raw from the
     *        transport header's first bytes (network byte order in memory), or 0
     * \return the 32-bit hash
     */
    static uint32_t HashFlow(uint32_t src,
                             uint32_t dst,
                             uint8_t protocol,
                             uint16_t srcPort,
                             uint16_t dstPort,
                             uint32_t seed);
    /**
     * \brief Which of a node's `nChoices` equal next hops a flow takes: HashFlow of its
     * key (ports as the hash reads them; none for a frame the node's own rank sends,
     * `local`) with the node's seed, modulo nChoices. What both data paths decide;
     * RoutePlanner::FlowPath resolves whole paths with it.
     * \return an index in [0, nChoices) (nChoices > 0)
     */
    static uint32_t ChoiceIndex(const FlowKey& key, bool local, uint32_t seed, uint32_t nChoices);
    /**
     * \brief The hash ChoiceIndex reduces: HashFlow of the key (no ports when `local`)
     * with the node's seed. Load balancers other than per-flow hashing break ties by it.
     */
    static uint32_t KeyHash(const FlowKey& key, bool local, uint32_t seed);
    /**
     * \brief The default per-node seed (node id mixed with the run's seed and run
     * number), as FlowHashRoutingHelper and the fast data path assign it.
     */
    static uint32_t DefaultSeed(uint32_t nodeId);

    // Ipv4RoutingProtocol
    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

protected:
    void DoDispose() override;

private:
    Ptr<Ipv4Route> Lookup(uint32_t rank,
                          const Ipv4Header& header,
                          uint16_t srcPort,
                          uint16_t dstPort) const;
    Ptr<Ipv4Route> RouteVia(uint32_t interface) const;

    Ptr<Ipv4> m_ipv4;
    uint32_t m_seed{0};
    std::shared_ptr<const AddressMap> m_ranks;
    DeferredRankTable<uint32_t> m_next; //!< destination rank -> output interfaces
    mutable std::vector<Ptr<Ipv4Route>> m_routeOfInterface; //!< one reusable route per interface
    TracedCallback<Ptr<const Packet>, const Ipv4Header&> m_noRouteTrace;
};

} // namespace ns3

#endif // MLNET_FLOW_HASH_ROUTING_H
