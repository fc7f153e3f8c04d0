// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-helper.h"

#include "ns3/boolean.h"
#include "ns3/distributed-session.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/fast-forwarding.h"
#include "ns3/fault-plan.h"
#include "ns3/flow-hash-routing-helper.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4.h"
#include "ns3/load-balancer.h"
#include "ns3/local-point-to-point-channel.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/node.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/priority-flow-control.h"
#include "ns3/queue.h"
#include "ns3/route-planner.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFabricHelper");

FabricHelper::FabricHelper() = default;
FabricHelper::~FabricHelper() = default;

void
FabricHelper::SetLinkRate(DataRate rate)
{
    m_rate = rate;
}

void
FabricHelper::SetLinkDelay(Time delay)
{
    m_delay = delay;
}

void
FabricHelper::SetLinkJitter(Time jitter)
{
    m_jitter = jitter;
}

void
FabricHelper::SetMtu(uint32_t mtu)
{
    m_mtu = mtu;
}

void
FabricHelper::SetQueueSize(QueueSize size)
{
    m_queueSize = size;
}

void
FabricHelper::SetHostQueueSize(QueueSize size)
{
    m_hostQueueSize = size;
}

void
FabricHelper::SetSwitchEcn(bool enable, uint32_t threshold)
{
    m_ecn = enable;
    m_ecnThreshold = threshold;
}

void
FabricHelper::SetPfc(bool enable)
{
    m_pfc = enable;
}

bool
FabricHelper::GetPfc() const
{
    return m_pfc;
}

void
FabricHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_deviceAttributes.emplace_back(name, value.Copy());
}

void
FabricHelper::SetDataPath(const std::string& dataPath)
{
    if (dataPath != "ipv4" && dataPath != "fast" && dataPath != "none")
    {
        throw std::invalid_argument("unknown data path '" + dataPath +
                                    "'; valid: ipv4 (Internet stack, the default), fast "
                                    "(table-driven forwarding, UDP message transport only) or "
                                    "none (no devices: the flow level's graph)");
    }
    m_dataPath = dataPath;
}

std::string
FabricHelper::GetDataPath() const
{
    return m_dataPath;
}

void
FabricHelper::SetLoadBalancing(const std::string& policy)
{
    LoadBalancer::Parse(policy); // throws naming --loadBalancing and the choices
    m_loadBalancing = policy;
}

std::string
FabricHelper::GetLoadBalancing() const
{
    return m_loadBalancing;
}

DataRate
FabricHelper::GetLinkRate() const
{
    return m_rate;
}

Time
FabricHelper::GetLinkDelay() const
{
    return m_delay;
}

uint32_t
FabricHelper::GetMtu() const
{
    return m_mtu;
}

void
FabricHelper::ValidateCommon() const
{
    if (m_rate.GetBitRate() == 0)
    {
        throw std::invalid_argument("link rate is 0; give a positive rate such as 100Gbps");
    }
    if (m_delay.IsNegative())
    {
        throw std::invalid_argument("link delay is negative; give a delay >= 0 such as 1us");
    }
    if (m_mtu < 576 || m_mtu > 65535)
    {
        throw std::invalid_argument("MTU " + std::to_string(m_mtu) +
                                    " is out of range; give 576..65535 bytes (9000 is typical)");
    }
    if (m_queueSize.GetValue() == 0 || m_hostQueueSize.GetValue() == 0)
    {
        throw std::invalid_argument("queue sizes must be positive");
    }
    if (m_dataPath != "fast" && m_loadBalancing != "hash")
    {
        throw std::invalid_argument("--loadBalancing=" + m_loadBalancing +
                                    " needs the fast data path (--dataPath=fast); the ipv4 "
                                    "data path hashes per flow only (--loadBalancing=hash)");
    }
}

NodeContainer
FabricHelper::CreateNodes(uint32_t n) const
{
    NodeContainer nodes;
    nodes.Create(n);
    if (m_dataPath == "none")
    {
        return nodes; // ids for the graph: no stack, no forwarding
    }
    if (m_dataPath == "fast")
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<FastForwarding> ff = CreateObject<FastForwarding>();
            ff->SetAttribute("Seed",
                             UintegerValue(FlowHashRouting::DefaultSeed(nodes.Get(i)->GetId())));
            if (m_loadBalancing != "hash")
            {
                // Without one FastForwarding hashes per flow: the default costs nothing.
                Ptr<LoadBalancer> lb = CreateObject<LoadBalancer>();
                lb->SetPolicy(LoadBalancer::Parse(m_loadBalancing));
                ff->SetAttribute("LoadBalancer", PointerValue(lb));
            }
            ff->Install(nodes.Get(i));
        }
        return nodes;
    }
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    stack.SetRoutingHelper(FlowHashRoutingHelper());
    stack.Install(nodes);
    return nodes;
}

