// SPDX-License-Identifier: GPL-2.0-only
#include "run-outputs.h"

namespace ns3
{

namespace
{
struct Record
{
    nlohmann::json files = nlohmann::json::object();
    nlohmann::json flows = nlohmann::json::array();
};

Record&
TheRecord()
{
    static Record r;
    return r;
}
} // namespace

void
RunOutputs::AddFile(const std::string& kind, const std::string& path)
{
    TheRecord().files[kind].push_back(path);
}

void
RunOutputs::AddFlows(const nlohmann::json& flows)
{
    for (const auto& f : flows)
    {
        TheRecord().flows.push_back(f);
    }
}

void
RunOutputs::AddTo(nlohmann::json& document)
{
    if (!TheRecord().files.empty())
    {
        document["outputs"] = TheRecord().files;
    }
    if (!TheRecord().flows.empty())
    {
        document["flows"] = TheRecord().flows;
    }
}

nlohmann::json
RunOutputs::GetFiles()
{
    return TheRecord().files;
}

nlohmann::json
RunOutputs::GetFlows()
{
    return TheRecord().flows;
}

void
RunOutputs::Clear()
{
    TheRecord() = Record();
}

} // namespace ns3
