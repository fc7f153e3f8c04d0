// SPDX-License-Identifier: GPL-2.0-only
#include "capture-log.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetCaptureLog");

namespace
{
std::vector<CaptureFile>&
Files()
{
    static std::vector<CaptureFile> files;
    return files;
}
} // namespace

void
CaptureLog::Record(const CaptureFile& file)
{
    NS_LOG_FUNCTION(file.file);
    Files().push_back(file);
}

std::size_t
CaptureLog::Count()
{
    return Files().size();
}

std::vector<CaptureFile>
CaptureLog::Since(std::size_t first)
{
    const std::vector<CaptureFile>& all = Files();
    if (first >= all.size())
    {
        return {};
    }
    return std::vector<CaptureFile>(all.begin() + first, all.end());
}

nlohmann::json
CaptureLog::ToJson(const CaptureFile& f)
{
    return {{"file", f.file},
            {"fabric", f.fabric},
            {"data_path", f.dataPath},
            {"simulation", f.simulation},
            {"node", f.node},
            {"device", f.device},
            {"link_class", f.linkClass},
            {"snap_length", f.snapLength}};
}

} // namespace ns3
