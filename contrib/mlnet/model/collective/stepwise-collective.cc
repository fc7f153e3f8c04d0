// SPDX-License-Identifier: GPL-2.0-only
#include "stepwise-collective.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetStepwiseCollective");
NS_OBJECT_ENSURE_REGISTERED(StepwiseCollective);

TypeId
StepwiseCollective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::StepwiseCollective")
            .SetParent<Collective>()
            .SetGroupName("Mlnet")
            .AddTraceSource("MemberStep",
                            "A member completed one step of one chain (its awaited messages "
                            "arrived and were reduced or copied): member, chain, step.",
                            MakeTraceSourceAccessor(&StepwiseCollective::m_stepTrace),
                            "ns3::StepwiseCollective::MemberStepTracedCallback");
    return tid;
}

StepwiseCollective::StepwiseCollective() = default;
StepwiseCollective::~StepwiseCollective() = default;

void
StepwiseCollective::DoDispose()
{
    if (!m_tagger.IsNull() && m_transport && !m_chains.empty())
    {
        m_transport->SetPacketHook(GetChannel(), MessageTransport::PacketHook());
    }
    m_tagger = PacketTagger();
    m_observer = MessageObserver();
    m_whole.clear();
    m_wholeBuilt = false;
    m_chains.clear();
    m_arrived.clear();
    Collective::DoDispose();
}

void
StepwiseCollective::Setup(Ptr<MessageTransport> transport,
                          const std::vector<uint32_t>& ranks,
                          uint64_t bytes)
{
    Collective::Setup(transport, ranks, bytes);
    m_whole.clear();
    m_wholeBuilt = false;
    ValidateConfig();
    CheckProgram(); // throws when a message would be empty
}

void
StepwiseCollective::ValidateConfig() const
{
}

uint32_t
StepwiseCollective::GetUnit() const
{
    return m_bytes % 4 == 0 ? 4 : 1;
}

uint64_t
StepwiseCollective::GetUnits() const
{
    return m_bytes / GetUnit();
}

StepwiseCollective::RingChunks
StepwiseCollective::RingAllReduceStep(uint32_t pos, uint32_t n, uint32_t t)
{
    NS_ASSERT(n > 1 && t < 2 * (n - 1));
    return {(pos + 2 * n - t - 1) % n, (pos + 2 * n - t - 2) % n, t < n - 1};
}

std::vector<StepwiseCollective::Segment>
StepwiseCollective::Split(Segment range, uint32_t parts)
{
    NS_ASSERT(parts > 0);
    std::vector<Segment> out(parts);
    uint64_t base = range.length / parts;
    uint64_t extra = range.length % parts;
    uint64_t offset = range.offset;
    for (uint32_t i = 0; i < parts; ++i)
    {
        out[i].offset = offset;
        out[i].length = base + (i < extra ? 1 : 0);
        offset += out[i].length;
    }
    return out;
}

StepwiseCollective::Segment
StepwiseCollective::SplitPart(Segment range, uint32_t parts, uint32_t i)
{
    NS_ASSERT(parts > 0 && i < parts);
    const uint64_t base = range.length / parts;
    const uint64_t extra = range.length % parts;
    return {range.offset + i * base + std::min<uint64_t>(i, extra), base + (i < extra ? 1 : 0)};
}

const StepwiseCollective::Program&
StepwiseCollective::WholeProgram() const
{
    if (!m_wholeBuilt)
    {
        m_whole = BuildProgram();
        m_wholeBuilt = true;
        NS_ASSERT_MSG(m_whole.size() == m_ranks.size(), "one program per member");
    }
    return m_whole;
}

StepwiseCollective::Segment
StepwiseCollective::SplitRange(Segment range, uint32_t parts, uint32_t first, uint32_t count)
{
    NS_ASSERT(count > 0 && first + count <= parts);
    const Segment a = SplitPart(range, parts, first);
    const Segment b = SplitPart(range, parts, first + count - 1);
    return {a.offset, b.offset + b.length - a.offset};
}

