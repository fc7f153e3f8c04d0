// SPDX-License-Identifier: GPL-2.0-only
#include "progress-scheduler.h"

#include "ns3/double.h"
#include "ns3/global-value.h"
#include "ns3/lazy-heap-scheduler.h"
#include "ns3/log.h"
#include "ns3/process-runtime.h"
#include "ns3/run-report.h"
#include "ns3/string.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetProgressScheduler");
NS_OBJECT_ENSURE_REGISTERED(ProgressScheduler);

namespace
{
bool g_quiet = false;
double g_interval = 5.0;
std::ostream* g_stream = &std::cerr;
Time g_expectedEnd;
} // namespace

TypeId
ProgressScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ProgressScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Mlnet")
                            .AddConstructor<ProgressScheduler>();
    return tid;
}

ProgressScheduler::ProgressScheduler()
    : m_inner(CreateObject<LazyHeapScheduler>())
{
}

ProgressScheduler::~ProgressScheduler() = default;

void
ProgressScheduler::DoDispose()
{
    g_expectedEnd = Time(0);
    m_inner = nullptr;
    Scheduler::DoDispose();
}

void
ProgressScheduler::Insert(const Event& ev)
{
    m_inner->Insert(ev);
}

bool
ProgressScheduler::IsEmpty() const
{
    return m_inner->IsEmpty();
}

Scheduler::Event
ProgressScheduler::PeekNext() const
{
    return m_inner->PeekNext();
}

Scheduler::Event
ProgressScheduler::RemoveNext()
{
    Event ev = m_inner->RemoveNext();
    ++m_events;
    if (--m_countdown == 0)
    {
        m_countdown = 256;
        Check(TimeStep(ev.key.m_ts));
    }
    else if (!m_started)
    {
        m_started = true;
        m_wallStart = m_wallLastLine = std::chrono::steady_clock::now();
    }
    return ev;
}

void
ProgressScheduler::Remove(const Event& ev)
{
    m_inner->Remove(ev);
}

void
ProgressScheduler::Check(Time now)
{
    if (g_quiet)
    {
        return;
    }
    auto wall = std::chrono::steady_clock::now();
    double sinceLine = std::chrono::duration<double>(wall - m_wallLastLine).count();
    if (sinceLine < g_interval)
    {
        return;
    }
    double eventsPerSecond = static_cast<double>(m_events - m_eventsAtLine) / sinceLine;
    m_eventsAtLine = m_events;
    m_wallLastLine = wall;
    if (!ProcessRuntime::IsRoot())
    {
        return;
    }
    double total = std::chrono::duration<double>(wall - m_wallStart).count();
    *g_stream << FormatLine(now, g_expectedEnd, eventsPerSecond, total) << std::endl;
}

std::string
ProgressScheduler::FormatLine(Time now, Time expectedEnd, double eventsPerSecond, double wall)
{
    std::ostringstream ss;
    ss << "progress: simulated " << RunReport::FormatSeconds(now.GetSeconds());
    if (expectedEnd.IsStrictlyPositive())
    {
        ss << " of " << RunReport::FormatSeconds(expectedEnd.GetSeconds()) << " expected ("
           << std::fixed << std::setprecision(0)
           << 100.0 * now.GetSeconds() / expectedEnd.GetSeconds() << "%)";
    }
    ss << std::defaultfloat << std::setprecision(3) << ", " << eventsPerSecond << " events/s, wall "
       << std::fixed << std::setprecision(1) << wall << " s";
    return ss.str();
}

void
ProgressScheduler::Install()
{
    GlobalValue::Bind("SchedulerType", StringValue("ns3::ProgressScheduler"));
}

void
ProgressScheduler::SetQuiet(bool quiet)
{
    g_quiet = quiet;
}

bool
ProgressScheduler::IsQuiet()
{
    return g_quiet;
}

double
ProgressScheduler::GetInterval()
{
    return g_interval;
}

void
ProgressScheduler::SetInterval(double seconds)
{
    if (!(seconds > 0))
    {
        throw std::invalid_argument("--progressInterval must be positive (wall seconds), got " +
                                    std::to_string(seconds));
    }
    g_interval = seconds;
}

void
ProgressScheduler::SetStream(std::ostream* os)
{
    g_stream = os ? os : &std::cerr;
}

void
ProgressScheduler::SetExpectedEnd(Time end)
{
    g_expectedEnd = end;
}

} // namespace ns3
