// SPDX-License-Identifier: GPL-2.0-only
/*
 * TimelineWriter: what every rank of a Cluster did, as a Chrome trace-event JSON
 * file (opens in Perfetto, ui.perfetto.dev, and chrome://tracing).
 *
 * Every rank is a process track ("rank r", pid r) with lanes (threads): "compute"
 * (tid 0: the TrainingDriver's compute tasks, one at a time), "comm k" (tids 1..:
 * collectives, one event per member from the collective's start to that member's
 * end, and the driver's send tasks) and "messages k" (tids 1000..: every delivered
 * message, on its sender, from Send to the last byte's delivery). Overlapping
 * events go to separate lanes (first free lane), so the events of one lane nest,
 * as the format requires. Events are complete events ("ph":"X", ts and dur in
 * microseconds); their args carry the rank, the bytes and what the event belongs to.
 *
 * It listens to the cluster's ObjectBound trace and connects to the trace sources of
 * every transport (MessageDelivered), collective (MemberDone) and training driver
 * (TaskFinished) that starts on the cluster. Events are streamed to the file as they
 * end (memory does not grow with the run); MaxEvents caps the file, after which one
 * instant event says the timeline was truncated. The file is completed when the
 * simulation is destroyed; inside a run it is staged with the run's other files
 * (OutputFiles) and a failed write is the run's error.
 *
 * Not drawn: delay tasks (they occupy no rank), packets, and messages never delivered.
 */
#ifndef MLNET_TIMELINE_WRITER_H
#define MLNET_TIMELINE_WRITER_H

#include "ns3/cluster.h"
#include "ns3/collective.h"
#include "ns3/message-transport.h"
#include "ns3/object.h"
#include "ns3/training-driver.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Streams a cluster's compute, collective and message events to a Chrome
 * trace-event JSON file.
 */
class TimelineWriter : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TimelineWriter();
    ~TimelineWriter() override;

    /**
     * \brief Draw what starts on this cluster from now on into a file (created now,
     * completed when the simulation is destroyed). Throws std::invalid_argument when
     * it cannot be written.
     * \param cluster the cluster
     * \param file the JSON file
     * \param title the name of the timeline (e.g. the fabric), in its metadata
     */
    void Install(Ptr<Cluster> cluster, const std::string& file, const std::string& title);
    /// \return events written so far (metadata excluded)
    uint64_t GetEvents() const;
    /// \return whether MaxEvents was reached
    bool IsTruncated() const;

protected:
    void DoDispose() override;

private:
    /// Lanes of one kind on one rank: the end of each lane's last event.
    using Lanes = std::vector<Time>;

    void ObjectBound(Ptr<Object> object);
    void Delivered(const Message& msg, const std::string& label);
    void MemberDone(const Collective* collective, uint32_t member, Time end);
    void TaskFinished(const TrainingDriver* driver, const TaskRecord& record);
    /// Lane (tid) for an event [start, now] of a rank: first lane free at start.
    uint32_t Lane(std::vector<Lanes>& lanes,
                  uint32_t rank,
                  Time start,
                  uint32_t base,
                  const std::string& name);
    void Emit(const std::string& name,
              const std::string& cat,
              uint32_t rank,
              uint32_t tid,
              Time start,
              Time end,
              nlohmann::json args);
    void Metadata(const std::string& what, uint32_t pid, uint32_t tid, const nlohmann::json& args);
    void Close();

    uint64_t m_maxEvents{0}; //!< attribute MaxEvents
    Ptr<Cluster> m_cluster;
    std::ofstream m_out;
    std::string m_file; //!< the final name of the file
    bool m_first{true};
    uint64_t m_events{0};
    bool m_truncated{false};
    std::vector<Lanes> m_comm;     //!< per rank
    std::vector<Lanes> m_messages; //!< per rank
};

} // namespace ns3

#endif // MLNET_TIMELINE_WRITER_H