void
StepwiseCollective::ForEachStep(const StepVisitor& visit) const
{
    Step step;
    for (uint32_t m = 0; m < m_ranks.size(); ++m)
    {
        const std::vector<uint32_t> lengths = ChainLengths(m);
        for (uint32_t c = 0; c < lengths.size(); ++c)
        {
            for (uint32_t g = 0; g < lengths[c]; ++g)
            {
                BuildStep(m, c, g, step);
                if (!visit(m, c, g, step))
                {
                    return;
                }
            }
        }
    }
}

StepwiseCollective::Program
StepwiseCollective::BuildProgram() const
{
    Program p(m_ranks.size());
    for (uint32_t m = 0; m < p.size(); ++m)
    {
        p[m].resize(ChainLengths(m).size()); // chains without steps included
    }
    ForEachStep([&p](uint32_t m, uint32_t c, uint32_t g, const Step& step) {
        p[m][c].push_back(step); // steps of a chain come in order
        NS_ASSERT(p[m][c].size() == g + 1);
        return true;
    });
    return p;
}

std::vector<uint32_t>
StepwiseCollective::ChainLengths(uint32_t member) const
{
    std::vector<uint32_t> lengths;
    for (const auto& chain : WholeProgram().at(member))
    {
        lengths.push_back(static_cast<uint32_t>(chain.size()));
    }
    return lengths;
}

void
StepwiseCollective::BuildStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const
{
    out = WholeProgram().at(member).at(chain).at(step);
}

bool
StepwiseCollective::ReceiveReduces(uint32_t member,
                                   uint32_t chain,
                                   uint32_t step,
                                   uint32_t from) const
{
    BuildStep(member, chain, step, m_peer); // a scratch kept: no allocation per call
    for (const auto& r : m_peer.recvs)
    {
        if (r.from == from)
        {
            return r.reduce;
        }
    }
    return false;
}

uint64_t
StepwiseCollective::ShortestMessageUnits() const
{
    // Step by step: a generated program is never held whole.
    uint64_t shortest = std::numeric_limits<uint64_t>::max();
    ForEachStep([&shortest](uint32_t, uint32_t, uint32_t, const Step& step) {
        for (const auto& s : step.sends)
        {
            shortest = std::min(shortest, s.seg.length);
        }
        return true;
    });
    return shortest;
}

void
StepwiseCollective::CheckProgram() const
{
    if (ShortestMessageUnits() == 0)
    {
        throw std::invalid_argument(
            GetCollectiveName() + "/" + GetAlgorithmName() + " cannot split " +
            std::to_string(m_bytes) + " bytes over " + std::to_string(m_ranks.size()) +
            " ranks: some message would carry 0 bytes; give more bytes "
            "(at least " +
            std::to_string(GetUnit()) + " bytes per chunk, slice and ring) or fewer slices/rings");
    }
}

std::vector<uint32_t>
StepwiseCollective::GetChainLengths(uint32_t member) const
{
    NS_ASSERT_MSG(m_transport && member < m_ranks.size(), "GetChainLengths after Setup");
    return ChainLengths(member);
}

void
StepwiseCollective::GetStep(uint32_t member, uint32_t chain, uint32_t step, Step& out) const
{
    NS_ASSERT_MSG(m_transport && member < m_ranks.size(), "GetStep after Setup");
    BuildStep(member, chain, step, out);
}

uint64_t
StepwiseCollective::CountMessages(uint64_t limit) const
{
    NS_ASSERT_MSG(m_transport, "CountMessages is valid after Setup");
    limit = std::min<uint64_t>(limit, std::numeric_limits<uint64_t>::max() - 1);
    if (const uint64_t closed = MessageCount(); closed != std::numeric_limits<uint64_t>::max())
    {
        return std::min(closed, limit + 1);
    }
    uint64_t messages = 0;
    ForEachStep([&messages, limit](uint32_t, uint32_t, uint32_t, const Step& step) {
        messages += step.sends.size();
        return messages <= limit;
    });
    return std::min(messages, limit + 1);
}

