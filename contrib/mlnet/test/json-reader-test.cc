// SPDX-License-Identifier: GPL-2.0-only
// JsonReader and JsonField, and the JSON inputs of mlnet read through them (workload,
// graph, price table): every bad input is one line naming the file, the field path
// and what was expected; no value is echoed unbounded; deep nesting is an error.
#include "json-input-test-support.h"
#include "mlnet-test-support.h"

#include "ns3/graph-fabric-helper.h"
#include "ns3/json-reader.h"
#include "ns3/price-table.h"
#include "ns3/simulator.h"
#include "ns3/training-workload.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace ns3;
using mlnettest::ExpectFileErrorsNameTheFile;
using mlnettest::ExpectNamesFile;
using mlnettest::InvalidArgumentMessage;

namespace
{

JsonField
Root(const std::string& text)
{
    // The reader keeps the document alive in every field taken from it.
    return JsonReader::FromText(text, "doc.json").Root();
}

std::string
Message(const std::function<void()>& f)
{
    return InvalidArgumentMessage(f);
}

const std::string kWorkload = R"({"name": "w", "bucket_bytes": 50, "layers": [
    {"name": "l0", "forward_us": 1, "backward_us": 2, "param_bytes": 60},
    {"name": "l1", "forward_us": 1.5, "backward_us": 3, "param_bytes": 60}]})";

} // namespace

TEST(JsonReaderTest, TypedAccessorsCheckTypeAndRange)
{
    JsonField r = Root(R"({"n": 5, "neg": -3, "f": 1.5, "s": "abc", "b": true,
                           "a": [1, 2, 3], "o": {"k": 1}, "big": 18446744073709551615})");
    EXPECT_EQ(r.At("n").AsUint64(0, 10), 5u);
    EXPECT_EQ(r.At("n").AsUint32(5, 5), 5u);
    EXPECT_DOUBLE_EQ(r.At("f").AsDouble(0, 2), 1.5);
    EXPECT_DOUBLE_EQ(r.At("n").AsDouble(0, 10), 5.0);
    EXPECT_EQ(r.At("s").AsString(3), "abc");
    EXPECT_TRUE(r.At("b").AsBool());
    EXPECT_EQ(r.At("a").AsArray(3).size(), 3u);
    EXPECT_EQ(r.At("a").At(size_t(2)).AsUint64(0, 3), 3u);
    EXPECT_EQ(r.At("a").AsArray(3)[1].GetPath(), "a[1]");
    EXPECT_EQ(r.At("o").At("k").GetPath(), "o.k");
    EXPECT_FALSE(r.Optional("none").has_value());
    EXPECT_TRUE(r.Optional("o").has_value());
    EXPECT_EQ(r.Keys().size(), 8u);

    auto expect = [](const std::function<void()>& f, const std::string& whole) {
        EXPECT_EQ(Message(f), whole);
    };
    expect([&] { r.At("n").AsUint64(6, 10, "ranks"); },
           "doc.json: n: expected a whole number of ranks in [6, 10], got number 5");
    expect([&] { r.At("neg").AsUint64(0, 10, "bytes"); },
           "doc.json: neg: expected a whole number of bytes in [0, 10], got number -3");
    expect([&] { r.At("f").AsUint64(0, 10); },
           "doc.json: f: expected a whole number in [0, 10], got number 1.5");
    expect([&] { r.At("big").AsUint64(0, JsonReader::kMaxBytes, "bytes"); },
           "doc.json: big: expected a whole number of bytes in [0, 2^50], got number "
           "18446744073709551615");
    expect([&] { r.At("s").AsDouble(0, 1, "s", true); },
           "doc.json: s: expected a number of s in (0, 1], got string \"abc\"");
    expect([&] { r.At("f").AsDouble(0, 1); },
           "doc.json: f: expected a number in [0, 1], got number 1.5");
    expect([&] { r.At("s").AsString(2); },
           "doc.json: s: expected a non-empty string of at most 2 characters, got string \"abc\"");
    expect([&] { r.At("a").AsBool(); },
           "doc.json: a: expected true or false, got an array of 3 elements");
    expect([&] { r.At("a").AsArray(2, 0, "numbers"); },
           "doc.json: a: expected an array of at most 2 numbers, got an array of 3 elements");
    expect([&] { r.At("o").AsArray(2, 1, "numbers"); },
           "doc.json: o: expected an array of 1 to 2 numbers, got an object with 1 keys");
    expect([&] { r.At("missing").AsUint64(0, 1); },
           "doc.json: missing: expected a whole number in [0, 1], got nothing (the field is "
           "missing)");
    expect([&] { r.At("n").At("x"); },
           "doc.json: n: expected an object (with the field \"x\"), got number 5");
    expect([&] { r.At("o").CheckKeys({"j"}); },
           "doc.json: o: unknown key \"k\"; known keys are j (check the spelling)");
    expect([&] { r.At("a").At(size_t(7)).AsBool(); },
           "doc.json: a[7]: expected true or false, got nothing (the field is missing)");
    // Not finite: only a document built in C++ can hold one.
    JsonField nan = JsonReader::FromDocument(nlohmann::json(std::nan("")), "built").Root();
    EXPECT_NE(Message([&] { nan.AsDouble(0, 1); }).find("built: top level: expected a number"),
              std::string::npos);
}

