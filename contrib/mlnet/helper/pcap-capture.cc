// SPDX-License-Identifier: GPL-2.0-only
#include "pcap-capture.h"

#include "ns3/boolean.h"
#include "ns3/buffer.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/output-files.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetPcapCapture");

namespace
{
/// Bytes of the PPP header in front of every point-to-point frame (its protocol field).
constexpr uint32_t kPppBytes = 2;
/// Bytes of an IPv4 header without options.
constexpr uint32_t kIpv4Bytes = 20;
/// TTL written for fast-path frames (the fast path has none): Linux's default.
constexpr uint8_t kTtl = 64;
} // namespace

PcapCapture::PcapCapture(const std::string& file, uint32_t snapLength, bool fastFrames)
    : m_name(file),
      m_snapLength(snapLength == 0 ? WHOLE_FRAMES : snapLength),
      m_fastFrames(fastFrames)
{
    CheckSnapLength(snapLength, "snap length");
    m_file = CreateObject<PcapFileWrapper>();
    m_file->SetAttribute("NanosecMode", BooleanValue(true));
    // Opened now (ns-3's wrapper writes as frames pass) at the staged name, renamed
    // with the run's other files (OutputFiles).
    m_file->Open(OutputFiles::Stage(file), std::ios::out);
    if (m_file->Fail())
    {
        throw std::invalid_argument("cannot create the pcap file " + file +
                                    ": check that its folder exists and is writable");
    }
    m_file->Init(PcapHelper::DLT_PPP, m_snapLength);
    NS_LOG_INFO("pcap " << file << " snap length " << m_snapLength
                        << (fastFrames ? ", fast frames as IPv4/UDP" : ""));
}

void
PcapCapture::CheckSnapLength(uint32_t snapLength, const std::string& flag)
{
    if (snapLength != 0 && (snapLength < MIN_SNAP_LENGTH || snapLength > WHOLE_FRAMES))
    {
        throw std::invalid_argument(
            flag + "=" + std::to_string(snapLength) + ": keeps too " +
            (snapLength < MIN_SNAP_LENGTH ? "little" : "much") + " of each frame; give " +
            std::to_string(MIN_SNAP_LENGTH) + ".." + std::to_string(WHOLE_FRAMES) +
            " bytes (PPP + IPv4 + UDP headers are 30) or 0 for whole frames");
    }
}

void
PcapCapture::Attach(Ptr<PointToPointNetDevice> device)
{
    NS_ASSERT(device);
    Ptr<PcapCapture> self(this);
    device->TraceConnectWithoutContext("PromiscSniffer",
                                       MakeBoundCallback(&PcapCapture::Sniff, self));
    // The file is complete when the simulation is destroyed, as FlowMonitor's XML is,
    // or, for a simulation never destroyed, when the run's files are committed.
    Simulator::ScheduleDestroy(&PcapCapture::Close, self);
    OutputFiles::Stage(m_name, [self]() { self->Close(); });
}

void
PcapCapture::Sniff(Ptr<PcapCapture> capture, Ptr<const Packet> frame)
{
    capture->Write(frame);
}

void
PcapCapture::Write(Ptr<const Packet> frame)
{
    if (!m_open)
    {
        return;
    }
    uint32_t size = frame->GetSize();
    uint32_t kept = std::min(size, m_snapLength);
    m_bytes.resize(kept);
    frame->CopyData(m_bytes.data(), kept);
    if (m_fastFrames && size >= kPppBytes + FastFrameHeader::SIZE)
    {
        // The snap length keeps at least the headers (CheckSnapLength).
        Buffer b;
        b.AddAtStart(FastFrameHeader::SIZE);
        b.Begin().Write(m_bytes.data() + kPppBytes, FastFrameHeader::SIZE);
        FastFrameHeader h;
        h.Deserialize(b.Begin());
        WriteIpv4Udp(h, size - kPppBytes, m_bytes.data() + kPppBytes);
    }
    // The record's original length is the whole frame; the wrapper keeps `kept` bytes.
    m_file->Write(Simulator::Now(), m_bytes.data(), size);
}

void
PcapCapture::Close()
{
    if (m_open)
    {
        m_open = false;
        // A write that failed (disk full, file too large) leaves the stream failed.
        const bool failed = m_file->Fail();
        m_file->Close();
        if (failed)
        {
            OutputFiles::Fail(m_name,
                              "pcap: writing " + m_name +
                                  " failed (disk full or file too large?); lower --pcapSnapLen, "
                                  "capture fewer devices (--pcapClass) or free disk space");
        }
    }
}

uint32_t
PcapCapture::GetSnapLength() const
{
    return m_snapLength;
}

void
PcapCapture::WriteIpv4Udp(const FastFrameHeader& h, uint32_t ipLength, uint8_t* out)
{
    NS_ASSERT(ipLength >= FastFrameHeader::SIZE && ipLength <= 0xffff);
    // The fast path carries UDP only (UdpMessageTransport); the protocol is copied
    // from the frame all the same, as the flow hash reads it.
    Ipv4Header ip;
    ip.SetSource(Ipv4Address(h.srcAddr));
    ip.SetDestination(Ipv4Address(h.dstAddr));
    ip.SetProtocol(h.protocol);
    ip.SetPayloadSize(ipLength - kIpv4Bytes);
    ip.SetTtl(kTtl);
    ip.EnableChecksum();
    UdpHeader udp;
    udp.SetSourcePort(h.srcPort);
    udp.SetDestinationPort(h.dstPort);
    udp.ForcePayloadSize(ipLength - kIpv4Bytes); // the UDP length field: header + payload
    Buffer b;
    b.AddAtStart(FastFrameHeader::SIZE);
    Buffer::Iterator i = b.Begin();
    ip.Serialize(i);
    i.Next(kIpv4Bytes);
    udp.Serialize(i);
    b.CopyData(out, FastFrameHeader::SIZE);
}

} // namespace ns3
