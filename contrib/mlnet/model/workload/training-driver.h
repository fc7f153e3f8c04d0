// SPDX-License-Identifier: GPL-2.0-only
/*
 * TrainingDriver: runs an IterationGraph on the ns-3 simulator, iteration after
 * iteration, and records what happened.
 *
 * Compute tasks hold their rank's compute stream for their duration (one at a
 * time per rank, in ready order); collective tasks become Collective objects made
 * by a creator callback (so the driver depends on no concrete algorithm), set up
 * on the MessageTransport and started when ready; send tasks are single messages
 * on a channel of the transport that the driver owns; delay tasks just wait.
 * Communication overlaps compute, which is how gradient buckets are all-reduced
 * while backward continues. Iteration i+1 starts when every task of iteration i
 * finished (a barrier, as a synchronous data-parallel step has).
 *
 * Records: per iteration (start, end), per task (ready, start, end) and per
 * collective (its CollectiveRecord).
 *
 * Converged-iteration reuse (attribute ReuseConverged, off by default): once the
 * last ConvergedIterations iterations took the same time (within
 * ConvergedTolerance), no time-dependent event is still to come (the runner
 * gives the horizon: the last timed fault plus its route convergence,
 * SetReuseHorizon) and the runner did not block reuse (SetReuseBlocked: an error
 * model on a link, several jobs, events the scenario schedules itself), the
 * remaining iterations are not simulated: each is
 * recorded as a copy of the last simulated one, back to back, flagged
 * `extrapolated`, and the driver finishes at the extrapolated end (simulated
 * time advances to it). Copies have no task or collective records, fire no
 * traces, and put no bytes on the links (link counters cover the simulated
 * iterations only). Not modelled: compute slowdown from
 * communication kernels, stragglers or noise (durations are exact), host-side
 * launch latencies (fold them into durations).
 */
#ifndef MLNET_TRAINING_DRIVER_H
#define MLNET_TRAINING_DRIVER_H

#include "ns3/callback.h"
#include "ns3/collective.h"
#include "ns3/iteration-graph.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Start and end of one iteration.
 */
struct IterationRecord
{
    uint32_t iteration{0};    //!< index, from 0
    Time start;               //!< first task could start
    Time end;                 //!< last task finished
    bool extrapolated{false}; //!< a copy of a converged iteration, not simulated

    /// \return end - start
    Time GetDuration() const
    {
        return end - start;
    }
};

/**
 * \brief What one task did in one iteration (absolute simulator times).
 */
struct TaskRecord
{
    uint32_t iteration{0};            //!< iteration index
    uint32_t task{0};                 //!< task id in the graph
    std::string name;                 //!< task name
    TaskKind kind{TaskKind::COMPUTE}; //!< task kind
    uint32_t rank{NO_RANK};           //!< compute: rank; send: source rank
    Time ready;                       //!< all dependencies finished
    Time start;                       //!< started
    Time end;                         //!< finished
};

/**
 * \brief A collective run by a collective task in one iteration.
 */
struct CollectiveTaskRecord
{
    uint32_t iteration{0};   //!< iteration index
    uint32_t task{0};        //!< task id in the graph
    CollectiveRecord record; //!< the collective's own record
};

/**
 * \brief Runs an IterationGraph N times on the simulator and records the timings.
 */
