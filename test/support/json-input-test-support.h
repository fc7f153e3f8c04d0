// SPDX-License-Identifier: GPL-2.0-only
// The bad files every JSON input format must reject the same way (through JsonReader):
// each message is one line that starts with the file's path. A format's test calls
// ExpectFileErrorsNameTheFile with a loader of its own and adds the cases that name
// its fields.
#ifndef MLNET_JSON_INPUT_TEST_SUPPORT_H
#define MLNET_JSON_INPUT_TEST_SUPPORT_H

#include "mlnet-test-support.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <string>

namespace mlnettest
{

/// \return a file under the test temp folder holding `text` (replaced if it exists)
inline std::string
WriteTempFile(const std::string& name, const std::string& text)
{
    std::string path = ::testing::TempDir() + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
}

/// \return `levels` nested arrays: [[[...]]]
inline std::string
DeepArray(size_t levels)
{
    return std::string(levels, '[') + std::string(levels, ']');
}

/// Expect `message` to be one line starting with "<path>: " and containing `fragment`.
inline void
ExpectNamesFile(const std::string& message, const std::string& path, const std::string& fragment)
{
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << "should start with the file: " << message;
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "should say " << fragment << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
}

/**
 * The file-level cases: missing, a folder, empty, larger than 64 MiB, truncated,
 * nested 100 000 levels deep (an error, not a stack overflow), a top level of the
 * wrong type. `valid` is a valid document of the format; `load` reads a file.
 */
inline void
ExpectFileErrorsNameTheFile(const std::string& stem,
                            const std::string& valid,
                            const std::function<void(const std::string&)>& load)
{
    auto message = [&](const std::string& path) {
        return InvalidArgumentMessage([&] { load(path); });
    };
    const std::string missing = ::testing::TempDir() + stem + "-does-not-exist.json";
    ExpectNamesFile(message(missing), missing, "no such file");
    const std::string folder = ::testing::TempDir() + stem + "-folder.json";
    std::filesystem::create_directories(folder);
    ExpectNamesFile(message(folder), folder, "not a regular file");
    std::filesystem::remove(folder);

    const std::string path = WriteTempFile(stem + "-bad.json", "");
    ExpectNamesFile(message(path), path, "the file is empty");
    // A sparse file: its size is checked before anything is read.
    std::filesystem::resize_file(path, (64ULL << 20) + 1);
    ExpectNamesFile(message(path), path, "larger than the 64 MiB a JSON input may have");
    WriteTempFile(stem + "-bad.json", valid.substr(0, valid.size() / 2));
    ExpectNamesFile(message(path), path, "malformed JSON (parse error at line");
    WriteTempFile(stem + "-bad.json", DeepArray(100000));
    ExpectNamesFile(message(path), path, "nested more than 64 levels deep");
    WriteTempFile(stem + "-bad.json", "[1, 2]");
    ExpectNamesFile(message(path), path, "top level: expected");
    WriteTempFile(stem + "-bad.json", "\"just a string\"");
    ExpectNamesFile(message(path), path, "top level: expected");
    // The valid document itself loads.
    WriteTempFile(stem + "-bad.json", valid);
    EXPECT_EQ(message(path), "no exception");
    std::filesystem::remove(path);
}

} // namespace mlnettest

#endif // MLNET_JSON_INPUT_TEST_SUPPORT_H
