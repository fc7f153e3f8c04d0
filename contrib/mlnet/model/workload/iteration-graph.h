// SPDX-License-Identifier: GPL-2.0-only
/*
 * IterationGraph: one training iteration written down as a task graph.
 *
 * A task is a compute phase on one rank (forward, backward, optimizer step, ...),
 * a collective over a communicator (a gradient bucket's all-reduce, a tensor-
 * parallel all-gather, ...), a point-to-point transfer (a pipeline activation) or a
 * plain delay; edges say "this task starts only after that one finished". Every
 * parallelization scheme of the suite (data-parallel buckets here, TP/PP/DP in
 * railonly, TopoOpt's strategies, Checkmate's workers) describes its iteration with
 * this one structure, and two executors run it under the same rules:
 *
 *  - TrainingDriver, at packet level on the ns-3 simulator (collectives and sends
 *    travel through a MessageTransport);
 *  - IterationGraph::Estimate, analytically, given the time of each communication
 *    task (e.g. from the alpha-beta model).
 *
 * Execution rules (both executors):
 *  - a task becomes ready when all its dependencies finished;
 *  - each rank has one compute stream: its compute tasks run one at a time, in the
 *    order they became ready (ties: lower task id first);
 *  - collectives, sends and delays start as soon as they are ready and overlap with
 *    compute and with each other. Order between collectives (one NCCL stream per
 *    communicator, say) is expressed with dependencies, not implied.
 *
 * Collectives are stored as a description (collective name, algorithm, ranks,
 * bytes), not as objects: the graph is plain data that can be timed analytically,
 * printed and reused for every iteration; the driver turns each description into
 * a fresh Collective per iteration with a creator callback.
 *
 * Not modelled: memory, kernel launch overheads (fold them into durations), the
 * interference of communication kernels with compute (they overlap for free).
 */
#ifndef MLNET_ITERATION_GRAPH_H
#define MLNET_ITERATION_GRAPH_H

#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/// \brief Kind of an IterationGraph task.
enum class TaskKind
{
    COMPUTE,    //!< busy time on one rank's compute stream
    COLLECTIVE, //!< a collective over a communicator
    SEND,       //!< one message from a rank to another through the MessageTransport
    DELAY,      //!< a fixed wait that occupies no rank
};

/// \return "compute", "collective", "send" or "delay"
std::string TaskKindToString(TaskKind kind);

/// Rank value of tasks that belong to no single rank (collectives, delays).
constexpr uint32_t NO_RANK = std::numeric_limits<uint32_t>::max();

/**
 * \brief A collective as data: what the driver asks its creator callback for.
 */
struct CollectiveDescription
{
    std::string collective;      //!< e.g. "allreduce", "allgather"
    std::string algorithm;       //!< e.g. "ring", "hd"
    std::vector<uint32_t> ranks; //!< communicator: member i is ranks[i]
    uint64_t bytes{0};           //!< size as Collective::Setup defines it
};

/**
 * \brief One task of an IterationGraph.
 */
struct IterationTask
{
    uint32_t id{0};                   //!< index in the graph
    TaskKind kind{TaskKind::COMPUTE}; //!< what the task does
    std::string name;                 //!< label for records and error messages
    uint32_t rank{NO_RANK};           //!< compute: its rank; send: the source rank
    uint32_t dst{NO_RANK};            //!< send: the destination rank
    uint64_t bytes{0};                //!< send: message bytes; collective: its bytes
    Time duration;                    //!< compute and delay: how long
    CollectiveDescription collective; //!< collective: what to run
    std::vector<uint32_t> deps;       //!< tasks that must finish before this one starts
};

/**
 * \brief When a task became ready, started and ended (relative to the iteration start).
 */
struct TaskTiming
{
    Time ready; //!< all dependencies finished
    Time start; //!< started (compute: got its rank's stream)
    Time end;   //!< finished
};

/**
 * \brief A DAG of compute, collective, send and delay tasks: one training iteration.
 */
