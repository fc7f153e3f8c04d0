// SPDX-License-Identifier: GPL-2.0-only
#include "fluid-gradient-mirror.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/trace-names.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateFluidGradientMirror");
NS_OBJECT_ENSURE_REGISTERED(FluidGradientMirror);

TypeId
FluidGradientMirror::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FluidGradientMirror")
            .SetParent<Object>()
            .SetGroupName("Checkmate")
            .AddConstructor<FluidGradientMirror>()
            .AddAttribute("Mode",
                          "Which all-gather messages are copied: ReplicateOnce (step 0: each "
                          "chunk once, S bytes per iteration) or ReplicateAll ((N-1) x S).",
                          EnumValue(GradientMirror::REPLICATE_ONCE),
                          MakeEnumAccessor(&FluidGradientMirror::m_mode),
                          MakeEnumChecker(GradientMirror::REPLICATE_ONCE,
                                          "ReplicateOnce",
                                          GradientMirror::REPLICATE_ALL,
                                          "ReplicateAll"))
            .AddAttribute("Job",
                          "Training job whose gradients are mirrored.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FluidGradientMirror::m_job),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ShadowPort",
                          "Destination port of the copies (GradientMirror's ShadowPort): part "
                          "of the flow key their route is hashed on.",
                          UintegerValue(9100),
                          MakeUintegerAccessor(&FluidGradientMirror::m_shadowPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("SourcePort",
                          "Source port of the copies (GradientMirror's SourcePort): part of "
                          "the flow key their route is hashed on.",
                          UintegerValue(49153),
                          MakeUintegerAccessor(&FluidGradientMirror::m_sourcePort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("LossRate",
                          "Probability that a copied packet is lost on its way to the shadow "
                          "(drawn per packet the copy stands for; the shadow repairs it from "
                          "a worker).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FluidGradientMirror::m_lossRate),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Stream",
                          "Random-variable stream of the LossRate draws (one for the fabric).",
                          IntegerValue(950),
                          MakeIntegerAccessor(&FluidGradientMirror::m_stream),
                          MakeIntegerChecker<int64_t>(0))
            .AddTraceSource("Mirrored",
                            "A copy left for a shadow: the message's gradient tag, the "
                            "shadow's rank.",
                            MakeTraceSourceAccessor(&FluidGradientMirror::m_mirrorTrace),
                            "ns3::FluidGradientMirror::MirrorTracedCallback")
            .AddTraceSource("CloneDropped",
                            "A copied packet was dropped (LossRate or DropClone): its tag.",
                            MakeTraceSourceAccessor(&FluidGradientMirror::m_dropTrace),
                            "ns3::FluidGradientMirror::DropTracedCallback");
    return tid;
}

FluidGradientMirror::FluidGradientMirror() = default;
FluidGradientMirror::~FluidGradientMirror() = default;

void
FluidGradientMirror::DoDispose()
{
    m_transport = nullptr;
    m_loss.Dispose();
    m_shards.clear();
    m_inFlight.clear();
    Object::DoDispose();
}

void
FluidGradientMirror::Install(Ptr<FluidMessageTransport> transport)
{
    if (!transport || !transport->GetCluster())
    {
        throw std::invalid_argument("FluidGradientMirror::Install: give a FluidMessageTransport "
                                    "installed on the job's cluster");
    }
    if (m_transport)
    {
        throw std::invalid_argument("FluidGradientMirror::Install: already installed");
    }
    m_transport = transport;
    m_loss.SetStream(m_stream);
    TraceNames::Register(this, "FluidGradientMirror");
    m_channel = transport->RegisterChannel(MakeCallback(&FluidGradientMirror::Arrived, this),
                                           "checkmate-mirror");
}

void
FluidGradientMirror::SetShard(uint64_t first,
                              uint64_t length,
                              uint32_t rank,
                              Ptr<ShadowNode> shadow)
{
    m_shards[first] = {first + length, rank, shadow};
}

void
FluidGradientMirror::Mirror(uint32_t src, const GradientTag& tag, const MessageBytes& data)
{
    if (!GradientMirror::Selects(m_mode, m_job, tag))
    {
        return;
    }
    NS_ASSERT_MSG(m_transport, "FluidGradientMirror::Mirror before Install");
    if (!data || data->size() != tag.length)
    {
        throw std::invalid_argument("FluidGradientMirror: the all-gather message of iteration " +
                                    std::to_string(tag.iteration) +
                                    " carries no gradient values; the shadows need the real "
                                    "reduced gradient (a DataParallelTrainer's all-reduce)");
    }
    auto it = m_shards.upper_bound(tag.offset);
    if (it == m_shards.begin() || std::prev(it)->second.end < tag.offset + tag.length)
    {
        throw std::invalid_argument("FluidGradientMirror: gradient bytes [" +
                                    std::to_string(tag.offset) + ", " +
                                    std::to_string(tag.offset + tag.length) +
                                    ") do not lie in one shadow's shard; give each shadow a "
                                    "whole number of all-reduce chunks");
    }
    const Shard& shard = std::prev(it)->second;
    Copy record;
    record.tag = tag;
    record.shadow = shard.shadow;
    record.data = data;
    // The packets the copy stands for, each lost at LossRate or by the test hook.
    const uint32_t payload = m_transport->GetMaxPayload();
    const uint32_t packets = (tag.length + payload - 1) / payload;
    uint64_t surviving = 0;
    for (uint32_t k = 0; k < packets; ++k)
    {
        const uint32_t first = k * payload;
        const uint32_t length = std::min(payload, tag.length - first);
        if (!m_loss.NextIsLost(tag.iteration, m_lossRate))
        {
            surviving += length;
            continue;
        }
        if (record.lost.empty())
        {
            record.lost.assign(packets, false);
        }
        record.lost[k] = true;
        ++m_dropped;
        GradientTag piece = tag;
        piece.offset += first;
        piece.length = length;
        m_dropTrace(piece);
    }
    m_bytes += tag.length;
    m_packets += packets;
    ++m_messages;
    m_mirrorTrace(tag, shard.rank);
    if (surviving == 0)
    {
        return; // every packet lost: nothing leaves the switch
    }
    const uint32_t copy = m_nextCopy++;
    const uint32_t rank = shard.rank;
    m_inFlight[copy] = std::move(record);
    // The copy carries its surviving packets' bytes; its contents stay in the record.
    m_transport
        ->SendCopy(src, rank, m_channel, copy, surviving, nullptr, m_sourcePort, m_shadowPort);
}

void
FluidGradientMirror::Arrived(const Message& msg)
{
    auto it = m_inFlight.find(msg.tag);
    NS_ASSERT_MSG(it != m_inFlight.end(), "a copy the mirror did not send");
    const Copy copy = std::move(it->second);
    m_inFlight.erase(it);
    const uint8_t* bytes = copy.data->data();
    if (copy.lost.empty())
    {
        copy.shadow->ReceiveClone(copy.tag, bytes);
        return;
    }
    // The surviving packets, run by run.
    const uint32_t payload = m_transport->GetMaxPayload();
    const uint32_t packets = static_cast<uint32_t>(copy.lost.size());
    for (uint32_t k = 0; k < packets;)
    {
        if (copy.lost[k])
        {
            ++k;
            continue;
        }
        uint32_t end = k;
        while (end < packets && !copy.lost[end])
        {
            ++end;
        }
        const uint32_t first = k * payload;
        GradientTag piece = copy.tag;
        piece.offset += first;
        piece.length = std::min(end * payload, copy.tag.length) - first;
        copy.shadow->ReceiveClone(piece, bytes + first);
        k = end;
    }
}

void
FluidGradientMirror::DropClone(uint32_t iteration, uint32_t index)
{
    m_loss.Drop(iteration, index);
}

uint64_t
FluidGradientMirror::GetMirroredPackets() const
{
    return m_packets;
}

uint64_t
FluidGradientMirror::GetDroppedPackets() const
{
    return m_dropped;
}

uint64_t
FluidGradientMirror::GetMirroredBytes() const
{
    return m_bytes;
}

uint64_t
FluidGradientMirror::GetMirroredMessages() const
{
    return m_messages;
}

} // namespace ns3