TEST(JsonReaderTest, ValuesAreEchoedBoundedAndOnOneLine)
{
    // A 1 MB string and a 1 MB array in a numeric field: the message stays short.
    const std::string longText(1000000, 'x');
    std::string ones = "1";
    for (int i = 0; i < 100000; ++i)
    {
        ones += ",1";
    }
    JsonField r = Root("{\"s\": \"" + longText + "\\nmore\", \"a\": [" + ones + "]}");
    std::string m = Message([&] { r.At("s").AsUint64(0, 1); });
    EXPECT_LT(m.size(), 200u) << m;
    EXPECT_NE(m.find("got string \"xxxxxxxx"), std::string::npos) << m;
    EXPECT_NE(m.find("..."), std::string::npos) << m;
    m = Message([&] { r.At("a").AsString(5); });
    EXPECT_NE(m.find("got an array of 100001 elements"), std::string::npos) << m;
    EXPECT_LT(m.size(), 200u) << m;
    // A newline inside a string shown in a message is escaped.
    JsonField nl = Root("{\"s\": \"a\\nb\"}");
    m = Message([&] { nl.At("s").AsBool(); });
    EXPECT_EQ(m, "doc.json: s: expected true or false, got string \"a\\nb\"");
    // An unknown key of a megabyte is cut too.
    JsonField key = Root("{\"" + longText + "\": 1}");
    m = Message([&] { key.CheckKeys({"a"}); });
    EXPECT_LT(m.size(), 200u) << m;
    // A library message quoting a long token is cut.
    m = Message([&] { JsonReader::FromText("{\"a\": \"" + longText, "doc.json"); });
    EXPECT_EQ(m.rfind("doc.json: malformed JSON (parse error at line 1, column 1000008", 0), 0u)
        << m;
    EXPECT_LT(m.size(), 300u);
}

TEST(JsonReaderTest, NestingIsBoundedBeforeAnythingRecurses)
{
    // 64 levels are read; 65 and 100 000 are one error each (no stack overflow).
    EXPECT_NO_THROW(JsonReader::FromText(mlnettest::DeepArray(64), "deep.json"));
    for (size_t levels : {size_t(65), size_t(100000)})
    {
        ExpectNamesFile(
            Message([&] { JsonReader::FromText(mlnettest::DeepArray(levels), "deep.json"); }),
            "deep.json",
            "arrays and objects are nested more than 64 levels deep");
    }
    // Objects count like arrays.
    std::string objects;
    for (int i = 0; i < 65; ++i)
    {
        objects += "{\"a\":";
    }
    objects += "1" + std::string(65, '}');
    ExpectNamesFile(Message([&] { JsonReader::FromText(objects, "deep.json"); }),
                    "deep.json",
                    "nested more than 64 levels deep");
    // The message names where: the path of the container that opened too deep (cut
    // at 80 characters, on a component).
    std::string at;
    for (int i = 0; i < 24; ++i)
    {
        at += "[0]";
    }
    EXPECT_EQ(Message([&] {
                  JsonReader::FromText(R"({"a": [1, {"b": )" + mlnettest::DeepArray(65) + "}]}",
                                       "deep.json");
              }),
              "deep.json: a[1].b" + at +
                  "...: arrays and objects are nested more than 64 levels deep; no input "
                  "format nests that deep");
    // Indices count the completed elements of any kind; the key is the current member's.
    // "[2].k.m" is 7 characters: 24 "[0]" more make 79, a 25th would pass 80.
    std::string path = "[2].k.m";
    for (int i = 0; i < 24; ++i)
    {
        path += "[0]";
    }
    const std::string doc =
        R"([{"x": [1]}, [[]], {"k": {"j": {"q": 1}, "m": )" + mlnettest::DeepArray(100000) + "}}]";
    const std::string m = Message([&] { JsonReader::FromText(doc, "deep.json"); });
    EXPECT_EQ(m.rfind("deep.json: " + path + "...: arrays and objects are nested", 0), 0u) << m;
    // A bare deep array is named by its indices.
    EXPECT_EQ(Message([&] {
                  JsonReader::FromText(mlnettest::DeepArray(65), "deep.json");
              }).rfind("deep.json: [0][0]", 0),
              0u);
    // Comments only where the format allows them.
    EXPECT_NO_THROW(JsonReader::FromText("// c\n{}", "c.json", true));
    ExpectNamesFile(Message([&] { JsonReader::FromText("// c\n{}", "c.json"); }),
                    "c.json",
                    "malformed JSON");
    EXPECT_EQ(JsonReader::FormatBound(1ULL << 50), "2^50");
    EXPECT_EQ(JsonReader::FormatBound(1000), "1000");
    EXPECT_EQ(JsonReader::FormatBound(3ULL << 40), std::to_string(3ULL << 40));
}