std::vector<CollectiveStep>
StepwiseCollective::GetSchedule() const
{
    NS_ASSERT_MSG(m_transport, "GetSchedule is valid after Setup");
    std::vector<CollectiveStep> schedule;
    ScheduleCursor cursor(*this, true);
    CollectiveStep step;
    while (cursor.Next(step))
    {
        schedule.push_back(std::move(step));
    }
    return schedule;
}

StepwiseCollective::ScheduleCursor::ScheduleCursor(const StepwiseCollective& program,
                                                   bool reduceFlags)
    : m_program(program),
      m_reduceFlags(reduceFlags)
{
    NS_ASSERT_MSG(program.m_transport, "a ScheduleCursor needs a collective after Setup");
    m_lengths.resize(program.m_ranks.size());
    for (uint32_t m = 0; m < m_lengths.size(); ++m)
    {
        m_lengths[m] = program.ChainLengths(m);
        for (uint32_t length : m_lengths[m])
        {
            m_steps = std::max(m_steps, length);
        }
    }
}

bool
StepwiseCollective::ScheduleCursor::Next(CollectiveStep& out)
{
    const uint32_t unit = m_program.GetUnit();
    const std::vector<uint32_t>& ranks = m_program.m_ranks;
    out.messages.clear();
    out.reduceBytes = 0;
    while (m_next < m_steps)
    {
        const uint32_t g = m_next++;
        for (uint32_t m = 0; m < m_lengths.size(); ++m)
        {
            uint64_t reduced = 0; // bytes member m reduces in step g, over its chains
            for (uint32_t c = 0; c < m_lengths[m].size(); ++c)
            {
                if (g >= m_lengths[m][c])
                {
                    continue;
                }
                m_program.BuildStep(m, c, g, m_step);
                for (const auto& s : m_step.sends)
                {
                    // The receiver awaits it in its step g of chain c (same tag).
                    ScheduledMessage msg;
                    msg.src = ranks[m];
                    msg.dst = ranks[s.to];
                    msg.bytes = s.seg.length * unit;
                    msg.chain = c;
                    msg.step = g;
                    msg.reduce = m_reduceFlags && c < m_lengths[s.to].size() &&
                                 g < m_lengths[s.to][c] && m_program.ReceiveReduces(s.to, c, g, m);
                    out.messages.push_back(msg);
                }
                reduced += m_step.ReducedUnits() * unit;
            }
            out.reduceBytes = std::max(out.reduceBytes, reduced);
        }
        if (!out.messages.empty())
        {
            return true;
        }
        out.reduceBytes = 0;
    }
    return false;
}

uint64_t
StepwiseCollective::GetInputLength(uint32_t /* member */) const
{
    return m_bytes / 4;
}

Eigen::VectorXf
StepwiseCollective::MakeWorkBuffer(uint32_t member) const
{
    return m_in[member];
}

void
StepwiseCollective::FinishMember(uint32_t /* member */)
{
}

void
StepwiseCollective::SetPacketTagger(PacketTagger tagger)
{
    m_tagger = tagger;
}

void
StepwiseCollective::SetMessageObserver(MessageObserver observer)
{
    m_observer = observer;
}

void
StepwiseCollective::OnPacket(const Message& msg, uint64_t offset, Ptr<Packet> packet)
{
    auto to = m_memberOfRank.find(msg.dst);
    auto from = m_memberOfRank.find(msg.src);
    NS_ASSERT_MSG(to != m_memberOfRank.end() && from != m_memberOfRank.end(),
                  "packet between non-members");
    PacketInfo info;
    info.fromMember = from->second;
    info.toMember = to->second;
    info.chain = msg.tag / m_stride;
    info.step = msg.tag % m_stride;
    info.unit = GetUnit();
    info.byteOffset = offset;
    info.length = packet->GetSize();
    BuildStep(info.fromMember, info.chain, info.step, m_scratch);
    for (const auto& s : m_scratch.sends)
    {
        if (s.to == info.toMember)
        {
            info.seg = s.seg;
            break;
        }
    }
    m_tagger(info, packet);
}

