// SPDX-License-Identifier: GPL-2.0-only
/*
 * ScenarioCommandLine: the command line of every example, strict. It wraps
 * ns3::CommandLine (same --help, same --PrintAttributes=..., same --ns3::Type::Attr=
 * and global values) but registers every flag with ns-3 as text, so ns-3 never reads
 * a number; each flag's text is converted by the strict parsers of ValueParser, with
 * the bounds the caller gives, as ns-3 meets it (the last occurrence wins, a bare
 * boolean flag toggles, as with ns-3).
 *
 * Parse() is meant to run inside RunReport::Main: before handing the arguments to
 * ns-3 it checks each one itself — a known flag, one of ns-3's help options (passed
 * through: they print and exit 0), an --ns3::Type::Attr=value whose TypeId and
 * attribute exist and whose value the attribute's checker accepts, or a global value
 * (RngRun and RngSeed as strict unsigned integers, RngSeed >= 1, SchedulerType and
 * SimulatorImplementationType as existing TypeIds of the right kind, ChecksumEnabled
 * as a boolean) — and throws std::invalid_argument otherwise
 * ("--foo: unknown flag; see --help (did you mean --fool?)"), so every rejection is
 * one "error: ..." line instead of ns-3's help text or abort.
 *
 * Left out: positional (non-option) arguments, which no example takes: every one is
 * rejected.
 */
#ifndef MLNET_SCENARIO_COMMAND_LINE_H
#define MLNET_SCENARIO_COMMAND_LINE_H

#include "ns3/command-line.h"
#include "ns3/nstime.h"
#include "ns3/value-parser.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Strict command-line flags with bounds, parsed inside the error wrapper.
 *
 * \code
 *   ScenarioCommandLine cmd(__FILE__);
 *   cmd.AddValue("ranks", "ranks (2..4096)", ranks, 2, 4096);
 *   cmd.AddBytes("bytes", "bytes per rank, e.g. 8MiB", bytes);
 *   return RunReport::Main([&] {
 *       cmd.Parse(argc, argv);
 *       ...
 *   });
 * \endcode
 */
class ScenarioCommandLine
{
public:
    /// Checks a flag's text; throws std::invalid_argument (flag name, text).
    using Check = std::function<void(const std::string& flag, const std::string& text)>;

    /// \param filename the example's source file (__FILE__), for ns-3's help header
    explicit ScenarioCommandLine(const std::string& filename);

    /// \brief Unsigned flag in [min, max] (decimal digits only).
    void AddValue(const std::string& name,
                  const std::string& help,
                  uint32_t& value,
                  uint32_t min,
                  uint32_t max);
    /// \brief Unsigned 64-bit flag in [min, max].
    void AddValue(const std::string& name,
                  const std::string& help,
                  uint64_t& value,
                  uint64_t min,
                  uint64_t max);
    /// \brief Signed flag in [min, max].
    void AddValue(const std::string& name,
                  const std::string& help,
                  int32_t& value,
                  int32_t min,
                  int32_t max);
    /// \brief Signed 64-bit flag in [min, max].
    void AddValue(const std::string& name,
                  const std::string& help,
                  int64_t& value,
                  int64_t min,
                  int64_t max);
    /// \brief Finite real flag in [min, max], or (min, max] when minExclusive.
    void AddValue(const std::string& name,
                  const std::string& help,
                  double& value,
                  double min,
                  double max,
                  bool minExclusive = false);
    /// \brief A time flag in [min, max] ("10us"; ValueParser::Duration).
    void AddValue(const std::string& name,
                  const std::string& help,
                  Time& value,
                  Time min,
                  Time max);
    /// \brief Boolean flag (true/false, 1/0, yes/no; bare --name toggles).
    void AddValue(const std::string& name, const std::string& help, bool& value);
    /// \brief Free text (a file name, a label): any value, the empty one too.
    void AddValue(const std::string& name, const std::string& help, std::string& value);
    /// \brief Text accepted only when check (called with the flag name) does not throw.
    void AddValue(const std::string& name,
                  const std::string& help,
                  std::string& value,
                  const Check& check);
    /// \brief A byte size ("8MiB"; ValueParser::Bytes), kept as its text.
    void AddBytes(const std::string& name,
                  const std::string& help,
                  std::string& text,
                  uint64_t max = ValueParser::MAX_BYTES);
    /// \brief A positive data rate ("100Gbps"; ValueParser::Rate), kept as its text.
    void AddRate(const std::string& name,
                 const std::string& help,
                 std::string& text,
                 uint64_t maxBps = ValueParser::MAX_RATE_BPS);
    /// \brief A time in [min, max] ("1us"; ValueParser::Duration), kept as its text.
    void AddTime(const std::string& name,
                 const std::string& help,
                 std::string& text,
                 Time min = Time(0),
                 Time max = Seconds(3600));
    /// \brief One of choices (ValueParser::Choice).
    void AddChoice(const std::string& name,
                   const std::string& help,
                   std::string& value,
                   const std::vector<std::string>& choices);
    /**
     * \brief A comma list (ValueParser::List), kept as its text; each item must pass
     * item (called with the flag name and the item) when given.
     */
    void AddList(const std::string& name,
                 const std::string& help,
                 std::string& text,
                 const Check& item = nullptr,
                 bool allowEmpty = false);
    /// \brief Run hook after a successful Parse (e.g. to push values into a model).
    void OnParsed(const std::function<void()>& hook);

    /**
     * \brief Check every argument (see the file comment), then let ns-3 parse them;
     * throws std::invalid_argument with one line naming the bad argument.
     */
    void Parse(int argc, char* argv[]);
    /// \brief Parse with args[0] the program name.
    void Parse(const std::vector<std::string>& args);

    /// \return the registered flag names, in order
    std::vector<std::string> GetNames() const;
    /// \return true when the last Parse set flag `name` (given on the command line)
    bool WasGiven(const std::string& name) const;

    /**
     * \brief Throw unless --name=value may set the global value or attribute default
     * name (RngRun, ns3::Type::Attr, ...); the checks Parse applies to them.
     */
    static void CheckNs3Argument(const std::string& name, const std::string& value);

private:
    /// One flag: its name and the conversion of its text into the caller's variable.
    struct Item
    {
        std::string name;                            //!< flag name without "--"
        std::function<void(const std::string&)> set; //!< convert and store (throws)
        bool given{false};                           //!< set by the last Parse

        /// ns-3's callback: store, or throw std::invalid_argument (never false).
        bool Set(std::string text);
    };

    /// Register one flag with ns-3 (as text, with defaultText shown as its default).
    void Add(const std::string& name,
             const std::string& help,
             const std::string& defaultText,
             const std::function<void(const std::string&)>& set);
    /// Throw unless every argument is known and well formed (before ns-3 sees them).
    void CheckArguments(const std::vector<std::string>& args) const;
    /// \return " (did you mean --x?)" for a close known flag, or ""
    std::string Suggest(const std::string& name) const;

    CommandLine m_cmd;                          //!< ns-3's parser (help, attributes)
    std::vector<std::unique_ptr<Item>> m_items; //!< flags, in registration order
    std::vector<std::function<void()>> m_hooks; //!< OnParsed hooks
};

} // namespace ns3

#endif // MLNET_SCENARIO_COMMAND_LINE_H
