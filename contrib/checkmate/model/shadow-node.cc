// SPDX-License-Identifier: GPL-2.0-only
#include "shadow-node.h"

#include "ns3/data-parallel-trainer.h"
#include "ns3/double.h"
#include "ns3/gradient-tag.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mlnet-transport-header.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <cstring>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateShadowNode");
NS_OBJECT_ENSURE_REGISTERED(ShadowNode);

TypeId
ShadowNode::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ShadowNode")
            .SetParent<Application>()
            .SetGroupName("Checkmate")
            .AddConstructor<ShadowNode>()
            .AddAttribute("Port",
                          "UDP port the clones arrive on.",
                          UintegerValue(9100),
                          MakeUintegerAccessor(&ShadowNode::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("BytesPerParameter",
                          "Memory traffic of one optimizer update per parameter (bytes): AdamW "
                          "reads g, theta, m, v and writes theta, m, v: 28 with a 16-bit "
                          "gradient, 4+12+12 = 28.",
                          DoubleValue(28),
                          MakeDoubleAccessor(&ShadowNode::m_bytesPerParam),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("MemoryBandwidth",
                          "Sustained DRAM bandwidth of the shadow's CPU (bytes/s).",
                          DoubleValue(20e9),
                          MakeDoubleAccessor(&ShadowNode::m_memBandwidth),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("RepairTimeout",
                          "Silence after the last clone of an incomplete iteration before the "
                          "missing ranges are requested from a worker (s).",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&ShadowNode::m_repairTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("Applied",
                            "The shard applied an iteration: iteration, CPU time.",
                            MakeTraceSourceAccessor(&ShadowNode::m_appliedTrace),
                            "ns3::ShadowNode::AppliedTracedCallback")
            .AddTraceSource("RepairRequested",
                            "Missing ranges requested from a worker: iteration, ranges.",
                            MakeTraceSourceAccessor(&ShadowNode::m_repairTrace),
                            "ns3::ShadowNode::RepairTracedCallback")
            .AddTraceSource("Committed",
                            "The barrier committed an iteration (this shard's view).",
                            MakeTraceSourceAccessor(&ShadowNode::m_commitTrace),
                            "ns3::ShadowNode::CommitTracedCallback");
    return tid;
}

ShadowNode::ShadowNode() = default;
ShadowNode::~ShadowNode() = default;

void
ShadowNode::DoDispose()
{
    for (auto& kv : m_pending)
    {
        kv.second.timer.Cancel();
    }
    m_pending.clear();
    m_applied.clear();
    m_applyEvent.Cancel();
    m_opt = nullptr;
    m_socket = nullptr;
    m_fast = nullptr;
    m_readyCb = ReadyCallback();
    m_repairCb = RepairCallback();
    Application::DoDispose();
}

void
ShadowNode::Configure(uint32_t index,
                      uint64_t firstParam,
                      const Eigen::VectorXf& initial,
                      Ptr<Optimizer> optimizer,
                      uint32_t workers)
{
    m_index = index;
    m_first = firstParam;
    m_params = initial;
    m_opt = optimizer;
    m_opt->Initialize(initial.size());
    m_workers = workers;
    m_committed.iteration = -1;
    m_committed.params = m_params;
    m_committed.step = 0;
    m_committed.state = m_opt->GetState();
    m_next = 0;
}

void
ShadowNode::SetReadyCallback(ReadyCallback cb)
{
    m_readyCb = cb;
}

void
ShadowNode::SetRepairCallback(RepairCallback cb)
{
    m_repairCb = cb;
}

void
ShadowNode::StartApplication()
{
    Ptr<FastForwarding> fast = GetNode()->GetObject<FastForwarding>();
    if (fast && !GetNode()->GetObject<Ipv4>())
    {
        m_fast = fast;
        m_fast->SetPortDeliverCallback(m_port, MakeCallback(&ShadowNode::HandleFrame, this));
        return;
    }
    if (!GetNode()->GetObject<Ipv4>())
    {
        return; // the flow level: clones come whole through ReceiveClone
    }
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->SetAttribute("RcvBufSize", UintegerValue(1u << 30));
    if (m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0)
    {
        throw std::invalid_argument("ShadowNode: cannot bind port " + std::to_string(m_port));
    }
    m_socket->SetRecvCallback(MakeCallback(&ShadowNode::HandleRead, this));
}

void
ShadowNode::StopApplication()
{
    if (m_fast)
    {
        m_fast->SetPortDeliverCallback(m_port, FastForwarding::DeliverCallback());
    }
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
    }
}

uint64_t
ShadowNode::GetShardParameters() const
{
    return static_cast<uint64_t>(m_params.size());
}

uint64_t
ShadowNode::GetFirstByte() const
{
    return 4 * m_first;
}

Time
ShadowNode::GetApplyTime() const
{
    return Seconds(GetShardParameters() * m_bytesPerParam / m_memBandwidth);
}

void
ShadowNode::HandleRead(Ptr<Socket> socket)
{
    Ptr<Packet> p;
    while ((p = socket->Recv()))
    {
        Receive(p);
    }
}

void
ShadowNode::HandleFrame(Ptr<Packet> p, const FastFrameHeader&)
{
    Receive(p);
}

void
ShadowNode::Receive(Ptr<Packet> p)
{
    GradientTag tag;
    if (!p->PeekPacketTag(tag))
    {
        NS_LOG_WARN("shadow " << m_index << " ignores an untagged packet");
        return;
    }
    std::vector<uint8_t> bytes(p->GetSize());
    p->CopyData(bytes.data(), bytes.size());
    NS_ASSERT_MSG(bytes.size() == MlnetTransportHeader::SIZE + tag.length,
                  "clone of " << bytes.size() << " bytes for " << tag.length << " gradient bytes");
    ReceiveClone(tag, bytes.data() + MlnetTransportHeader::SIZE);
}

void
ShadowNode::ReceiveClone(const GradientTag& tag, const uint8_t* gradient)
{
    m_received += tag.length;
    Store(tag.iteration, tag.offset, gradient, tag.length);
    // Clones of a later iteration: every earlier incomplete one lost something.
    for (uint32_t t = m_next; t < tag.iteration; ++t)
    {
        CheckRepair(t);
    }
}

void
ShadowNode::Store(uint32_t iteration, uint64_t offset, const uint8_t* data, uint64_t length)
{
    if (iteration < m_next)
    {
        m_duplicates += length;
        return; // already applied
    }
    uint64_t first = GetFirstByte();
    uint64_t size = 4 * GetShardParameters();
    NS_ASSERT_MSG(offset >= first && offset + length <= first + size,
                  "bytes [" << offset << ", " << offset + length << ") outside shard " << m_index);
    Pending& pd = m_pending[iteration];
    if (pd.bytes.empty())
    {
        pd.bytes.assign(size, 0);
        pd.got.assign(size, false);
    }
    uint64_t at = offset - first;
    for (uint64_t i = 0; i < length; ++i)
    {
        if (pd.got[at + i])
        {
            ++m_duplicates;
            continue;
        }
        pd.got[at + i] = true;
        pd.bytes[at + i] = data[i];
        ++pd.have;
    }
    if (pd.have == size)
    {
        pd.timer.Cancel();
        TryApply();
    }
    else
    {
        pd.timer.Cancel();
        pd.timer = Simulator::Schedule(m_repairTimeout, &ShadowNode::CheckRepair, this, iteration);
    }
}

void
ShadowNode::CheckRepair(uint32_t iteration)
{
    if (iteration < m_next)
    {
        return;
    }
    Pending& pd = m_pending[iteration];
    uint64_t size = 4 * GetShardParameters();
    if (pd.bytes.empty())
    {
        pd.bytes.assign(size, 0);
        pd.got.assign(size, false);
    }
    if (pd.have == size || pd.requested)
    {
        return;
    }
    pd.requested = true;
    Ranges missing;
    for (uint64_t i = 0; i < size;)
    {
        if (pd.got[i])
        {
            ++i;
            continue;
        }
        uint64_t j = i;
        while (j < size && !pd.got[j])
        {
            ++j;
        }
        missing.emplace_back(GetFirstByte() + i, j - i);
        i = j;
    }
    m_repairRanges += missing.size();
    NS_LOG_INFO("shadow " << m_index << " requests " << missing.size()
                          << " missing ranges of iteration " << iteration);
    m_repairTrace(iteration, static_cast<uint32_t>(missing.size()));
    NS_ASSERT_MSG(!m_repairCb.IsNull(), "no repair path");
    m_repairCb(m_index, iteration, missing);
}

void
ShadowNode::DeliverRepair(uint32_t iteration, uint64_t offset, const uint8_t* data, uint64_t length)
{
    m_repairBytes += length;
    Store(iteration, offset, data, length);
}

void
ShadowNode::TryApply()
{
    if (m_applying)
    {
        return;
    }
    auto it = m_pending.find(m_next);
    if (it == m_pending.end() || it->second.have != 4 * GetShardParameters())
    {
        return;
    }
    m_applying = true;
    Time now = Simulator::Now();
    Time start = std::max(now, m_cpuFree);
    m_cpuFree = start + GetApplyTime();
    m_applyEvent = Simulator::Schedule(m_cpuFree - now, &ShadowNode::ApplyDone, this, m_next);
}

void
ShadowNode::ApplyDone(uint32_t iteration)
{
    auto it = m_pending.find(iteration);
    NS_ASSERT(it != m_pending.end());
    Eigen::VectorXf sum(m_params.size());
    std::memcpy(sum.data(), it->second.bytes.data(), it->second.bytes.size());
    m_pending.erase(it);
    Eigen::VectorXf g = DataParallelTrainer::Average(sum, m_workers);
    m_opt->Step(m_params, g);
    ShardState& s = m_applied[iteration];
    s.iteration = iteration;
    s.params = m_params;
    s.step = m_opt->GetStep();
    s.state = m_opt->GetState();
    m_appliedTrace(iteration, GetApplyTime());
    m_applying = false;
    ++m_next;
    if (!m_readyCb.IsNull())
    {
        m_readyCb(m_index, iteration);
    }
    TryApply();
}

void
ShadowNode::Commit(uint32_t iteration)
{
    auto it = m_applied.find(iteration);
    if (it == m_applied.end())
    {
        // A COMMIT still in flight when a recovery rolled this shard back.
        NS_LOG_INFO("shadow " << m_index << " ignores a stale commit of " << iteration);
        return;
    }
    m_committed = it->second;
    m_applied.erase(m_applied.begin(), std::next(it));
    m_commitTrace(iteration);
}

const ShardState*
ShadowNode::GetState(int64_t iteration) const
{
    if (iteration == m_committed.iteration)
    {
        return &m_committed;
    }
    auto it = m_applied.find(iteration);
    return it == m_applied.end() ? nullptr : &it->second;
}

const ShardState&
ShadowNode::GetCommitted() const
{
    return m_committed;
}

void
ShadowNode::RollBackToCommitted()
{
    for (auto& kv : m_pending)
    {
        kv.second.timer.Cancel();
    }
    m_pending.clear();
    m_applied.clear();
    m_applyEvent.Cancel();
    m_applying = false;
    m_cpuFree = Simulator::Now();
    m_params = m_committed.params;
    m_opt->SetState(m_committed.step, m_committed.state);
    m_next = static_cast<uint32_t>(m_committed.iteration + 1);
}

uint64_t
ShadowNode::GetReceivedBytes() const
{
    return m_received;
}

uint64_t
ShadowNode::GetDuplicateBytes() const
{
    return m_duplicates;
}

uint64_t
ShadowNode::GetRepairRanges() const
{
    return m_repairRanges;
}

uint64_t
ShadowNode::GetRepairBytes() const
{
    return m_repairBytes;
}

} // namespace ns3
