// SPDX-License-Identifier: GPL-2.0-only
/*
 * FabricHelper: what every fabric helper shares — link parameters, node
 * creation with the internet stack and flow-hash routing, link creation with
 * registration in the Cluster, addressing (/30 per link), queue configuration
 * and route installation. Subclasses (IdealSwitchHelper, FatTreeHelper,
 * TorusHelper, GraphFabricHelper, and the topoopt/railonly helpers) only say
 * which nodes exist and which links join them.
 *
 * Queues: a host (rank) device gets a root FIFO queue disc of HostQueueSize
 * (no FqCoDel: a training host is not an Internet host); a switch device keeps
 * only its DropTail device queue of QueueSize, or, with SetSwitchEcn, a RED
 * queue disc that marks ECN at a threshold (what DCTCP needs; on the fast data path an
 * EcnMarker on every switch, what RoceMessageTransport needs).
 */
#ifndef MLNET_FABRIC_HELPER_H
#define MLNET_FABRIC_HELPER_H

#include "ns3/attribute.h"
#include "ns3/cluster.h"
#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief Base of the fabric helpers: builds a Cluster from nodes and links.
 */
class FabricHelper
{
public:
    FabricHelper();
    virtual ~FabricHelper();

    /// \brief Rate of every link (default 100 Gbps). Must be > 0.
    void SetLinkRate(DataRate rate);
    /// \brief Propagation delay of every link (default 1 us).
    void SetLinkDelay(Time delay);
    /**
     * \brief Largest random extra delay of a frame on every link (LocalPointToPointChannel's
     * Jitter; default 0). Links between MPI processes, or with an InterframeGap, are
     * ns-3's channels, which have none: Install then throws std::invalid_argument.
     */
    void SetLinkJitter(Time jitter);
    /// \brief IP MTU of every device in bytes (default 9000).
    void SetMtu(uint32_t mtu);
    /// \brief DropTail queue of every switch device (default 1000 packets).
    void SetQueueSize(QueueSize size);
    /// \brief Root FIFO queue disc of every host device (default 10000 packets).
    void SetHostQueueSize(QueueSize size);
    /**
     * \brief ECN marking on switches. IPv4 data path: switch devices get a RED queue
     * disc marking ECN at `threshold` packets (MinTh = MaxTh = threshold, QW = 1, no
     * hard drop), as DCTCP expects. Fast data path: every switch's FastForwarding gets
     * an EcnMarker (DCQCN's RED profile in bytes, its attributes Kmin, Kmax, Pmax;
     * `threshold` is not used), as RoceMessageTransport expects.
     */
    void SetSwitchEcn(bool enable, uint32_t threshold = 65);
    /**
     * \brief Choose the data path: "ipv4" (default: Internet stack, FlowHashRouting,
     * queue discs on hosts, UDP/TCP sockets) or "fast" (no Internet stack; FastForwarding
     * on every node, for UdpMessageTransport only; same frames, queues and completion
     * times, less wall time), or "none": no devices, channels, queues or stacks at all,
     * the fabric as a graph of nodes and links with rates, delays and port buffers
     * (Cluster::AddGraphLink) and the fast path's addresses, for the flow level alone
     * (FluidMessageTransport, which asks the packet transport only what its frames would
     * be); no ECN, PFC or load balancer.
     * Throws std::invalid_argument for any other name.
     */
    void SetDataPath(const std::string& dataPath);
    /**
     * \brief Priority flow control (IEEE 802.1Qbb) at every node of a fast-path fabric:
     * each FastForwarding gets a PriorityFlowControl (egress stage, shared buffer,
     * PAUSE; tune it with its attributes). Default off. Install throws
     * std::invalid_argument when it is on with the ipv4 data path. On a fabric without
     * devices ("none") it is recorded (FabricSpec::lossless): the flow level's full
     * switch ports then hold back instead of dropping.
     */
    void SetPfc(bool enable);
    /// \return whether PFC is on
    bool GetPfc() const;
    /// \return the data path, "ipv4", "fast" or "none"
    std::string GetDataPath() const;
    /**
     * \brief Choose how nodes pick among a destination's candidate devices: "hash"
     * (default: per-flow ECMP), "spray" (per packet), "flowlet" or "adaptive" (least
     * loaded); see LoadBalancer. Only hash exists on the ipv4 data path: Install throws
     * std::invalid_argument naming --loadBalancing and --dataPath for another policy
     * there. Throws std::invalid_argument for an unknown name.
     */
    void SetLoadBalancing(const std::string& policy);
    /// \return the load-balancing policy's name
    std::string GetLoadBalancing() const;
    /**
     * \brief Split the fabric over `n` MPI processes (default 1: one process).
     *
     * Each node gets the system id of its partition, chosen by the subclass along its
     * structure (a fat-tree's pods or leaves, a rail fabric's HB domains; shared
     * switches such as spines and rail switches are dealt round-robin), so that ns-3's
     * PointToPointHelper makes every link between partitions a remote channel. Use
     * DistributedSession::GetProcessCount(): with n > 1, Install throws unless the
     * program runs as n MPI processes, and for fabrics that cannot be split (torus,
     * graph) or that have fewer groups than processes.
     */
    void SetPartitions(uint32_t n);
    /// \return the number of partitions
    uint32_t GetPartitions() const;
    /// \brief Set an extra attribute of every PointToPointNetDevice.
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);

    /// \return link rate in use
    DataRate GetLinkRate() const;
    /// \return link delay in use
    Time GetLinkDelay() const;
    /// \return MTU in use
    uint32_t GetMtu() const;

    /**
     * \brief Build the fabric.
     * \return the cluster, with addresses assigned and routes installed
     * Throws std::invalid_argument naming the bad parameter when the fabric is impossible.
     */
    virtual Ptr<Cluster> Install() = 0;

    /**
     * \brief Fail `count` links chosen at random among the given classes, keeping every
     * rank reachable, then recompute and install routes. The draw has its own
     * random-variable stream (FaultPlan::kDefaultStream): the same links on both data
     * paths for one seed and run. Timed and named failures: FaultPlan.
     * \return the failed link ids
     * Throws std::invalid_argument when fewer than `count` links can fail safely.
     */
    static std::vector<uint32_t> FailRandomLinks(Ptr<Cluster> cluster,
                                                 uint32_t count,
                                                 const std::vector<std::string>& classes);

