// SPDX-License-Identifier: GPL-2.0-only
/*
 * FluidGradientMirror: the mirroring rule of Checkmate's switches at the flow level.
 *
 * What it models. At the flow level no packet exists to tag or clone: the ring
 * all-reduce reports each message as it is sent (StepwiseCollective's message
 * observer, with the same GradientTag a packet of it would carry), and the mirror
 * applies GradientMirror's rule (Selects: the job's all-gather, step 0 only with
 * ReplicateOnce) to the whole message. A selected message is copied by the switch
 * its sender is attached to: FluidMessageTransport::SendCopy makes it a transfer of
 * the same wire bytes from that switch to the shadow owning its byte range, which
 * loads the links beyond the switch and arrives after the route's pipeline latency.
 * The shadow receives the message's contents (the reduced chunk) whole
 * (ShadowNode::ReceiveClone).
 *
 * Against the packet level. Same clones, bytes and shadows, on the same paths: the
 * copy's flow key is the clone's (the switch's first address, the shadow's, UDP,
 * SourcePort, ShadowPort), hashed as the switch's own frames are. One copy per
 * message instead of one per packet, so a shadow stores a chunk at once when its
 * last byte arrives.
 *
 * Reached by Config path as /Names/FluidGradientMirror (TraceNames).
 *
 * Left out: lost clones (GradientMirror's LossRate and DropClone have no flow-level
 * model: a fluid message is not lost in part), and what GradientMirror leaves out.
 */
#ifndef CHECKMATE_FLUID_GRADIENT_MIRROR_H
#define CHECKMATE_FLUID_GRADIENT_MIRROR_H

#include "ns3/fluid-message-transport.h"
#include "ns3/gradient-mirror.h"
#include "ns3/gradient-tag.h"
#include "ns3/object.h"
#include "ns3/shadow-node.h"
#include "ns3/traced-callback.h"

#include <map>
#include <unordered_map>
#include <utility>

namespace ns3
{

/**
 * \brief Copies fully reduced gradient messages to shadow nodes (the flow level).
 */
class FluidGradientMirror : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FluidGradientMirror();
    ~FluidGradientMirror() override;

    /**
     * \brief Copy on this transport's messages (registers the copies' channel).
     * \param transport the job's flow-level transport, installed on its cluster
     * Throws std::invalid_argument when it is null or not installed, or when called twice.
     */
    void Install(Ptr<FluidMessageTransport> transport);
    /**
     * \brief A shadow owns gradient bytes [first, first + length).
     * \param first first byte of its shard
     * \param length bytes of its shard
     * \param rank the shadow's rank
     * \param shadow the shadow application
     */
    void SetShard(uint64_t first, uint64_t length, uint32_t rank, Ptr<ShadowNode> shadow);
    /**
     * \brief A rank sends a tagged message now: copy it to its shard's shadow when the
     * mirroring rule selects it.
     * \param src the sending rank
     * \param tag the message's tag (GradientTag::ForRingAllReduce of the whole message)
     * \param data its contents (the real gradient bytes)
     * Throws std::invalid_argument for a selected message without contents or whose
     * bytes straddle two shards.
     */
    void Mirror(uint32_t src, const GradientTag& tag, const MessageBytes& data);

    /// \return gradient bytes copied
    uint64_t GetMirroredBytes() const;
    /// \return messages copied
    uint64_t GetMirroredMessages() const;

    /// Signature of the Mirrored trace: the copied message's tag, the shadow's rank.
    typedef void (*MirrorTracedCallback)(const GradientTag& tag, uint32_t shadowRank);

protected:
    void DoDispose() override;

private:
    /// A copy arrived at its shadow.
    void Arrived(const Message& msg);

    /// A shard's owner.
    struct Shard
    {
        uint64_t end{0};        //!< one past its last byte
        uint32_t rank{0};       //!< the shadow's rank
        Ptr<ShadowNode> shadow; //!< the shadow application
    };

    GradientMirror::Mode m_mode{GradientMirror::REPLICATE_ONCE}; //!< attribute Mode
    uint32_t m_job{0};                                           //!< attribute Job
    uint16_t m_shadowPort{9100};                                 //!< attribute ShadowPort
    uint16_t m_sourcePort{49153};                                //!< attribute SourcePort
    Ptr<FluidMessageTransport> m_transport;
    uint32_t m_channel{0};
    std::map<uint64_t, Shard> m_shards; //!< first byte -> owner
    /// Copies in flight, by the tag their message carries: what the shadow is handed.
    std::unordered_map<uint32_t, std::pair<GradientTag, Ptr<ShadowNode>>> m_inFlight;
    uint32_t m_nextCopy{0};
    uint64_t m_bytes{0};
    uint64_t m_messages{0};
    TracedCallback<const GradientTag&, uint32_t> m_mirrorTrace; //!< copy sent
};

} // namespace ns3

#endif // CHECKMATE_FLUID_GRADIENT_MIRROR_H