class IterationGraph
{
public:
    /// Task identifier: the index returned by the Add methods.
    using TaskId = uint32_t;
    /// Time of a communication task (collective or send) for the analytical executor.
    using CommunicationTime = std::function<Time(const IterationTask&)>;

    /**
     * \brief Add a compute task on one rank's compute stream.
     * \param name label
     * \param rank the rank whose stream it occupies
     * \param duration busy time (>= 0)
     * \param deps tasks that must finish first (existing ids)
     * \return the new task's id
     */
    TaskId AddCompute(const std::string& name,
                      uint32_t rank,
                      Time duration,
                      const std::vector<TaskId>& deps = {});
    /**
     * \brief Add a collective task; it finishes when every member finished.
     * \param name label
     * \param collective collective name, e.g. "allreduce"
     * \param algorithm algorithm name, e.g. "ring"
     * \param ranks communicator (>= 2 distinct ranks)
     * \param bytes size (> 0), as Collective::Setup defines it
     * \param deps tasks that must finish first
     * \return the new task's id
     */
    TaskId AddCollective(const std::string& name,
                         const std::string& collective,
                         const std::string& algorithm,
                         const std::vector<uint32_t>& ranks,
                         uint64_t bytes,
                         const std::vector<TaskId>& deps = {});
    /**
     * \brief Add a point-to-point message; it finishes when the receiver has it whole.
     * \param name label
     * \param src sending rank
     * \param dst receiving rank (!= src)
     * \param bytes message bytes (> 0)
     * \param deps tasks that must finish first
     * \return the new task's id
     */
    TaskId AddSend(const std::string& name,
                   uint32_t src,
                   uint32_t dst,
                   uint64_t bytes,
                   const std::vector<TaskId>& deps = {});
    /**
     * \brief Add a fixed delay that occupies no rank (e.g. a data-loader wait).
     * \param name label
     * \param duration the wait (>= 0)
     * \param deps tasks that must finish first
     * \return the new task's id
     */
    TaskId AddDelay(const std::string& name, Time duration, const std::vector<TaskId>& deps = {});

    /**
     * \brief Make task wait for dependsOn. Both ids must exist.
     * Cycles are detected by Validate (they may only appear through this method).
     */
    void AddDependency(TaskId task, TaskId dependsOn);

    /// \return the number of tasks
    uint32_t GetNTasks() const;
    /// \return one task
    const IterationTask& GetTask(TaskId id) const;
    /// \return every task, indexed by id
    const std::vector<IterationTask>& GetTasks() const;
    /// \return for each task, the tasks that depend on it
    std::vector<std::vector<TaskId>> GetDependents() const;
    /// \return the largest rank any task names, or NO_RANK for a graph without ranks
    uint32_t GetMaxRank() const;
    /**
     * \brief The same iteration placed on other ranks: every rank r of a task (compute
     * rank, send source and destination, collective members) becomes placement[r], so a
     * job built for ranks 0..n-1 can run beside other jobs on one cluster.
     * Throws std::invalid_argument if the placement is shorter than GetMaxRank() + 1 or
     * names a rank twice.
     */
    IterationGraph Placed(const std::vector<uint32_t>& placement) const;

    /**
     * \brief Check that the graph can run: at least one task, every dependency id
     * exists, no cycle. Throws std::invalid_argument naming the offending tasks.
     */
    void Validate() const;
    /// \return task ids in an order where every task follows its dependencies (validates)
    std::vector<TaskId> GetTopologicalOrder() const;

    /**
     * \brief Run the graph analytically under the execution rules of the file comment.
     * \param commTime time of each collective or send task
     * \return the timing of every task, indexed by id (validates first)
     */
    std::vector<TaskTiming> Estimate(const CommunicationTime& commTime) const;
    /// \return the iteration time (latest task end) of Estimate(commTime)
    Time EstimateIterationTime(const CommunicationTime& commTime) const;

private:
    TaskId AddTask(IterationTask task, const std::vector<TaskId>& deps);
    void CheckId(TaskId id, const std::string& what) const;

    std::vector<IterationTask> m_tasks;
};

} // namespace ns3

#endif // MLNET_ITERATION_GRAPH_H
