// SPDX-License-Identifier: GPL-2.0-only
/*
 * GradientTag: the label a Checkmate-aware collective puts on every packet of
 * gradient traffic, so that a switch can match it: job, iteration, bucket, ring
 * (chain), collective phase (reduce-scatter / all-gather), step within the
 * phase, chunk, and the byte range of the gradient vector the packet carries.
 *
 * What it models. In a deployment these fields ride in a few header bytes
 * (e.g. NCCL's protocol header or an IP option) that a programmable switch
 * parses. Here they are an ns-3 packet tag: zero bytes on the wire, so tagging
 * changes no timing, and the mirroring switch reads exactly what it would parse.
 *
 * Left out: the wire encoding and its (few bytes of) overhead.
 */
#ifndef CHECKMATE_GRADIENT_TAG_H
#define CHECKMATE_GRADIENT_TAG_H

#include "ns3/stepwise-collective.h"
#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Packet tag naming the gradient data a packet carries.
 */
class GradientTag : public Tag
{
public:
    /// Phase of the collective.
    enum Phase : uint8_t
    {
        REDUCE_SCATTER = 0, //!< partial sums
        ALL_GATHER = 1,     //!< fully reduced data
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    /**
     * \brief The tag of a packet (or, at the flow level, a whole message) of one
     * iteration's ring all-reduce: one ring, one slice per chunk.
     * \param job training job
     * \param iteration training iteration
     * \param members the ring's members N (steps 0..N-2 reduce-scatter, then all-gather)
     * \param chunkBytes bytes of one of the N chunks
     * \param info where the packet sits in the collective's program
     * \return the tag
     */
    static GradientTag ForRingAllReduce(uint32_t job,
                                        uint32_t iteration,
                                        uint32_t members,
                                        uint64_t chunkBytes,
                                        const StepwiseCollective::PacketInfo& info);

    uint32_t job{0};               //!< training job
    uint32_t iteration{0};         //!< training iteration
    uint32_t bucket{0};            //!< gradient bucket (one per all-reduce; 0 here)
    uint32_t ring{0};              //!< ring / chain of the collective
    uint8_t phase{REDUCE_SCATTER}; //!< Phase
    uint32_t step{0};              //!< step within the phase (0-based)
    uint32_t chunk{0};             //!< chunk index (0..N-1)
    uint64_t offset{0};            //!< first byte of the gradient vector in the packet
    uint32_t length{0};            //!< gradient bytes in the packet
};

} // namespace ns3

#endif // CHECKMATE_GRADIENT_TAG_H