uint64_t
StepwiseCollective::Key(uint32_t tag, uint32_t fromMember)
{
    return (static_cast<uint64_t>(tag) << 32) | fromMember;
}

void
StepwiseCollective::DoStart()
{
    uint32_t n = static_cast<uint32_t>(m_ranks.size());
    if (HasRealPayload())
    {
        if (m_bytes % 4 != 0)
        {
            throw std::invalid_argument(
                "real payloads carry floats: bytes must be 4 x the number of floats, got " +
                std::to_string(m_bytes) + " bytes (not a multiple of 4)");
        }
        for (uint32_t m = 0; m < n; ++m)
        {
            uint64_t want = GetInputLength(m);
            if (static_cast<uint64_t>(m_in[m].size()) != want)
            {
                throw std::invalid_argument(
                    GetCollectiveName() + "/" + GetAlgorithmName() + ": member " +
                    std::to_string(m) + " input has " + std::to_string(m_in[m].size()) +
                    " floats but " + std::to_string(m_bytes) + " bytes need " +
                    std::to_string(want) + " floats (bytes must be 4 x floats)");
            }
        }
        m_out.resize(n);
        for (uint32_t m = 0; m < n; ++m)
        {
            m_out[m] = MakeWorkBuffer(m);
        }
    }
    m_chains.assign(n, {});
    m_stride = 1;
    for (uint32_t m = 0; m < n; ++m)
    {
        const auto lengths = ChainLengths(m);
        m_chains[m].resize(lengths.size());
        for (size_t c = 0; c < lengths.size(); ++c)
        {
            m_chains[m][c].length = lengths[c];
            m_stride = std::max(m_stride, lengths[c]);
        }
    }
    m_memberOfRank.clear();
    for (uint32_t m = 0; m < n; ++m)
    {
        m_memberOfRank[m_ranks[m]] = m;
    }
    if (!m_tagger.IsNull())
    {
        m_transport->SetPacketHook(GetChannel(), MakeCallback(&StepwiseCollective::OnPacket, this));
    }
    m_chainsLeft.assign(n, 0);
    m_computeFree.assign(n, Time(0));
    m_arrived.assign(n, {});
    for (uint32_t m = 0; m < n; ++m)
    {
        m_chainsLeft[m] = static_cast<uint32_t>(m_chains[m].size());
    }
    // Every member issues its first sends before anyone advances, so step 0 of
    // every chain leaves in chain order.
    for (uint32_t m = 0; m < n; ++m)
    {
        for (uint32_t c = 0; c < m_chains[m].size(); ++c)
        {
            if (m_chains[m][c].length > 0)
            {
                LoadStep(m, c);
                EnterStep(m, c);
            }
        }
    }
    for (uint32_t m = 0; m < n; ++m)
    {
        if (m_chainsLeft[m] == 0)
        {
            FinishMember(m);
            MemberDone(m);
            continue;
        }
        for (uint32_t c = 0; c < m_chains[m].size(); ++c)
        {
            if (m_chains[m][c].length == 0)
            {
                ChainFinished(m);
            }
            else
            {
                Advance(m, c);
            }
        }
    }
}

void
StepwiseCollective::ReduceSegment(Eigen::Ref<Eigen::VectorXf> dst, const float* src) const
{
    dst += Eigen::Map<const Eigen::VectorXf>(src, dst.size());
}

