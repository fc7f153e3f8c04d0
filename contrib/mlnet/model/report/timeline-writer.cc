// SPDX-License-Identifier: GPL-2.0-only
#include "timeline-writer.h"

#include "ns3/log.h"
#include "ns3/output-files.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTimelineWriter");
NS_OBJECT_ENSURE_REGISTERED(TimelineWriter);

namespace
{
constexpr uint32_t kCommTid = 1;       //!< first "comm" lane
constexpr uint32_t kMessageTid = 1000; //!< first "messages" lane

/// Microseconds, the trace-event format's unit.
double
Us(Time t)
{
    return t.GetSeconds() * 1e6;
}
} // namespace

TypeId
TimelineWriter::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimelineWriter")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<TimelineWriter>()
            .AddAttribute("MaxEvents",
                          "Events written at most (about 200 bytes each); beyond, one instant "
                          "event says the timeline was truncated. 0: no limit.",
                          UintegerValue(5000000),
                          MakeUintegerAccessor(&TimelineWriter::m_maxEvents),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

TimelineWriter::TimelineWriter() = default;
TimelineWriter::~TimelineWriter() = default;

void
TimelineWriter::Install(Ptr<Cluster> cluster, const std::string& file, const std::string& title)
{
    NS_ASSERT(cluster && !m_cluster);
    Ptr<TimelineWriter> self = this;
    // Staged with the run's other files (OutputFiles); completed at Simulator::Destroy
    // or, for a simulation never destroyed, when the run's files are committed.
    m_out.open(OutputFiles::Stage(file, [self]() { self->Dispose(); }));
    m_file = file;
    if (!m_out)
    {
        throw std::invalid_argument("timeline: cannot write " + file +
                                    "; give a file in a writable folder");
    }
    m_cluster = cluster;
    uint32_t n = cluster->GetNRanks();
    m_comm.assign(n, Lanes());
    m_messages.assign(n, Lanes());
    m_out << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
          << nlohmann::json({{"title", title}, {"ranks", n}}).dump() << ",\"traceEvents\":[\n";
    for (uint32_t r = 0; r < n; ++r)
    {
        Metadata("process_name", r, 0, {{"name", "rank " + std::to_string(r)}});
        Metadata("process_sort_index", r, 0, {{"sort_index", r}});
        Metadata("thread_name", r, 0, {{"name", "compute"}});
    }
    cluster->TraceConnectWithoutContext("ObjectBound",
                                        MakeCallback(&TimelineWriter::ObjectBound, this));
    Simulator::ScheduleDestroy([self]() { self->Dispose(); });
}

uint64_t
TimelineWriter::GetEvents() const
{
    return m_events;
}

bool
TimelineWriter::IsTruncated() const
{
    return m_truncated;
}

void
TimelineWriter::ObjectBound(Ptr<Object> object)
{
    if (Ptr<MessageTransport> t = DynamicCast<MessageTransport>(object))
    {
        t->TraceConnectWithoutContext("MessageDelivered",
                                      MakeCallback(&TimelineWriter::Delivered, this));
    }
    else if (Ptr<Collective> c = DynamicCast<Collective>(object))
    {
        // Bound to the raw pointer: the collective fires this trace itself, and a Ptr
        // stored in its own trace would keep it alive forever.
        c->TraceConnectWithoutContext(
            "MemberDone",
            MakeCallback(&TimelineWriter::MemberDone, this).Bind(PeekPointer(c)));
    }
    else if (Ptr<TrainingDriver> d = DynamicCast<TrainingDriver>(object))
    {
        d->TraceConnectWithoutContext(
            "TaskFinished",
            MakeCallback(&TimelineWriter::TaskFinished, this).Bind(PeekPointer(d)));
    }
}

void
TimelineWriter::Delivered(const Message& msg, const std::string& label)
{
    uint32_t tid = Lane(m_messages, msg.src, msg.sent, kMessageTid, "messages");
    Emit(label.empty() ? "message" : label,
         "message",
         msg.src,
         tid,
         msg.sent,
         msg.delivered,
         {{"rank", msg.src},
          {"src", msg.src},
          {"dst", msg.dst},
          {"bytes", msg.bytes},
          {"channel", msg.channel},
          {"tag", msg.tag}});
}

void
TimelineWriter::MemberDone(const Collective* collective, uint32_t member, Time end)
{
    uint32_t rank = collective->GetRanks()[member];
    CollectiveRecord r = collective->GetRecord();
    uint32_t tid = Lane(m_comm, rank, r.start, kCommTid, "comm");
    Emit(collective->GetLabel(),
         "collective",
         rank,
         tid,
         r.start,
         end,
         {{"rank", rank},
          {"member", member},
          {"ranks", r.ranks},
          {"bytes", r.bytes},
          {"collective", r.collective},
          {"algorithm", r.algorithm}});
}

void
TimelineWriter::TaskFinished(const TrainingDriver* driver, const TaskRecord& record)
{
    const IterationTask& t = driver->GetGraph().GetTask(record.task);
    if (record.kind == TaskKind::COMPUTE)
    {
        Emit(record.name,
             "compute",
             record.rank,
             0,
             record.start,
             record.end,
             {{"rank", record.rank}, {"iteration", record.iteration}, {"task", record.task}});
    }
    else if (record.kind == TaskKind::SEND)
    {
        uint32_t tid = Lane(m_comm, record.rank, record.start, kCommTid, "comm");
        Emit(record.name,
             "send",
             record.rank,
             tid,
             record.start,
             record.end,
             {{"rank", record.rank},
              {"src", record.rank},
              {"dst", t.dst},
              {"bytes", t.bytes},
              {"iteration", record.iteration},
              {"task", record.task}});
    }
}

uint32_t
TimelineWriter::Lane(std::vector<Lanes>& lanes,
                     uint32_t rank,
                     Time start,
                     uint32_t base,
                     const std::string& name)
{
    NS_ASSERT(rank < lanes.size());
    Lanes& l = lanes[rank];
    // Events arrive as they end, so every lane's last end is at or before now: a lane
    // whose last event ended by `start` holds this one without overlap.
    for (uint32_t k = 0; k < l.size(); ++k)
    {
        if (l[k] <= start)
        {
            l[k] = Simulator::Now();
            return base + k;
        }
    }
    l.push_back(Simulator::Now());
    uint32_t k = static_cast<uint32_t>(l.size() - 1);
    Metadata("thread_name", rank, base + k, {{"name", name + " " + std::to_string(k)}});
    Metadata("thread_sort_index", rank, base + k, {{"sort_index", base + k}});
    return base + k;
}

void
TimelineWriter::Emit(const std::string& name,
                     const std::string& cat,
                     uint32_t rank,
                     uint32_t tid,
                     Time start,
                     Time end,
                     nlohmann::json args)
{
    if (!m_out.is_open() || m_truncated)
    {
        return;
    }
    if (m_maxEvents > 0 && m_events >= m_maxEvents)
    {
        m_truncated = true;
        NS_LOG_WARN("timeline truncated after " << m_events << " events (MaxEvents)");
        m_out << ",\n"
              << nlohmann::json({{"name",
                                  "timeline truncated: MaxEvents (" + std::to_string(m_maxEvents) +
                                      ") reached; raise ns3::TimelineWriter::MaxEvents"},
                                 {"ph", "i"},
                                 {"s", "g"},
                                 {"ts", Us(Simulator::Now())},
                                 {"pid", 0},
                                 {"tid", 0}})
                     .dump();
        return;
    }
    ++m_events;
    m_out << (m_first ? "" : ",\n")
          << nlohmann::json({{"name", name},
                             {"cat", cat},
                             {"ph", "X"},
                             {"ts", Us(start)},
                             {"dur", Us(end - start)},
                             {"pid", rank},
                             {"tid", tid},
                             {"args", std::move(args)}})
                 .dump();
    m_first = false;
}

void
TimelineWriter::Metadata(const std::string& what,
                         uint32_t pid,
                         uint32_t tid,
                         const nlohmann::json& args)
{
    if (!m_out.is_open())
    {
        return;
    }
    m_out << (m_first ? "" : ",\n")
          << nlohmann::json(
                 {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", args}})
                 .dump();
    m_first = false;
}

void
TimelineWriter::Close()
{
    if (m_out.is_open())
    {
        m_out << "\n]}\n";
        m_out.close();
        if (!m_out)
        {
            OutputFiles::Fail(m_file,
                              "timeline: writing " + m_file +
                                  " failed (disk full or file too large?); give a file on a "
                                  "disk with room");
        }
        NS_LOG_INFO("timeline: " << m_events << " events");
    }
}

void
TimelineWriter::DoDispose()
{
    Close();
    if (m_cluster)
    {
        m_cluster->TraceDisconnectWithoutContext("ObjectBound",
                                                 MakeCallback(&TimelineWriter::ObjectBound, this));
    }
    m_cluster = nullptr;
    m_comm.clear();
    m_messages.clear();
    Object::DoDispose();
}

} // namespace ns3
