// SPDX-License-Identifier: GPL-2.0-only
/*
 * GradientMirror: the mirroring rule of a Checkmate switch.
 *
 * What it models. Installed on a switch node, it watches every packet the
 * switch forwards (Ipv4L3Protocol "UnicastForward", i.e. after the routing
 * decision and before the packet is queued on its output port) and matches
 * gradient traffic by its GradientTag. A packet that entered the fabric at this
 * switch (its source is a worker attached here), belongs to the all-gather phase
 * of the ring all-reduce (fully reduced data) and is selected by the mode, is
 * cloned: the clone keeps the message payload and the tag, and its destination
 * is rewritten to the shadow node owning the packet's byte range (SetShard).
 * The original packet continues unchanged and undelayed: the clone is built
 * beside it and leaves on the shadow's port.
 *
 * Modes: ReplicateOnce (default) clones only all-gather step 0, where each rank
 * sends the chunk it has just finished reducing, so the shadows receive each
 * chunk exactly once: S bytes per iteration per data-parallel group.
 * ReplicateAll clones every all-gather packet: (N-1) x S bytes.
 *
 * Lost clones: LossRate drops each clone with that probability (its own random
 * stream, so the losses follow --RngRun), through the same path as the DropClone test
 * hook: counted in GetDroppedPackets and the CloneDropped trace, repaired by the shadow.
 *
 * Data paths. On the IPv4 path the tap is Ipv4L3Protocol "UnicastForward" and the
 * clone leaves through a UDP socket of the switch (bound to SourcePort), whose stack
 * gives it new UDP/IPv4 headers. On the fast data path (FastForwarding, no IPv4) the
 * tap is FastForwarding "Forward" (also before the frame is queued) and the clone is
 * sent with FastForwarding::Send as a frame to the shadow's rank, whose flow key is
 * what the IPv4 stack would write: the switch's first address (Cluster::GetNodeAddress,
 * its interface 1), SourcePort, ShadowPort, UDP. So the clone takes the same path,
 * leaves before the original as on the IPv4 path, has the same size on the wire and
 * draws the same LossRate numbers: both paths give the same times, bytes and repairs.
 *
 * Left out: the switch pipeline's own latency and its multicast-engine limits. Mirrored
 * copies are not part of the training transport's reliability (losses are
 * repaired by the shadows, see ShadowNode).
 */
#ifndef CHECKMATE_GRADIENT_MIRROR_H
#define CHECKMATE_GRADIENT_MIRROR_H

#include "ns3/clone-loss.h"
#include "ns3/cluster.h"
#include "ns3/fast-forwarding.h"
#include "ns3/gradient-tag.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <map>
#include <set>
#include <vector>

namespace ns3
{

/**
 * \brief Clones fully reduced gradient packets to shadow nodes at a switch.
 */
class GradientMirror : public Object
{
public:
    /// Which all-gather packets are cloned.
    enum Mode
    {
        REPLICATE_ONCE, //!< all-gather step 0 only: each chunk once
        REPLICATE_ALL,  //!< every all-gather packet
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GradientMirror();
    ~GradientMirror() override;

    /**
     * \brief Install on a switch (IPv4 or fast data path): packets whose source is one
     * of `workers` and that enter the fabric here are candidates. The mirror is aggregated to the
     * switch node, which owns it from then on (one mirror per switch). \param sw the switch node
     * \param cluster the cluster (to find the workers attached to sw)
     * \param workers ranks of the data-parallel group
     * \return number of workers attached to this switch
     */
    uint32_t Install(Ptr<Node> sw, Ptr<Cluster> cluster, const std::vector<uint32_t>& workers);
    /**
     * \brief The shadow that owns gradient bytes [first, first + length): its rank
     * (what the fast data path routes to) and its address (the IPv4 path's
     * destination, and the Mirrored trace's). Ranges must not overlap.
     */
    void SetShard(uint64_t first, uint64_t length, uint32_t rank, Ipv4Address shadow);
    /**
     * \brief Test hook: do not send the `index`-th clone (0-based) of an iteration
     * (a lost mirrored packet).
     */
    void DropClone(uint32_t iteration, uint32_t index);

    /**
     * \brief The mirroring rule: whether a tagged packet (or message) is cloned.
     * \param mode the mirror's Mode
     * \param job the mirror's Job
     * \param tag the packet's tag
     * \return true for an all-gather packet of the job that the mode selects
     */
    static bool Selects(Mode mode, uint32_t job, const GradientTag& tag);

    /// \return gradient payload bytes cloned (sent or dropped)
    uint64_t GetMirroredBytes() const;
    /// \return clones made
    uint64_t GetMirroredPackets() const;
    /// \return clones dropped (by DropClone or drawn at LossRate)
    uint64_t GetDroppedPackets() const;

protected:
    void DoDispose() override;

private:
    /// A shadow: its rank (fast path) and address.
    struct Shadow
    {
        uint32_t rank{UINT32_MAX};
        Ipv4Address address;
    };

    /// IPv4 path: a packet forwarded by the switch (UDP header on).
    void OnForward(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t interface);
    /// Fast path: a frame forwarded by the switch (FastFrameHeader on).
    void OnFastForward(Ptr<const Packet> frame, uint32_t dstRank);
    /**
     * Clone a packet of `source` whose first `headerBytes` are the network headers,
     * or drop the clone; sends it to its shard's shadow.
     */
    void Mirror(uint32_t source, Ptr<const Packet> packet, uint32_t headerBytes);

    Mode m_mode{REPLICATE_ONCE};  //!< attribute Mode
    uint16_t m_port{9100};        //!< attribute ShadowPort
    uint32_t m_job{0};            //!< attribute Job
    double m_lossRate{0};         //!< attribute LossRate
    int64_t m_stream{950};        //!< attribute Stream
    uint16_t m_sourcePort{49153}; //!< attribute SourcePort
    Ptr<Node> m_node;
    Ptr<Socket> m_socket;         //!< IPv4 path: the switch's UDP socket
    Ptr<FastForwarding> m_fast;   //!< fast path: the switch's forwarding
    Ipv4Address m_address;        //!< fast path: the clones' source address
    std::set<uint32_t> m_ingress; //!< source addresses (raw)
    std::map<uint64_t, std::pair<uint64_t, Shadow>> m_shards; //!< first -> (end, shadow)
    CloneLoss m_loss; //!< which clones are lost (LossRate draws, DropClone)
    uint64_t m_bytes{0};
    uint64_t m_packets{0};
    uint64_t m_dropped{0};
    TracedCallback<const GradientTag&, Ipv4Address> m_mirrorTrace; //!< clone sent
    TracedCallback<const GradientTag&> m_dropTrace;                //!< clone dropped
};

} // namespace ns3

#endif // CHECKMATE_GRADIENT_MIRROR_H
