// SPDX-License-Identifier: GPL-2.0-only
#include "link-monitor.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/output-files.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"

#include <algorithm>
#include <iomanip>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetLinkMonitor");
NS_OBJECT_ENSURE_REGISTERED(LinkMonitor);

TypeId
LinkMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LinkMonitor")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<LinkMonitor>()
            .AddAttribute("Interval",
                          "Time between two samples (s); every sample is one simulator event "
                          "and one CSV row per link direction (PerLink) or per link class.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&LinkMonitor::m_interval),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("PerLink",
                          "One row per link direction (true) or per link class (false).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LinkMonitor::m_perLink),
                          MakeBooleanChecker());
    return tid;
}

LinkMonitor::LinkMonitor() = default;
LinkMonitor::~LinkMonitor() = default;

namespace
{

/// Capacity of a queue in packets, or 0 when it is counted in bytes.
uint64_t
PacketLimit(QueueSize size)
{
    return size.GetUnit() == QueueSizeUnit::PACKETS ? size.GetValue() : 0;
}

} // namespace

void
LinkMonitor::Install(Ptr<Cluster> cluster, const std::string& file)
{
    NS_ASSERT(cluster && !m_cluster);
    Ptr<LinkMonitor> self = this;
    // Staged with the run's other files (OutputFiles); completed at Simulator::Destroy
    // or, for a simulation never destroyed, when the run's files are committed.
    m_out.open(OutputFiles::Stage(file, [self]() { self->Dispose(); }));
    if (!m_out)
    {
        throw std::invalid_argument("link monitor: cannot write " + file +
                                    "; give a file in a writable folder");
    }
    m_file = file;
    m_cluster = cluster;
    for (const ClusterLink& l : cluster->GetLinks())
    {
        for (bool aToB : {true, false})
        {
            Direction d;
            d.link = l.id;
            d.aToB = aToB;
            d.dev = aToB ? l.devA : l.devB;
            DataRateValue rate;
            d.dev->GetAttribute("DataRate", rate);
            d.bytesPerSecond = rate.Get().GetBitRate() / 8.0;
            d.counted = aToB ? l.bytesAtoB : l.bytesBtoA;
            d.limitPackets = PacketLimit(d.dev->GetQueue()->GetMaxSize());
            if (Ptr<TrafficControlLayer> tc = d.dev->GetNode()->GetObject<TrafficControlLayer>())
            {
                d.disc = tc->GetRootQueueDiscOnDevice(d.dev);
            }
            if (d.disc)
            {
                uint64_t discLimit = PacketLimit(d.disc->GetMaxSize());
                d.limitPackets = d.limitPackets && discLimit ? d.limitPackets + discLimit : 0;
            }
            m_directions.push_back(d);
        }
    }
    if (m_perLink)
    {
        m_out << "time_us,interval_us,link,link_class,from_node,to_node,bytes,utilization,"
                 "queue_packets,queue_bytes,queue_limit_packets\n";
    }
    else
    {
        m_out << "time_us,interval_us,link_class,directions,bytes,utilization,max_utilization,"
                 "queue_packets,max_queue_packets,queue_bytes,queue_limit_packets\n";
    }
    m_out << std::setprecision(9);
    cluster->TraceConnectWithoutContext("WorkloadDone", MakeCallback(&LinkMonitor::Pause, this));
    cluster->TraceConnectWithoutContext("ObjectBound",
                                        MakeCallback(&LinkMonitor::ObjectBound, this));
    m_last = Simulator::Now();
    m_event = Simulator::Schedule(m_interval, &LinkMonitor::Sample, this);
    Simulator::ScheduleDestroy([self]() { self->Dispose(); });
}

uint64_t
LinkMonitor::GetSamples() const
{
    return m_samples;
}

void
LinkMonitor::Sample()
{
    Write(Simulator::Now(), false);
    // Nothing else left to simulate: stop, or this event alone would run forever.
    if (!Simulator::IsFinished())
    {
        m_event = Simulator::Schedule(m_interval, &LinkMonitor::Sample, this);
    }
}

void
LinkMonitor::Pause()
{
    if (m_event.IsRunning())
    {
        Write(Simulator::Now(), false); // up to the end of the workload
    }
    // Removed, not cancelled: ns-3 advances its clock to a cancelled event, which would
    // end the run up to one interval after its workload.
    Simulator::Remove(m_event);
}

void
LinkMonitor::ObjectBound(Ptr<Object>)
{
    Resume();
}

void
LinkMonitor::Resume()
{
    if (m_closed || m_event.IsRunning())
    {
        return;
    }
    if (Simulator::Now() > m_last)
    {
        Write(Simulator::Now(), false); // the idle gap since the last sample
    }
    m_event = Simulator::Schedule(m_interval, &LinkMonitor::Sample, this);
}

