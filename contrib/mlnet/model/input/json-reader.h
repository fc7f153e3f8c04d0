// SPDX-License-Identifier: GPL-2.0-only
/*
 * JsonReader and JsonField: the one way the suite reads a JSON input (workloads,
 * model profiles, graphs, topology plans, price tables), so that every bad input
 * becomes one line a user can act on:
 *
 *   <file>: <field path, e.g. layers[3].param_bytes>: expected <type/range>, got <kind> <value>
 *
 * What it does. JsonReader loads a file of at most kMaxFileBytes (a missing path, a
 * folder, an empty or too large file are each one message), parses it with
 * nlohmann-json under a parser callback that refuses nesting deeper than kMaxDepth
 * before the document is built (no recursive code ever sees a deep value; the message
 * names the path of the value that opened too deep, cut at 80 characters), and turns
 * library errors into the line above with the position. JsonField is a typed view of
 * one value that knows its path: At(key), At(index), Optional(key), AsArray(maxSize),
 * AsUint64/AsUint32(min, max), AsDouble(min, max) (finite), AsString(maxLength),
 * AsBool, Keys and CheckKeys (unknown-key rejection for closed formats). A value is
 * echoed in a message as its kind and at most ~40 characters; arrays and objects are
 * named by their size, never printed.
 *
 * What it leaves out: the formats themselves (each reader says what its fields mean
 * and which bounds apply, with the shared sanity bounds below), JSON Schema, and
 * streaming of documents larger than kMaxFileBytes.
 */
#ifndef MLNET_JSON_READER_H
#define MLNET_JSON_READER_H

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief A typed, bounded view of one value of a JSON document that knows its path.
 *
 * A field may be absent (At(key) of a key the object lacks): every As* of an absent
 * field throws "expected ..., got nothing (the field is missing)". Every error is a
 * std::invalid_argument of one line: "<source>: <path>: <problem>".
 */
class JsonField
{
public:
    /**
     * \brief The root of a document.
     * \param root the document (kept alive by every field taken from it)
     * \param source what to call the document in messages (a file path)
     */
    JsonField(std::shared_ptr<const nlohmann::json> root, const std::string& source);

    /// \return the document's name (file path) used in messages
    const std::string& GetSource() const;
    /// \return the path of this value, e.g. "layers[3].param_bytes" ("" at the root)
    const std::string& GetPath() const;
    /// \return "<source>: <path>" (the path reads "top level" at the root)
    std::string Where() const;

    /// \return whether the value exists (At(key) of a missing key gives an absent field)
    bool IsPresent() const;
    /// \return whether the value is an object
    bool IsObject() const;
    /// \return whether the value is an array
    bool IsArray() const;
    /// \return whether the value is a string
    bool IsString() const;
    /// \return whether the value is a number
    bool IsNumber() const;
    /// \return whether this is an object holding `key`
    bool Has(const std::string& key) const;

    /// \brief The member `key` (absent if missing); throws unless this is an object.
    JsonField At(const std::string& key) const;
    /// \brief Element `index` (absent if out of range); throws unless this is an array.
    JsonField At(size_t index) const;
    /// \brief The member `key` if this object holds it; throws unless this is an object.
    std::optional<JsonField> Optional(const std::string& key) const;

    /**
     * \brief The elements of an array of minSize..maxSize elements.
     * \param maxSize the largest size accepted (stated in the message)
     * \param minSize the smallest size accepted
     * \param what the elements, for the message ("layer objects")
     */
    std::vector<JsonField> AsArray(size_t maxSize,
                                   size_t minSize = 0,
                                   const std::string& what = "elements") const;
    /// \brief Keys of an object in document order (sorted, as nlohmann stores them).
    std::vector<std::string> Keys() const;
    /**
     * \brief Check that this is an object with no key outside `allowed` (closed formats);
     * an unknown key is reported with its path and the known keys.
     */
    void CheckKeys(const std::set<std::string>& allowed) const;

