// SPDX-License-Identifier: GPL-2.0-only
#include "data-file.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The canonical form of a folder, or the folder as given when it does not exist.
std::filesystem::path
Canonical(const std::filesystem::path& p)
{
    std::error_code ec;
    std::filesystem::path c = std::filesystem::canonical(p, ec);
    return ec ? p.lexically_normal() : c;
}

} // namespace

std::string
DataFile::InstalledPath(const std::string& relative)
{
    const std::string prefix = "contrib/";
    return relative.compare(0, prefix.size(), prefix) == 0 ? relative.substr(prefix.size())
                                                           : relative;
}

std::string
DataFile::LibraryDirectory()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&DataFile::LibraryDirectory), &info) == 0 || !info.dli_fname)
    {
        return "";
    }
    std::error_code ec;
    std::filesystem::path lib = std::filesystem::canonical(info.dli_fname, ec);
    return ec ? "" : lib.parent_path().string();
}

std::string
DataFile::BuildDirectory()
{
    return MLNET_DATA_BUILD_LIBDIR;
}

std::vector<std::string>
DataFile::Candidates(const std::string& relative)
{
    return Candidates(relative, LibraryDirectory());
}

std::vector<std::string>
DataFile::Candidates(const std::string& relative, const std::string& libraryDirectory)
{
    namespace fs = std::filesystem;
    const char* env = std::getenv(kEnvironment);
    if (env && *env)
    {
        return {(fs::path(env) / InstalledPath(relative)).lexically_normal().string()};
    }
    if (libraryDirectory.empty())
    {
        return {};
    }
    // Compare canonical folders, so a symlinked build tree still counts as one.
    if (Canonical(libraryDirectory) == Canonical(BuildDirectory()))
    {
        return {(fs::path(MLNET_DATA_SOURCE_ROOT) / relative).lexically_normal().string()};
    }
    return {(fs::path(libraryDirectory) / MLNET_DATA_FROM_LIBDIR / InstalledPath(relative))
                .lexically_normal()
                .string()};
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
    if (looked.empty())
    {
        looked = "nothing: the library's location is unknown";
    }
    throw std::invalid_argument("shipped data file '" + relative + "' not found (looked at " +
                                looked + "); reinstall the package, set " + kEnvironment +
                                " to a folder laid out like <prefix>/share/mlnet, or give the "
                                "file's path explicitly");
}

} // namespace ns3
