// SPDX-License-Identifier: GPL-2.0-only
/*
 * PcapCapture: one pcap file of one point-to-point device, written the way a user
 * reads it in Wireshark or tshark.
 *
 * Every frame the device sends or receives (its PromiscSniffer trace, as ns-3's
 * PointToPointHelper::EnablePcap) becomes a PPP record with a nanosecond timestamp
 * (back-to-back 100 Gb/s frames are well under a microsecond apart) and at most
 * `snapLength` bytes of the frame (the record keeps the frame's real length).
 *
 * On the fast data path (DataPath "fast") frames carry a FastFrameHeader where
 * IPv4 + UDP would be, of the same 28 bytes. The capture writes the IPv4 and UDP
 * headers that header stands for in its place: source and destination rank
 * addresses, protocol, ports, IPv4 total length and UDP length from the frame's
 * size, TTL 64 and a valid IPv4 header checksum, no UDP checksum (0, allowed for
 * IPv4). So a fast-path capture decodes as the IPv4 path's UDP traffic does. Left
 * out: IPv4 identification (0) and flags, which the fast path has no notion of.
 * The simulated frame is never touched; only the bytes written to the file change.
 *
 * Inside a run (RunReport::Main) the file is opened at a staged temporary name and
 * renamed with the run's other files when the run succeeded (OutputFiles); a failed
 * write is the run's error, not a silently short capture.
 */
#ifndef MLNET_PCAP_CAPTURE_H
#define MLNET_PCAP_CAPTURE_H

#include "ns3/fast-frame-header.h"
#include "ns3/packet.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief A device's frames written to a pcap file: nanosecond timestamps, a snap
 * length, fast-path frames as IPv4/UDP.
 */
class PcapCapture : public SimpleRefCount<PcapCapture>
{
public:
    /// Bytes of PPP (2) + IPv4 (20) + UDP (8): the least a snap length may keep.
    static constexpr uint32_t MIN_SNAP_LENGTH = 30;
    /// What a snap length of 0 ("whole frames") keeps: pcap's usual limit.
    static constexpr uint32_t WHOLE_FRAMES = 65535;

    /**
     * \brief Open `file` for writing (PPP link type, nanosecond timestamps).
     * \param file the file to create (overwritten)
     * \param snapLength bytes kept of each frame: 0 = whole frames, otherwise at least
     *        MIN_SNAP_LENGTH (throws std::invalid_argument otherwise)
     * \param fastFrames true on a fast data path fabric: frames carry a FastFrameHeader
     *        that is written as IPv4 + UDP
     * Throws std::invalid_argument naming the file when it cannot be created.
     */
    PcapCapture(const std::string& file, uint32_t snapLength, bool fastFrames);

    /// \brief Capture every frame `device` sends or receives from now on.
    void Attach(Ptr<PointToPointNetDevice> device);
    /// \brief Write one PPP frame (as the device's PromiscSniffer gives it), now.
    void Write(Ptr<const Packet> frame);
    /// \brief Close the file (later frames are ignored); the destructor closes it too.
    void Close();
    /// \return the snap length written in the file's header (bytes)
    uint32_t GetSnapLength() const;

    /**
     * \brief The IPv4 + UDP headers that a fast-path frame's header stands for.
     * \param h the frame's FastFrameHeader
     * \param ipLength the IPv4 total length: the frame's bytes after the PPP header
     * \param out receives FastFrameHeader::SIZE (28) bytes: IPv4 then UDP, network order
     */
    static void WriteIpv4Udp(const FastFrameHeader& h, uint32_t ipLength, uint8_t* out);

    /**
     * \brief Check a snap length given by a user (0, or at least MIN_SNAP_LENGTH);
     * throws std::invalid_argument saying what is valid.
     * \param snapLength the value
     * \param flag how the user gave it, for the message (e.g. "--pcapSnapLen")
     */
    static void CheckSnapLength(uint32_t snapLength, const std::string& flag);

private:
    static void Sniff(Ptr<PcapCapture> capture, Ptr<const Packet> frame);

    Ptr<PcapFileWrapper> m_file;
    std::string m_name;    //!< the file's final name
    uint32_t m_snapLength; //!< bytes kept of each frame
    bool m_fastFrames;
    bool m_open{true};
    std::vector<uint8_t> m_bytes; //!< the record being written (reused)
};

} // namespace ns3

#endif // MLNET_PCAP_CAPTURE_H