    /**
     * \brief A whole number in [min, max] (integers only: 1.0 and 1e3 are refused).
     * \param min smallest value accepted
     * \param max largest value accepted
     * \param unit what it counts ("bytes", "ranks"), for the message
     */
    uint64_t AsUint64(uint64_t min, uint64_t max, const std::string& unit = "") const;
    /// \brief AsUint64 for a value that must fit 32 bits (max <= UINT32_MAX).
    uint32_t AsUint32(uint32_t min, uint32_t max, const std::string& unit = "") const;
    /**
     * \brief A finite number (integer or not) in [min, max], or (min, max] when
     * minExclusive.
     */
    double AsDouble(double min,
                    double max,
                    const std::string& unit = "",
                    bool minExclusive = false) const;
    /// \brief A string of at most maxLength bytes (non-empty unless allowEmpty).
    std::string AsString(size_t maxLength, bool allowEmpty = false) const;
    /// \brief true or false.
    bool AsBool() const;

    /// \brief Throw "<source>: <path>: <problem>".
    [[noreturn]] void Fail(const std::string& problem) const;
    /// \brief Throw "<source>: <path>: expected <expected>, got <kind> <value>".
    [[noreturn]] void Expected(const std::string& expected) const;
    /// \return the value as a message shows it: kind and at most ~40 characters
    std::string Describe() const;
    /// \return the value itself (must be present)
    const nlohmann::json& Raw() const;

private:
    JsonField(std::shared_ptr<const nlohmann::json> root,
              std::shared_ptr<const std::string> source,
              const nlohmann::json* value,
              std::string path);

    std::shared_ptr<const nlohmann::json> m_root; //!< keeps the document alive
    std::shared_ptr<const std::string> m_source;  //!< document name for messages
    const nlohmann::json* m_value;                //!< nullptr: absent
    std::string m_path;                           //!< "" at the root
};

/**
 * \brief Loads and parses a JSON input with bounded size and nesting depth.
 */
class JsonReader
{
public:
    /// Largest file or text read (bytes): 64 MiB.
    static constexpr uint64_t kMaxFileBytes = 64ULL << 20;
    /// Deepest nesting of arrays and objects accepted.
    static constexpr uint32_t kMaxDepth = 64;
    /// Sanity bound of ranks, switches, nodes and other element counts: 2^20.
    static constexpr uint64_t kMaxCount = 1ULL << 20;
    /// Sanity bound of byte counts (and their sums): 2^50 (1 PiB).
    static constexpr uint64_t kMaxBytes = 1ULL << 50;
    /// Sanity bound of a time given in microseconds: 1e9 us (1000 s).
    static constexpr double kMaxMicroseconds = 1e9;

    /**
     * \brief Read and parse a file. Throws std::invalid_argument naming the path for a
     * missing path, a folder, an empty file, a file over kMaxFileBytes, malformed JSON
     * or nesting deeper than kMaxDepth.
     * \param path the file
     * \param allowComments accept line and block comments (hand-written formats)
     */
    static JsonReader FromFile(const std::string& path, bool allowComments = false);
    /**
     * \brief Parse text with the same bounds; `name` stands for the file in messages.
     */
    static JsonReader FromText(const std::string& text,
                               const std::string& name,
                               bool allowComments = false);
    /**
     * \brief Wrap a document built in C++ (no size or depth check: it did not come
     * from a user's text).
     */
    static JsonReader FromDocument(nlohmann::json doc, const std::string& name);

    /// \return the root value
    JsonField Root() const;
    /// \return the name used in messages
    const std::string& GetName() const;

    /// \return a number as a message writes a bound: 2^k for large powers of two
    static std::string FormatBound(uint64_t v);

private:
    JsonReader(std::shared_ptr<const nlohmann::json> doc, std::string name);

    std::shared_ptr<const nlohmann::json> m_doc;
    std::string m_name;
};

} // namespace ns3

#endif // MLNET_JSON_READER_H
