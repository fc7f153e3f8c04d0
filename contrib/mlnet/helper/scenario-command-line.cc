// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-command-line.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cfloat>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetScenarioCommandLine");

namespace
{

/// The default ns-3's CommandLine::AddValue shows for a value (first token of <<).
template <typename T>
std::string
DefaultText(const T& value)
{
    std::stringstream ss;
    ss << value;
    std::string text;
    ss >> text;
    return text;
}

/// ns-3 shows a bool's default as true/false.
std::string
DefaultText(bool value)
{
    return value ? "true" : "false";
}

/// ns-3 shows a Time's default in its own unit (CommandLineHelper::GetDefault<Time>).
std::string
DefaultText(const Time& value)
{
    std::stringstream ss;
    ss << value;
    std::string text;
    ss >> text;
    std::ostringstream os;
    os << Time(text).As();
    return os.str();
}

/// ns-3's own options, which print something and exit (passed through).
bool
IsHelpOption(const std::string& name)
{
    static const std::vector<std::string> names = {"help",
                                                   "PrintHelp",
                                                   "version",
                                                   "PrintVersion",
                                                   "PrintGlobals",
                                                   "PrintGroups",
                                                   "PrintGroup",
                                                   "PrintTypeIds",
                                                   "PrintAttributes"};
    return std::find(names.begin(), names.end(), name) != names.end();
}

/// Split "--name=value" (or "-name=value", as ns-3 takes it); false for a non-option.
bool
SplitOption(const std::string& arg, std::string& name, std::string& value)
{
    std::string body;
    if (arg.rfind("--", 0) == 0)
    {
        body = arg.substr(2);
    }
    else if (arg.rfind('-', 0) == 0)
    {
        body = arg.substr(1);
    }
    else
    {
        return false;
    }
    size_t eq = body.find('=');
    name = body.substr(0, eq);
    value = eq == std::string::npos ? "" : body.substr(eq + 1);
    return true;
}

/// Levenshtein distance (flag names are short).
size_t
Distance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            size_t up = row[j];
            row[j] = std::min({row[j] + 1,
                               row[j - 1] + 1,
                               diag + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

/// A TypeId name that exists and derives from base.
void
CheckTypeIdName(const std::string& flag, const std::string& value, TypeId base)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(value, &tid) || !(tid == base || tid.IsChildOf(base)))
    {
        throw std::invalid_argument(ValueParser::Subject(flag, value) +
                                    ": not a type derived from " + base.GetName() +
                                    "; see --PrintTypeIds");
    }
}

/**
 * Check value against an attribute's checker. Readers that abort or read loosely in
 * ns-3 (times, queue sizes, type ids, numbers) are checked strictly first.
 */
void
CheckAttributeValue(const std::string& flag,
                    const std::string& value,
                    Ptr<const AttributeChecker> checker,
                    const std::string& seeAlso)
{
    // ns-3 names some value types with their namespace, some without.
    std::string type = checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) != 0)
    {
        type = "ns3::" + type;
    }
    if (type == "ns3::TimeValue")
    {
        ValueParser::Duration(flag, value);
    }
    else if (type == "ns3::QueueSizeValue")
    {
        ValueParser::Queue(flag, value);
    }
    else if (type == "ns3::DataRateValue")
    {
        ValueParser::Rate(flag, value);
    }
    else if (type == "ns3::UintegerValue")
    {
        ValueParser::Unsigned(flag, value, 0, std::numeric_limits<uint64_t>::max());
    }
    else if (type == "ns3::IntegerValue")
    {
        ValueParser::Signed(flag,
                            value,
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max());
    }
    else if (type == "ns3::DoubleValue")
    {
        ValueParser::Real(flag, value, -DBL_MAX, DBL_MAX);
    }
    else if (type == "ns3::BooleanValue")
    {
        ValueParser::Bool(flag, value);
    }
    else if (type == "ns3::TypeIdValue")
    {
        CheckTypeIdName(flag, value, ObjectBase::GetTypeId());
    }
    if (!checker->CreateValidValue(StringValue(value)))
    {
        std::string underlying = checker->HasUnderlyingTypeInformation()
                                     ? " (" + checker->GetUnderlyingTypeInformation() + ")"
                                     : "";
        throw std::invalid_argument(ValueParser::Subject(flag, value) + ": not a valid value" +
                                    underlying + "; see " + seeAlso);
    }
}

} // namespace

bool
ScenarioCommandLine::Item::Set(std::string text)
{
    set(text);
    given = true;
    return true;
}

ScenarioCommandLine::ScenarioCommandLine(const std::string& filename)
    : m_cmd(filename)
{
}

void
ScenarioCommandLine::Add(const std::string& name,
                         const std::string& help,
                         const std::string& defaultText,
                         const std::function<void(const std::string&)>& set)
{
    NS_ASSERT_MSG(std::none_of(m_items.begin(),
                               m_items.end(),
                               [&name](const auto& i) { return i->name == name; }),
                  "flag --" << name << " registered twice");
    m_items.push_back(std::make_unique<Item>(Item{name, set, false}));
    m_cmd.AddValue(name, help, MakeCallback(&Item::Set, m_items.back().get()), defaultText);
}