void
StepwiseCollective::LoadStep(uint32_t m, uint32_t c)
{
    ChainState& chain = m_chains[m][c];
    BuildStep(m, c, chain.cursor, chain.current);
    // Messages for a step may come before it is loaded (they are kept in m_arrived).
    const uint32_t tag = c * m_stride + chain.cursor;
    auto& arrived = m_arrived[m];
    uint32_t missing = 0;
    if (HasRealPayload())
    {
        for (const auto& r : chain.current.recvs)
        {
            missing += arrived.count(Key(tag, r.from)) == 0 ? 1 : 0;
        }
        chain.missing = missing;
        return;
    }
    // Virtual payloads: only sizes are read. The step keeps the totals of its receives
    // and takes the messages that came early; the others are counted as they come.
    const uint64_t unit = GetUnit();
    chain.expectedBytes = 0;
    chain.reducedBytes = 0;
    chain.takenBytes = 0;
    for (const auto& r : chain.current.recvs)
    {
        const uint64_t bytes = r.seg.length * unit;
        chain.expectedBytes += bytes;
        chain.reducedBytes += r.reduce ? bytes : 0;
        auto it = arrived.empty() ? arrived.end() : arrived.find(Key(tag, r.from));
        if (it == arrived.end())
        {
            ++missing;
            continue;
        }
        NS_ASSERT_MSG(it->second.bytes == bytes,
                      "message of " << it->second.bytes << " bytes, expected " << bytes);
        chain.takenBytes += it->second.bytes;
        arrived.erase(it);
    }
    chain.missing = missing;
    if (chain.current.recvs.capacity() > kKeptOps)
    {
        std::vector<RecvOp>().swap(chain.current.recvs);
    }
}

void
StepwiseCollective::EnterStep(uint32_t m, uint32_t c)
{
    ChainState& chain = m_chains[m][c];
    const Step& step = chain.current;
    uint32_t tag = c * m_stride + chain.cursor;
    uint32_t unit = GetUnit();
    for (const auto& s : step.sends)
    {
        MessageBytes data;
        if (HasRealPayload())
        {
            auto buf = std::make_shared<std::vector<uint8_t>>(s.seg.length * sizeof(float));
            std::memcpy(buf->data(), m_out[m].data() + s.seg.offset, buf->size());
            data = buf;
        }
        const uint64_t bytes = s.seg.length * unit;
        const bool observe = !m_observer.IsNull() && IsLocalMember(m);
        if (observe && bytes > std::numeric_limits<uint32_t>::max())
        {
            throw std::length_error(GetCollectiveName() + ": a message of " +
                                    std::to_string(bytes) +
                                    " bytes is too large to observe (at most 4 GiB)");
        }
        SendToMember(m, s.to, tag, bytes, data);
        if (observe)
        {
            PacketInfo info;
            info.fromMember = m;
            info.toMember = s.to;
            info.chain = c;
            info.step = chain.cursor;
            info.seg = s.seg;
            info.unit = unit;
            info.byteOffset = 0;
            info.length = static_cast<uint32_t>(bytes);
            m_observer(info, data);
        }
    }
    // Nothing reads a step's sends once issued (BuildStep fills them anew).
    if (chain.current.sends.capacity() > kKeptOps)
    {
        std::vector<SendOp>().swap(chain.current.sends);
    }
}

void
StepwiseCollective::HandleMessage(const Message& msg)
{
    auto it = m_memberOfRank.find(msg.dst);
    auto from = m_memberOfRank.find(msg.src);
    NS_ASSERT_MSG(it != m_memberOfRank.end() && from != m_memberOfRank.end(),
                  "message between non-members");
    uint32_t m = it->second;
    uint32_t c = msg.tag / m_stride;
    uint32_t g = msg.tag % m_stride;
    NS_ASSERT_MSG(c < m_chains[m].size(), "bad tag " << msg.tag);
    ChainState& chain = m_chains[m][c];
    NS_ASSERT_MSG(g >= chain.cursor, "message for a step already completed");
    // The loaded step at the cursor awaits it (while a reduction runs, the step at the
    // cursor is not loaded yet: LoadStep counts this message then).
    const bool awaited = g == chain.cursor && !chain.computing;
    if (awaited && !HasRealPayload())
    {
        // Only its size is read: counted, checked against the step's total when the
        // step completes (Advance), not kept.
        chain.takenBytes += msg.bytes;
    }
    else
    {
        bool fresh =
            m_arrived[m].emplace(Key(msg.tag, from->second), Arrived{msg.bytes, msg.data}).second;
        NS_ASSERT_MSG(fresh, "duplicate message " << msg.tag << " from member " << from->second);
    }
    if (awaited)
    {
        NS_ASSERT_MSG(chain.missing > 0,
                      "message " << msg.tag << " from member " << from->second
                                 << " beyond its step's receives");
        if (--chain.missing == 0)
        {
            Advance(m, c);
        }
    }
    else
    {
        NS_LOG_LOGIC("member " << m << " buffers message for step " << g << " of chain " << c
                               << " (at step " << chain.cursor << ")");
    }
}

