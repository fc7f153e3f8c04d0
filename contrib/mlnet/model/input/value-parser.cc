// SPDX-License-Identifier: GPL-2.0-only
#include "value-parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// "[min, max]" for integers.
template <typename T>
std::string
Interval(T min, T max)
{
    return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

/// A double as a message writes it (shortest of %g with 6 digits).
std::string
Number(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

[[noreturn]] void
Fail(const std::string& flag, const std::string& text, const std::string& why)
{
    throw std::invalid_argument(ValueParser::Subject(flag, text) + ": " + why);
}

/// True when text is one or more decimal digits and nothing else.
bool
AllDigits(const std::string& text)
{
    if (text.empty())
    {
        return false;
    }
    for (char c : text)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
    }
    return true;
}

/// Digits to uint64_t; false on overflow.
bool
DigitsToU64(const std::string& digits, uint64_t& out)
{
    out = 0;
    for (char c : digits)
    {
        uint64_t d = static_cast<uint64_t>(c - '0');
        if (out > (std::numeric_limits<uint64_t>::max() - d) / 10)
        {
            return false;
        }
        out = out * 10 + d;
    }
    return true;
}

} // namespace

std::string
ValueParser::Echo(const std::string& text)
{
    if (text.size() <= MAX_ECHO)
    {
        return text;
    }
    return text.substr(0, MAX_ECHO) + "…";
}

std::string
ValueParser::Subject(const std::string& flag, const std::string& text)
{
    return flag.empty() ? "'" + Echo(text) + "'" : "--" + flag + "=" + Echo(text);
}

uint64_t
ValueParser::Unsigned(const std::string& flag, const std::string& text, uint64_t min, uint64_t max)
{
    const std::string valid = "give a whole number in " + Interval(min, max);
    if (!AllDigits(text))
    {
        Fail(flag, text, "not an unsigned decimal integer; " + valid);
    }
    uint64_t v = 0;
    if (!DigitsToU64(text, v) || v < min || v > max)
    {
        Fail(flag, text, "out of range; " + valid);
    }
    return v;
}

int64_t
ValueParser::Signed(const std::string& flag, const std::string& text, int64_t min, int64_t max)
{
    const std::string valid = "give a whole number in " + Interval(min, max);
    const bool negative = !text.empty() && text[0] == '-';
    const std::string digits = negative ? text.substr(1) : text;
    if (!AllDigits(digits))
    {
        Fail(flag, text, "not a decimal integer; " + valid);
    }
    uint64_t magnitude = 0;
    const uint64_t limit = negative ? uint64_t(std::numeric_limits<int64_t>::max()) + 1
                                    : uint64_t(std::numeric_limits<int64_t>::max());
    if (!DigitsToU64(digits, magnitude) || magnitude > limit)
    {
        Fail(flag, text, "out of range; " + valid);
    }
    int64_t v = negative ? (magnitude == limit ? std::numeric_limits<int64_t>::min()
                                               : -static_cast<int64_t>(magnitude))
                         : static_cast<int64_t>(magnitude);
    if (v < min || v > max)
    {
        Fail(flag, text, "out of range; " + valid);
    }
    return v;
}

double
ValueParser::Real(const std::string& flag,
                  const std::string& text,
                  double min,
                  double max,
                  bool minExclusive)
{
    const std::string valid = "give a number in " + std::string(minExclusive ? "(" : "[") +
                              Number(min) + ", " + Number(max) + "]";
    static const std::regex form(R"(^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$)");
    if (!std::regex_match(text, form))
    {
        Fail(flag, text, "not a decimal number; " + valid);
    }
    errno = 0;
    double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v) || errno == ERANGE || v > max || v < min || (minExclusive && v == min))
    {
        Fail(flag, text, "out of range; " + valid);
    }
    return v;
}

bool
ValueParser::Bool(const std::string& flag, const std::string& text)
{
    if (text == "true" || text == "1" || text == "yes" || text == "t")
    {
        return true;
    }
    if (text == "false" || text == "0" || text == "no" || text == "f")
    {
        return false;
    }
    Fail(flag, text, "not a boolean; give true or false (1/0, yes/no)");
}

uint64_t
ValueParser::Bytes(const std::string& flag, const std::string& text, uint64_t max)
{
    static const std::regex form(R"(^([0-9]+)(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB|k|K|M|G|T)?$)");
    const std::string valid =
        "write e.g. 4096, 64KiB or 8MiB, at most " + std::to_string(max) + " bytes";
    std::smatch m;
    if (!std::regex_match(text, m, form))
    {
        Fail(flag, text, "not a byte size; " + valid);
    }
    const std::string unit = m[2].str();
    uint64_t mult = 1;
    if (unit == "KiB" || unit == "k" || unit == "K")
    {
        mult = 1ull << 10;
    }
    else if (unit == "MiB" || unit == "M")
    {
        mult = 1ull << 20;
    }
    else if (unit == "GiB" || unit == "G")
    {
        mult = 1ull << 30;
    }
    else if (unit == "TiB" || unit == "T")
    {
        mult = 1ull << 40;
    }
    else if (unit == "KB")
    {
        mult = 1000;
    }
    else if (unit == "MB")
    {
        mult = 1000000;
    }
    else if (unit == "GB")
    {
        mult = 1000000000;
    }
    else if (unit == "TB")
    {
        mult = 1000000000000ull;
    }
    uint64_t count = 0;
    if (!DigitsToU64(m[1].str(), count) || count > max / mult)
    {
        Fail(flag, text, "too large; " + valid);
    }
    if (count == 0)
    {
        Fail(flag, text, "zero; give a positive size");
    }
    return count * mult;
}

