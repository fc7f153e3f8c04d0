// SPDX-License-Identifier: GPL-2.0-only
#include "collective.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/process-runtime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetCollective");
NS_OBJECT_ENSURE_REGISTERED(Collective);

TypeId
Collective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Collective")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddAttribute("ReductionTimePerByte",
                          "Compute time to reduce one byte of received data (gamma, seconds "
                          "per byte, e.g. 1e-12 for 1 TB/s); 0 makes reductions instantaneous. "
                          "A double, so that picosecond-per-byte values survive the simulator's "
                          "nanosecond resolution: a reduction of B bytes takes gamma*B.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&Collective::m_reduceTimePerByte),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Label",
                          "What this collective is, for monitors and timelines (e.g. the "
                          "training task's name); empty: <collective>-<algorithm>.",
                          StringValue(""),
                          MakeStringAccessor(&Collective::m_label),
                          MakeStringChecker())
            .AddTraceSource("Start",
                            "The collective started.",
                            MakeTraceSourceAccessor(&Collective::m_startTrace),
                            "ns3::Collective::CollectiveTracedCallback")
            .AddTraceSource("Done",
                            "Every member finished.",
                            MakeTraceSourceAccessor(&Collective::m_doneTrace),
                            "ns3::Collective::CollectiveTracedCallback")
            .AddTraceSource("MemberDone",
                            "One member finished: member index, time.",
                            MakeTraceSourceAccessor(&Collective::m_memberDoneTrace),
                            "ns3::Collective::MemberDoneTracedCallback");
    return tid;
}

Collective::Collective() = default;
Collective::~Collective() = default;

void
Collective::DoDispose()
{
    if (m_transport && m_started)
    {
        m_transport->UnregisterChannel(m_channel);
    }
    m_transport = nullptr;
    m_doneCb = DoneCallback();
    m_in.clear();
    m_out.clear();
    Object::DoDispose();
}

void
Collective::Setup(Ptr<MessageTransport> transport,
                  const std::vector<uint32_t>& ranks,
                  uint64_t bytes)
{
    NS_LOG_FUNCTION(this << ranks.size() << bytes);
    NS_ASSERT_MSG(transport && transport->GetCluster(), "transport must be installed first");
    if (ranks.size() < 2)
    {
        throw std::invalid_argument("a collective needs at least 2 ranks, got " +
                                    std::to_string(ranks.size()));
    }
    std::set<uint32_t> unique(ranks.begin(), ranks.end());
    if (unique.size() != ranks.size())
    {
        throw std::invalid_argument("a communicator lists a rank twice; list each rank once");
    }
    uint32_t n = transport->GetCluster()->GetNRanks();
    for (uint32_t r : ranks)
    {
        if (r >= n)
        {
            throw std::invalid_argument("rank " + std::to_string(r) +
                                        " is not in the cluster (it has " + std::to_string(n) +
                                        " ranks)");
        }
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("a collective of 0 bytes does nothing; give bytes > 0");
    }
    m_transport = transport;
    m_ranks = ranks;
    m_bytes = bytes;
    m_memberDone.assign(ranks.size(), false);
    m_memberEnd.assign(ranks.size(), Time(0));
    // A distributed run (DistributedSession) gives every node the system id of its
    // partition; only members on this process's nodes run here.
    Ptr<Cluster> cluster = transport->GetCluster();
    m_local.assign(ranks.size(), true);
    m_localCount = 0;
    for (uint32_t m = 0; m < ranks.size(); ++m)
    {
        m_local[m] = cluster->GetRankNode(ranks[m])->GetSystemId() == Simulator::GetSystemId();
        m_localCount += m_local[m] ? 1 : 0;
    }
}

void
Collective::SetInput(uint32_t member, const Eigen::VectorXf& values)
{
    NS_ASSERT_MSG(member < m_ranks.size(), "Setup first; member out of range");
    if (m_in.empty())
    {
        m_in.resize(m_ranks.size());
    }
    m_in[member] = values;
}

const Eigen::VectorXf&
Collective::GetOutput(uint32_t member) const
{
    NS_ASSERT_MSG(member < m_out.size(), "no real output for member " << member);
    return m_out[member];
}

bool
Collective::HasRealPayload() const
{
    return !m_in.empty();
}

void
Collective::SetDoneCallback(DoneCallback cb)
{
    m_doneCb = cb;
}