void
FabricHelper::SetPartitions(uint32_t n)
{
    if (n == 0)
    {
        throw std::invalid_argument("a fabric needs at least one partition, got 0");
    }
    m_partitions = n;
}

uint32_t
FabricHelper::GetPartitions() const
{
    return m_partitions;
}

void
FabricHelper::Place(Ptr<Node> node, uint32_t group, uint32_t groups)
{
    if (m_partitions == 1)
    {
        return;
    }
    if (groups < m_partitions)
    {
        throw std::invalid_argument("this fabric has " + std::to_string(groups) +
                                    " groups (pods, leaves or HB domains) to split over " +
                                    std::to_string(m_partitions) + " MPI processes; run at most " +
                                    std::to_string(groups) + " processes or build a larger fabric");
    }
    NS_ASSERT(group < groups);
    uint32_t partition = static_cast<uint32_t>(uint64_t(group) * m_partitions / groups);
    node->SetAttribute("SystemId", UintegerValue(partition));
    m_placed.insert(node->GetId());
}

void
FabricHelper::Spread(Ptr<Node> node)
{
    if (m_partitions == 1)
    {
        return;
    }
    node->SetAttribute("SystemId", UintegerValue(m_nextSpread));
    m_nextSpread = (m_nextSpread + 1) % m_partitions;
    m_placed.insert(node->GetId());
}

void
FabricHelper::CheckPlaced(Ptr<Node> node) const
{
    if (m_partitions > 1 && m_placed.count(node->GetId()) == 0)
    {
        throw std::invalid_argument("this fabric cannot be split over MPI processes (partitioning "
                                    "covers the ideal switch, fat-trees and rail fabrics); run it "
                                    "as one process");
    }
}

void
FabricHelper::FinishPartitions(Ptr<Cluster> cluster, FabricSpec& spec) const
{
    spec.partitions = m_partitions;
    if (m_partitions == 1 && DistributedSession::IsEnabled())
    {
        throw std::invalid_argument("this fabric is built for one process but the program runs "
                                    "as " +
                                    std::to_string(DistributedSession::GetProcessCount()) +
                                    " MPI processes; start it without mpirun");
    }
    if (DistributedSession::GetProcessCount() != m_partitions)
    {
        throw std::invalid_argument("the fabric is split into " + std::to_string(m_partitions) +
                                    " partitions but the program runs as " +
                                    std::to_string(DistributedSession::GetProcessCount()) +
                                    " MPI process(es); start it with mpirun -np " +
                                    std::to_string(m_partitions) +
                                    " against the MPI-enabled ns-3 (./utils/build.sh --optimized)");
    }
    if (m_partitions == 1)
    {
        return;
    }
    std::vector<uint32_t> ranksIn(m_partitions, 0);
    for (uint32_t r = 0; r < cluster->GetNRanks(); ++r)
    {
        ++ranksIn[cluster->GetRankNode(r)->GetSystemId()];
    }
    for (uint32_t p = 0; p < m_partitions; ++p)
    {
        if (ranksIn[p] == 0)
        {
            throw std::invalid_argument("MPI process " + std::to_string(p) +
                                        " would hold no rank; run fewer processes");
        }
    }
    Time lookahead = Time::Max();
    for (const ClusterLink& l : cluster->GetLinks())
    {
        if (l.devA->GetNode()->GetSystemId() != l.devB->GetNode()->GetSystemId())
        {
            ++spec.cutLinks;
            TimeValue delay;
            l.devA->GetChannel()->GetAttribute("Delay", delay);
            lookahead = std::min(lookahead, delay.Get());
        }
    }
    spec.lookahead = spec.cutLinks ? lookahead : Time(0);
    if (spec.cutLinks && lookahead.IsZero())
    {
        throw std::invalid_argument("a link between MPI processes has zero propagation delay, "
                                    "which leaves ns-3's distributed simulator no lookahead; "
                                    "give links a positive --delay");
    }
}

bool
FabricHelper::HasInterframeGap() const
{
    for (const auto& [name, value] : m_deviceAttributes)
    {
        if (name == "InterframeGap" && !DynamicCast<TimeValue>(value)->Get().IsZero())
        {
            return true;
        }
    }
    return false;
}