void
ScenarioCommandLine::AddValue(const std::string& name,
                              const std::string& help,
                              uint32_t& value,
                              uint32_t min,
                              uint32_t max)
{
    Add(name, help, DefaultText(value), [&value, name, min, max](const std::string& t) {
        value = static_cast<uint32_t>(ValueParser::Unsigned(name, t, min, max));
    });
}

void
ScenarioCommandLine::AddValue(const std::string& name,
                              const std::string& help,
                              uint64_t& value,
                              uint64_t min,
                              uint64_t max)
{
    Add(name, help, DefaultText(value), [&value, name, min, max](const std::string& t) {
        value = ValueParser::Unsigned(name, t, min, max);
    });
}

void
ScenarioCommandLine::AddValue(const std::string& name,
                              const std::string& help,
                              int32_t& value,
                              int32_t min,
                              int32_t max)
{
    Add(name, help, DefaultText(value), [&value, name, min, max](const std::string& t) {
        value = static_cast<int32_t>(ValueParser::Signed(name, t, min, max));
    });
}

void
ScenarioCommandLine::AddValue(const std::string& name,
                              const std::string& help,
                              int64_t& value,
                              int64_t min,
                              int64_t max)
{
    Add(name, help, DefaultText(value), [&value, name, min, max](const std::string& t) {
        value = ValueParser::Signed(name, t, min, max);
    });
}

void
ScenarioCommandLine::AddValue(const std::string& name,
                              const std::string& help,
                              double& value,
                              double min,
                              double max,
                              bool minExclusive)
{
    Add(name,
        help,
        DefaultText(value),
        [&value, name, min, max, minExclusive](const std::string& t) {
            value = ValueParser::Real(name, t, min, max, minExclusive);
        });
}

void
ScenarioCommandLine::AddValue(const std::string& name,
                              const std::string& help,
                              Time& value,
                              Time min,
                              Time max)
{
    Add(name, help, DefaultText(value), [&value, name, min, max](const std::string& t) {
        value = ValueParser::Duration(name, t, min, max);
    });
}

void
ScenarioCommandLine::AddValue(const std::string& name, const std::string& help, bool& value)
{
    Add(name, help, DefaultText(value), [&value, name](const std::string& t) {
        // A bare --name toggles, as with ns-3.
        value = t.empty() ? !value : ValueParser::Bool(name, t);
    });
}

void
ScenarioCommandLine::AddValue(const std::string& name, const std::string& help, std::string& value)
{
    AddValue(name, help, value, nullptr);
}

void
ScenarioCommandLine::AddValue(const std::string& name,
                              const std::string& help,
                              std::string& value,
                              const Check& check)
{
    Add(name, help, DefaultText(value), [&value, name, check](const std::string& t) {
        if (check)
        {
            check(name, t);
        }
        value = t;
    });
}

void
ScenarioCommandLine::AddBytes(const std::string& name,
                              const std::string& help,
                              std::string& text,
                              uint64_t max)
{
    AddValue(name, help, text, [max](const std::string& flag, const std::string& t) {
        ValueParser::Bytes(flag, t, max);
    });
}

void
ScenarioCommandLine::AddRate(const std::string& name,
                             const std::string& help,
                             std::string& text,
                             uint64_t maxBps)
{
    AddValue(name, help, text, [maxBps](const std::string& flag, const std::string& t) {
        ValueParser::Rate(flag, t, maxBps);
    });
}

void
ScenarioCommandLine::AddTime(const std::string& name,
                             const std::string& help,
                             std::string& text,
                             Time min,
                             Time max)
{
    AddValue(name, help, text, [min, max](const std::string& flag, const std::string& t) {
        ValueParser::Duration(flag, t, min, max);
    });
}

void
ScenarioCommandLine::AddChoice(const std::string& name,
                               const std::string& help,
                               std::string& value,
                               const std::vector<std::string>& choices)
{
    AddValue(name, help, value, [choices](const std::string& flag, const std::string& t) {
        ValueParser::Choice(flag, t, choices);
    });
}

void
ScenarioCommandLine::AddList(const std::string& name,
                             const std::string& help,
                             std::string& text,
                             const Check& item,
                             bool allowEmpty)
{
    AddValue(name, help, text, [item, allowEmpty](const std::string& flag, const std::string& t) {
        for (const std::string& i : ValueParser::List(flag, t, allowEmpty))
        {
            if (item)
            {
                item(flag, i);
            }
        }
    });
}

void
ScenarioCommandLine::OnParsed(const std::function<void()>& hook)
{
    m_hooks.push_back(hook);
}

