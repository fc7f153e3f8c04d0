// SPDX-License-Identifier: GPL-2.0-only
#include "fluid-gradient-mirror.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/trace-names.h"
#include "ns3/uinteger.h"

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
            .AddTraceSource("Mirrored",
                            "A copy left for a shadow: the message's gradient tag, the "
                            "shadow's rank.",
                            MakeTraceSourceAccessor(&FluidGradientMirror::m_mirrorTrace),
                            "ns3::FluidGradientMirror::MirrorTracedCallback");
    return tid;
}

FluidGradientMirror::FluidGradientMirror() = default;
FluidGradientMirror::~FluidGradientMirror() = default;

void
FluidGradientMirror::DoDispose()
{
    m_transport = nullptr;
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
    const uint32_t copy = m_nextCopy++;
    m_inFlight[copy] = {tag, shard.shadow};
    m_bytes += tag.length;
    ++m_messages;
    m_mirrorTrace(tag, shard.rank);
    m_transport
        ->SendCopy(src, shard.rank, m_channel, copy, tag.length, data, m_sourcePort, m_shadowPort);
}

void
FluidGradientMirror::Arrived(const Message& msg)
{
    auto it = m_inFlight.find(msg.tag);
    NS_ASSERT_MSG(it != m_inFlight.end(), "a copy the mirror did not send");
    const auto [tag, shadow] = std::move(it->second);
    m_inFlight.erase(it);
    shadow->ReceiveClone(tag, msg.data->data());
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
