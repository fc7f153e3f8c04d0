// SPDX-License-Identifier: GPL-2.0-only
#include "training-driver.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-names.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTrainingDriver");
NS_OBJECT_ENSURE_REGISTERED(TrainingDriver);

TypeId
TrainingDriver::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingDriver")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<TrainingDriver>()
            .AddAttribute("Iterations",
                          "Number of iterations run back to back (each starts when every task "
                          "of the previous one finished).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingDriver::m_iterations),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ReuseConverged",
                          "Report the remaining iterations as copies once ConvergedIterations "
                          "iterations in a row took the same time and nothing else is pending "
                          "in the simulator (an approximation, off by default) (bool)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TrainingDriver::m_reuseConverged),
                          MakeBooleanChecker())
            .AddAttribute("ConvergedIterations",
                          "Consecutive iterations whose durations must agree before reuse "
                          "(iterations, >= 2)",
                          UintegerValue(3),
                          MakeUintegerAccessor(&TrainingDriver::m_convergedIterations),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("ConvergedTolerance",
                          "Largest difference between those iterations' durations and the "
                          "last one's (s); 0: exactly equal",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&TrainingDriver::m_convergedTolerance),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("IterationStarted",
                            "An iteration started: iteration index.",
                            MakeTraceSourceAccessor(&TrainingDriver::m_iterationStartedTrace),
                            "ns3::TrainingDriver::IterationStartedTracedCallback")
            .AddTraceSource("IterationFinished",
                            "An iteration finished: iteration index, its duration.",
                            MakeTraceSourceAccessor(&TrainingDriver::m_iterationFinishedTrace),
                            "ns3::TrainingDriver::IterationFinishedTracedCallback")
            .AddTraceSource("TaskFinished",
                            "A task finished: its record (iteration, task, ready/start/end).",
                            MakeTraceSourceAccessor(&TrainingDriver::m_taskFinishedTrace),
                            "ns3::TrainingDriver::TaskFinishedTracedCallback");
    return tid;
}

TrainingDriver::TrainingDriver() = default;
TrainingDriver::~TrainingDriver() = default;

void
TrainingDriver::DoDispose()
{
    for (auto& c : m_collectives)
    {
        if (c)
        {
            c->Dispose();
        }
    }
    for (auto& c : m_nextCollectives)
    {
        if (c)
        {
            c->Dispose();
        }
    }
    m_collectives.clear();
    m_nextCollectives.clear();
    if (m_transport && m_channelRegistered)
    {
        m_transport->UnregisterChannel(m_sendChannel);
    }
    m_transport = nullptr;
    m_creator = nullptr;
    m_configure = nullptr;
    m_doneCb = DoneCallback();
    Object::DoDispose();
}

void
TrainingDriver::SetGraph(const IterationGraph& graph)
{
    NS_LOG_FUNCTION(this << graph.GetNTasks());
    graph.Validate();
    m_graph = graph;
    m_dependents = m_graph.GetDependents();
}

const IterationGraph&
TrainingDriver::GetGraph() const
{
    return m_graph;
}

void
TrainingDriver::SetTransport(Ptr<MessageTransport> transport)
{
    m_transport = transport;
}

void
TrainingDriver::SetCollectiveCreator(CollectiveCreator creator)
{
    m_creator = std::move(creator);
}

void
TrainingDriver::SetCollectiveConfigurator(
    std::function<void(uint32_t task, Ptr<Collective>)> configure)
{
    m_configure = std::move(configure);
}

void
TrainingDriver::SetDoneCallback(DoneCallback cb)
{
    m_doneCb = cb;
}

