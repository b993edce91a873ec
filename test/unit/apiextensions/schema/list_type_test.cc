#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/list_type.h"
#include "test/unit/apiextensions/schema/support.h"

namespace s = apiextensions::schema;
using crd_schema_test::Rendered;
using crd_schema_test::ValidateSpec;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

const json kSet = json::parse(
    R"({"type":"array","x-kubernetes-list-type":"set","x-kubernetes-preserve-unknown-fields":true})");

Strings List(const json& list_schema, const json& value) {
  json spec_schema = {{"type", "object"}, {"properties", {{"l", list_schema}}}};
  return ValidateSpec(spec_schema, {{"l", value}});
}

json MapList(const json& keys) {
  json schema = json::parse(R"({"type":"array","x-kubernetes-list-type":"map",
      "items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}})");
  schema["x-kubernetes-list-map-keys"] = keys;
  return schema;
}

}  // namespace

TEST_CASE("list-type set: the second occurrence of a value is a duplicate", "[crd-schema]") {
  CHECK(List(kSet, json::parse(R"(["a","b","a","a","b"])")) ==
        Strings{R"(spec.l[2]: Duplicate value: "a")", R"(spec.l[4]: Duplicate value: "b")"});
  // Scalars compare with their Go types: 1 (int64) and 1.0 (float64) differ.
  CHECK(List(kSet, json::parse("[1, 1.0, 1]")) == Strings{"spec.l[2]: Duplicate value: 1"});
  CHECK(List(kSet, json::parse("[true, true, null, null]")) ==
        Strings{"spec.l[1]: Duplicate value: true", R"(spec.l[3]: Duplicate value: "null")"});
  // Objects compare by their JSON encoding, where 1 and 1.0 are the same.
  CHECK(List(kSet, json::parse(R"([{"a":1},{"a":1.0}])")) ==
        Strings{R"(spec.l[1]: Duplicate value: map[string]interface {}{"a":1})"});
  CHECK(List(kSet, json::parse(R"([[1,2],[2,1],[1,2]])")) ==
        Strings{"spec.l[2]: Duplicate value: []interface {}{1, 2}"});
  CHECK(List(kSet, json::parse(R"(["a","b"])")).empty());
}

TEST_CASE("list-type map: keys must be unique", "[crd-schema]") {
  CHECK(List(MapList({"name"}), json::parse(R"([{"name":"a"},{"name":"b"},{"name":"a"},{},{}])")) ==
        Strings{R"(spec.l[2]: Duplicate value: map[string]interface {}{"name":"a"})",
                "spec.l[4]: Duplicate value: map[string]interface {}{}"});
  CHECK(
      List(MapList({"name", "protocol"}),
           json::parse(R"([{"name":"a","protocol":"TCP"},{"name":"a","protocol":"UDP"},
                             {"name":"a","protocol":"TCP","port":1}])")) ==
      Strings{
          R"(spec.l[2]: Duplicate value: map[string]interface {}{"name":"a", "protocol":"TCP"})"});
  // A null item counts as an item without keys.
  CHECK(List(MapList({"name"}), json::parse(R"([{},null])")) ==
        Strings{
            R"(spec.l[1]: Invalid value: "null": spec.l[1] in body must be of type object: "null")",
            "spec.l[1]: Duplicate value: map[string]interface {}{}"});
  // Items must be objects.
  CHECK(
      List(MapList({"name"}), json::parse(R"(["x",{"name":"a"}])")) ==
      Strings{
          R"(spec.l[0]: Invalid value: "string": spec.l[0] in body must be of type object: "string")",
          R"(spec.l[0]: Invalid value: "x": must be an object for an array of list-type map)"});
}

TEST_CASE("list types are found through additionalProperties and items", "[crd-schema]") {
  json schema = json::parse(R"({"type":"object","properties":{"m":{"type":"object",
      "additionalProperties":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}},
      "n":{"type":"array","items":{"type":"array","x-kubernetes-list-type":"set",
           "items":{"type":"string"}}}}})");
  CHECK(Rendered(s::ValidateListSetsAndMaps(
            schema, json::parse(R"({"m":{"k":["a","a"]},"n":[["x"],["y","y"]]})"))) ==
        Strings{R"(m[k][1]: Duplicate value: "a")", R"(n[1][1]: Duplicate value: "y")"});
}
