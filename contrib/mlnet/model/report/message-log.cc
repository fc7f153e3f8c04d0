// SPDX-License-Identifier: GPL-2.0-only
#include "message-log.h"

#include "ns3/log.h"
#include "ns3/output-files.h"
#include "ns3/simulator.h"

#include <iomanip>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetMessageLog");
NS_OBJECT_ENSURE_REGISTERED(MessageLog);

TypeId
MessageLog::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MessageLog")
                            .SetParent<Object>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<MessageLog>();
    return tid;
}

MessageLog::MessageLog() = default;
MessageLog::~MessageLog() = default;

void
MessageLog::Install(Ptr<Cluster> cluster, const std::string& file)
{
    NS_ASSERT(cluster && !m_cluster);
    Ptr<MessageLog> self = this;
    // Staged with the run's other files (OutputFiles); closed at Simulator::Destroy or,
    // for a simulation never destroyed, when the run's files are committed.
    m_out.open(OutputFiles::Stage(file, [self]() { self->Dispose(); }));
    m_file = file;
    if (!m_out)
    {
        throw std::invalid_argument("message log: cannot write " + file +
                                    "; give a file in a writable folder");
    }
    m_cluster = cluster;
    m_out << "src,dst,bytes,label,channel,tag,start_us,end_us,duration_us\n"
          << std::setprecision(12);
    cluster->TraceConnectWithoutContext("ObjectBound",
                                        MakeCallback(&MessageLog::ObjectBound, this));
    Simulator::ScheduleDestroy([self]() { self->Dispose(); });
}

uint64_t
MessageLog::GetMessages() const
{
    return m_messages;
}

uint64_t
MessageLog::GetBytes() const
{
    return m_bytes;
}

void
MessageLog::ObjectBound(Ptr<Object> object)
{
    if (Ptr<MessageTransport> t = DynamicCast<MessageTransport>(object))
    {
        t->TraceConnectWithoutContext("MessageDelivered",
                                      MakeCallback(&MessageLog::Delivered, this));
    }
}

void
MessageLog::Delivered(const Message& msg, const std::string& label)
{
    if (!m_out.is_open())
    {
        return;
    }
    ++m_messages;
    m_bytes += msg.bytes;
    m_out << msg.src << ',' << msg.dst << ',' << msg.bytes << ',';
    if (label.find_first_of(",\"\n") == std::string::npos)
    {
        m_out << label;
    }
    else
    {
        m_out << std::quoted(label, '"', '"'); // CSV quoting: "" inside quotes
    }
    m_out << ',' << msg.channel << ',' << msg.tag << ',' << msg.sent.GetSeconds() * 1e6 << ','
          << msg.delivered.GetSeconds() * 1e6 << ','
          << (msg.delivered - msg.sent).GetSeconds() * 1e6 << '\n';
}

void
MessageLog::DoDispose()
{
    if (m_out.is_open())
    {
        m_out.close();
        if (!m_out)
        {
            OutputFiles::Fail(m_file,
                              "message log: writing " + m_file +
                                  " failed (disk full or file too large?); give a file on a "
                                  "disk with room");
        }
        NS_LOG_INFO("message log: " << m_messages << " messages");
    }
    if (m_cluster)
    {
        m_cluster->TraceDisconnectWithoutContext("ObjectBound",
                                                 MakeCallback(&MessageLog::ObjectBound, this));
    }
    m_cluster = nullptr;
    Object::DoDispose();
}

} // namespace ns3
