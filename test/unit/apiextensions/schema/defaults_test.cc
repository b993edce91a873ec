#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/structural.h"

namespace s = apiextensions::schema;
using nlohmann::json;

TEST_CASE("defaults fill absent properties, top-down", "[crd-schema]") {
  const json schema = json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "default":{},
      "properties":{
        "replicas":{"type":"integer","default":1},
        "mode":{"type":"string","default":"auto"},
        "nested":{"type":"object","default":{"a":"x"},
                  "properties":{"a":{"type":"string"},"b":{"type":"integer","default":2}}}}}}})");
  json o = {{"kind", "W"}};
  s::ApplyDefaults(o, schema);
  CHECK(o == json::parse(R"({"kind":"W","spec":{"replicas":1,"mode":"auto",
      "nested":{"a":"x","b":2}}})"));
  json set = json::parse(R"({"spec":{"replicas":3,"nested":{"a":"y"}}})");
  s::ApplyDefaults(set, schema);
  CHECK(set == json::parse(R"({"spec":{"replicas":3,"mode":"auto","nested":{"a":"y","b":2}}})"));
}

TEST_CASE("defaults replace non-nullable nulls only", "[crd-schema]") {
  const json schema = json::parse(R"({"type":"object","properties":{
      "a":{"type":"string","default":"d"},
      "b":{"type":"string","nullable":true,"default":"d"},
      "c":{"type":"string","nullable":true,"default":null},
      "d":{"type":"string"}}})");
  json o = json::parse(R"({"a":null,"b":null,"d":null})");
  s::ApplyDefaults(o, schema);
  // A "default": null is no default upstream (Default.Object is nil): c stays absent.
  CHECK(o == json::parse(R"({"a":"d","b":null,"d":null})"));
}

TEST_CASE("defaults inside array items and additionalProperties values", "[crd-schema]") {
  const json schema = json::parse(R"({"type":"object","properties":{
      "list":{"type":"array","items":{"type":"object","default":{"n":0},
              "properties":{"n":{"type":"integer"},"p":{"type":"string","default":"TCP"}}}},
      "map":{"type":"object","additionalProperties":{"type":"object","default":{},
              "properties":{"v":{"type":"boolean","default":true}}}},
      "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
              "properties":{"k":{"type":"string","default":"kv"}}}}})");
  json o =
      json::parse(R"({"list":[{"n":1},null,{"p":"UDP"}],"map":{"a":{},"b":null,"c":{"v":false}},
                           "free":{"other":1}})");
  s::ApplyDefaults(o, schema);
  CHECK(o == json::parse(R"({
      "list":[{"n":1,"p":"TCP"},{"n":0,"p":"TCP"},{"p":"UDP"}],
      "map":{"a":{"v":true},"b":{"v":true},"c":{"v":false}},
      "free":{"other":1,"k":"kv"}})"));
}

TEST_CASE("defaults are copies of the schema's values", "[crd-schema]") {
  json schema = json::parse(R"({"type":"object","properties":{
      "a":{"type":"object","default":{"x":[1,2]},"x-kubernetes-preserve-unknown-fields":true}}})");
  json first = json::object(), second = json::object();
  s::ApplyDefaults(first, schema);
  first["a"]["x"].push_back(3);
  s::ApplyDefaults(second, schema);
  CHECK(second == json::parse(R"({"a":{"x":[1,2]}})"));
  CHECK(schema["properties"]["a"]["default"] == json::parse(R"({"x":[1,2]})"));
  // Nothing happens without a schema, or to scalars.
  json scalar = 5;
  s::ApplyDefaults(scalar, schema);
  CHECK(scalar == 5);
  json untouched = json::object();
  s::ApplyDefaults(untouched, json("nonsense"));
  CHECK(untouched == json::object());
}