void
StepwiseCollective::Advance(uint32_t m, uint32_t c)
{
    auto& arrived = m_arrived[m];
    ChainState& chain = m_chains[m][c];
    uint32_t unit = GetUnit();
    while (true)
    {
        uint32_t g = chain.cursor;
        uint32_t tag = c * m_stride + g;
        const Step& step = chain.current;
        if (chain.missing > 0)
        {
            return; // still waiting
        }
        uint64_t reducedBytes = 0;
        if (!HasRealPayload())
        {
            // Its messages were counted as they came (HandleMessage, LoadStep).
            NS_ASSERT_MSG(chain.takenBytes == chain.expectedBytes,
                          "messages of " << chain.takenBytes << " bytes for step " << g
                                         << ", expected " << chain.expectedBytes);
            reducedBytes = chain.reducedBytes;
        }
        else
        {
            for (const auto& r : step.recvs)
            {
                auto it = arrived.find(Key(tag, r.from));
                const Arrived& msg = it->second;
                NS_ASSERT_MSG(msg.bytes == r.seg.length * unit,
                              "message of " << msg.bytes << " bytes, expected "
                                            << r.seg.length * unit);
                NS_ASSERT_MSG(msg.data && msg.data->size() == r.seg.length * sizeof(float),
                              "real payload missing");
                auto dst = m_out[m].segment(r.seg.offset, r.seg.length);
                if (r.reduce)
                {
                    ReduceSegment(dst, reinterpret_cast<const float*>(msg.data->data()));
                    reducedBytes += msg.bytes;
                }
                else
                {
                    std::memcpy(dst.data(), msg.data->data(), msg.data->size());
                }
                arrived.erase(it);
            }
        }
        m_stepTrace(m, c, g);
        ++chain.cursor;
        if (reducedBytes > 0 && m_reduceTimePerByte > 0)
        {
            // One compute resource per member: this reduction starts when the
            // previous one ended; the next sends wait for it.
            Time now = Simulator::Now();
            Time start = std::max(now, m_computeFree[m]);
            m_computeFree[m] = start + Seconds(m_reduceTimePerByte * reducedBytes);
            chain.computing = true;
            Simulator::Schedule(m_computeFree[m] - now, &StepwiseCollective::Resume, this, m, c);
            return;
        }
        if (chain.cursor == chain.length)
        {
            ChainFinished(m);
            return;
        }
        LoadStep(m, c);
        EnterStep(m, c);
    }
}

void
StepwiseCollective::Resume(uint32_t m, uint32_t c)
{
    ChainState& chain = m_chains[m][c];
    chain.computing = false;
    if (chain.cursor == chain.length)
    {
        ChainFinished(m);
        return;
    }
    LoadStep(m, c);
    EnterStep(m, c);
    Advance(m, c);
}

void
StepwiseCollective::ChainFinished(uint32_t m)
{
    NS_ASSERT(m_chainsLeft[m] > 0);
    if (--m_chainsLeft[m] == 0)
    {
        NS_ASSERT_MSG(m_arrived[m].empty(), "member finished with unconsumed messages");
        FinishMember(m);
        MemberDone(m);
    }
}

uint64_t
StepwiseCollective::MessageCount() const
{
    return std::numeric_limits<uint64_t>::max();
}

uint64_t
StepwiseCollective::OneSendPerStepCount() const
{
    if (m_ranks.empty())
    {
        return 0;
    }
    uint64_t steps = 0;
    for (uint32_t length : ChainLengths(0))
    {
        steps += length;
    }
    return m_ranks.size() * steps;
}

} // namespace ns3
