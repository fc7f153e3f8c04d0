// SPDX-License-Identifier: GPL-2.0-only
// Test support shared by the mlnet unit tests: a MessageTransport without packets.
// A message leaves its sender's NIC after the messages queued before it (FIFO per
// sender), at the sender's rate, and arrives a fixed latency after its last byte
// left, so collective and driver timings can be checked against exact formulas.
#ifndef MLNET_FIXED_RATE_TEST_TRANSPORT_H
#define MLNET_FIXED_RATE_TEST_TRANSPORT_H

#include "ns3/data-rate.h"
#include "ns3/message-transport.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ns3
{

class FixedRateTestTransport : public MessageTransport
{
public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::MlnetFixedRateTestTransport")
                                .SetParent<MessageTransport>()
                                .SetGroupName("Mlnet");
        return tid;
    }

    void Install(Ptr<Cluster> cluster) override
    {
        m_cluster = cluster;
        m_free.assign(cluster->GetNRanks(), Time(0));
        m_rate.assign(cluster->GetNRanks(), DataRate("8Gbps")); // 1 ns per byte
    }

    void Send(uint32_t src,
              uint32_t dst,
              uint32_t channel,
              uint32_t tag,
              uint64_t bytes,
              MessageBytes data) override
    {
        NotifySend(src, dst, bytes);
        Time now = Simulator::Now();
        Time start = std::max(now, m_free[src]);
        m_free[src] = start + m_rate[src].CalculateBytesTxTime(bytes);
        Message msg;
        msg.src = src;
        msg.dst = dst;
        msg.channel = channel;
        msg.tag = tag;
        msg.bytes = bytes;
        msg.data = data;
        msg.sent = now;
        Simulator::Schedule(m_free[src] + m_latency - now,
                            &FixedRateTestTransport::Arrive,
                            this,
                            msg);
    }

    uint32_t GetPerPacketOverhead() const override
    {
        return 0;
    }

    uint32_t GetMaxPayload() const override
    {
        return 1u << 30;
    }

    /// Slow one sender down (to make members run out of step).
    void SetRate(uint32_t rank, DataRate rate)
    {
        m_rate[rank] = rate;
    }

    Time m_latency{MicroSeconds(1)}; //!< added after the last byte leaves

private:
    void Arrive(Message msg)
    {
        msg.delivered = Simulator::Now();
        Deliver(msg);
    }

    std::vector<Time> m_free;
    std::vector<DataRate> m_rate;
};

} // namespace ns3

#endif // MLNET_FIXED_RATE_TEST_TRANSPORT_H
