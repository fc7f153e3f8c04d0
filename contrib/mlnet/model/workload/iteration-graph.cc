// SPDX-License-Identifier: GPL-2.0-only
#include "iteration-graph.h"

#include "ns3/log.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetIterationGraph");

namespace
{

using DependencyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

/// Edges go from a dependency to the task that waits for it.
DependencyGraph
MakeBoostGraph(const std::vector<IterationTask>& tasks)
{
    DependencyGraph g(tasks.size());
    for (const auto& t : tasks)
    {
        for (uint32_t d : t.deps)
        {
            boost::add_edge(d, t.id, g);
        }
    }
    return g;
}

/// Remembers the first back edge a depth-first search meets: it closes a cycle.
struct CycleFinder : public boost::default_dfs_visitor
{
    CycleFinder(bool& found, uint32_t& from, uint32_t& to)
        : m_found(found),
          m_from(from),
          m_to(to)
    {
    }

    template <typename Edge, typename Graph>
    void back_edge(Edge e, const Graph& g)
    {
        if (!m_found)
        {
            m_found = true;
            m_from = static_cast<uint32_t>(boost::source(e, g));
            m_to = static_cast<uint32_t>(boost::target(e, g));
        }
    }

    bool& m_found;
    uint32_t& m_from;
    uint32_t& m_to;
};

} // namespace

std::string
TaskKindToString(TaskKind kind)
{
    switch (kind)
    {
    case TaskKind::COMPUTE:
        return "compute";
    case TaskKind::COLLECTIVE:
        return "collective";
    case TaskKind::SEND:
        return "send";
    case TaskKind::DELAY:
        return "delay";
    }
    return "unknown";
}

void
IterationGraph::CheckId(TaskId id, const std::string& what) const
{
    if (id >= m_tasks.size())
    {
        throw std::invalid_argument(what + " refers to task id " + std::to_string(id) +
                                    ", which does not exist (the graph has " +
                                    std::to_string(m_tasks.size()) +
                                    " tasks); add a task before depending on it");
    }
}

IterationGraph::TaskId
IterationGraph::AddTask(IterationTask task, const std::vector<TaskId>& deps)
{
    task.id = static_cast<TaskId>(m_tasks.size());
    if (task.name.empty())
    {
        task.name = TaskKindToString(task.kind) + std::to_string(task.id);
    }
    for (TaskId d : deps)
    {
        CheckId(d, "task '" + task.name + "'");
    }
    std::set<TaskId> unique(deps.begin(), deps.end());
    task.deps.assign(unique.begin(), unique.end());
    NS_LOG_LOGIC("task " << task.id << " '" << task.name << "' " << TaskKindToString(task.kind)
                         << " deps " << task.deps.size());
    m_tasks.push_back(std::move(task));
    return m_tasks.back().id;
}

IterationGraph::TaskId
IterationGraph::AddCompute(const std::string& name,
                           uint32_t rank,
                           Time duration,
                           const std::vector<TaskId>& deps)
{
    if (duration.IsStrictlyNegative())
    {
        throw std::invalid_argument("compute task '" + name +
                                    "' has a negative duration; give a duration >= 0");
    }
    if (rank == NO_RANK)
    {
        throw std::invalid_argument("compute task '" + name + "' needs a rank");
    }
    IterationTask t;
    t.kind = TaskKind::COMPUTE;
    t.name = name;
    t.rank = rank;
    t.duration = duration;
    return AddTask(std::move(t), deps);
}

IterationGraph::TaskId
IterationGraph::AddCollective(const std::string& name,
                              const std::string& collective,
                              const std::string& algorithm,
                              const std::vector<uint32_t>& ranks,
                              uint64_t bytes,
                              const std::vector<TaskId>& deps)
{
    if (ranks.size() < 2)
    {
        throw std::invalid_argument("collective task '" + name + "' needs at least 2 ranks, got " +
                                    std::to_string(ranks.size()));
    }
    if (std::set<uint32_t>(ranks.begin(), ranks.end()).size() != ranks.size())
    {
        throw std::invalid_argument("collective task '" + name +
                                    "' lists a rank twice; list each rank once");
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("collective task '" + name + "' has 0 bytes; give bytes > 0");
    }
    IterationTask t;
    t.kind = TaskKind::COLLECTIVE;
    t.name = name;
    t.bytes = bytes;
    t.collective = CollectiveDescription{collective, algorithm, ranks, bytes};
    return AddTask(std::move(t), deps);
}