TEST(JsonInputTest, WorkloadFilesNameTheFileAndTheField)
{
    ExpectFileErrorsNameTheFile("mlnet-json-workload", kWorkload, [](const std::string& p) {
        TrainingWorkload::FromFile(p);
    });
    // Field errors, from text (the entry point for fuzzing) under a given name.
    auto message = [](const std::string& text) {
        return Message([&] { TrainingWorkload::FromString(text, "w.json"); });
    };
    auto layer = [](const std::string& bytes) {
        return R"({"name": "w", "layers": [{"name": "a", "forward_us": 1, "backward_us": 1,
                   "param_bytes": )" +
               bytes + "}]}";
    };
    ExpectNamesFile(
        message(layer("\"8\"")),
        "w.json",
        "layers[0].param_bytes: expected a whole number of bytes in [0, 2^50], got string \"8\"");
    ExpectNamesFile(
        message(layer("-8")),
        "w.json",
        "layers[0].param_bytes: expected a whole number of bytes in [0, 2^50], got number -8");
    // 2^64 - 1 used to wrap the bucket sums (a shorter iteration); now it is refused.
    ExpectNamesFile(message(layer("18446744073709551615")),
                    "w.json",
                    "layers[0].param_bytes: expected a whole number of bytes in [0, 2^50], got "
                    "number 18446744073709551615");
    // Each layer within the bound, their sum beyond it: named at the layer that overflows.
    const std::string half = std::to_string(JsonReader::kMaxBytes / 2 + 1);
    ExpectNamesFile(message(R"({"name": "w", "layers": [
            {"name": "a", "forward_us": 1, "backward_us": 1, "param_bytes": )" +
                            half + R"(},
            {"name": "b", "forward_us": 1, "backward_us": 1, "param_bytes": )" +
                            half + "}]}"),
                    "w.json",
                    "layers[1].param_bytes: the layers' param_bytes sum to more than 2^50 bytes");
    ExpectNamesFile(message(R"({"name": "w", "parallelism": {"data": 4000000000},
        "layers": [{"name": "a", "forward_us": 1, "backward_us": 1, "param_bytes": 1}]})"),
                    "w.json",
                    "parallelism.data: expected a whole number of ranks in [1, 2^20], got number "
                    "4000000000");
    ExpectNamesFile(message(R"({"name": "w", "layers": [{"name": "a", "forward_us": 1e300,
        "backward_us": 1, "param_bytes": 1}]})"),
                    "w.json",
                    "layers[0].forward_us: expected a number of microseconds in (0, 1e+09], got "
                    "number 1e+300");
    ExpectNamesFile(message(R"({"name": "w", "layers": [{"name": "a", "forward_us": 1,
        "backward_us": 1}], "layers2": 1})"),
                    "w.json",
                    "top level: unknown key \"layers2\"");
    ExpectNamesFile(message(R"({"name": "w", "layers": [{"name": "a", "forward_us": 1,
        "backward_us": 1}]})"),
                    "w.json",
                    "layers[0].param_bytes: expected a whole number of bytes in [0, 2^50], got "
                    "nothing (the field is missing)");
    ExpectNamesFile(message(R"({"name": "w", "layers": [{"name": "a", "forward_us": 1,
        "backward_us": 1, "param_bytes": )" +
                            mlnettest::DeepArray(100000) + "}]}"),
                    "w.json",
                    "nested more than 64 levels deep");
    // The all-reduce algorithm is one the collective factory offers, checked on reading.
    ExpectNamesFile(message(R"({"name": "w", "layers": [{"name": "a", "forward_us": 1,
        "backward_us": 1, "param_bytes": 4}], "collective": {"algorithm": "spiral"}})"),
                    "w.json",
                    "collective.algorithm: unknown algorithm 'spiral' for allreduce; valid: "
                    "ring, hd, torus");
    EXPECT_EQ(TrainingWorkload::FromString(R"({"name": "w", "layers": [{"name": "a",
        "forward_us": 1, "backward_us": 1, "param_bytes": 4}], "collective": {"algorithm": "hd"}})",
                                           "w.json")
                  .GetAlgorithm(),
              "hd");
    // A valid document gives the same workload as before the reader existed.
    TrainingWorkload w = TrainingWorkload::FromString(kWorkload, "w.json");
    EXPECT_EQ(w.GetTotalParamBytes(), 120u);
    EXPECT_EQ(w.GetLayers()[1].forward, NanoSeconds(1500));
    // Backward order, a bucket closes at >= 50 bytes: each 60-byte layer is a bucket.
    EXPECT_EQ(w.GetBuckets().size(), 2u);
}

