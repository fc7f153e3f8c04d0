// SPDX-License-Identifier: GPL-2.0-only
/*
 * LinkMonitor: link utilization and queue depth of a Cluster over time, sampled
 * every Interval and streamed to a CSV file.
 *
 * Bytes come from the link registry (Cluster: wire bytes per direction, counted when
 * a frame starts its transmission), so the `bytes` column summed over all samples
 * equals the registry's totals. Utilization is those bytes spread over the link's
 * serialization time: a direction's bytes not carried in one interval (a frame
 * counted at its start but still on the wire at the interval's end) are carried into
 * the next, so utilization stays in [0, 1]. Queue depth is the sending device's
 * DropTail queue plus, on the IPv4 data path, the traffic-control root queue disc
 * installed on it (hosts' FIFO, switches' RED when ECN is on); the fast data path
 * has device queues only.
 *
 * Rows: per link direction (PerLink = true) or aggregated per link class (default).
 * Sampling is one simulator event per Interval. It pauses when the cluster's workload
 * is done (Cluster::NotifyWorkloadDone) or when nothing else is left to simulate, so
 * it never keeps a run alive nor ends it; it resumes when a new transport, collective
 * or driver starts on the cluster. The last row, written when the simulation is
 * destroyed, covers the time from the last sample to the end of the run. Inside a
 * run the file is staged with the run's other files (OutputFiles) and a failed write
 * is the run's error.
 *
 * Not modelled: per-frame timing inside an interval (a burst shorter than Interval
 * is averaged over it); in a distributed (MPI) run each process sees only the
 * devices it owns.
 */
#ifndef MLNET_LINK_MONITOR_H
#define MLNET_LINK_MONITOR_H

#include "ns3/cluster.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"

#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Samples every link's utilization and queue depth into a CSV file.
 */
class LinkMonitor : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LinkMonitor();
    ~LinkMonitor() override;

    /**
     * \brief Start sampling a cluster into a CSV file (created now; the header is
     * written at once). Call after the fabric is built and before Simulator::Run.
     * Throws std::invalid_argument when the file cannot be written.
     */
    void Install(Ptr<Cluster> cluster, const std::string& file);
    /// \return samples taken so far (rows per sample: directions or link classes)
    uint64_t GetSamples() const;

protected:
    void DoDispose() override;

private:
    /// One direction of one link.
    struct Direction
    {
        uint32_t link{0};               //!< link id
        bool aToB{true};                //!< direction
        Ptr<PointToPointNetDevice> dev; //!< sending device
        Ptr<QueueDisc> disc;            //!< root queue disc above it, or null
        double bytesPerSecond{0};       //!< line rate
        uint64_t counted{0};            //!< registry counter at the last sample
        double pending{0};              //!< bytes counted but not yet carried
        uint64_t limitPackets{0};       //!< queue capacity in packets (0: not in packets)
    };

    void Sample();
    void Write(Time now, bool last);
    void ObjectBound(Ptr<Object> object);
    void Resume();
    void Pause();
    void Close();

    Time m_interval;       //!< attribute Interval
    bool m_perLink{false}; //!< attribute PerLink
    Ptr<Cluster> m_cluster;
    std::vector<Direction> m_directions;
    std::ofstream m_out;
    std::string m_file;
    Time m_last; //!< time of the last sample
    EventId m_event;
    uint64_t m_samples{0};
    bool m_closed{false};
};

} // namespace ns3

#endif // MLNET_LINK_MONITOR_H