void
LinkMonitor::Write(Time now, bool last)
{
    double interval = (now - m_last).GetSeconds();
    if (interval <= 0 && !last)
    {
        return;
    }
    ++m_samples;
    double t = now.GetSeconds() * 1e6;
    double dt = interval * 1e6;

    struct ClassSum
    {
        uint32_t directions{0};
        uint64_t bytes{0};
        double carried{0};
        double capacity{0};
        double maxUtilization{0};
        uint64_t queuePackets{0};
        uint64_t maxQueuePackets{0};
        uint64_t queueBytes{0};
        uint64_t limitPackets{0};
    };

    std::map<std::string, ClassSum> classes;
    for (Direction& d : m_directions)
    {
        const ClusterLink& l = m_cluster->GetLink(d.link);
        uint64_t counter = d.aToB ? l.bytesAtoB : l.bytesBtoA;
        // ResetCounters (between two runs on one cluster) starts the counters again.
        uint64_t bytes = counter >= d.counted ? counter - d.counted : counter;
        d.counted = counter;
        d.pending += static_cast<double>(bytes);
        double capacity = d.bytesPerSecond * interval;
        double carried = std::min(d.pending, capacity);
        d.pending -= carried;
        double utilization = capacity > 0 ? carried / capacity : 0.0;
        // The last row is written at Simulator::Destroy, after the nodes' devices were
        // disposed (their queues are gone): a run that ran out of events has nothing
        // queued, so it reads 0.
        Ptr<Queue<Packet>> queue = d.dev->GetQueue();
        uint64_t qp = queue ? queue->GetNPackets() : 0;
        uint64_t qb = queue ? queue->GetNBytes() : 0;
        if (d.disc && queue)
        {
            qp += d.disc->GetNPackets();
            qb += d.disc->GetNBytes();
        }
        if (m_perLink)
        {
            m_out << t << ',' << dt << ',' << d.link << ',' << l.linkClass << ','
                  << (d.aToB ? l.nodeA : l.nodeB) << ',' << (d.aToB ? l.nodeB : l.nodeA) << ','
                  << bytes << ',' << utilization << ',' << qp << ',' << qb << ',' << d.limitPackets
                  << '\n';
            continue;
        }
        ClassSum& c = classes[l.linkClass];
        ++c.directions;
        c.bytes += bytes;
        c.carried += carried;
        c.capacity += capacity;
        c.maxUtilization = std::max(c.maxUtilization, utilization);
        c.queuePackets += qp;
        c.maxQueuePackets = std::max(c.maxQueuePackets, qp);
        c.queueBytes += qb;
        c.limitPackets = std::max(c.limitPackets, d.limitPackets);
    }
    for (const auto& [name, c] : classes)
    {
        m_out << t << ',' << dt << ',' << name << ',' << c.directions << ',' << c.bytes << ','
              << (c.capacity > 0 ? c.carried / c.capacity : 0.0) << ',' << c.maxUtilization << ','
              << c.queuePackets << ',' << c.maxQueuePackets << ',' << c.queueBytes << ','
              << c.limitPackets << '\n';
    }
    m_last = now;
}

void
LinkMonitor::Close()
{
    if (m_closed || !m_cluster)
    {
        return;
    }
    m_event.Cancel();
    // The last row: from the last sample to the end of the run (bytes still on the
    // wire at that moment stay in `pending`; the byte column is complete).
    bool pending = false;
    for (const Direction& d : m_directions)
    {
        const ClusterLink& l = m_cluster->GetLink(d.link);
        pending |= (d.aToB ? l.bytesAtoB : l.bytesBtoA) != d.counted;
    }
    if (Simulator::Now() > m_last || pending)
    {
        Write(Simulator::Now(), true);
    }
    m_out.close();
    if (!m_out)
    {
        OutputFiles::Fail(m_file,
                          "link monitor: writing " + m_file +
                              " failed (disk full or file too large?); give a file on a disk "
                              "with room");
    }
    m_closed = true;
    NS_LOG_INFO("link monitor: " << m_samples << " samples in " << m_file);
}

void
LinkMonitor::DoDispose()
{
    Close();
    if (m_cluster)
    {
        m_cluster->TraceDisconnectWithoutContext("WorkloadDone",
                                                 MakeCallback(&LinkMonitor::Pause, this));
        m_cluster->TraceDisconnectWithoutContext("ObjectBound",
                                                 MakeCallback(&LinkMonitor::ObjectBound, this));
    }
    m_directions.clear();
    m_cluster = nullptr;
    Object::DoDispose();
}

} // namespace ns3