TEST(JsonInputTest, GraphFilesNameTheFileAndTheField)
{
    const std::string valid = R"({"ranks": 2, "switches": 1,
        "links": [["r0", "s0"], {"a": "r1", "b": "s0", "rate": "10Gbps", "delay": "2us"}]})";
    ExpectFileErrorsNameTheFile("mlnet-json-graph", valid, [](const std::string& p) {
        GraphFabricHelper h;
        h.ReadFile(p);
        h.Install();
        Simulator::Destroy();
    });
    auto message = [](const std::string& text) {
        return Message([&] { GraphFabricHelper::Parse(text, "g.json"); });
    };
    // 4 x 10^9 ranks or switches used to hang creating nodes.
    ExpectNamesFile(message(R"({"ranks": 4000000000, "links": []})"),
                    "g.json",
                    "ranks: expected a whole number of ranks in [2, 2^20], got number 4000000000");
    ExpectNamesFile(message(R"({"ranks": 2, "switches": 4000000000, "links": []})"),
                    "g.json",
                    "switches: expected a whole number of switches in [0, 2^20]");
    ExpectNamesFile(message(R"({"ranks": -2, "links": []})"),
                    "g.json",
                    "ranks: expected a whole number of ranks in [2, 2^20], got number -2");
    ExpectNamesFile(message(R"({"ranks": 2})"),
                    "g.json",
                    "links: expected an array of at most 2^22 links, got nothing");
    ExpectNamesFile(message(R"({"ranks": 2, "links": [["r0", "s0"]]})"),
                    "g.json",
                    "links[0][1]: expected a node name r0..r1, got string \"s0\"");
    ExpectNamesFile(message(R"({"ranks": 2, "links": [["r0", "r1", "r2"]]})"),
                    "g.json",
                    "links[0]: expected an array of exactly 2 node names");
    ExpectNamesFile(message(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1", "rate": "fast"}]})"),
                    "g.json",
                    "links[0].rate: expected a rate like \"100Gbps\" in (0, 100Tbps], got string "
                    "\"fast\"");
    ExpectNamesFile(message(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1",
                                "rate": "99999999999999999999Gbps"}]})"),
                    "g.json",
                    "links[0].rate: expected a rate");
    // Found by fuzz-graph-fabric: ns-3's DataRate parser aborted on a space inside the
    // number, and its Time parser likewise; both go through ValueParser now.
    for (const char* rate : {"4 0Gbps", "100Gbps ", " 100Gbps", "0004Gbs", "1e3Gbps"})
    {
        ExpectNamesFile(message(std::string(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1", )") +
                                R"("rate": ")" + rate + R"("}]})"),
                        "g.json",
                        "links[0].rate: expected a rate");
    }
    for (const char* delay : {"1 us", "1us ", "1e3us", "1usec"})
    {
        ExpectNamesFile(message(std::string(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1", )") +
                                R"("delay": ")" + delay + R"("}]})"),
                        "g.json",
                        "links[0].delay: expected a delay");
    }
    ExpectNamesFile(message(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1", "delay": "2h"}]})"),
                    "g.json",
                    "links[0].delay: expected a delay like \"1us\"");
    ExpectNamesFile(message(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1", "delay": "5s"}]})"),
                    "g.json",
                    "links[0].delay: expected a delay like \"1us\" (unit s, ms, us, ns or ps) in "
                    "[0, 1s], got string \"5s\"");
    ExpectNamesFile(message(R"({"ranks": 2, "links": [{"a": "r0", "b": "r1", "colour": 1}]})"),
                    "g.json",
                    "links[0]: unknown key \"colour\"");
    ExpectNamesFile(message(R"({"ranks": 2, "link": []})"),
                    "g.json",
                    "top level: unknown key \"link\"");
    ExpectNamesFile(message(R"({"ranks": 2, "links": [["r1", "r1"]]})"),
                    "g.json",
                    "links[0]: joins 'r1' to itself");
    // Every rank must reach rank 0 (Boost's connected components over ranks and switches).
    ExpectNamesFile(message(R"({"ranks": 3, "switches": 2,
                                "links": [["r0", "s0"], ["r1", "s0"], ["r2", "s1"]]})"),
                    "g.json",
                    "links: rank 2 cannot be reached from rank 0; add links");
    ExpectNamesFile(message(R"({"ranks": 3, "links": [["r0", "r2"]]})"),
                    "g.json",
                    "links: rank 1 cannot be reached from rank 0");
    // Through a switch is reachable; a switch nothing reaches is allowed.
    EXPECT_NO_THROW(GraphFabricHelper::Parse(R"({"ranks": 2, "switches": 2, "links": [["r0", "s1"],
                                     ["s1", "r1"]]})",
                                             "g.json"));
    GraphDescription g = GraphFabricHelper::Parse(valid, "g.json");
    ASSERT_EQ(g.links.size(), 2u);
    EXPECT_FALSE(g.links[0].bIsRank);
    EXPECT_EQ(g.links[1].rate, DataRate("10Gbps"));
    EXPECT_EQ(g.links[1].delay, MicroSeconds(2));
    EXPECT_EQ(g.links[0].delay, Time(-1)); // the helper's
}

