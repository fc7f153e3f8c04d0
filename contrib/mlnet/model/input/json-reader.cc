// SPDX-License-Identifier: GPL-2.0-only
#include "json-reader.h"

#include "ns3/log.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetJsonReader");

namespace
{

/// Longest excerpt of a value or of a library message put into an error line.
constexpr size_t kPreviewChars = 40;
constexpr size_t kLibraryMessageChars = 160;

/// Longest field path put into an error line (cut at a component, then "...").
constexpr size_t kPathChars = 80;

/// Thrown by the parser callback; caught in Parse (never leaves this file).
struct TooDeep
{
    std::string path; //!< field path of the container that opened too deep
};

std::string
Truncate(const std::string& s, size_t n)
{
    return s.size() <= n ? s : s.substr(0, n) + "...";
}

/// One line: control characters (a newline in a string) become spaces.
std::string
OneLine(std::string s)
{
    for (char& c : s)
    {
        if (static_cast<unsigned char>(c) < 0x20)
        {
            c = ' ';
        }
    }
    return s;
}

/**
 * The path of the value the parser is at, as JsonField writes it
 * ("layers[3].param_bytes"): one frame per open container, at most kMaxDepth.
 */
class NestingPath
{
public:
    /// A container opens (as the current element of its parent).
    void Open(bool isArray)
    {
        m_frames.push_back({isArray, 0, std::string()});
    }

    /// An object's next key (cut: the path is bounded, a key may not be).
    void SetKey(const std::string& key)
    {
        if (!m_frames.empty())
        {
            m_frames.back().key = key.substr(0, kPreviewChars + 1);
        }
    }

    /// The innermost container closes.
    void Close()
    {
        if (!m_frames.empty())
        {
            m_frames.pop_back();
        }
    }

    /// The current element of the innermost container is complete.
    void Completed()
    {
        if (!m_frames.empty() && m_frames.back().isArray)
        {
            ++m_frames.back().index;
        }
    }

    /// \return the path of the value being opened, at most kPathChars (then "...")
    std::string ToString() const
    {
        std::string out;
        for (const Frame& f : m_frames)
        {
            std::string part =
                f.isArray ? "[" + std::to_string(f.index) + "]"
                          : (out.empty() ? "" : ".") + OneLine(Truncate(f.key, kPreviewChars));
            if (out.size() + part.size() > kPathChars)
            {
                return out + "...";
            }
            out += part;
        }
        return out;
    }

private:
    struct Frame
    {
        bool isArray;    //!< an array (index counts) or an object (key names)
        size_t index;    //!< elements of the array completed so far
        std::string key; //!< the object's current key
    };