void
Collective::Start()
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT_MSG(m_transport, "Setup before Start");
    NS_ASSERT_MSG(!m_started, "a collective runs once");
    if (HasRealPayload())
    {
        for (uint32_t i = 0; i < m_in.size(); ++i)
        {
            if (m_in[i].size() == 0)
            {
                throw std::invalid_argument("real payloads: member " + std::to_string(i) +
                                            " has no input; call SetInput for every member");
            }
        }
        uint32_t mtu = m_transport->GetCluster()->GetFabricSpec().mtu;
        if (ProcessRuntime::IsEnabled() && mtu > ProcessRuntime::kMaxRealPayloadMtu)
        {
            throw std::invalid_argument(
                "real payloads cross MPI processes in ns-3 messages of at most 2000 bytes; "
                "MTU " +
                std::to_string(mtu) + " frames do not fit: use --mtu=" +
                std::to_string(ProcessRuntime::kMaxRealPayloadMtu) +
                " or less, or virtual payloads");
        }
    }
    m_started = true;
    m_start = Simulator::Now();
    m_channel = m_transport->RegisterChannel(MakeCallback(&Collective::Receive, this), GetLabel());
    if (Ptr<Cluster> cluster = m_transport->GetCluster())
    {
        cluster->NotifyObjectBound(this);
    }
    m_startTrace(this);
    DoStart();
}

void
Collective::Receive(const Message& msg)
{
    HandleMessage(msg);
}

void
Collective::SendToMember(uint32_t fromMember,
                         uint32_t toMember,
                         uint32_t tag,
                         uint64_t bytes,
                         MessageBytes data)
{
    if (!m_local[fromMember])
    {
        return;
    }
    m_transport->Send(m_ranks[fromMember], m_ranks[toMember], m_channel, tag, bytes, data);
}

uint32_t
Collective::GetChannel() const
{
    return m_channel;
}

uint32_t
Collective::MemberOf(uint32_t rank) const
{
    auto it = std::find(m_ranks.begin(), m_ranks.end(), rank);
    NS_ASSERT_MSG(it != m_ranks.end(), "rank " << rank << " is not a member");
    return static_cast<uint32_t>(it - m_ranks.begin());
}

void
Collective::MemberDone(uint32_t member)
{
    NS_ASSERT(member < m_memberDone.size());
    if (m_memberDone[member] || !m_local[member])
    {
        return;
    }
    m_memberDone[member] = true;
    m_memberEnd[member] = Simulator::Now();
    m_memberDoneTrace(member, Simulator::Now());
    if (++m_doneCount == m_localCount)
    {
        m_done = true;
        m_end = Simulator::Now();
        NS_LOG_INFO(GetCollectiveName()
                    << "/" << GetAlgorithmName() << " done in " << (m_end - m_start).As(Time::US));
        m_doneTrace(this);
        if (!m_doneCb.IsNull())
        {
            m_doneCb(this);
        }
    }
}

bool
Collective::IsDone() const
{
    return m_done;
}

bool
Collective::IsLocalMember(uint32_t member) const
{
    NS_ASSERT_MSG(member < m_local.size(), "Setup first; member out of range");
    return m_local[member];
}

bool
Collective::IsMemberDone(uint32_t member) const
{
    NS_ASSERT_MSG(member < m_memberDone.size(), "Setup first; member out of range");
    return m_memberDone[member];
}

Time
Collective::GetMemberEnd(uint32_t member) const
{
    NS_ASSERT_MSG(member < m_memberEnd.size(), "Setup first; member out of range");
    return m_memberEnd[member];
}

CollectiveRecord
Collective::GetRecord() const
{
    CollectiveRecord r;
    r.collective = GetCollectiveName();
    r.algorithm = GetAlgorithmName();
    r.ranks = static_cast<uint32_t>(m_ranks.size());
    r.bytes = m_bytes;
    r.start = m_start;
    r.end = m_end;
    return r;
}

Time
Collective::GetDuration() const
{
    return m_end - m_start;
}

std::string
Collective::GetLabel() const
{
    return m_label.empty() ? GetCollectiveName() + "-" + GetAlgorithmName() : m_label;
}

void
Collective::SetLabel(const std::string& label)
{
    m_label = label;
}

double
Collective::GetReductionTimePerByte() const
{
    return m_reduceTimePerByte;
}

const std::vector<uint32_t>&
Collective::GetRanks() const
{
    return m_ranks;
}

} // namespace ns3
