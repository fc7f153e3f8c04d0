// SPDX-License-Identifier: GPL-2.0-only
/*
 * Packetization: how a message of m application bytes goes on the wire, as the
 * analytical models (AlphaBetaModel, the closed-form iteration models of the seed
 * modules) count it.
 *
 * What it models. A message of m bytes is cut into n = ceil(m/P) packets of at most
 * P payload bytes (the transport's GetMaxPayload); every packet adds O wire bytes
 * (GetPerPacketOverhead: transport, L4, IPv4 and PPP headers). So the message puts
 * W(m) = m + n*O bytes on every link it crosses, and its first frame, the one a
 * store-and-forward hop must receive whole before it forwards anything, is
 * F1 = min(m, P) + O bytes (0 for an empty message).
 *
 * Whole-byte messages use the integer functions. A closed form that times a share of
 * a total (S/n bytes of a ring) may ask for a size that is not whole: the Fluid
 * functions take it as a real number, with the same formulas (equal to the integer
 * ones on whole sizes from 1 to 2^53 bytes).
 *
 * What it leaves out. Packets all carry P bytes but the last; the transport's own
 * control traffic (acknowledgements, repair requests) is not counted, nor is a TCP
 * stream's segmentation differing from the message boundaries.
 */
#ifndef MLNET_PACKETIZATION_H
#define MLNET_PACKETIZATION_H

#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class MessageTransport;

/**
 * \brief Payload per packet P and wire overhead per packet O, and what they give a
 * message: packet count n, wire bytes W(m), first frame F1.
 */
class Packetization
{
public:
    /// The UDP transport's at MTU 9000: P = 8972, O = 30.
    Packetization();
    /**
     * \brief Build from the numbers.
     * \param maxPayload application bytes per packet (P >= 1; throws std::invalid_argument)
     * \param overhead wire bytes added to every packet (O)
     */
    Packetization(uint32_t maxPayload, uint32_t overhead);
    /**
     * \brief Build from a transport's GetMaxPayload and GetPerPacketOverhead.
     * \param transport a transport whose device MTU is known (throws
     * std::invalid_argument if null)
     */
    explicit Packetization(Ptr<const MessageTransport> transport);

    /// \return P, the application bytes per packet
    uint32_t GetMaxPayload() const;
    /// \return O, the wire bytes added per packet
    uint32_t GetPerPacketOverhead() const;

    /// \return n = ceil(m / P), the packets of an m-byte message
    uint64_t GetPacketCount(uint64_t bytes) const;
    /// \return W(m) = m + n * O, the wire bytes of an m-byte message on one link
    uint64_t GetWireBytes(uint64_t bytes) const;
    /// \return F1 = min(m, P) + O, the first frame's wire bytes (0 for m = 0)
    uint64_t GetFirstFrameBytes(uint64_t bytes) const;

    /// \return n = ceil(m / P) for a size that need not be whole
    double GetFluidPacketCount(double bytes) const;
    /// \return W(m) = m + n * O for a size that need not be whole
    double GetFluidWireBytes(double bytes) const;
    /**
     * \return F1 = min(m, P) + O for a size that need not be whole. Unlike the integer
     * function it is not 0 at m = 0: a closed form that asks for it charges the header
     * of its (empty) first frame, as LlmIterationModel always did.
     */
    double GetFluidFirstFrameBytes(double bytes) const;

private:
    /// ceil(m / P), in the arithmetic of the size's type.
    static uint64_t Ceil(uint64_t bytes, uint32_t payload);
    static double Ceil(double bytes, uint32_t payload);

    /// W(m) and min(m, P) + O, written once for whole and real sizes.
    template <typename Bytes>
    Bytes Wire(Bytes bytes) const;
    template <typename Bytes>
    Bytes FirstFrame(Bytes bytes) const;

    uint32_t m_maxPayload{8972};
    uint32_t m_overhead{30};
};

} // namespace ns3

#endif // MLNET_PACKETIZATION_H
