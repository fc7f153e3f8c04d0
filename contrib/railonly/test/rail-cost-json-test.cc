// SPDX-License-Identifier: GPL-2.0-only
// RailCostModel's price-table overrides read through JsonReader: every bad input is
// one line naming the file, the field path and what was expected, and a rejected
// file changes nothing.
#include "json-input-test-support.h"
#include "mlnet-test-support.h"

#include "ns3/rail-cost-model.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::ExpectFileErrorsNameTheFile;
using mlnettest::ExpectNamesFile;
using mlnettest::InvalidArgumentMessage;

TEST(JsonInputTest, RailCostTablesNameTheFileAndTheField)
{
    const std::string valid =
        R"({"switch": {"price_usd": 100, "ports": 32}, "include_nics": true})";
    ExpectFileErrorsNameTheFile("railonly-json-table", valid, [](const std::string& p) {
        CreateObject<RailCostModel>()->LoadJsonFile(p);
    });
    Ptr<RailCostModel> m = CreateObject<RailCostModel>();
    const uint32_t radix = m->GetRadix();
    const double fiber = m->GetTable().at("fiber").priceUsd;
    auto message = [&](const std::string& text) {
        return InvalidArgumentMessage([&] { m->LoadJson(text, "t.json"); });
    };
    ExpectNamesFile(message(R"({"radix": -64})"),
                    "t.json",
                    "radix: expected a whole number of ports in [2, 1000000], got number -64");
    ExpectNamesFile(message(R"({"switch": {"ports": 4294967297}})"),
                    "t.json",
                    "switch.ports: expected a whole number of ports in [2, 1000000]");
    ExpectNamesFile(message(R"({"fiber": {"price_usd": 1, "ports": 4}})"),
                    "t.json",
                    "fiber: unknown key \"ports\"");
    ExpectNamesFile(message(R"({"include_nics": 1})"),
                    "t.json",
                    "include_nics: expected true or false, got number 1");
    ExpectNamesFile(message(R"({"nic": {"power_w": -1}})"),
                    "t.json",
                    "nic.power_w: expected a number of W per unit in [0, 1e+07], got number -1");
    // Checked completely first: a good item before a bad one is not applied either.
    ExpectNamesFile(message(R"({"fiber": {"price_usd": 7}, "radix": 1})"),
                    "t.json",
                    "radix: expected");
    EXPECT_EQ(m->GetTable().at("fiber").priceUsd, fiber);
    EXPECT_EQ(m->GetRadix(), radix);
    m->LoadJson(valid, "t.json");
    EXPECT_EQ(m->GetRadix(), 32u);
    EXPECT_EQ(m->GetTable().at("switch").priceUsd, 100);
}