IterationGraph::TaskId
IterationGraph::AddSend(const std::string& name,
                        uint32_t src,
                        uint32_t dst,
                        uint64_t bytes,
                        const std::vector<TaskId>& deps)
{
    if (src == dst)
    {
        throw std::invalid_argument("send task '" + name + "' goes from rank " +
                                    std::to_string(src) +
                                    " to itself; a send needs two different ranks");
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("send task '" + name + "' has 0 bytes; give bytes > 0");
    }
    IterationTask t;
    t.kind = TaskKind::SEND;
    t.name = name;
    t.rank = src;
    t.dst = dst;
    t.bytes = bytes;
    return AddTask(std::move(t), deps);
}

IterationGraph::TaskId
IterationGraph::AddDelay(const std::string& name, Time duration, const std::vector<TaskId>& deps)
{
    if (duration.IsStrictlyNegative())
    {
        throw std::invalid_argument("delay task '" + name +
                                    "' has a negative duration; give a duration >= 0");
    }
    IterationTask t;
    t.kind = TaskKind::DELAY;
    t.name = name;
    t.duration = duration;
    return AddTask(std::move(t), deps);
}

void
IterationGraph::AddDependency(TaskId task, TaskId dependsOn)
{
    CheckId(task, "AddDependency");
    CheckId(dependsOn, "AddDependency on task '" + m_tasks[task].name + "'");
    auto& deps = m_tasks[task].deps;
    if (std::find(deps.begin(), deps.end(), dependsOn) == deps.end())
    {
        deps.push_back(dependsOn);
    }
}

uint32_t
IterationGraph::GetNTasks() const
{
    return static_cast<uint32_t>(m_tasks.size());
}

const IterationTask&
IterationGraph::GetTask(TaskId id) const
{
    NS_ASSERT_MSG(id < m_tasks.size(), "task id " << id << " out of range");
    return m_tasks[id];
}

const std::vector<IterationTask>&
IterationGraph::GetTasks() const
{
    return m_tasks;
}

std::vector<std::vector<IterationGraph::TaskId>>
IterationGraph::GetDependents() const
{
    std::vector<std::vector<TaskId>> out(m_tasks.size());
    for (const auto& t : m_tasks)
    {
        for (TaskId d : t.deps)
        {
            out[d].push_back(t.id);
        }
    }
    return out;
}

IterationGraph
IterationGraph::Placed(const std::vector<uint32_t>& placement) const
{
    const uint32_t maxRank = GetMaxRank();
    if (maxRank != NO_RANK && placement.size() <= maxRank)
    {
        throw std::invalid_argument("the placement has " + std::to_string(placement.size()) +
                                    " ranks but the graph uses ranks 0.." +
                                    std::to_string(maxRank) + "; give one rank per graph rank");
    }
    std::vector<uint32_t> sorted(placement);
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    {
        throw std::invalid_argument("the placement names a rank twice; give distinct ranks");
    }
    auto place = [&placement](uint32_t r) { return r == NO_RANK ? r : placement[r]; };
    IterationGraph placed(*this);
    for (auto& t : placed.m_tasks)
    {
        t.rank = place(t.rank);
        t.dst = place(t.dst);
        for (uint32_t& r : t.collective.ranks)
        {
            r = place(r);
        }
    }
    return placed;
}

uint32_t
IterationGraph::GetMaxRank() const
{
    uint32_t maxRank = NO_RANK;
    auto note = [&maxRank](uint32_t r) {
        if (r != NO_RANK && (maxRank == NO_RANK || r > maxRank))
        {
            maxRank = r;
        }
    };
    for (const auto& t : m_tasks)
    {
        note(t.rank);
        note(t.dst);
        for (uint32_t r : t.collective.ranks)
        {
            note(r);
        }
    }
    return maxRank;
}

void
IterationGraph::Validate() const
{
    if (m_tasks.empty())
    {
        throw std::invalid_argument("the iteration graph has no tasks; add at least one");
    }
    for (const auto& t : m_tasks)
    {
        for (TaskId d : t.deps)
        {
            CheckId(d, "task '" + t.name + "'");
            if (d == t.id)
            {
                throw std::invalid_argument("task '" + t.name +
                                            "' depends on itself; remove that dependency");
            }
        }
    }
    DependencyGraph g = MakeBoostGraph(m_tasks);
    bool found = false;
    uint32_t from = 0;
    uint32_t to = 0;
    boost::depth_first_search(g, boost::visitor(CycleFinder(found, from, to)));
    if (found)
    {
        throw std::invalid_argument(
            "the iteration graph has a cycle: task '" + m_tasks[to].name + "' (id " +
            std::to_string(to) + ") waits, through a chain, for '" + m_tasks[from].name + "' (id " +
            std::to_string(from) + "), which waits for it; remove one of those dependencies");
    }
}