std::pair<Ptr<PointToPointNetDevice>, Ptr<PointToPointNetDevice>>
FabricHelper::ConnectLocal(Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay) const
{
    // What PointToPointHelper::Install(a, b) builds (same order of MAC addresses,
    // queues and flow-control interfaces), on a channel that does not copy frames.
    ObjectFactory deviceFactory("ns3::PointToPointNetDevice");
    deviceFactory.Set("DataRate", DataRateValue(rate.GetBitRate() ? rate : m_rate));
    deviceFactory.Set("Mtu", UintegerValue(m_mtu));
    for (const auto& [name, value] : m_deviceAttributes)
    {
        deviceFactory.Set(name, *value);
    }
    Ptr<PointToPointNetDevice> devs[2];
    Ptr<Node> nodes[2] = {a, b};
    for (int e = 0; e < 2; ++e)
    {
        devs[e] = deviceFactory.Create<PointToPointNetDevice>();
        devs[e]->SetAddress(Mac48Address::Allocate());
        nodes[e]->AddDevice(devs[e]);
        Ptr<DropTailQueue<Packet>> queue = CreateObject<DropTailQueue<Packet>>();
        queue->SetMaxSize(m_queueSize);
        devs[e]->SetQueue(queue);
    }
    for (int e = 0; e < 2; ++e)
    {
        Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
        ndqi->GetTxQueue(0)->ConnectQueueTraces(devs[e]->GetQueue());
        devs[e]->AggregateObject(ndqi);
    }
    Ptr<LocalPointToPointChannel> channel = CreateObject<LocalPointToPointChannel>();
    channel->SetAttribute("Delay", TimeValue(delay.IsNegative() ? m_delay : delay));
    if (m_jitter.IsStrictlyPositive())
    {
        channel->SetAttribute("Jitter", TimeValue(m_jitter));
    }
    devs[0]->Attach(channel);
    devs[1]->Attach(channel);
    return {devs[0], devs[1]};
}

uint32_t
FabricHelper::Connect(Ptr<Cluster> cluster,
                      Ptr<Node> a,
                      Ptr<Node> b,
                      const std::string& linkClass,
                      DataRate rate,
                      Time delay)
{
    CheckPlaced(a);
    CheckPlaced(b);
    if (m_dataPath == "none")
    {
        // A link of the graph: its rate and delay (Finish gives its ports' buffers), and
        // the addresses the fast path would record, which the flow keys hash.
        const uint32_t id = cluster->AddGraphLink(a->GetId(),
                                                  b->GetId(),
                                                  linkClass,
                                                  rate.GetBitRate() ? rate : m_rate,
                                                  delay.IsNegative() ? m_delay : delay);
        const uint32_t base = NextSubnet();
        RecordFastAddress(cluster, a->GetId(), Ipv4Address(base + 1));
        RecordFastAddress(cluster, b->GetId(), Ipv4Address(base + 2));
        return id;
    }
    Ptr<PointToPointNetDevice> devA;
    Ptr<PointToPointNetDevice> devB;
    if (m_partitions > 1 || HasInterframeGap())
    {
        if (m_jitter.IsStrictlyPositive())
        {
            throw std::invalid_argument(
                "--linkJitter needs links of one process without an interframe gap (ns-3's "
                "channels have no jitter): drop --linkJitter, or run in one process");
        }
        // Split over MPI processes: ns-3's helper makes the remote channels (and the
        // channels of the links of one process, as before).
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(rate.GetBitRate() ? rate : m_rate));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(m_mtu));
        p2p.SetChannelAttribute("Delay", TimeValue(delay.IsNegative() ? m_delay : delay));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(m_queueSize));
        for (const auto& [name, value] : m_deviceAttributes)
        {
            p2p.SetDeviceAttribute(name, *value);
        }
        NetDeviceContainer devs = p2p.Install(a, b);
        devA = DynamicCast<PointToPointNetDevice>(devs.Get(0));
        devB = DynamicCast<PointToPointNetDevice>(devs.Get(1));
    }
    else
    {
        std::tie(devA, devB) = ConnectLocal(a, b, rate, delay);
    }
    uint32_t id = cluster->AddLink(devA, devB, linkClass);

    const uint32_t base = NextSubnet();
    uint32_t ifs[2];
    Ptr<NetDevice> ends[2] = {devA, devB};
    if (m_dataPath == "fast")
    {
        // No IPv4 stack: the same addresses, recorded only as the flow key of each rank.
        for (int e = 0; e < 2; ++e)
        {
            RecordFastAddress(cluster, ends[e]->GetNode()->GetId(), Ipv4Address(base + 1 + e));
        }
        return id;
    }
    for (int e = 0; e < 2; ++e)
    {
        Ptr<Ipv4> ipv4 = ends[e]->GetNode()->GetObject<Ipv4>();
        uint32_t i = ipv4->AddInterface(ends[e]);
        Ipv4Address address(base + 1 + e);
        ipv4->AddAddress(i, Ipv4InterfaceAddress(address, Ipv4Mask("255.255.255.252")));
        ipv4->SetMetric(i, 1);
        ipv4->SetUp(i);
        cluster->AddNodeAddress(ends[e]->GetNode()->GetId(), address);
        ifs[e] = i;
    }
    cluster->SetLinkInterfaces(id, ifs[0], ifs[1]);
    return id;
}

