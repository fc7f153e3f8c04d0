// SPDX-License-Identifier: GPL-2.0-only
/*
 * MessageLog: every message a transport delivers on a Cluster, one CSV row each:
 * source and destination ranks, bytes, the label of its channel (the collective or
 * training task it belongs to), channel and tag, and its start (Send) and end
 * (last byte delivered) times.
 *
 * It listens to the cluster's ObjectBound trace and connects to the MessageDelivered
 * trace of every transport that starts sending on the cluster, so UDP, TCP and any
 * other MessageTransport are logged alike. Rows are streamed to the file in delivery
 * order; memory does not grow with the run. Inside a run the file is staged with the
 * run's other files (OutputFiles) and a failed write is the run's error.
 *
 * Not logged: messages still in flight when the run ends (never delivered), and
 * packets (see --pcap, --flowmon).
 */
#ifndef MLNET_MESSAGE_LOG_H
#define MLNET_MESSAGE_LOG_H

#include "ns3/cluster.h"
#include "ns3/message-transport.h"
#include "ns3/object.h"

#include <fstream>
#include <string>

namespace ns3
{

/**
 * \brief Writes one CSV row per delivered message of a cluster.
 */
class MessageLog : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    MessageLog();
    ~MessageLog() override;

    /**
     * \brief Log the messages of every transport that starts on this cluster (call
     * before the transport's first Send). The file is created now and closed when the
     * simulation is destroyed. Throws std::invalid_argument when it cannot be written.
     */
    void Install(Ptr<Cluster> cluster, const std::string& file);
    /// \return messages logged so far
    uint64_t GetMessages() const;
    /// \return application bytes of the messages logged so far
    uint64_t GetBytes() const;

protected:
    void DoDispose() override;

private:
    void ObjectBound(Ptr<Object> object);
    void Delivered(const Message& msg, const std::string& label);

    Ptr<Cluster> m_cluster;
    std::ofstream m_out;
    std::string m_file; //!< the final name of the file
    uint64_t m_messages{0};
    uint64_t m_bytes{0};
};

} // namespace ns3

#endif // MLNET_MESSAGE_LOG_H