class TrainingDriver : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Makes an empty Collective (Setup is the driver's job), e.g. CollectiveFactory::Create.
    using CollectiveCreator =
        std::function<Ptr<Collective>(const std::string& collective, const std::string& algorithm)>;
    /// Called once every iteration finished.
    using DoneCallback = Callback<void, Ptr<TrainingDriver>>;
    /// Signature of the IterationStarted trace: iteration index.
    typedef void (*IterationStartedTracedCallback)(uint32_t iteration);
    /// Signature of the IterationFinished trace: iteration index, its duration.
    typedef void (*IterationFinishedTracedCallback)(uint32_t iteration, Time duration);
    /// Signature of the TaskFinished trace.
    typedef void (*TaskFinishedTracedCallback)(const TaskRecord& record);

    TrainingDriver();
    ~TrainingDriver() override;

    /**
     * \brief Set the iteration to run (copied). Validates it: throws
     * std::invalid_argument for an empty graph, unknown ids or a cycle.
     */
    void SetGraph(const IterationGraph& graph);
    /// \return the graph
    const IterationGraph& GetGraph() const;
    /// \brief Set the installed transport that collectives and sends use.
    void SetTransport(Ptr<MessageTransport> transport);
    /// \brief Set how collective tasks get their Collective objects.
    void SetCollectiveCreator(CollectiveCreator creator);
    /**
     * \brief Set a callback run on every collective after Setup and before Start
     * (e.g. to give it real inputs with SetInput, or to connect its traces).
     */
    void SetCollectiveConfigurator(std::function<void(uint32_t task, Ptr<Collective>)> configure);
    /// \brief Set the completion callback.
    void SetDoneCallback(DoneCallback cb);

    /**
     * \brief Start the first iteration now. Throws std::invalid_argument (before
     * anything is scheduled) when the graph needs a transport or creator that is
     * missing, names a rank the cluster does not have, or a collective cannot be
     * created or set up.
     */
    void Start();

    /// \return true once every iteration finished
    bool IsDone() const;
    /// \return one record per finished iteration
    const std::vector<IterationRecord>& GetIterationRecords() const;
    /// \return one record per finished task and iteration, in finishing order
    const std::vector<TaskRecord>& GetTaskRecords() const;
    /// \return one record per finished collective, in finishing order
    const std::vector<CollectiveTaskRecord>& GetCollectiveRecords() const;
    /// \return the mean duration of the finished iterations (0 when none)
    Time GetMeanIterationTime() const;

    /**
     * \brief Forbid converged-iteration reuse for this run (what the runner knows and
     * the driver cannot see: random loss on a link, jobs sharing the fabric).
     * \param reason why, for GetReuseNote
     */
    void SetReuseBlocked(const std::string& reason);
    /**
     * \brief Forbid converged-iteration reuse before `until` (the runner's last timed
     * fault plus its route convergence); iterations may converge again after it.
     */
    void SetReuseHorizon(Time until);
    /// \return iterations recorded as copies instead of simulated (0 without reuse)
    uint32_t GetExtrapolatedIterations() const;
    /**
     * \return with ReuseConverged: what happened ("reused after iteration i", or why
     * not: blocked, events pending, never converged); empty without it
     */
    std::string GetReuseNote() const;

protected:
    void DoDispose() override;

private:
    void StartIteration();
    std::vector<Ptr<Collective>> CreateCollectives() const;
    void MakeReady(uint32_t task);
    void Dispatch(uint32_t rank);
    void BeginTask(uint32_t task);
    void FinishTask(uint32_t task);
    void ComputeDone(uint32_t task);
    void EndIteration();
    bool ReuseConverged();
    void FinishExtrapolated();
    void CollectiveDone(uint32_t task, Ptr<Collective> collective);
    void ReceiveSend(const Message& msg);
    void CheckRanks() const;

    uint32_t m_iterations{1};
    bool m_reuseConverged{false};
    uint32_t m_convergedIterations{3};
    Time m_convergedTolerance;
    std::string m_reuseBlocked;
    Time m_reuseHorizon;
    std::string m_reuseNote;
    uint32_t m_extrapolated{0};
    IterationGraph m_graph;
    std::vector<std::vector<uint32_t>> m_dependents;
    Ptr<MessageTransport> m_transport;
    CollectiveCreator m_creator;
    std::function<void(uint32_t, Ptr<Collective>)> m_configure;
    DoneCallback m_doneCb;
    uint32_t m_sendChannel{0};
    bool m_channelRegistered{false};

    // State of the running iteration.
    bool m_started{false};
    bool m_done{false};
    uint32_t m_iteration{0};
    Time m_iterationStart;
    uint32_t m_finishedTasks{0};
    std::vector<uint32_t> m_missing;
    std::vector<TaskTiming> m_timing;
    std::vector<Ptr<Collective>> m_collectives; //!< by task id (null for other kinds)
    std::vector<Ptr<Collective>> m_nextCollectives;
    std::map<uint32_t, std::set<std::pair<Time, uint32_t>>> m_queued; //!< per rank
    std::map<uint32_t, bool> m_busy;                                  //!< per rank
    std::set<uint32_t> m_dispatchPending;

    std::vector<IterationRecord> m_iterationRecords;
    std::vector<TaskRecord> m_taskRecords;
    std::vector<CollectiveTaskRecord> m_collectiveRecords;

    TracedCallback<uint32_t> m_iterationStartedTrace;
    TracedCallback<uint32_t, Time> m_iterationFinishedTrace;
    TracedCallback<const TaskRecord&> m_taskFinishedTrace;
};

} // namespace ns3

#endif // MLNET_TRAINING_DRIVER_H
