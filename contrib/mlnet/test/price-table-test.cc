// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of PriceTable (the shipped table, lookup by part, speed and ports, the
 * replacement file by attribute and environment, errors naming file, field and fix);
 * DataFile (where shipped data is looked for) has data-file-test.cc.
 */
#include "mlnet-test-support.h"

#include "ns3/config.h"
#include "ns3/data-file.h"
#include "ns3/price-table.h"
#include "ns3/string.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unistd.h>

using namespace ns3;
using namespace mlnettest;

namespace
{

/// Write `text` to a fresh file in the test's temporary folder; return its path.
std::string
WriteTemp(const std::string& name, const std::string& text)
{
    std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
    std::ofstream(path) << text;
    return path;
}

const char* kSmall = R"({"format": "mlnet-prices", "version": 1, "parts": [
    {"part": "switch", "gbps": 400, "ports": 64, "price_usd": 30, "power_w": 7, "source": "a"},
    {"part": "switch", "gbps": 400, "ports": 32, "price_usd": 20, "power_w": 5, "source": "b"},
    {"part": "transceiver", "gbps": 100, "price_usd": 9, "source": "c"},
    {"part": "transceiver", "price_usd": 3, "source": "d"},
    {"part": "fiber", "price_usd": 1, "verified": true, "source": "e"}]})";

} // namespace

TEST(PriceTableTest, ShippedTableListsEveryPartWithItsSource)
{
    Ptr<PriceTable> t = CreateObject<PriceTable>();
    EXPECT_EQ(t->GetOrigin(), DataFile::Find("contrib/mlnet/data/prices.json"));
    ASSERT_FALSE(t->GetParts().empty());
    for (const auto& p : t->GetParts())
    {
        EXPECT_FALSE(p.item.source.empty()) << p.part;
        EXPECT_FALSE(p.item.verified) << p.part << ": no shipped number is checked yet";
    }
    // The parts TopoOpt's CostModel and railonly's RailCostModel read.
    for (const char* part : {"transceiver", "nic_port", "switch_port"})
    {
        EXPECT_EQ(t->Speeds(part), (std::vector<uint32_t>{10, 25, 40, 100, 200, 400})) << part;
    }
    for (const char* part : {"panel_port", "ocs_port", "fiber"})
    {
        EXPECT_TRUE(t->Has(part, 100)) << part << " is priced at every speed";
        EXPECT_TRUE(t->Speeds(part).empty()) << part;
    }
    for (const char* part : {"switch", "switch_transceiver", "nic_transceiver", "nic"})
    {
        EXPECT_TRUE(t->Has(part, 400)) << part;
    }
    EXPECT_TRUE(t->Has("switch", 400, 64));
    // ToJson reads back to the same table.
    Ptr<PriceTable> copy = CreateObject<PriceTable>();
    copy->LoadJson(t->ToJson(), "copy");
    EXPECT_EQ(copy->ToJson(), t->ToJson());
}

TEST(PriceTableTest, LookupBySpeedThenSpeedFreeEntryAndByPorts)
{
    Ptr<PriceTable> t = CreateObject<PriceTable>();
    t->LoadJson(kSmall, "small.json");
    EXPECT_EQ(t->GetOrigin(), "small.json");
    EXPECT_DOUBLE_EQ(t->Get("transceiver", 100).priceUsd, 9); // its own speed
    EXPECT_DOUBLE_EQ(t->Get("transceiver", 25).priceUsd, 3);  // the speed-free entry
    EXPECT_DOUBLE_EQ(t->Get("fiber", 400).priceUsd, 1);
    EXPECT_TRUE(t->Get("fiber").verified);
    EXPECT_DOUBLE_EQ(t->Get("switch", 400, 32).powerW, 5);
    EXPECT_DOUBLE_EQ(t->Get("switch", 400, 64).priceUsd, 30);
    EXPECT_FALSE(t->Has("switch", 400)); // two radices: ask for one
    EXPECT_NE(InvalidArgumentMessage([&] { t->Get("switch", 400); }).find("ask for one port count"),
              std::string::npos);
    EXPECT_EQ(t->Speeds("switch"), (std::vector<uint32_t>{400}));
}

