// SPDX-License-Identifier: GPL-2.0-only
#include "fault-log.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetFaultLog");

namespace
{
std::vector<FaultRecord>&
Records()
{
    static std::vector<FaultRecord> records;
    return records;
}
} // namespace

std::size_t
FaultLog::Record(const FaultRecord& record)
{
    NS_LOG_FUNCTION(record.item);
    Records().push_back(record);
    return Records().size() - 1;
}

void
FaultLog::AddFrameLost(std::size_t position, uint64_t frames)
{
    if (position < Records().size())
    {
        Records()[position].framesLost += frames;
    }
}

std::size_t
FaultLog::Count()
{
    return Records().size();
}

std::vector<FaultRecord>
FaultLog::Since(std::size_t first)
{
    const std::vector<FaultRecord>& all = Records();
    if (first >= all.size())
    {
        return {};
    }
    return std::vector<FaultRecord>(all.begin() + first, all.end());
}

nlohmann::json
FaultLog::ToJson(const FaultRecord& r)
{
    nlohmann::json j = {{"item", r.item}, {"element", r.element}, {"fabric", r.fabric}};
    if (!r.links.empty())
    {
        j["link"] = r.links.front();
        j["class"] = r.classes.front();
        j["endpoints"] = r.endpoints.front();
    }
    if (r.element != "link")
    {
        j["node"] = r.node;
        j["links"] = r.links;
    }
    j["at_s"] = r.atSeconds;
    j["routes_converged_s"] = r.convergedSeconds;
    j["frames_lost"] = r.framesLost;
    return j;
}

} // namespace ns3