DataRate
ValueParser::Rate(const std::string& flag, const std::string& text, uint64_t maxBps)
{
    const std::string valid =
        "write e.g. 100Gbps (a positive rate, at most " + Number(double(maxBps)) + " bps)";
    // The number is checked here: ns-3 converts number x unit to uint64 unchecked.
    static const std::regex form(R"(^([0-9]+(\.[0-9]+)?)([A-Za-z/]+)$)");
    std::smatch m;
    DataRateValue unit;
    if (!std::regex_match(text, m, form) || m[1].str().size() > 20 ||
        !unit.DeserializeFromString("1" + m[3].str(), MakeDataRateChecker()))
    {
        Fail(flag, text, "not a data rate; " + valid);
    }
    const double bps = std::strtod(m[1].str().c_str(), nullptr) * unit.Get().GetBitRate();
    if (!(bps <= double(maxBps)))
    {
        Fail(flag, text, "too large; " + valid);
    }
    DataRateValue v;
    if (!v.DeserializeFromString(text, MakeDataRateChecker()))
    {
        Fail(flag, text, "not a data rate; " + valid);
    }
    if (v.Get().GetBitRate() == 0)
    {
        Fail(flag, text, "zero; give a positive rate, e.g. 100Gbps");
    }
    return v.Get();
}

Time
ValueParser::Duration(const std::string& flag, const std::string& text, Time min, Time max)
{
    const std::string range =
        "[" + Number(min.GetSeconds()) + " s, " + Number(max.GetSeconds()) + " s]";
    // ns-3's Time parser aborts on an unknown unit: check the form first.
    static const std::regex form(R"(^([0-9]+(\.[0-9]*)?)(s|ms|us|ns|ps)$)");
    std::smatch m;
    if (!std::regex_match(text, m, form) || m[1].str().size() > 30)
    {
        Fail(flag, text, "not a duration; write e.g. 1us, in " + range);
    }
    static const std::vector<std::pair<std::string, double>> units = {{"s", 1.0},
                                                                      {"ms", 1e-3},
                                                                      {"us", 1e-6},
                                                                      {"ns", 1e-9},
                                                                      {"ps", 1e-12}};
    double scale = 1.0;
    for (const auto& [name, s] : units)
    {
        if (m[3].str() == name)
        {
            scale = s;
        }
    }
    // Bound the number before ns-3 turns it into picoseconds (int64: ~106 days).
    const double seconds = std::strtod(m[1].str().c_str(), nullptr) * scale;
    if (!(seconds <= max.GetSeconds() * (1 + 1e-12)))
    {
        Fail(flag, text, "out of range; give a duration in " + range);
    }
    Time t(text);
    if (t < min || t > max)
    {
        Fail(flag, text, "out of range; give a duration in " + range);
    }
    return t;
}

std::vector<std::string>
ValueParser::List(const std::string& flag, const std::string& text, bool allowEmpty)
{
    std::vector<std::string> out;
    if (text.empty())
    {
        if (!allowEmpty)
        {
            Fail(flag, text, "empty list; give comma-separated items, e.g. a,b");
        }
        return out;
    }
    std::string item;
    for (char c : text + ",")
    {
        if (c != ',')
        {
            item += c;
            continue;
        }
        if (item.empty())
        {
            Fail(flag, text, "empty item in the list; separate items by single commas, e.g. a,b");
        }
        out.push_back(item);
        item.clear();
    }
    return out;
}

std::string
ValueParser::JoinChoices(const std::vector<std::string>& choices)
{
    std::string out;
    for (const auto& c : choices)
    {
        out += (out.empty() ? "" : " | ") + c;
    }
    return out;
}

std::string
ValueParser::Choice(const std::string& flag,
                    const std::string& text,
                    const std::vector<std::string>& choices)
{
    for (const auto& c : choices)
    {
        if (text == c)
        {
            return text;
        }
    }
    Fail(flag, text, "not one of " + JoinChoices(choices));
}

QueueSize
ValueParser::Queue(const std::string& flag, const std::string& text)
{
    // QueueSize's own parser aborts on bad text: check the form first.
    static const std::regex form(R"(^[1-9][0-9]{0,9}(p|B|KB|MB|KiB|MiB)$)");
    if (!std::regex_match(text, form))
    {
        Fail(flag, text, "not a queue size; write e.g. 1000p or 10MB");
    }
    return QueueSize(text);
}

uint64_t
ParseByteSize(const std::string& text)
{
    return ValueParser::Bytes("", text);
}

DataRate
ParseDataRate(const std::string& text)
{
    return ValueParser::Rate("", text);
}

Time
ParseTime(const std::string& text)
{
    return ValueParser::Duration("", text);
}

} // namespace ns3