TEST(PriceTableTest, ReplacedByAttributeAndEnvironment)
{
    std::string file = WriteTemp("prices.json", kSmall);
    EXPECT_EQ(PriceTable::FromFile(file)->GetOrigin(), file);
    Config::SetDefault("ns3::PriceTable::Path", StringValue(file));
    EXPECT_DOUBLE_EQ(CreateObject<PriceTable>()->Get("fiber").priceUsd, 1);
    Config::SetDefault("ns3::PriceTable::Path", StringValue(""));
    ASSERT_EQ(setenv(PriceTable::kEnvironment, file.c_str(), 1), 0);
    EXPECT_EQ(PriceTable::DefaultPath(), file);
    EXPECT_EQ(CreateObject<PriceTable>()->GetOrigin(), file);
    unsetenv(PriceTable::kEnvironment);
    EXPECT_NE(CreateObject<PriceTable>()->GetOrigin(), file);
    std::remove(file.c_str());
}

TEST(PriceTableTest, BadInputNamesTheFileTheFieldAndTheFix)
{
    Ptr<PriceTable> t = CreateObject<PriceTable>();
    auto load = [&](const std::string& parts) {
        return InvalidArgumentMessage(
            [&] { t->LoadJson(R"({"parts": [)" + parts + "]}", "mine.json"); });
    };
    auto has = [](const std::string& message, const std::string& part) {
        return message.find(part) != std::string::npos;
    };
    std::string m = InvalidArgumentMessage([&] { t->LoadJson("{", "mine.json"); });
    EXPECT_TRUE(has(m, "mine.json: malformed JSON (parse error at line 1, column 2")) << m;
    m = InvalidArgumentMessage([&] { t->LoadJson(R"({"prices": {}})", "mine.json"); });
    EXPECT_TRUE(has(m, "mine.json: top level: expected an object with a \"parts\" array")) << m;
    m = load(R"({"part": "fiber", "price_usd": -50, "source": "x"})");
    EXPECT_TRUE(
        has(m,
            "mine.json: parts[0].price_usd: expected a number of USD per unit in [0, 1e+09], got "
            "number -50"))
        << m;
    m = load(R"({"part": "fiber", "source": "x"})");
    EXPECT_TRUE(
        has(m,
            "mine.json: parts[0].price_usd: expected a number of USD per unit in [0, 1e+09], got "
            "nothing (the field is missing)"))
        << m;
    m = load(R"({"part": "fiber", "price_usd": 5})");
    EXPECT_TRUE(
        has(m,
            "mine.json: parts[0].source: expected a non-empty string of at most 4096 characters, "
            "got nothing (the field is missing)"))
        << m;
    m = load(R"({"part": "fiber", "price_usd": 5, "source": "x", "colour": "blue"})");
    EXPECT_TRUE(has(m, "mine.json: parts[0]: unknown key \"colour\"")) << m;
    m = load(R"({"part": "nic", "gbps": 0, "price_usd": 5, "source": "x"})");
    EXPECT_TRUE(
        has(m,
            "mine.json: parts[0].gbps: expected a whole number of Gbps (leave it out for a part "
            "priced the same at every speed) in [1, 1000000], got number 0"))
        << m;
    m = load(R"({"part": "nic", "price_usd": 5, "power_w": "hot", "source": "x"})");
    EXPECT_TRUE(
        has(m,
            "mine.json: parts[0].power_w: expected a number of W per unit in [0, 1e+07], got "
            "string \"hot\""))
        << m;
    m = load(R"({"part": "fiber", "price_usd": 5, "source": "x"},
                {"part": "fiber", "price_usd": 6, "source": "y"})");
    EXPECT_TRUE(has(m, "mine.json: parts[1]: \"fiber\" is listed twice")) << m;
    m = InvalidArgumentMessage([&] { t->Load("/nonexistent/prices.json"); });
    EXPECT_TRUE(
        has(m, "/nonexistent/prices.json: no such file; check the path (the price table's Path"))
        << m;
    // A failed load keeps the table it had; a missing part says what to add.
    EXPECT_EQ(t->GetOrigin(), PriceTable::DefaultPath());
    t->LoadJson(kSmall, "small.json");
    m = InvalidArgumentMessage([&] { t->Get("nic", 800); });
    EXPECT_TRUE(has(m, "price table 'small.json' has no \"nic\" at 800 Gbps")) << m;
    EXPECT_TRUE(has(m, "add {\"part\": \"nic\", \"gbps\": 800, \"price_usd\"")) << m;
}