    std::vector<Frame> m_frames;
};

std::string
FormatDouble(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

std::shared_ptr<const nlohmann::json>
Parse(const std::string& text, const std::string& name, bool allowComments)
{
    if (text.size() > JsonReader::kMaxFileBytes)
    {
        throw std::invalid_argument(name + ": " + std::to_string(text.size()) +
                                    " bytes is larger than the " +
                                    std::to_string(JsonReader::kMaxFileBytes >> 20) +
                                    " MiB a JSON input may have; give a smaller file");
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    {
        throw std::invalid_argument(name + ": the file is empty; expected a JSON document");
    }
    // Refuse deep nesting while parsing, before any recursive code (dump, compare,
    // destructor) sees the value: depth is the nesting level at which a container opens.
    // The path of the value being parsed is tracked (a frame per open container: the
    // current key of an object, the index of the element an array is at) so that the
    // message names the field that nests too deep.
    NestingPath path;
    auto bound = [&path](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        switch (event)
        {
        case Event::object_start:
        case Event::array_start:
            if (depth >= static_cast<int>(JsonReader::kMaxDepth))
            {
                throw TooDeep{path.ToString()};
            }
            path.Open(event == Event::array_start);
            break;
        case Event::key:
            path.SetKey(parsed.get_ref<const std::string&>());
            break;
        case Event::object_end:
        case Event::array_end:
            path.Close();
            path.Completed();
            break;
        case Event::value:
            path.Completed();
            break;
        }
        return true;
    };
    auto doc = std::make_shared<nlohmann::json>();
    try
    {
        *doc = nlohmann::json::parse(text, bound, true, allowComments);
    }
    catch (const TooDeep& deep)
    {
        throw std::invalid_argument(name + ": " + (deep.path.empty() ? "top level" : deep.path) +
                                    ": arrays and objects are nested more than " +
                                    std::to_string(JsonReader::kMaxDepth) +
                                    " levels deep; no input format nests that deep");
    }
    catch (const nlohmann::json::exception& e)
    {
        // "[json.exception.parse_error.101] parse error at line L, column C: ..."
        std::string what = e.what();
        auto pos = what.find("] ");
        what = pos == std::string::npos ? what : what.substr(pos + 2);
        throw std::invalid_argument(name + ": malformed JSON (" +
                                    OneLine(Truncate(what, kLibraryMessageChars)) +
                                    "); fix the syntax");
    }
    return doc;
}

} // namespace

// ---- JsonReader -------------------------------------------------------------------

JsonReader::JsonReader(std::shared_ptr<const nlohmann::json> doc, std::string name)
    : m_doc(std::move(doc)),
      m_name(std::move(name))
{
}

JsonReader
JsonReader::FromFile(const std::string& path, bool allowComments)
{
    std::error_code ec;
    const std::filesystem::path p(path);
    if (!std::filesystem::exists(p, ec))
    {
        throw std::invalid_argument(path + ": no such file; check the path");
    }
    if (!std::filesystem::is_regular_file(p, ec))
    {
        throw std::invalid_argument(path + ": not a regular file (a folder?); give a JSON file");
    }
    const auto size = std::filesystem::file_size(p, ec);
    if (!ec && size > kMaxFileBytes)
    {
        throw std::invalid_argument(path + ": " + std::to_string(size) +
                                    " bytes is larger than the " +
                                    std::to_string(kMaxFileBytes >> 20) +
                                    " MiB a JSON input may have; give a smaller file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw std::invalid_argument(path + ": cannot read the file; check its permissions");
    }
    std::string text;
    text.resize(static_cast<size_t>(ec ? 0 : size));
    if (!text.empty() && !in.read(&text[0], static_cast<std::streamsize>(text.size())))
    {
        throw std::invalid_argument(path + ": cannot read the file; check its permissions");
    }
    NS_LOG_INFO("read " << text.size() << " bytes from " << path);
    return FromText(text, path, allowComments);
}

JsonReader
JsonReader::FromText(const std::string& text, const std::string& name, bool allowComments)
{
    return JsonReader(Parse(text, name, allowComments), name);
}

JsonReader
JsonReader::FromDocument(nlohmann::json doc, const std::string& name)
{
    return JsonReader(std::make_shared<const nlohmann::json>(std::move(doc)), name);
}

JsonField
JsonReader::Root() const
{
    return JsonField(m_doc, m_name);
}

const std::string&
JsonReader::GetName() const
{
    return m_name;
}

std::string
JsonReader::FormatBound(uint64_t v)
{
    if (v >= (1ULL << 20) && (v & (v - 1)) == 0)
    {
        int k = 0;
        while ((1ULL << k) != v)
        {
            ++k;
        }
        return "2^" + std::to_string(k);
    }
    return std::to_string(v);
}

// ---- JsonField --------------------------------------------------------------------

JsonField::JsonField(std::shared_ptr<const nlohmann::json> root, const std::string& source)
    : m_root(std::move(root)),
      m_source(std::make_shared<const std::string>(source)),
      m_value(m_root.get()),
      m_path()
{
}

JsonField::JsonField(std::shared_ptr<const nlohmann::json> root,
                     std::shared_ptr<const std::string> source,
                     const nlohmann::json* value,
                     std::string path)
    : m_root(std::move(root)),
      m_source(std::move(source)),
      m_value(value),
      m_path(std::move(path))
{
}

const std::string&
JsonField::GetSource() const
{
    return *m_source;
}

const std::string&
JsonField::GetPath() const
{
    return m_path;
}

std::string
JsonField::Where() const
{
    return *m_source + ": " + (m_path.empty() ? "top level" : m_path);
}

bool
JsonField::IsPresent() const
{
    return m_value != nullptr;
}

bool
JsonField::IsObject() const
{
    return m_value && m_value->is_object();
}

bool
JsonField::IsArray() const
{
    return m_value && m_value->is_array();
}

bool
JsonField::IsString() const
{
    return m_value && m_value->is_string();
}

bool
JsonField::IsNumber() const
{
    return m_value && m_value->is_number();
}

bool
JsonField::Has(const std::string& key) const
{
    return IsObject() && m_value->contains(key);
}

JsonField
JsonField::At(const std::string& key) const
{
    if (!IsObject())
    {
        Expected("an object (with the field \"" + Truncate(key, kPreviewChars) + "\")");
    }
    auto it = m_value->find(key);
    const nlohmann::json* v = it == m_value->end() ? nullptr : &*it;
    return JsonField(m_root, m_source, v, m_path.empty() ? key : m_path + "." + key);
}

JsonField
JsonField::At(size_t index) const
{
    if (!IsArray())
    {
        Expected("an array");
    }
    const nlohmann::json* v = index < m_value->size() ? &(*m_value)[index] : nullptr;
    return JsonField(m_root, m_source, v, m_path + "[" + std::to_string(index) + "]");
}

std::optional<JsonField>
JsonField::Optional(const std::string& key) const
{
    JsonField f = At(key);
    if (!f.IsPresent())
    {
        return std::nullopt;
    }
    return f;
}

std::vector<JsonField>
JsonField::AsArray(size_t maxSize, size_t minSize, const std::string& what) const
{
    const std::string range = minSize == maxSize ? "exactly " + JsonReader::FormatBound(maxSize)
                              : minSize == 0     ? "at most " + JsonReader::FormatBound(maxSize)
                                                 : JsonReader::FormatBound(minSize) + " to " +
                                                   JsonReader::FormatBound(maxSize);
    if (!IsArray())
    {
        Expected("an array of " + range + " " + what);
    }
    if (m_value->size() < minSize || m_value->size() > maxSize)
    {
        Expected("an array of " + range + " " + what);
    }
    std::vector<JsonField> out;
    out.reserve(m_value->size());
    for (size_t i = 0; i < m_value->size(); ++i)
    {
        out.push_back(
            JsonField(m_root, m_source, &(*m_value)[i], m_path + "[" + std::to_string(i) + "]"));
    }
    return out;
}

std::vector<std::string>
JsonField::Keys() const
{
    if (!IsObject())
    {
        Expected("an object");
    }
    std::vector<std::string> keys;
    for (auto it = m_value->begin(); it != m_value->end(); ++it)
    {
        keys.push_back(it.key());
    }
    return keys;
}

void
JsonField::CheckKeys(const std::set<std::string>& allowed) const
{
    std::string known;
    for (const auto& k : allowed)
    {
        known += (known.empty() ? "" : ", ") + k;
    }
    if (!IsObject())
    {
        Expected("an object with the keys " + known);
    }
    for (auto it = m_value->begin(); it != m_value->end(); ++it)
    {
        if (allowed.count(it.key()) == 0)
        {
            Fail("unknown key \"" + OneLine(Truncate(it.key(), kPreviewChars)) +
                 "\"; known keys are " + known + " (check the spelling)");
        }
    }
}

uint64_t
JsonField::AsUint64(uint64_t min, uint64_t max, const std::string& unit) const
{
    const std::string expected = "a whole number" + (unit.empty() ? "" : " of " + unit) + " in [" +
                                 JsonReader::FormatBound(min) + ", " +
                                 JsonReader::FormatBound(max) + "]";
    if (!m_value || !m_value->is_number_integer())
    {
        Expected(expected);
    }
    // Parsed text gives unsigned numbers for x >= 0; documents built in C++ may give
    // signed ones.
    if (m_value->is_number_unsigned() || m_value->get<int64_t>() >= 0)
    {
        const uint64_t x = m_value->get<uint64_t>();
        if (x >= min && x <= max)
        {
            return x;
        }
    }
    Expected(expected);
}

uint32_t
JsonField::AsUint32(uint32_t min, uint32_t max, const std::string& unit) const
{
    return static_cast<uint32_t>(AsUint64(min, max, unit));
}

double
JsonField::AsDouble(double min, double max, const std::string& unit, bool minExclusive) const
{
    const std::string expected = "a number" + (unit.empty() ? "" : " of " + unit) + " in " +
                                 (minExclusive ? "(" : "[") + FormatDouble(min) + ", " +
                                 FormatDouble(max) + "]";
    if (!m_value || !m_value->is_number())
    {
        Expected(expected);
    }
    const double x = m_value->get<double>();
    if (!std::isfinite(x) || x > max || x < min || (minExclusive && x == min))
    {
        Expected(expected);
    }
    return x;
}

std::string
JsonField::AsString(size_t maxLength, bool allowEmpty) const
{
    const std::string expected = std::string(allowEmpty ? "a string" : "a non-empty string") +
                                 " of at most " + std::to_string(maxLength) + " characters";
    if (!m_value || !m_value->is_string())
    {
        Expected(expected);
    }
    const auto& s = m_value->get_ref<const std::string&>();
    if (s.size() > maxLength || (s.empty() && !allowEmpty))
    {
        Expected(expected);
    }
    return s;
}

bool
JsonField::AsBool() const
{
    if (!m_value || !m_value->is_boolean())
    {
        Expected("true or false");
    }
    return m_value->get<bool>();
}

void
JsonField::Fail(const std::string& problem) const
{
    throw std::invalid_argument(Where() + ": " + problem);
}

void
JsonField::Expected(const std::string& expected) const
{
    Fail("expected " + expected + ", got " + Describe());
}

std::string
JsonField::Describe() const
{
    if (!m_value)
    {
        return "nothing (the field is missing)";
    }
    switch (m_value->type())
    {
    case nlohmann::json::value_t::array:
        return "an array of " + std::to_string(m_value->size()) + " elements";
    case nlohmann::json::value_t::object:
        return "an object with " + std::to_string(m_value->size()) + " keys";
    case nlohmann::json::value_t::string: {
        // Escape first (quotes, control characters), then cut: a long string is not
        // echoed whole.
        const auto& s = m_value->get_ref<const std::string&>();
        return "string " +
               nlohmann::json(s.substr(0, kPreviewChars))
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
               (s.size() > kPreviewChars ? "..." : "");
    }
    case nlohmann::json::value_t::boolean:
        return std::string("boolean ") + (m_value->get<bool>() ? "true" : "false");
    case nlohmann::json::value_t::null:
        return "null";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
        return "number " + m_value->dump();
    default:
        return m_value->type_name();
    }
}

const nlohmann::json&
JsonField::Raw() const
{
    if (!m_value)
    {
        Expected("a value");
    }
    return *m_value;
}

} // namespace ns3