TEST(JsonInputTest, PriceTableFilesNameTheFileAndTheField)
{
    const std::string valid =
        R"({"format": "mlnet-prices", "parts": [{"part": "fiber", "price_usd": 5, "source": "x"}]})";
    ExpectFileErrorsNameTheFile("mlnet-json-prices", valid, [](const std::string& p) {
        PriceTable::FromFile(p);
    });
    Ptr<PriceTable> t = CreateObject<PriceTable>();
    auto message = [&](const std::string& text) {
        return Message([&] { t->LoadJson(text, "p.json"); });
    };
    ExpectNamesFile(message(R"({"parts": [{"part": "fiber", "price_usd": 1e300, "source": "x"}]})"),
                    "p.json",
                    "parts[0].price_usd: expected a number of USD per unit in [0, 1e+09], got "
                    "number 1e+300");
    ExpectNamesFile(message(R"({"parts": [{"part": "nic", "gbps": -100, "price_usd": 1,
                                "source": "x"}]})"),
                    "p.json",
                    "parts[0].gbps: expected a whole number of Gbps");
    ExpectNamesFile(message(R"({"parts": {"part": "nic"}})"),
                    "p.json",
                    "parts: expected an array of at most 65536 part objects, got an object");
    ExpectNamesFile(message(R"({"format": "mlnet-prices", "parts": [], "extra": 1})"),
                    "p.json",
                    "top level: unknown key \"extra\"");
    ExpectNamesFile(message(R"({"format": ["x"], "parts": []})"),
                    "p.json",
                    "format: expected \"mlnet-prices\", got an array of 1 elements");
    // A failed load keeps the table it had.
    EXPECT_EQ(t->GetOrigin(), PriceTable::DefaultPath());
}
