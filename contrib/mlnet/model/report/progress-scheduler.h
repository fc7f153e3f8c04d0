// SPDX-License-Identifier: GPL-2.0-only
/*
 * ProgressScheduler: one progress line on stderr at a steady wall-clock interval
 * while a simulation runs, without adding a single event.
 *
 * It is an ns-3 Scheduler that delegates to an inner one (LazyHeapScheduler, in
 * model/runtime/) and, every 256 events it hands to the simulator, looks at the wall
 * clock. When the interval has passed it prints
 *
 *   progress: simulated 12.5 ms of 27.1 ms expected (46%), 1.32e+06 events/s, wall 5.0 s
 *
 * (the "of ... expected (...%)" part only when a runner told it the expected end,
 * the twin's prediction; events/s over the last interval). A run shorter than the
 * interval prints nothing. Because no event is scheduled, results (times, event
 * counts) are identical with and without progress. ns-3's ShowProgress was not
 * used: in 3.37 it reschedules itself in simulated time, which adds events and
 * never lets a simulation without a stop time end.
 *
 * Every example installs it through --level's registration (RunLevelOption), which
 * also registers --quiet (no progress lines) and --progressInterval (wall seconds).
 * A user's own --SchedulerType replaces it (then no progress lines). In a
 * distributed run only MPI rank 0 prints.
 *
 * Not covered: progress of analytic runs (they do not simulate).
 */
#ifndef MLNET_PROGRESS_SCHEDULER_H
#define MLNET_PROGRESS_SCHEDULER_H

#include "ns3/nstime.h"
#include "ns3/scheduler.h"

#include <chrono>
#include <ostream>

namespace ns3
{

/**
 * \brief A Scheduler wrapper that prints a progress line at a wall-clock interval.
 */
class ProgressScheduler : public Scheduler
{
public:
    /// \return the TypeId
    static TypeId GetTypeId();
    ProgressScheduler();
    ~ProgressScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /**
     * \brief Make every simulator created from now on use a ProgressScheduler (binds
     * the "SchedulerType" global value). RunLevelOption calls it and registers --quiet
     * and --progressInterval.
     */
    static void Install();
    /// \brief Print no progress lines (what --quiet sets).
    static void SetQuiet(bool quiet);
    /// \return true when no progress lines are printed
    static bool IsQuiet();
    /// \brief Wall seconds between two progress lines (what --progressInterval sets; > 0).
    static void SetInterval(double seconds);
    /// \return the wall seconds between two progress lines
    static double GetInterval();
    /// \brief Where progress lines go (default std::cerr; for tests).
    static void SetStream(std::ostream* os);
    /**
     * \brief The simulated time at which the running simulation is expected to end
     * (a runner sets the twin's prediction before Simulator::Run); zero = unknown.
     * Cleared when the simulator is destroyed.
     */
    static void SetExpectedEnd(Time end);
    /// \return the progress line for these figures (the documented form)
    static std::string FormatLine(Time now, Time expectedEnd, double eventsPerSecond, double wall);

protected:
    void DoDispose() override;

private:
    void Check(Time now);

    Ptr<Scheduler> m_inner;                               //!< the scheduler doing the work
    uint32_t m_countdown{256};                            //!< events until the next wall check
    uint64_t m_events{0};                                 //!< events handed out so far
    uint64_t m_eventsAtLine{0};                           //!< m_events at the last line
    bool m_started{false};                                //!< first event handed out
    std::chrono::steady_clock::time_point m_wallStart;    //!< first event's wall time
    std::chrono::steady_clock::time_point m_wallLastLine; //!< last line's wall time
};

} // namespace ns3

#endif // MLNET_PROGRESS_SCHEDULER_H