std::vector<std::string>
ScenarioCommandLine::GetNames() const
{
    std::vector<std::string> names;
    for (const auto& i : m_items)
    {
        names.push_back(i->name);
    }
    return names;
}

bool
ScenarioCommandLine::WasGiven(const std::string& name) const
{
    return std::any_of(m_items.begin(), m_items.end(), [&name](const auto& i) {
        return i->name == name && i->given;
    });
}

std::string
ScenarioCommandLine::Suggest(const std::string& name) const
{
    std::string best;
    size_t bestDistance = std::max<size_t>(2, name.size() / 3) + 1;
    for (const auto& i : m_items)
    {
        size_t d = Distance(name, i->name);
        if (d < bestDistance)
        {
            best = i->name;
            bestDistance = d;
        }
    }
    return best.empty() ? "" : " (did you mean --" + best + "?)";
}

void
ScenarioCommandLine::CheckNs3Argument(const std::string& name, const std::string& value)
{
    if (name == "RngRun")
    {
        ValueParser::Unsigned(name, value, 0, std::numeric_limits<uint64_t>::max());
        return;
    }
    if (name == "RngSeed")
    {
        ValueParser::Unsigned(name, value, 1, std::numeric_limits<uint32_t>::max());
        return;
    }
    if (name == "SchedulerType")
    {
        CheckTypeIdName(name, value, Scheduler::GetTypeId());
        return;
    }
    if (name == "SimulatorImplementationType")
    {
        CheckTypeIdName(name, value, SimulatorImpl::GetTypeId());
        return;
    }
    for (auto g = GlobalValue::Begin(); g != GlobalValue::End(); ++g)
    {
        if ((*g)->GetName() == name)
        {
            CheckAttributeValue(name, value, (*g)->GetChecker(), "--PrintGlobals");
            return;
        }
    }
    const size_t sep = name.rfind("::");
    NS_ASSERT(sep != std::string::npos);
    const std::string typeName = name.substr(0, sep);
    const std::string attribute = name.substr(sep + 2);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        throw std::invalid_argument("--" + ValueParser::Echo(name) + ": no type " +
                                    ValueParser::Echo(typeName) +
                                    "; write --ns3::Type::Attribute=value (see --PrintTypeIds)");
    }
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attribute, &info) || !(info.flags & TypeId::ATTR_CONSTRUCT))
    {
        throw std::invalid_argument("--" + ValueParser::Echo(name) + ": " + typeName +
                                    " has no attribute " + ValueParser::Echo(attribute) +
                                    " settable as a default; see --PrintAttributes=" + typeName);
    }
    CheckAttributeValue(name, value, info.checker, "--PrintAttributes=" + typeName);
}

void
ScenarioCommandLine::CheckArguments(const std::vector<std::string>& args) const
{
    for (size_t a = 1; a < args.size(); ++a)
    {
        std::string name;
        std::string value;
        if (!SplitOption(args[a], name, value))
        {
            throw std::invalid_argument("'" + ValueParser::Echo(args[a]) +
                                        "': unexpected argument; flags take the form "
                                        "--name=value (see --help)");
        }
        if (std::any_of(m_items.begin(), m_items.end(), [&name](const auto& i) {
                return i->name == name;
            }))
        {
            continue; // its value is converted when ns-3 hands it over
        }
        bool global = false;
        for (auto g = GlobalValue::Begin(); g != GlobalValue::End(); ++g)
        {
            global = global || (*g)->GetName() == name;
        }
        if (global || name.find("::") != std::string::npos)
        {
            CheckNs3Argument(name, value);
            continue;
        }
        throw std::invalid_argument("--" + ValueParser::Echo(name) + ": unknown flag; see --help" +
                                    Suggest(name));
    }
}

void
ScenarioCommandLine::Parse(int argc, char* argv[])
{
    Parse(std::vector<std::string>(argv, argv + argc));
}

void
ScenarioCommandLine::Parse(const std::vector<std::string>& args)
{
    const bool help =
        std::any_of(args.begin() + (args.empty() ? 0 : 1), args.end(), [](const std::string& arg) {
            std::string name;
            std::string value;
            return SplitOption(arg, name, value) && IsHelpOption(name);
        });
    if (!help)
    {
        CheckArguments(args);
    }
    for (size_t a = 1; a < args.size(); ++a)
    {
        std::string name;
        std::string value;
        TypeId tid;
        // ns-3 aborts on an unknown type here.
        if (SplitOption(args[a], name, value) && name == "PrintAttributes" &&
            !TypeId::LookupByNameFailSafe(value, &tid))
        {
            throw std::invalid_argument(ValueParser::Subject(name, value) +
                                        ": no such type; see --PrintTypeIds");
        }
    }
    // ns-3 prints help and exits for the help options; it converts every flag through
    // Item::Set (which throws on a bad value) and sets the checked ns-3 values.
    m_cmd.Parse(args);
    for (const auto& hook : m_hooks)
    {
        hook();
    }
}

} // namespace ns3