void
TrainingDriver::CheckRanks() const
{
    bool needsTransport = false;
    bool needsCreator = false;
    for (const auto& t : m_graph.GetTasks())
    {
        needsTransport |= t.kind == TaskKind::SEND || t.kind == TaskKind::COLLECTIVE;
        needsCreator |= t.kind == TaskKind::COLLECTIVE;
    }
    if (needsTransport && !m_transport)
    {
        throw std::invalid_argument("the iteration graph has collective or send tasks but the "
                                    "driver has no transport; call SetTransport first");
    }
    if (needsCreator && !m_creator)
    {
        throw std::invalid_argument("the iteration graph has collective tasks but the driver has "
                                    "no collective creator; call SetCollectiveCreator (e.g. with "
                                    "CollectiveFactory::Create)");
    }
    if (!m_transport)
    {
        return;
    }
    NS_ASSERT_MSG(m_transport->GetCluster(), "install the transport before starting the driver");
    uint32_t nRanks = m_transport->GetCluster()->GetNRanks();
    uint32_t maxRank = m_graph.GetMaxRank();
    if (maxRank != NO_RANK && maxRank >= nRanks)
    {
        for (const auto& t : m_graph.GetTasks())
        {
            bool bad =
                (t.rank != NO_RANK && t.rank >= nRanks) || (t.dst != NO_RANK && t.dst >= nRanks);
            for (uint32_t r : t.collective.ranks)
            {
                bad |= r >= nRanks;
            }
            if (bad)
            {
                throw std::invalid_argument(
                    "task '" + t.name + "' uses rank " + std::to_string(maxRank) +
                    " or above, but the cluster "
                    "has only " +
                    std::to_string(nRanks) + " ranks; build the graph for this cluster's size");
            }
        }
    }
}

std::vector<Ptr<Collective>>
TrainingDriver::CreateCollectives() const
{
    std::vector<Ptr<Collective>> out(m_graph.GetNTasks());
    for (const auto& t : m_graph.GetTasks())
    {
        if (t.kind != TaskKind::COLLECTIVE)
        {
            continue;
        }
        const CollectiveDescription& d = t.collective;
        Ptr<Collective> c = m_creator(d.collective, d.algorithm);
        if (!c)
        {
            throw std::invalid_argument("task '" + t.name +
                                        "': the collective creator made "
                                        "nothing for collective '" +
                                        d.collective + "', algorithm '" + d.algorithm +
                                        "'; use a name the creator knows");
        }
        c->Setup(m_transport, d.ranks, d.bytes);
        c->SetLabel(t.name);
        if (m_configure)
        {
            m_configure(t.id, c);
        }
        out[t.id] = c;
    }
    return out;
}

void
TrainingDriver::Start()
{
    NS_LOG_FUNCTION(this);
    if (m_started)
    {
        throw std::invalid_argument("TrainingDriver::Start was called twice; a driver runs its "
                                    "iterations once (create another driver to run again)");
    }
    if (m_graph.GetNTasks() == 0)
    {
        throw std::invalid_argument("the training driver has no graph; call SetGraph first");
    }
    CheckRanks();
    // Create the first iteration's collectives now so that a bad name or an impossible
    // configuration throws here, not from inside Simulator::Run.
    m_nextCollectives = m_creator ? CreateCollectives() : std::vector<Ptr<Collective>>();
    bool hasSend = false;
    for (const auto& t : m_graph.GetTasks())
    {
        hasSend |= t.kind == TaskKind::SEND;
    }
    if (hasSend)
    {
        m_sendChannel =
            m_transport->RegisterChannel(MakeCallback(&TrainingDriver::ReceiveSend, this), "send");
        m_channelRegistered = true;
    }
    if (m_transport && m_transport->GetCluster())
    {
        m_transport->GetCluster()->NotifyObjectBound(this);
    }
    m_started = true;
    TraceNames::Register(this, "TrainingDriver");
    Simulator::ScheduleNow(&TrainingDriver::StartIteration, this);
}

void
TrainingDriver::StartIteration()
{
    NS_LOG_FUNCTION(this << m_iteration);
    const uint32_t n = m_graph.GetNTasks();
    m_iterationStart = Simulator::Now();
    m_finishedTasks = 0;
    m_timing.assign(n, TaskTiming());
    m_missing.assign(n, 0);
    for (const auto& t : m_graph.GetTasks())
    {
        m_missing[t.id] = static_cast<uint32_t>(t.deps.size());
    }
    m_queued.clear();
    m_busy.clear();
    m_dispatchPending.clear();
    if (m_iteration == 0 || !m_creator)
    {
        m_collectives = std::move(m_nextCollectives);
        m_nextCollectives.clear();
    }
    else
    {
        m_collectives = CreateCollectives();
    }
    m_iterationStartedTrace(m_iteration);
    for (const auto& t : m_graph.GetTasks())
    {
        if (m_missing[t.id] == 0)
        {
            MakeReady(t.id);
        }
    }
}

