// SPDX-License-Identifier: GPL-2.0-only
#include "trace-names.h"

#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetTraceNames");

namespace
{
bool g_clearScheduled = false; //!< a destroy event of this simulation clears the names
} // namespace

std::string
TraceNames::Register(Ptr<Object> object, const std::string& role)
{
    std::string existing = PathOf(object);
    if (!existing.empty())
    {
        return existing;
    }
    if (!g_clearScheduled)
    {
        Simulator::ScheduleDestroy(&TraceNames::Clear);
        g_clearScheduled = true;
    }
    std::string name = role;
    for (uint32_t k = 2; Names::Find<Object>(name); ++k)
    {
        name = role + "-" + std::to_string(k);
    }
    Names::Add(name, object);
    NS_LOG_LOGIC("registered /Names/" << name);
    return "/Names/" + name;
}

std::string
TraceNames::PathOf(Ptr<Object> object)
{
    std::string name = Names::FindName(object);
    return name.empty() ? std::string() : "/Names/" + name;
}

void
TraceNames::Clear()
{
    Names::Clear();
    g_clearScheduled = false;
}

} // namespace ns3
