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
 * Lost clones. A copy stands for the message's packets (the transport's payload
 * size): LossRate drops each of them with that probability (its own random stream,
 * Stream, so the losses follow --RngRun), and DropClone(iteration, index) drops the
 * index-th packet the mirror copies in an iteration, as GradientMirror's test hook
 * does. The copy then carries its surviving packets' bytes, and the shadow receives
 * only their byte ranges and repairs the rest from a worker (ShadowNode's repair).
 *
 * Against the packet level. Same clones, bytes and shadows, on the same paths: the
 * copy's flow key is the clone's (the switch's first address, the shadow's, UDP,
 * SourcePort, ShadowPort), hashed as the switch's own frames are. One copy per
 * message instead of one per packet, so a shadow stores a chunk at once when its
 * last byte arrives. The loss draws are one stream for the fabric (the packet level
 * draws per switch, in the order the packets pass), so the same rate loses other
 * packets.
 *
 * Reached by Config path as /Names/FluidGradientMirror (TraceNames).
 *
 * Left out: what GradientMirror leaves out; a lost packet's bytes still cross the
 * links before the switch (the original's, which is not lost).
 */
#ifndef CHECKMATE_FLUID_GRADIENT_MIRROR_H
#define CHECKMATE_FLUID_GRADIENT_MIRROR_H

#include "ns3/clone-loss.h"
#include "ns3/fluid-message-transport.h"
#include "ns3/gradient-mirror.h"
#include "ns3/gradient-tag.h"
#include "ns3/object.h"
#include "ns3/shadow-node.h"
#include "ns3/traced-callback.h"

#include <map>
#include <unordered_map>
#include <vector>

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

    /**
     * \brief Test hook: drop the `index`-th packet (0-based) the mirror copies in an
     * iteration (a lost mirrored packet).
     */
    void DropClone(uint32_t iteration, uint32_t index);

    /// \return gradient bytes copied (sent or dropped)
    uint64_t GetMirroredBytes() const;
    /// \return messages copied
    uint64_t GetMirroredMessages() const;
    /// \return packets the copies stand for (sent or dropped)
    uint64_t GetMirroredPackets() const;
    /// \return packets dropped (by DropClone or drawn at LossRate)
    uint64_t GetDroppedPackets() const;

    /// Signature of the Mirrored trace: the copied message's tag, the shadow's rank.
    typedef void (*MirrorTracedCallback)(const GradientTag& tag, uint32_t shadowRank);
    /// Signature of the CloneDropped trace: the dropped packet's tag (its byte range).
    typedef void (*DropTracedCallback)(const GradientTag& tag);

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

    /// A copy in flight: what its shadow is handed when it arrives.
    struct Copy
    {
        GradientTag tag;        //!< the whole message's tag
        Ptr<ShadowNode> shadow; //!< its shadow
        MessageBytes data;      //!< the message's contents
        std::vector<bool> lost; //!< per packet of GetMaxPayload bytes (empty: none lost)
    };

    /// Copies in flight, by the tag their message carries.
    std::unordered_map<uint32_t, Copy> m_inFlight;
    uint32_t m_nextCopy{0};
    double m_lossRate{0};  //!< attribute LossRate
    int64_t m_stream{950}; //!< attribute Stream
    CloneLoss m_loss;      //!< which packets are lost
    uint64_t m_bytes{0};
    uint64_t m_messages{0};
    uint64_t m_packets{0};
    uint64_t m_dropped{0};
    TracedCallback<const GradientTag&, uint32_t> m_mirrorTrace; //!< copy sent
    TracedCallback<const GradientTag&> m_dropTrace;             //!< packet dropped
};

} // namespace ns3

#endif // CHECKMATE_FLUID_GRADIENT_MIRROR_H
