// SPDX-License-Identifier: GPL-2.0-only
#include "data-file.h"

#include <dlfcn.h>
#include <filesystem>
#include <stdexcept>

namespace ns3
{

std::vector<std::string>
DataFile::Candidates(const std::string& relative)
{
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    // The installed layout drops "contrib/": share/mlnet/<module>/data/..., and keeps
    // top-level folders as they are: share/mlnet/workloads/...
    const std::string prefix = "contrib/";
    std::string installed =
        relative.compare(0, prefix.size(), prefix) == 0 ? relative.substr(prefix.size()) : relative;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&DataFile::Candidates), &info) != 0 && info.dli_fname)
    {
        std::error_code ec;
        fs::path lib = fs::canonical(fs::path(info.dli_fname), ec);
        if (!ec)
        {
            out.push_back(
                (lib.parent_path() / MLNET_DATA_FROM_LIBDIR / installed).lexically_normal());
        }
    }
    out.push_back((fs::path(MLNET_DATA_SOURCE_ROOT) / relative).lexically_normal());
    return out;
}

std::string
DataFile::Find(const std::string& relative)
{
    std::string looked;
    for (const auto& c : Candidates(relative))
    {
        std::error_code ec;
        if (std::filesystem::exists(c, ec))
        {
            return c;
        }
        looked += (looked.empty() ? "" : ", ") + c;
    }
    throw std::invalid_argument("shipped data file '" + relative + "' not found (looked at " +
                                looked +
                                "); reinstall the package, or give the file's path explicitly");
}

} // namespace ns3
