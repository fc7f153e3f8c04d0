// SPDX-License-Identifier: GPL-2.0-only
#include "output-files.h"

#include "ns3/log.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetOutputFiles");

namespace
{

namespace fs = std::filesystem;

/// One staged file.
struct Entry
{
    std::string path;                          //!< final name
    std::string temp;                          //!< temporary written now
    std::vector<std::function<void()>> closes; //!< writers' close functions
};

/// The process's staging session (one at a time, like the simulator).
struct Session
{
    bool open{false};
    std::vector<Entry> entries;
    std::vector<std::string> failures; //!< messages of writers that failed
    std::vector<std::string> created;  //!< folders Declare created, parents first
    uint64_t counter{0};               //!< numbers temporaries, never reset
    bool hooks{false};                 //!< exit and terminate hooks installed
    std::terminate_handler previous{nullptr};
};

Session&
TheSession()
{
    static Session s;
    return s;
}

/// Forget a session's files and folders; keep what outlives it (the temporary-name
/// counter and the installed exit hooks).
void
EndSession(Session& s)
{
    uint64_t counter = s.counter;
    bool hooks = s.hooks;
    std::terminate_handler previous = s.previous;
    s = Session();
    s.counter = counter;
    s.hooks = hooks;
    s.previous = previous;
}

Entry*
Find(const std::string& path)
{
    for (Entry& e : TheSession().entries)
    {
        if (e.path == path)
        {
            return &e;
        }
    }
    return nullptr;
}

/**
 * Check that `path` can be created as a file; create its missing parent folders and,
 * when `created` is given, append the folders made (parents first). A refusal starts
 * with `label` (the flag that named the path, or the path itself).
 */
void
PrepareParent(const std::string& path, const std::string& label, std::vector<std::string>* created)
{
    if (path.empty())
    {
        throw std::invalid_argument("output file name is empty; give a file name (e.g. "
                                    "--json=run.json)");
    }
    fs::path p(path);
    std::error_code ec;
    if (!p.has_filename() || fs::is_directory(p, ec))
    {
        throw std::invalid_argument(label + ": is a folder, not a file; give a file name (e.g. " +
                                    (p / "run.json").lexically_normal().string() + ")");
    }
    fs::path parent = p.parent_path();
    if (!parent.empty())
    {
        std::vector<fs::path> missing; // deepest first
        for (fs::path q = parent; !q.empty() && !fs::exists(q, ec); q = q.parent_path())
        {
            missing.push_back(q);
        }
        ec.clear();
        fs::create_directories(parent, ec);
        if (ec || !fs::is_directory(parent))
        {
            throw std::invalid_argument(label + ": cannot create the folder '" + parent.string() +
                                        "': " + (ec ? ec.message() : "a file of that name exists") +
                                        "; choose another path");
        }
        if (created)
        {
            for (auto it = missing.rbegin(); it != missing.rend(); ++it)
            {
                created->push_back(it->string());
            }
        }
    }
    const std::string folder = parent.empty() ? "." : parent.string();
    if (access(folder.c_str(), W_OK) != 0)
    {
        throw std::invalid_argument(label + ": folder '" + folder +
                                    "' is not writable; choose another path");
    }
    // A probe at the temporary's name finds what the folder's mode does not tell: a name
    // too long, a read-only file system, an ACL.
    static uint64_t probes = 0;
    const std::string probe =
        OutputFiles::TemporaryName(path, std::numeric_limits<uint64_t>::max() - probes++);
    int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
    {
        throw std::invalid_argument(label + ": cannot create the file: " + std::strerror(errno) +
                                    "; choose another path");
    }
    close(fd);
    unlink(probe.c_str());
}

/// The label of a path declared without its flag.
std::string
PathLabel(const std::string& path)
{
    return "output file '" + path + "'";
}

/// PrepareParent inside the open session (folders made are removed on Discard).
void
DeclareIn(const std::string& path, const std::string& label)
{
    Session& s = TheSession();
    PrepareParent(path, label, s.open ? &s.created : nullptr);
}

/// Write text to file (created or truncated); returns 0 or the errno of the failure.
int
WriteWhole(const std::string& file, const std::string& text)
{
    int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
    {
        return errno;
    }
    const char* p = text.data();
    size_t left = text.size();
    int err = 0;
    while (left > 0)
    {
        ssize_t n = write(fd, p, left);
        if (n < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            err = errno;
            break;
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    if (close(fd) != 0 && err == 0)
    {
        err = errno;
    }
    return err;
}

void
DiscardAtExit()
{
    if (OutputFiles::IsStaging())
    {
        OutputFiles::Discard();
    }
}

void
DiscardAtTerminate()
{
    DiscardAtExit();
    std::terminate_handler previous = TheSession().previous;
    if (previous)
    {
        previous();
    }
    std::abort();
}

} // namespace

bool
OutputFiles::Begin()
{
    Session& s = TheSession();
    if (s.open)
    {
        return false;
    }
    if (!s.hooks)
    {
        // A run that ends by exit() or std::terminate (NS_FATAL_ERROR, NS_ASSERT) inside
        // the session leaves no final name and no temporary.
        std::atexit(&DiscardAtExit);
        s.previous = std::set_terminate(&DiscardAtTerminate);
        s.hooks = true;
    }
    s.open = true;
    return true;
}

bool
OutputFiles::IsStaging()
{
    return TheSession().open;
}

void
OutputFiles::Commit()
{
    Session& s = TheSession();
    if (!s.open)
    {
        return;
    }
    for (size_t i = 0; i < s.entries.size(); ++i)
    {
        // A copy: a close function may stage another file (the vector may grow).
        std::vector<std::function<void()>> closes = s.entries[i].closes;
        for (const auto& close : closes)
        {
            try
            {
                close();
            }
            catch (const std::exception& e)
            {
                s.failures.emplace_back(e.what());
            }
        }
    }
    if (!s.failures.empty())
    {
        std::string why = s.failures.front();
        Discard();
        throw std::invalid_argument(why);
    }
    for (size_t i = 0; i < s.entries.size(); ++i)
    {
        Entry& e = s.entries[i];
        std::error_code ec;
        if (!fs::exists(e.temp, ec))
        {
            continue; // declared, never written (e.g. no PNG): the final name is untouched
        }
        if (std::rename(e.temp.c_str(), e.path.c_str()) != 0)
        {
            std::string why = "cannot write output file '" + e.path + "': " + std::strerror(errno) +
                              "; choose another path";
            s.entries.erase(s.entries.begin(), s.entries.begin() + static_cast<long>(i));
            s.created.clear(); // folders now hold committed files
            Discard();
            throw std::invalid_argument(why);
        }
        NS_LOG_INFO("committed " << e.path);
    }
    EndSession(s);
}

void
OutputFiles::Discard()
{
    Session& s = TheSession();
    for (const Entry& e : s.entries)
    {
        std::remove(e.temp.c_str());
        NS_LOG_INFO("discarded " << e.path);
    }
    for (auto it = s.created.rbegin(); it != s.created.rend(); ++it)
    {
        rmdir(it->c_str()); // only when empty: another writer's file stays
    }
    EndSession(s);
}

std::string
OutputPath::Label() const
{
    const std::string given = value.empty() ? path : value;
    return "--" + flag + "=" + given + (value.empty() ? "" : " (file '" + path + "')");
}

void
OutputFiles::Declare(const std::string& path)
{
    DeclareIn(path, PathLabel(path));
}

void
OutputFiles::Declare(const std::vector<OutputPath>& outputs)
{
    for (const OutputPath& o : outputs)
    {
        if (!o.path.empty())
        {
            DeclareIn(o.path, o.Label());
        }
    }
}

void
OutputFiles::DeclarePrefix(const OutputPath& prefix)
{
    const std::string& p = prefix.path;
    if (p.empty())
    {
        return;
    }
    // A prefix names files beside it: its folder must take them.
    DeclareIn(p.back() == '/' ? p + "file" : p, prefix.Label());
}

std::string
OutputFiles::TemporaryName(const std::string& path, uint64_t n)
{
    fs::path p(path);
    std::string name = "." + p.stem().string() + ".tmp-" + std::to_string(getpid()) + "-" +
                       std::to_string(n) + p.extension().string();
    return (p.parent_path() / name).string();
}

std::string
OutputFiles::Stage(const std::string& path, std::function<void()> close)
{
    Session& s = TheSession();
    if (!s.open)
    {
        PrepareParent(path, PathLabel(path), nullptr);
        return path;
    }
    Entry* e = Find(path);
    if (!e)
    {
        Declare(path);
        s.entries.push_back({path, TemporaryName(path, ++s.counter), {}});
        e = &s.entries.back();
        NS_LOG_INFO("staging " << path << " as " << e->temp);
    }
    if (close)
    {
        e->closes.push_back(std::move(close));
    }
    return e->temp;
}

std::string
OutputFiles::Current(const std::string& path)
{
    const Entry* e = TheSession().open ? Find(path) : nullptr;
    return e ? e->temp : path;
}

void
OutputFiles::Drop(const std::string& path)
{
    auto& entries = TheSession().entries;
    for (auto it = entries.begin(); it != entries.end(); ++it)
    {
        if (it->path == path)
        {
            std::remove(it->temp.c_str());
            entries.erase(it);
            return;
        }
    }
}

void
OutputFiles::Fail(const std::string& path, const std::string& why)
{
    NS_LOG_FUNCTION(path << why);
    Session& s = TheSession();
    if (!s.open)
    {
        std::cerr << "warning: " << why << std::endl;
        return;
    }
    if (!Find(path))
    {
        Stage(path); // the failure belongs to the session whatever the writer staged
    }
    s.failures.push_back(why);
}

void
OutputFiles::CheckWriters()
{
    const Session& s = TheSession();
    if (s.open && !s.failures.empty())
    {
        throw std::invalid_argument(s.failures.front());
    }
}

void
OutputFiles::WriteText(const std::string& path, const std::string& text)
{
    Session& s = TheSession();
    const bool staging = s.open;
    const std::string temp = staging ? Stage(path) : TemporaryName(path, ++s.counter);
    if (!staging)
    {
        PrepareParent(path, PathLabel(path), nullptr);
    }
    int err = WriteWhole(temp, text);
    if (err == 0 && !staging && std::rename(temp.c_str(), path.c_str()) != 0)
    {
        err = errno;
    }
    if (err != 0)
    {
        if (staging)
        {
            Drop(path);
        }
        else
        {
            std::remove(temp.c_str());
        }
        throw std::invalid_argument("cannot write results to '" + path +
                                    "': " + std::strerror(err) + "; nothing was written");
    }
}

std::vector<std::string>
OutputFiles::Staged()
{
    std::vector<std::string> paths;
    for (const Entry& e : TheSession().entries)
    {
        paths.push_back(e.path);
    }
    return paths;
}

} // namespace ns3