uint32_t
FabricHelper::NextSubnet()
{
    // One /30 per link out of 10.0.0.0/8.
    uint32_t subnet = m_nextSubnet++;
    if (subnet >= (1u << 22))
    {
        throw std::invalid_argument("too many links for 10.0.0.0/8 addressing (4M max)");
    }
    return (10u << 24) + subnet * 4;
}

void
FabricHelper::Finish(Ptr<Cluster> cluster, FabricSpec spec)
{
    if (m_pfc && m_dataPath == "ipv4")
    {
        throw std::invalid_argument("PFC needs the fast data path: priority flow control is "
                                    "modelled in FastForwarding's egress stage; use "
                                    "--dataPath=fast with --pfc, or drop --pfc");
    }
    const bool graph = m_dataPath == "none";
    if (graph && m_ecn)
    {
        throw std::invalid_argument("ECN marks packets in switch queues: a fabric without "
                                    "devices (--dataPath=none) has none; use --dataPath=fast "
                                    "or ipv4 with --ecn, or drop --ecn");
    }
    // The queue a port of a host and of a switch holds on the fast path (and on the graph).
    const QueueSize switchQueue = m_queueSize;
    const QueueSize hostQueue =
        m_queueSize.GetUnit() == m_hostQueueSize.GetUnit()
            ? QueueSize(m_queueSize.GetUnit(), m_queueSize.GetValue() + m_hostQueueSize.GetValue())
            : m_queueSize;
    // Queues: deep FIFO on hosts, device DropTail (or RED-ECN) on switches.
    TrafficControlHelper hostTc;
    hostTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(m_hostQueueSize));
    TrafficControlHelper switchTc;
    if (m_ecn)
    {
        QueueSize limit(QueueSizeUnit::PACKETS,
                        std::max<uint32_t>(m_queueSize.GetValue(), 2 * m_ecnThreshold));
        switchTc.SetRootQueueDisc("ns3::RedQueueDisc",
                                  "UseEcn",
                                  BooleanValue(true),
                                  "UseHardDrop",
                                  BooleanValue(false),
                                  "QW",
                                  DoubleValue(1.0),
                                  "MinTh",
                                  DoubleValue(m_ecnThreshold),
                                  "MaxTh",
                                  DoubleValue(m_ecnThreshold),
                                  "MaxSize",
                                  QueueSizeValue(limit),
                                  "LinkBandwidth",
                                  DataRateValue(m_rate),
                                  "LinkDelay",
                                  TimeValue(m_delay),
                                  "MeanPktSize",
                                  UintegerValue(m_mtu));
    }
    bool fast = m_dataPath == "fast";
    for (const auto& l : cluster->GetLinks())
    {
        if (graph)
        {
            // No devices: the link says what its ports would queue on the fast path.
            auto port = [&](uint32_t node) {
                bool host = cluster->GetRankOfNode(node) != UINT32_MAX;
                return Cluster::QueueBytes(host ? hostQueue : switchQueue, m_mtu);
            };
            cluster->SetLinkBuffers(l.id, port(l.nodeA), port(l.nodeB));
            continue;
        }
        for (auto dev : {l.devA, l.devB})
        {
            if (fast)
            {
                // No queue disc: a host device queue as deep as the IPv4 path's FIFO
                // queue disc plus device queue; a switch keeps its DropTail queue.
                bool host = cluster->GetRankOfNode(dev->GetNode()->GetId()) != UINT32_MAX;
                Ptr<FastForwarding> ff = dev->GetNode()->GetObject<FastForwarding>();
                if (!host && m_ecn && !ff->GetEcnMarker())
                {
                    // ECN on the fast path: DCQCN's RED profile in bytes (EcnMarker's
                    // attributes), not the IPv4 path's RED threshold in packets.
                    ff->SetEcnMarker(CreateObject<EcnMarker>());
                }
                if (host)
                {
                    dev->GetQueue()->SetMaxSize(hostQueue);
                }
                continue;
            }
            bool host = cluster->GetRankOfNode(dev->GetNode()->GetId()) != UINT32_MAX;
            if (host)
            {
                hostTc.Install(dev);
            }
            else if (m_ecn)
            {
                // The backlog must build in the RED queue disc, where it is marked, not
                // in the device queue below it: keep the device queue at two frames.
                dev->GetQueue()->SetMaxSize(QueueSize("2p"));
                switchTc.Install(dev);
            }
        }
    }
    for (uint32_t r = 0; (fast || graph) && r < cluster->GetNRanks(); ++r)
    {
        Ptr<Node> node = cluster->GetRankNode(r);
        auto it = m_firstAddress.find(node->GetId());
        if (it == m_firstAddress.end())
        {
            throw std::invalid_argument("rank " + std::to_string(r) +
                                        " has no link; every rank needs at least one");
        }
        cluster->SetRankAddress(r, it->second);
        if (fast)
        {
            node->GetObject<FastForwarding>()->SetLocalRank(r);
        }
    }
    if (fast && m_pfc)
    {
        // After the links: each node's PFC sizes its headroom from its devices.
        NodeContainer all = cluster->GetAllNodes();
        for (uint32_t i = 0; i < all.GetN(); ++i)
        {
            Ptr<FastForwarding> ff = all.Get(i)->GetObject<FastForwarding>();
            Ptr<PriorityFlowControl> pfc = CreateObject<PriorityFlowControl>();
            all.Get(i)->AggregateObject(pfc);
            pfc->Install(all.Get(i));
            ff->SetPriorityFlowControl(pfc);
        }
    }
    for (uint32_t r = 0; !fast && !graph && r < cluster->GetNRanks(); ++r)
    {
        Ptr<Ipv4> ipv4 = cluster->GetRankNode(r)->GetObject<Ipv4>();
        if (ipv4->GetNInterfaces() < 2)
        {
            throw std::invalid_argument("rank " + std::to_string(r) +
                                        " has no link; every rank needs at least one");
        }
        cluster->SetRankAddress(r, ipv4->GetAddress(1, 0).GetLocal());
    }
    spec.ranks = cluster->GetNRanks();
    spec.linkRate = m_rate;
    spec.linkDelay = m_delay;
    spec.mtu = m_mtu;
    spec.dataPath = m_dataPath;
    spec.lossless = m_pfc;
    spec.loadBalancing = m_loadBalancing;
    FinishPartitions(cluster, spec);
    cluster->SetFabricSpec(spec);
    RoutePlanner(cluster).Install();
    // Every rank reaches every other iff all ranks lie in one connected piece of the
    // working links (routes follow shortest paths, so they exist wherever a path does):
    // one pass over the links, not a route walk per pair. Rank 0 is the reference, so
    // the pair named is the first one an all-pairs walk would find.
    NodeContainer nodes = cluster->GetAllNodes();
    uint32_t maxNodeId = 0;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        maxNodeId = std::max(maxNodeId, nodes.Get(i)->GetId());
    }
    std::vector<uint32_t> piece(maxNodeId + 1);
    {
        boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> g(piece.size());
        for (const ClusterLink& l : cluster->GetLinks())
        {
            if (!l.failed)
            {
                boost::add_edge(l.nodeA, l.nodeB, g);
            }
        }
        boost::connected_components(g, piece.data());
    }
    const uint32_t first = piece[cluster->GetRankNode(0)->GetId()];
    for (uint32_t b = 1; b < cluster->GetNRanks(); ++b)
    {
        if (piece[cluster->GetRankNode(b)->GetId()] != first)
        {
            throw std::invalid_argument("rank " + std::to_string(b) +
                                        " cannot be reached from rank 0; connect the fabric");
        }
    }
}

std::vector<uint32_t>
FabricHelper::FailRandomLinks(Ptr<Cluster> cluster,
                              uint32_t count,
                              const std::vector<std::string>& classes)
{
    std::vector<bool> down;
    for (const auto& l : cluster->GetLinks())
    {
        down.push_back(l.failed);
    }
    std::vector<uint32_t> failed =
        FaultPlan::ChooseRandomLinks(cluster, count, classes, down, FaultPlan::kDefaultStream);
    for (uint32_t id : failed)
    {
        cluster->FailLink(id);
    }
    RoutePlanner(cluster).Install();
    return failed;
}

void
FabricHelper::RecordFastAddress(Ptr<Cluster> cluster, uint32_t nodeId, Ipv4Address address)
{
    m_firstAddress.emplace(nodeId, address); // keeps the first, like interface 1
    cluster->AddNodeAddress(nodeId, address);
}

} // namespace ns3
