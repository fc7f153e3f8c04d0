// SPDX-License-Identifier: GPL-2.0-only
/*
 * OutputFiles: the files one run writes, made to appear together or not at all.
 *
 * A run (RunReport::Main) opens a staging session. Inside it, every writer of a
 * result (RunReport's JSON and CSV, PlotScript's PNG, pcap captures, FlowMonitor
 * XML, the timeline, link monitor and message log) asks Stage() for the name to
 * write to and gets a temporary in the file's own folder,
 * "<folder>/.<stem>.tmp-<pid>-<n><ext>": hidden (a leading dot) from a user's glob
 * such as *.json, and keeping the extension for tools that read it (matplotlib).
 * When the whole run succeeded, Commit() closes the writers still open and renames
 * every temporary to its final name; when it failed (an exception reaching
 * RunReport::Main, exit() or std::terminate while the session is open), Discard()
 * removes every temporary and the folders the session created, so no final name is
 * created or replaced and a result of an earlier run survives.
 *
 * Declare() checks a path before any simulation: an empty file name, a path that is
 * a folder, a parent that is a file or an unwritable folder throw
 * std::invalid_argument naming the path; missing parent folders are created. A path
 * declared as an OutputPath names the flag that gave it, so the error line reads
 * "--csv=afile/r.csv: cannot create the folder 'afile': Not a directory; ..." (or
 * "--out=res (file 'res/run.json'): ..." for a path derived from another flag).
 *
 * Outside a session (unit tests, library use) Stage() returns the final name and
 * WriteText() writes through a temporary and a rename, one file at a time.
 *
 * Left out: rolling back a commit whose second rename fails after the first one
 * succeeded (renames in one folder do not fail short of a full disk's metadata or
 * a concurrent rmdir), and SIGKILL or abort() outside std::terminate, which leave
 * the hidden temporaries behind (never a final name). In an MPI run each process
 * stages and commits the files it writes itself (RunReport writes on rank 0 only).
 */
#ifndef MLNET_OUTPUT_FILES_H
#define MLNET_OUTPUT_FILES_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief An output file and the command-line flag it came from, so that a refused path
 * is reported as the flag the user typed.
 */
struct OutputPath
{
    std::string flag;  //!< the flag without dashes, e.g. "csv"
    std::string path;  //!< the file; empty = not asked for (skipped)
    std::string value; //!< what the flag was given when `path` was derived from it (e.g.
                       //!< --out=res gives res/run.json); empty: `path` itself

    /// \return "--flag=value" as the user typed it, with the file when it was derived
    std::string Label() const;
};

/**
 * \brief Stages a run's output files under temporary names and renames them all at
 * once when the run succeeded (or removes them all when it failed).
 */
class OutputFiles
{
public:
    /**
     * \brief Open a staging session (RunReport::Main does): from now on Stage() gives
     * temporaries.
     * \return true if it opened one, false if one was open already (a nested run
     * joins it and leaves Commit or Discard to the outer one)
     */
    static bool Begin();
    /**
     * \brief End the session successfully: call every writer's close function, then,
     * unless a writer reported a failure (Fail), rename every temporary that exists to
     * its final name. On a failure everything is discarded and std::invalid_argument
     * says what failed.
     */
    static void Commit();
    /**
     * \brief End the session unsuccessfully: remove every temporary and every folder
     * the session created (if still empty). No final name is touched.
     */
    static void Discard();
    /// \return whether a staging session is open
    static bool IsStaging();

    /**
     * \brief Check a file a run will write, before the run: its name is not empty,
     * it is not a folder, its parent folders exist or can be created (they are
     * created now) and a file can be created there (a probe file is made and removed
     * at once: a name too long or a read-only file system is found too). Throws
     * std::invalid_argument naming the path and what to change.
     * \param path the file
     */
    static void Declare(const std::string& path);
    /**
     * \brief Declare the files of flags, e.g. Declare({{"json", json}, {"csv", csv}}); an
     * entry with an empty path is a file not asked for (a flag left empty) and is
     * skipped. A refusal starts with the entry's Label() ("--csv=afile/r.csv: ...").
     */
    static void Declare(const std::vector<OutputPath>& outputs);
    /**
     * \brief Check the folder of files named "<prefix>..." (e.g. a pcap prefix):
     * created if missing, refused as Declare() refuses a parent, naming the flag.
     * An empty prefix is skipped.
     */
    static void DeclarePrefix(const OutputPath& prefix);

    /**
     * \brief The name a writer opens for `path`: inside a session a temporary (the
     * same one for every Stage of the path in the session), outside it `path`
     * itself. Declares the path first.
     * \param path the final name
     * \param close called by Commit before the rename (flush and close a file that is
     *        still open, e.g. at the end of a simulation that was not destroyed); may
     *        be empty. It may call Fail().
     */
    static std::string Stage(const std::string& path, std::function<void()> close = {});
    /**
     * \brief Where the content of `path` is now: its temporary while staged (a reader
     * inside the run, e.g. plot.py reading the JSON), else `path`.
     */
    static std::string Current(const std::string& path);
    /**
     * \brief Forget a staged file and remove its temporary (a writer that gave up, e.g.
     * plot.py exited non-zero): Commit creates no final name for it.
     */
    static void Drop(const std::string& path);
    /**
     * \brief Report a failed write from code that must not throw (it runs in
     * Simulator::Destroy): Commit throws it. Outside a session it is printed as a
     * "warning:" line on stderr.
     * \param path the final name of the file
     * \param why what went wrong and what to change
     */
    static void Fail(const std::string& path, const std::string& why);
    /**
     * \brief Throw (std::invalid_argument) the first failure a writer reported with
     * Fail() in the open session, so a run stops before it writes its report on top
     * of a file that is already lost; nothing otherwise.
     */
    static void CheckWriters();
    /**
     * \brief Write text as the whole content of `path`: staged inside a session; outside
     * one through a temporary and a rename. Throws std::invalid_argument naming the
     * path when it cannot be written (nothing is left behind).
     */
    static void WriteText(const std::string& path, const std::string& text);
    /// \return the final names staged in the open session, in staging order
    static std::vector<std::string> Staged();
    /**
     * \brief The temporary name for a path, "<folder>/.<stem>.tmp-<pid>-<n><ext>".
     * \param path the final name
     * \param n a number unique in the process
     */
    static std::string TemporaryName(const std::string& path, uint64_t n);
};

} // namespace ns3

#endif // MLNET_OUTPUT_FILES_H
