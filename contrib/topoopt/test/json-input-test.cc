// SPDX-License-Identifier: GPL-2.0-only
// topoopt's JSON inputs (model profile, topology plan, CostModel prices) read through
// JsonReader: every bad input is one line naming the file, the field path and what
// was expected; a value nested 100 000 deep in a profile is an error, not a crash.
#include "json-input-test-support.h"
#include "mlnet-test-support.h"

#include "ns3/cost-model.h"
#include "ns3/model-profile.h"
#include "ns3/topology-plan.h"

#include <gtest/gtest.h>

using namespace ns3;
using mlnettest::ExpectFileErrorsNameTheFile;
using mlnettest::ExpectNamesFile;
using mlnettest::InvalidArgumentMessage;

namespace
{

const std::string kProfile = R"({"format": "topoopt-profile", "version": 1, "name": "p",
  "layers": [
    {"name": "e0", "forward_us": 10, "backward_us": 10, "param_bytes": 400,
     "embedding": true, "activation_bytes": 200},
    {"name": "d0", "forward_us": 100, "backward_us": 200, "param_bytes": 4000}]})";

const std::string kPlan = R"({"format": "topoopt-plan", "version": 1, "servers": 4, "degree": 2,
  "planes": [[[0, 1], [2, 3]], [[1, 2], [3, 0]]],
  "rings": [{"size": 4, "jumps": [1, 3]}]})";

/// kProfile with the first layer's field `key` set to `value`.
std::string
ProfileWith(const std::string& key, const std::string& value)
{
    return R"({"format": "topoopt-profile", "name": "p", "layers": [
    {"name": "e0", "forward_us": 10, "backward_us": 10, "param_bytes": 400,
     "embedding": true, "activation_bytes": 200, ")" +
           key + "\": " + value + "}]}";
}

} // namespace

TEST(JsonInputTest, ProfileFilesNameTheFileAndTheField)
{
    ExpectFileErrorsNameTheFile("topoopt-json-profile", kProfile, [](const std::string& p) {
        ModelProfile::FromFile(p);
    });
    auto message = [](const std::string& text) {
        return InvalidArgumentMessage([&] { ModelProfile::FromString(text, "m.json"); });
    };
    // The issue's segmentation fault: a value nested 100 000 deep inside a layer
    // overflowed the stack while the message was built (dump()).
    ExpectNamesFile(message(ProfileWith("backward_us", mlnettest::DeepArray(100000))),
                    "m.json",
                    "nested more than 64 levels deep");
    // Shallow but wrong: the container is named by its size, never printed.
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p", "layers": [
        {"name": "d", "forward_us": [[[1, 2, 3]]], "backward_us": 1, "param_bytes": 1}]})"),
                    "m.json",
                    "layers[0].forward_us: expected a number of microseconds in (0, 1e+09], got "
                    "an array of 1 elements");
    // The fields shared with the workload format carry the profile's paths.
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p", "layers": [
        {"name": "d", "forward_us": 1, "backward_us": 1, "param_bytes": 1},
        {"name": "e", "forward_us": 1, "backward_us": 1, "param_bytes": -1}]})"),
                    "m.json",
                    "layers[1].param_bytes: expected a whole number of bytes in [0, 2^50], got "
                    "number -1");
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p", "layers": [
        {"name": "e", "forward_us": 1, "backward_us": 1, "param_bytes": 1, "embedding": true,
         "activation_bytes": 18446744073709551615}]})"),
                    "m.json",
                    "layers[0].activation_bytes: expected a whole number of bytes in [1, 2^50], "
                    "got number 18446744073709551615");
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p", "layers": [
        {"name": "e", "forward_us": 1, "backward_us": 1, "param_bytes": 1, "embedding": "yes",
         "activation_bytes": 4}]})"),
                    "m.json",
                    "layers[0].embedding: expected true or false, got string \"yes\"");
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p", "layers": [
        {"name": "e", "forward_us": 1, "backward_us": 1, "param_bytes": 1, "embedding": true}]})"),
                    "m.json",
                    "layers[0].activation_bytes: expected a whole number of bytes in [1, 2^50], "
                    "got nothing (the field is missing)");
    ExpectNamesFile(message(ProfileWith("flops", "1")),
                    "m.json",
                    "layers[0]: unknown key \"flops\"");
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p", "version": 2,
                                "layers": []})"),
                    "m.json",
                    "version: expected 1 (the only version this reader knows), got number 2");
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p",
                                "gpus_per_server": -4, "layers": [
        {"name": "d", "forward_us": 1, "backward_us": 1, "param_bytes": 1}]})"),
                    "m.json",
                    "gpus_per_server: expected a whole number of GPUs in [0, 1024], got number -4");
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "name": "p",
                                "description": 5, "layers": [
        {"name": "d", "forward_us": 1, "backward_us": 1, "param_bytes": 1}]})"),
                    "m.json",
                    "description: expected a string");
    ExpectNamesFile(message(R"({"format": "topoopt-profile", "layers": [
        {"name": "d", "forward_us": 1, "backward_us": 1, "param_bytes": 1}]})"),
                    "m.json",
                    "name: expected a non-empty string of at most 256 characters, got nothing");
    ExpectNamesFile(message(R"({"format": "topoopt-plan", "name": "p", "layers": []})"),
                    "m.json",
                    "format: expected \"topoopt-profile\", got string \"topoopt-plan\"");
    // Valid: the same profile as the fields say.
    ModelProfile p = ModelProfile::FromString(kProfile, "m.json");
    EXPECT_EQ(p.GetTotalParamBytes(), 4400u);
    EXPECT_EQ(p.GetLayers()[0].activationBytes, 200u);
    EXPECT_EQ(p.GetLayers()[1].backward, MicroSeconds(200));
}