void
TrainingDriver::MakeReady(uint32_t task)
{
    const IterationTask& t = m_graph.GetTask(task);
    m_timing[task].ready = Simulator::Now();
    if (t.kind != TaskKind::COMPUTE)
    {
        BeginTask(task);
        return;
    }
    m_queued[t.rank].insert({Simulator::Now(), task});
    // Dispatch after the events of this instant, so that tasks becoming ready at
    // the same time are taken in id order (as IterationGraph::Estimate does).
    if (!m_busy[t.rank] && m_dispatchPending.insert(t.rank).second)
    {
        Simulator::ScheduleNow(&TrainingDriver::Dispatch, this, t.rank);
    }
}

void
TrainingDriver::Dispatch(uint32_t rank)
{
    m_dispatchPending.erase(rank);
    auto& q = m_queued[rank];
    if (m_busy[rank] || q.empty())
    {
        return;
    }
    uint32_t task = q.begin()->second;
    q.erase(q.begin());
    m_busy[rank] = true;
    BeginTask(task);
}

void
TrainingDriver::BeginTask(uint32_t task)
{
    const IterationTask& t = m_graph.GetTask(task);
    NS_LOG_LOGIC("iteration " << m_iteration << " begins '" << t.name << "'");
    m_timing[task].start = Simulator::Now();
    switch (t.kind)
    {
    case TaskKind::COMPUTE:
        Simulator::Schedule(t.duration, &TrainingDriver::ComputeDone, this, task);
        break;
    case TaskKind::DELAY:
        Simulator::Schedule(t.duration, &TrainingDriver::FinishTask, this, task);
        break;
    case TaskKind::SEND:
        m_transport->Send(t.rank, t.dst, m_sendChannel, task, t.bytes);
        break;
    case TaskKind::COLLECTIVE: {
        Ptr<Collective> c = m_collectives[task];
        NS_ASSERT(c);
        c->SetDoneCallback(MakeCallback(&TrainingDriver::CollectiveDone, this).Bind(task));
        c->Start();
        break;
    }
    }
}

void
TrainingDriver::ComputeDone(uint32_t task)
{
    uint32_t rank = m_graph.GetTask(task).rank;
    m_busy[rank] = false;
    FinishTask(task);
    if (!m_queued[rank].empty() && m_dispatchPending.insert(rank).second)
    {
        Simulator::ScheduleNow(&TrainingDriver::Dispatch, this, rank);
    }
}

void
TrainingDriver::CollectiveDone(uint32_t task, Ptr<Collective> collective)
{
    CollectiveTaskRecord r;
    r.iteration = m_iteration;
    r.task = task;
    r.record = collective->GetRecord();
    m_collectiveRecords.push_back(r);
    FinishTask(task);
}

void
TrainingDriver::ReceiveSend(const Message& msg)
{
    NS_ASSERT_MSG(msg.tag < m_graph.GetNTasks() && m_graph.GetTask(msg.tag).kind == TaskKind::SEND,
                  "unexpected message on the driver's channel, tag " << msg.tag);
    FinishTask(msg.tag);
}

void
TrainingDriver::FinishTask(uint32_t task)
{
    const IterationTask& t = m_graph.GetTask(task);
    m_timing[task].end = Simulator::Now();
    TaskRecord r;
    r.iteration = m_iteration;
    r.task = task;
    r.name = t.name;
    r.kind = t.kind;
    r.rank = t.rank;
    r.ready = m_timing[task].ready;
    r.start = m_timing[task].start;
    r.end = m_timing[task].end;
    m_taskRecords.push_back(r);
    m_taskFinishedTrace(r);
    ++m_finishedTasks;
    for (uint32_t next : m_dependents[task])
    {
        if (--m_missing[next] == 0)
        {
            MakeReady(next);
        }
    }
    if (m_finishedTasks == m_graph.GetNTasks())
    {
        // Not now: we may be deep inside a collective's message handler.
        Simulator::ScheduleNow(&TrainingDriver::EndIteration, this);
    }
}

