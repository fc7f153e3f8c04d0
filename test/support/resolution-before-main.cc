// SPDX-License-Identifier: GPL-2.0-only
/*
 * A scenario program that touches ns-3's time resolution before RunReport::Main, as
 * ns-3's tutorial scripts do: with "set" it calls Time::SetResolution(Time::NS) first,
 * with "run" it runs an empty simulation first. ns-3 3.37 allows SetResolution only
 * once and not after a run, so Main must leave the resolution alone here; with no
 * argument Main fixes it, which ends ns-3's record of every Time made (Time::Mark).
 * The body prints whether that record is still kept, then times one event;
 * run-report-main-test.cc runs this program.
 */
#include "ns3/core-module.h"
#include "ns3/run-report.h"

#include <dlfcn.h>
#include <iostream>
#include <string>

using namespace ns3;

/// "kept" while ns-3 records every Time made (its private Time::g_markingTimes, read
/// through the dynamic linker), "gone" after, "unknown" where the symbol is not found.
static std::string
TimeRecord()
{
    const auto* record =
        static_cast<void* const*>(dlsym(RTLD_DEFAULT, "_ZN3ns34Time14g_markingTimesE"));
    if (record == nullptr)
    {
        return "unknown";
    }
    return *record != nullptr ? "kept" : "gone";
}

int
main(int argc, char* argv[])
{
    const std::string first = argc > 1 ? argv[1] : "";
    if (first == "set")
    {
        Time::SetResolution(Time::NS);
    }
    else if (first == "run")
    {
        Simulator::Run();
        Simulator::Destroy();
    }
    return RunReport::Main([] {
        std::cout << "time record " << TimeRecord() << std::endl;
        Time seen;
        Simulator::Schedule(NanoSeconds(720), [&seen] { seen = Simulator::Now(); });
        Simulator::Run();
        Simulator::Destroy();
        std::cout << "event at " << seen.GetNanoSeconds() << " ns" << std::endl;
    });
}