TEST(JsonInputTest, PlanFilesNameTheFileAndTheField)
{
    ExpectFileErrorsNameTheFile("topoopt-json-plan", kPlan, [](const std::string& p) {
        TopologyPlan::ReadFile(p);
    });
    auto message = [](const std::string& text) {
        return InvalidArgumentMessage([&] { TopologyPlan::FromJson(text, "plan.json"); });
    };
    // 4 x 10^9 servers used to allocate per-server tables first.
    ExpectNamesFile(message(R"({"servers": 4000000000, "degree": 1, "planes": []})"),
                    "plan.json",
                    "servers: expected a whole number of servers in [1, 4096], got number "
                    "4000000000");
    ExpectNamesFile(message(R"({"servers": 4, "degree": 100000, "planes": []})"),
                    "plan.json",
                    "degree: expected a whole number of ports per server in [0, 256]");
    ExpectNamesFile(message(R"({"servers": 4, "degree": 1, "planes": [[[0, 1.5]]]})"),
                    "plan.json",
                    "planes[0][0][1]: expected a whole number of servers in [0, 4096], got "
                    "number 1.5");
    ExpectNamesFile(message(R"({"servers": 4, "degree": 1, "planes": [[[0, 4]]]})"),
                    "plan.json",
                    "planes[0][0]: circuit 0-4 on plane 0");
    ExpectNamesFile(message(R"({"servers": 4, "degree": 1, "planes": [[[0, 1]]], "extra": 1})"),
                    "plan.json",
                    "top level: unknown key \"extra\"");
    ExpectNamesFile(message(R"({"servers": 4, "degree": 1, "planes": [[[0, 1]]],
        "rings": [{"size": 4, "jumps": [1], "direct": "yes"}]})"),
                    "plan.json",
                    "rings[0].direct: expected true or false, got string \"yes\"");
    ExpectNamesFile(message(R"({"servers": 4, "degree": 1, "planes": [[[0, 1], [2, 3]]],
        "routes": [{"src": 0, "dst": 1, "paths": [{"hops": [0, 1], "chance": 2}]}]})"),
                    "plan.json",
                    "routes[0].paths[0].chance: expected a number in (0, 1], got number 2");
    ExpectNamesFile(message(R"({"servers": 4, "degree": 1, "planes": [[[0, 1]]],
        "conn": [{"from": 0, "to": 9, "nconn": 1}]})"),
                    "plan.json",
                    "conn[0].to: expected a whole number of servers in [0, 3], got number 9");
    // A plan as topoopt-plan writes it round-trips unchanged.
    TopologyPlan plan = TopologyPlan::FromJson(kPlan, "plan.json");
    EXPECT_EQ(TopologyPlan::FromJson(plan.ToJson(), "again.json"), plan);
}

TEST(JsonInputTest, CostModelPriceFilesNameTheFileAndTheField)
{
    const std::string valid = R"({"prices": {"100": {"transceiver": 99}}})";
    ExpectFileErrorsNameTheFile("topoopt-json-prices", valid, [](const std::string& p) {
        CreateObject<CostModel>()->LoadFile(p);
    });
    Ptr<CostModel> m = CreateObject<CostModel>();
    auto message = [&](const std::string& text) {
        return InvalidArgumentMessage([&] { m->LoadJson(text, "c.json"); });
    };
    ExpectNamesFile(message(R"({"fast": {}})"),
                    "c.json",
                    "fast: the key is not a speed in Gbps in [1, 100000]");
    ExpectNamesFile(message(R"({"100": {"laser": 3}})"), "c.json", "100: unknown key \"laser\"");
    ExpectNamesFile(message(R"({"100": {"transceiver": -3}})"),
                    "c.json",
                    "100.transceiver: expected a number of USD in [0, 1e+09], got number -3");
    ExpectNamesFile(message(R"({"prices": {"1600": {"transceiver": 1}}})"),
                    "c.json",
                    "prices.1600.nic_port: is missing; a new speed must list every price");
}