void
TrainingDriver::EndIteration()
{
    IterationRecord rec;
    rec.iteration = m_iteration;
    rec.start = m_iterationStart;
    rec.end = Simulator::Now();
    m_iterationRecords.push_back(rec);
    NS_LOG_INFO("iteration " << m_iteration << " took " << rec.GetDuration().As(Time::US));
    m_iterationFinishedTrace(m_iteration, rec.GetDuration());
    for (auto& c : m_collectives)
    {
        if (c)
        {
            c->Dispose();
        }
    }
    m_collectives.clear();
    ++m_iteration;
    if (m_iteration < m_iterations && ReuseConverged())
    {
        return;
    }
    if (m_iteration < m_iterations)
    {
        StartIteration();
        return;
    }
    m_done = true;
    if (!m_doneCb.IsNull())
    {
        m_doneCb(this);
    }
}

bool
TrainingDriver::IsDone() const
{
    return m_done;
}

const std::vector<IterationRecord>&
TrainingDriver::GetIterationRecords() const
{
    return m_iterationRecords;
}

const std::vector<TaskRecord>&
TrainingDriver::GetTaskRecords() const
{
    return m_taskRecords;
}

const std::vector<CollectiveTaskRecord>&
TrainingDriver::GetCollectiveRecords() const
{
    return m_collectiveRecords;
}

Time
TrainingDriver::GetMeanIterationTime() const
{
    if (m_iterationRecords.empty())
    {
        return Time(0);
    }
    Time sum(0);
    for (const auto& r : m_iterationRecords)
    {
        sum += r.GetDuration();
    }
    return sum / static_cast<int64_t>(m_iterationRecords.size());
}

bool
TrainingDriver::ReuseConverged()
{
    if (!m_reuseConverged)
    {
        return false;
    }
    if (!m_reuseBlocked.empty())
    {
        m_reuseNote = "not reused: " + m_reuseBlocked;
        return false;
    }
    const size_t k = m_convergedIterations;
    const size_t done = m_iterationRecords.size();
    m_reuseNote = "not reused: no " + std::to_string(k) + " iterations in a row agreed";
    if (done < k)
    {
        return false;
    }
    const Time last = m_iterationRecords.back().GetDuration();
    for (size_t i = done - k; i < done; ++i)
    {
        if (Abs(m_iterationRecords[i].GetDuration() - last) > m_convergedTolerance)
        {
            return false;
        }
    }
    if (Simulator::Now() < m_reuseHorizon)
    {
        // A timed fault or its route change is still to come: later iterations may differ.
        m_reuseNote = "not reused: a timed fault or route change is pending until " +
                      std::to_string(m_reuseHorizon.GetSeconds()) + " s";
        return false;
    }
    m_reuseNote = "reused iteration " + std::to_string(m_iteration - 1) + " for iterations " +
                  std::to_string(m_iteration) + ".." + std::to_string(m_iterations - 1);
    Time t = m_iterationRecords.back().end;
    for (uint32_t i = m_iteration; i < m_iterations; ++i)
    {
        IterationRecord rec;
        rec.iteration = i;
        rec.start = t;
        rec.end = t + last;
        rec.extrapolated = true;
        m_iterationRecords.push_back(rec);
        t = rec.end;
    }
    m_extrapolated = m_iterations - m_iteration;
    m_iteration = m_iterations;
    NS_LOG_INFO(m_reuseNote);
    Simulator::Schedule(t - Simulator::Now(), &TrainingDriver::FinishExtrapolated, this);
    return true;
}

void
TrainingDriver::FinishExtrapolated()
{
    m_done = true;
    if (!m_doneCb.IsNull())
    {
        m_doneCb(this);
    }
}

void
TrainingDriver::SetReuseBlocked(const std::string& reason)
{
    m_reuseBlocked = reason;
}

void
TrainingDriver::SetReuseHorizon(Time until)
{
    m_reuseHorizon = until;
}

uint32_t
TrainingDriver::GetExtrapolatedIterations() const
{
    return m_extrapolated;
}

std::string
TrainingDriver::GetReuseNote() const
{
    return m_reuseNote;
}

} // namespace ns3
