// SPDX-License-Identifier: GPL-2.0-only
#include "roce-message-transport.h"

#include "ns3/boolean.h"
#include "ns3/cluster.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetRoceMessageTransport");
NS_OBJECT_ENSURE_REGISTERED(RoceMessageTransport);

namespace
{
/// Alpha decays applied at most at once: (1 - 1/256)^4096 < 1e-7, alpha is 0 by then.
constexpr uint64_t kMaxAlphaDecays = 4096;

DataRate
DeviceRate(Ptr<NetDevice> device)
{
    DataRateValue rate;
    device->GetAttribute("DataRate", rate);
    return rate.Get();
}
} // namespace

TypeId
RoceMessageTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceMessageTransport")
            .SetParent<UdpMessageTransport>()
            .SetGroupName("Mlnet")
            .AddConstructor<RoceMessageTransport>()
            .AddAttribute("RetransmitTimeout",
                          "The queue pair's retransmission timer, as an RDMA NIC's local ACK "
                          "timeout (4.096 us x 2^12 = 16.8 ms): the receiver's repair timer "
                          "and the sender's probe timer (its first probe waits twice this). "
                          "It replaces UdpMessageTransport's RepairTimeout and SenderTimeout, "
                          "whose 200 us and 1 ms are shorter than one PFC pause at 100 Gbps "
                          "(335.5 us) plus a lossless queue: on a lossless fabric silence "
                          "means a pause, not a loss.",
                          TimeValue(NanoSeconds(4096ull << 12)),
                          MakeTimeAccessor(&RoceMessageTransport::m_retransmitTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("QueuePairPerPeer",
                          "One queue pair per (sender, receiver) pair, whose DCQCN rate and "
                          "pacing persist across its messages and are shared by concurrent "
                          "ones, as a collective library's connections do (true); or one per "
                          "message, starting at line rate (false, the default: with the DCQCN "
                          "paper's recovery steps a pair cut once stays slow for tens of ms, "
                          "measured +40% on training-cluster --gpus=32 fat-tree against +19% "
                          "per message).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceMessageTransport::m_perPeer),
                          MakeBooleanChecker())
            .AddAttribute("CnpInterval",
                          "Least time between two CNPs a receiver sends for one queue pair "
                          "(s; DCQCN paper: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RoceMessageTransport::m_cnpInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("AlphaUpdateInterval",
                          "Period of the alpha decay alpha = (1 - g) alpha without CNP (s; "
                          "DCQCN paper: 55 us).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&RoceMessageTransport::m_alphaInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreaseInterval",
                          "Period of the rate-increase timer, T += 1 (s; DCQCN paper: 55 us).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&RoceMessageTransport::m_rateInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "Bytes sent per byte-counter stage, BC += 1 (bytes; DCQCN paper: "
                          "10 MB).",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&RoceMessageTransport::m_byteCounter),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("FastRecoverySteps",
                          "Increase stages of fast recovery, Rc = (Rt + Rc)/2, before "
                          "additive increase (F; DCQCN paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceMessageTransport::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAi",
                          "Additive increase of the target rate per stage (R_AI; DCQCN paper: "
                          "40 Mb/s).",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&RoceMessageTransport::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("RateHai",
                          "Hyper increase of the target rate per stage beyond F, times the "
                          "stage (R_HAI; 10 x R_AI).",
                          DataRateValue(DataRate("400Mbps")),
                          MakeDataRateAccessor(&RoceMessageTransport::m_rateHai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Floor of a queue pair's rate.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceMessageTransport::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("G",
                          "Gain of alpha's moving average (DCQCN paper: 1/256).",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&RoceMessageTransport::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("DataPriority",
                          "Priority (PFC class) of data frames; control frames use 7.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RoceMessageTransport::m_dataPriority),
                          MakeUintegerChecker<uint8_t>(0, FastFrameHeader::MAX_PRIORITY - 1))
            .AddTraceSource("CnpSent",
                            "A receiver sent a CNP: src rank (of the message), dst rank (the "
                            "receiver), message id, sequence of the CE-marked packet.",
                            MakeTraceSourceAccessor(&RoceMessageTransport::m_cnpSentTrace),
                            "ns3::UdpMessageTransport::PacketTracedCallback")
            .AddTraceSource("Rate",
                            "A queue pair's current rate changed (CNP, timer or byte "
                            "counter): src rank, dst rank, message id, rate (bit/s).",
                            MakeTraceSourceAccessor(&RoceMessageTransport::m_rateTrace),
                            "ns3::RoceMessageTransport::RateTracedCallback");
    return tid;
}

RoceMessageTransport::RoceMessageTransport()
{
    NS_LOG_FUNCTION(this);
}

RoceMessageTransport::~RoceMessageTransport() = default;

void
RoceMessageTransport::DoDispose()
{
    for (auto& rank : m_qps)
    {
        for (auto& kv : rank)
        {
            kv.second.rateTimer.Cancel();
        }
    }
    m_qps.clear();
    m_lastCnp.clear();
    m_lastCnpSwept.clear();
    UdpMessageTransport::DoDispose();
}

DcqcnRateControl::Parameters
RoceMessageTransport::GetDcqcnParameters(DataRate lineRate) const
{
    DcqcnRateControl::Parameters p;
    p.lineRate = static_cast<double>(lineRate.GetBitRate());
    p.minRate = static_cast<double>(m_minRate.GetBitRate());
    p.g = m_g;
    p.initialAlpha = 1.0;
    p.fastRecoverySteps = m_fastRecoverySteps;
    p.rateAi = static_cast<double>(m_rateAi.GetBitRate());
    p.rateHai = static_cast<double>(m_rateHai.GetBitRate());
    p.byteCounter = m_byteCounter;
    return p;
}

void
RoceMessageTransport::Install(Ptr<Cluster> cluster)
{
    NS_LOG_FUNCTION(this << cluster);
    const std::string& dataPath = cluster->GetFabricSpec().dataPath;
    if (dataPath != "fast" && dataPath != "none")
    {
        throw std::invalid_argument(
            "RoceMessageTransport::Install: the RDMA transport runs on the fast data path "
            "only (its frames carry a priority and an ECN codepoint); build the fabric with "
            "--dataPath=fast|auto");
    }
    SetAttribute("RepairTimeout", TimeValue(m_retransmitTimeout));
    SetAttribute("SenderTimeout", TimeValue(2 * m_retransmitTimeout));
    UdpMessageTransport::Install(cluster);
    uint32_t n = cluster->GetNRanks();
    for (uint32_t r = 0; r < n; ++r)
    {
        // Throws for parameters out of range (MinRate above a line rate, ...), for every
        // port of the rank: its devices, or its links on a fabric without devices (the
        // flow level's graph, where the fluid asks this transport only what its frames
        // would be).
        Ptr<Node> node = cluster->GetRankNode(r);
        if (dataPath == "none")
        {
            for (uint32_t id : cluster->GetLinksOfNode(node->GetId()))
            {
                const bool aToB = cluster->GetLink(id).nodeA == node->GetId();
                DcqcnRateControl check(GetDcqcnParameters(cluster->GetLinkRate(id, aToB)));
            }
            continue;
        }
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            if (DynamicCast<PointToPointNetDevice>(node->GetDevice(i)))
            {
                DcqcnRateControl check(GetDcqcnParameters(DeviceRate(node->GetDevice(i))));
            }
        }
    }
    if (dataPath == "none")
    {
        return; // no queue pairs: nothing is sent (CheckSend refuses)
    }
    m_qps.assign(n, {});
    m_lastCnp.assign(n, {});
    m_lastCnpSwept.assign(n, 0);
}

uint64_t
RoceMessageTransport::GetCnpsSent() const
{
    return m_cnpsSent;
}

uint64_t
RoceMessageTransport::GetCnpsReceived() const
{
    return m_cnpsReceived;
}

uint64_t
RoceMessageTransport::GetRateDecreases() const
{
    return m_rateDecreases;
}

uint64_t
RoceMessageTransport::QpKey(uint32_t peer, uint32_t messageId) const
{
    // A peer's queue pair takes the one id no message has (ids count up from 0).
    return Key(peer, m_perPeer ? std::numeric_limits<uint32_t>::max() : messageId);
}

Time
RoceMessageTransport::NextSendTime(uint32_t rank, uint64_t key, const OutMessage& m) const
{
    const auto& qps = m_qps[rank];
    auto it = qps.find(QpKey(m.dst, m.id));
    if (it == qps.end() || it->second.cc.GetRate() >= it->second.cc.GetParameters().lineRate)
    {
        return Time(0); // line rate: the device paces
    }
    return it->second.nextSend;
}

void
RoceMessageTransport::OnDataSent(uint32_t rank,
                                 uint64_t key,
                                 const OutMessage& m,
                                 uint32_t wireBytes,
                                 bool /* retransmission */)
{
    auto& qps = m_qps[rank];
    uint64_t qpKey = QpKey(m.dst, m.id);
    auto it = qps.find(qpKey);
    if (it == qps.end())
    {
        DataRate line = DeviceRate(GetRankNode(rank)->GetDevice(m.ifIndex));
        it = qps.emplace(qpKey, QueuePair(GetDcqcnParameters(line))).first;
        it->second.dst = m.dst;
        it->second.id = m.id;
        it->second.alphaEpoch = Simulator::Now();
    }
    QueuePair& qp = it->second;
    qp.lastSend = Simulator::Now();
    if (!qp.cc.IsAtLineRate() && !qp.rateTimer.IsRunning())
    {
        ResumeRateTimer(rank, qpKey, qp); // idle since its timer stopped: catch up
    }
    if (qp.cc.OnBytesSent(wireBytes) > 0)
    {
        TraceRate(rank, qp);
    }
    double rate = qp.cc.GetRate();
    if (rate < qp.cc.GetParameters().lineRate)
    {
        qp.nextSend = Simulator::Now() + Seconds(wireBytes * 8.0 / rate);
    }
}

void
RoceMessageTransport::OnMessageEnd(uint32_t rank, uint64_t key)
{
    if (m_perPeer)
    {
        return; // the peer's queue pair outlives its messages
    }
    auto& qps = m_qps[rank];
    auto it = qps.find(key);
    if (it != qps.end())
    {
        it->second.rateTimer.Cancel();
        qps.erase(it);
    }
}

void
RoceMessageTransport::SetFrameClass(FastFrameHeader& h, MlnetTransportHeader::PacketType type) const
{
    if (type == MlnetTransportHeader::DATA)
    {
        h.priority = m_dataPriority;
        h.ecn = FastFrameHeader::ECT0;
        return;
    }
    h.priority = FastFrameHeader::MAX_PRIORITY;
    h.ecn = FastFrameHeader::NOT_ECT;
}

void
RoceMessageTransport::HandleFrame(uint32_t rank, Ptr<Packet> p, const FastFrameHeader& h)
{
    if (h.ecn == FastFrameHeader::CE)
    {
        MlnetTransportHeader th;
        p->PeekHeader(th);
        if (th.GetType() == MlnetTransportHeader::DATA)
        {
            OnCongestionMark(rank, h.srcRank, th);
        }
    }
    UdpMessageTransport::HandleFrame(rank, p, h);
}

void
RoceMessageTransport::OnCongestionMark(uint32_t rank, uint32_t src, const MlnetTransportHeader& h)
{
    Time now = Simulator::Now();
    auto& last = m_lastCnp[rank];
    auto ins = last.try_emplace(QpKey(src, h.GetMessageId()), now);
    if (!ins.second)
    {
        if (now - ins.first->second < m_cnpInterval)
        {
            return; // one CNP per queue pair per CnpInterval
        }
        ins.first->second = now;
    }
    else if (last.size() >= 2 * m_lastCnpSwept[rank] + 64)
    {
        // An entry older than CnpInterval means the same as none: sweep them out, so the
        // map holds only the queue pairs marked recently.
        for (auto it = last.begin(); it != last.end();)
        {
            it = now - it->second >= m_cnpInterval ? last.erase(it) : std::next(it);
        }
        m_lastCnpSwept[rank] = last.size();
    }
    ++m_cnpsSent;
    m_cnpSentTrace(src, rank, h.GetMessageId(), h.GetSequence());
    SendControl(rank, src, MlnetTransportHeader::CNP, h, nullptr);
}

void
RoceMessageTransport::OnOtherPacket(uint32_t rank,
                                    uint32_t peer,
                                    const MlnetTransportHeader& h,
                                    Ptr<Packet> p)
{
    if (h.GetType() != MlnetTransportHeader::CNP)
    {
        UdpMessageTransport::OnOtherPacket(rank, peer, h, p);
        return;
    }
    OnCnp(rank, peer, h);
}

void
RoceMessageTransport::CatchUpAlpha(QueuePair& qp) const
{
    Time now = Simulator::Now();
    uint64_t periods = (now - qp.alphaEpoch).GetTimeStep() / m_alphaInterval.GetTimeStep();
    for (uint64_t i = 0; i < std::min(periods, kMaxAlphaDecays); ++i)
    {
        qp.cc.OnAlphaTimer();
    }
    qp.alphaEpoch = now;
}

void
RoceMessageTransport::OnCnp(uint32_t rank, uint32_t peer, const MlnetTransportHeader& h)
{
    ++m_cnpsReceived;
    uint64_t key = QpKey(peer, h.GetMessageId());
    auto& qps = m_qps[rank];
    auto it = qps.find(key);
    if (it == qps.end())
    {
        return; // the message is done
    }
    QueuePair& qp = it->second;
    CatchUpAlpha(qp);
    qp.cc.OnCnp();
    ++m_rateDecreases;
    TraceRate(rank, qp);
    // Both increase counters restart with the cut: so does the timer.
    qp.rateTimer.Cancel();
    qp.rateTimer =
        Simulator::Schedule(m_rateInterval, &RoceMessageTransport::OnRateTimer, this, rank, key);
}

void
RoceMessageTransport::OnRateTimer(uint32_t rank, uint64_t key)
{
    auto& qps = m_qps[rank];
    auto it = qps.find(key);
    if (it == qps.end())
    {
        return;
    }
    QueuePair& qp = it->second;
    qp.cc.OnRateTimer();
    TraceRate(rank, qp);
    if (m_perPeer && Simulator::Now() - qp.lastSend > m_rateInterval)
    {
        // Nothing sent for a whole period: stop ticking (a run would otherwise go on
        // until every idle pair is back at line rate) and catch up when it sends again.
        qp.timerStopped = Simulator::Now();
        return;
    }
    if (!qp.cc.IsAtLineRate())
    {
        qp.rateTimer = Simulator::Schedule(m_rateInterval,
                                           &RoceMessageTransport::OnRateTimer,
                                           this,
                                           rank,
                                           key);
    }
}

void
RoceMessageTransport::ResumeRateTimer(uint32_t rank, uint64_t qpKey, QueuePair& qp)
{
    // The periods the timer would have ticked while the pair was idle, applied now (the
    // NIC's timer runs whether or not the queue pair sends).
    Time now = Simulator::Now();
    uint64_t periods = (now - qp.timerStopped).GetTimeStep() / m_rateInterval.GetTimeStep();
    for (uint64_t i = 0; i < periods && !qp.cc.IsAtLineRate(); ++i)
    {
        qp.cc.OnRateTimer();
    }
    TraceRate(rank, qp);
    if (!qp.cc.IsAtLineRate())
    {
        qp.rateTimer = Simulator::Schedule(m_rateInterval,
                                           &RoceMessageTransport::OnRateTimer,
                                           this,
                                           rank,
                                           qpKey);
    }
}

void
RoceMessageTransport::TraceRate(uint32_t rank, const QueuePair& qp)
{
    m_rateTrace(rank, qp.dst, qp.id, qp.cc.GetRate());
}

} // namespace ns3