std::vector<IterationGraph::TaskId>
IterationGraph::GetTopologicalOrder() const
{
    Validate();
    DependencyGraph g = MakeBoostGraph(m_tasks);
    std::vector<boost::graph_traits<DependencyGraph>::vertex_descriptor> reversed;
    boost::topological_sort(g, std::back_inserter(reversed));
    return std::vector<TaskId>(reversed.rbegin(), reversed.rend());
}

std::vector<TaskTiming>
IterationGraph::Estimate(const CommunicationTime& commTime) const
{
    Validate();
    const uint32_t n = GetNTasks();
    std::vector<TaskTiming> timing(n);
    std::vector<uint32_t> missing(n);
    for (const auto& t : m_tasks)
    {
        missing[t.id] = static_cast<uint32_t>(t.deps.size());
    }
    auto dependents = GetDependents();

    // Times are kept as time steps (int64): ns-3 records every Time object made before
    // the first Simulator::Run in a std::set, and the queues below move millions of them.
    using Step = int64_t;
    // Completion events ordered by (time, insertion order), as the simulator orders them.
    using Event = std::tuple<Step, uint64_t, TaskId>;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
    uint64_t seq = 0;
    // Per rank: ready compute tasks by (ready time, id), and whether the stream is busy.
    std::unordered_map<uint32_t, std::set<std::pair<Step, TaskId>>> queued;
    std::unordered_map<uint32_t, bool> busy;
    // Ranks whose stream may take a task at this instant: a task was queued or the
    // stream went idle. No other rank can (it was idle with nothing queued, or busy).
    std::vector<uint32_t> changed;

    auto makeReady = [&](TaskId id, Step now) {
        const IterationTask& t = m_tasks[id];
        timing[id].ready = TimeStep(now);
        Step end = now;
        switch (t.kind)
        {
        case TaskKind::COMPUTE:
            queued[t.rank].insert({now, id});
            changed.push_back(t.rank);
            return;
        case TaskKind::DELAY:
            end = now + t.duration.GetTimeStep();
            break;
        case TaskKind::COLLECTIVE:
        case TaskKind::SEND: {
            Time d = commTime(t);
            if (d.IsStrictlyNegative())
            {
                throw std::invalid_argument("the communication time of task '" + t.name +
                                            "' is negative; the time model must return >= 0");
            }
            end = now + d.GetTimeStep();
            break;
        }
        }
        timing[id].start = TimeStep(now);
        timing[id].end = TimeStep(end);
        events.emplace(end, seq++, id);
    };

    Step now = 0;
    for (const auto& t : m_tasks)
    {
        if (missing[t.id] == 0)
        {
            makeReady(t.id, now);
        }
    }
    uint32_t finished = 0;
    while (true)
    {
        // Idle streams take their earliest-ready task once every event of this instant
        // ran, in rank order.
        std::sort(changed.begin(), changed.end());
        changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
        for (uint32_t rank : changed)
        {
            auto q = queued.find(rank);
            if (!busy[rank] && q != queued.end() && !q->second.empty())
            {
                TaskId id = q->second.begin()->second;
                q->second.erase(q->second.begin());
                busy[rank] = true;
                const Step end = now + m_tasks[id].duration.GetTimeStep();
                timing[id].start = TimeStep(now);
                timing[id].end = TimeStep(end);
                events.emplace(end, seq++, id);
            }
        }
        changed.clear();
        if (events.empty())
        {
            break;
        }
        now = std::get<0>(events.top());
        while (!events.empty() && std::get<0>(events.top()) == now)
        {
            TaskId id = std::get<2>(events.top());
            events.pop();
            ++finished;
            if (m_tasks[id].kind == TaskKind::COMPUTE)
            {
                busy[m_tasks[id].rank] = false;
                changed.push_back(m_tasks[id].rank);
            }
            for (TaskId next : dependents[id])
            {
                if (--missing[next] == 0)
                {
                    makeReady(next, now);
                }
            }
        }
    }
    NS_ASSERT_MSG(finished == n, "a validated graph runs every task");
    return timing;
}

Time
IterationGraph::EstimateIterationTime(const CommunicationTime& commTime) const
{
    Time end(0);
    for (const auto& t : Estimate(commTime))
    {
        end = std::max(end, t.end);
    }
    return end;
}

} // namespace ns3