protected:
    /// Check the common parameters (throws std::invalid_argument).
    void ValidateCommon() const;
    /**
     * Put a node in the partition of group `group` out of `groups` equal groups (pods,
     * leaves, HB domains): groups are dealt to partitions in contiguous blocks.
     * Throws std::invalid_argument when there are fewer groups than partitions.
     * Does nothing in a one-partition build. Call before the node's first Connect.
     */
    void Place(Ptr<Node> node, uint32_t group, uint32_t groups);
    /// Put a shared node (spine, core, rail switch) in the next partition, round-robin.
    void Spread(Ptr<Node> node);
    /// Create `n` nodes with the internet stack and FlowHashRouting.
    NodeContainer CreateNodes(uint32_t n) const;
    /**
     * Join two nodes with a point-to-point link, register it, address it; returns link id.
     * In a one-process build the link gets a LocalPointToPointChannel (no frame copy per
     * hop); a partitioned build (SetPartitions) or a non-zero InterframeGap device
     * attribute keeps ns-3's channels (PointToPointRemoteChannel between processes).
     */
    uint32_t Connect(Ptr<Cluster> cluster,
                     Ptr<Node> a,
                     Ptr<Node> b,
                     const std::string& linkClass,
                     DataRate rate = DataRate(0),
                     Time delay = Time(-1));
    /**
     * Configure queues, record rank addresses and the fabric spec, install routes.
     * `spec` gets the common fields (rate, delay, mtu, ranks) filled in here.
     */
    void Finish(Ptr<Cluster> cluster, FabricSpec spec);
    /**
     * Fast data path, for a fabric that makes its own devices instead of calling
     * Connect (topoopt's optical planes): record an address of a node, as Connect does.
     * The node's first recorded address is its rank's address (interface 1 on the IPv4
     * path), so give them in the order the IPv4 path adds the interfaces.
     */
    void RecordFastAddress(Ptr<Cluster> cluster, uint32_t nodeId, Ipv4Address address);

    DataRate m_rate{"100Gbps"};          //!< link rate
    Time m_delay{MicroSeconds(1)};       //!< link delay
    Time m_jitter{0};                    //!< largest extra delay of a frame (SetLinkJitter)
    uint32_t m_mtu{9000};                //!< MTU (bytes)
    QueueSize m_queueSize{"1000p"};      //!< switch device queue
    QueueSize m_hostQueueSize{"10000p"}; //!< host root qdisc
    bool m_ecn{false};                   //!< RED-ECN on switches
    bool m_pfc{false};                   //!< PriorityFlowControl on fast-path nodes
    uint32_t m_ecnThreshold{65};         //!< marking threshold (packets)
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_deviceAttributes; //!< extras
    std::string m_dataPath{"ipv4"};      //!< "ipv4", "fast" or "none"
    std::string m_loadBalancing{"hash"}; //!< LoadBalancer policy name

private:
    /// The base address of the next link's /30 out of 10.0.0.0/8 (throws past 4M links).
    uint32_t NextSubnet();
    /// A link inside one process: the devices on a LocalPointToPointChannel.
    std::pair<Ptr<PointToPointNetDevice>, Ptr<PointToPointNetDevice>> ConnectLocal(
        Ptr<Node> a,
        Ptr<Node> b,
        DataRate rate,
        Time delay) const;
    /// True when a device attribute sets a non-zero InterframeGap (then frames are copied).
    bool HasInterframeGap() const;
    /// Throw unless a node was placed (partitioned builds only).
    void CheckPlaced(Ptr<Node> node) const;
    /// Partition checks and the cut-link summary in the spec (Finish).
    void FinishPartitions(Ptr<Cluster> cluster, FabricSpec& spec) const;

    uint32_t m_partitions{1};    //!< MPI processes
    uint32_t m_nextSpread{0};    //!< next partition of Spread
    std::set<uint32_t> m_placed; //!< ids of the nodes given a partition
    uint32_t m_nextSubnet{0};
    std::map<uint32_t, Ipv4Address> m_firstAddress; //!< fast path: node id -> its "interface 1"
};

} // namespace ns3

#endif // MLNET_FABRIC_HELPER_H
