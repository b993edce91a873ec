// PruneCustomResource: unknown fields dropped and reported as upstream reports them for
// fieldValidation (`unknown field "spec.foo"`).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/nulls.h"
#include "pkg/apiextensions/schema/structural.h"

namespace s = apiextensions::schema;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

const json kSchema = json::parse(R"({"type":"object","properties":{
    "spec":{"type":"object","properties":{
        "a":{"type":"string"},
        "list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer"}}}},
        "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
                "properties":{"known":{"type":"object","properties":{"b":{"type":"string"}}}}},
        "map":{"type":"object","additionalProperties":{"type":"object",
               "properties":{"x":{"type":"integer"}}}},
        "template":{"type":"object","x-kubernetes-embedded-resource":true,
                    "properties":{"spec":{"type":"object","properties":{"c":{"type":"string"}}}}},
        "opaque":{"type":"object"}}},
    "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}})");

json Object(const char* spec) {
  json o = {{"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}}};
  o["spec"] = json::parse(spec);
  return o;
}

}  // namespace

TEST_CASE("unknown fields are pruned and reported with their paths", "[crd-schema]") {
  json o =
      Object(R"({"a":"x","b":1,"list":[{"x":1,"y":2},{"z":3}],"opaque":{"k":"v","kind":"K"}})");
  o["extra"] = true;
  o["status"] = {{"anything", {{"goes", 1}}}};
  // TypeMeta and ObjectMeta names are only special at the root and in embedded resources.
  CHECK(s::PruneCustomResource(o, kSchema) == Strings{"extra", "spec.b", "spec.list[0].y",
                                                      "spec.list[1].z", "spec.opaque.k",
                                                      "spec.opaque.kind"});
  CHECK(o == json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
      "metadata":{"name":"w"},
      "spec":{"a":"x","list":[{"x":1},{}],"opaque":{}},
      "status":{"anything":{"goes":1}}})"));
}

TEST_CASE("x-kubernetes-preserve-unknown-fields keeps unknowns but prunes known properties",
          "[crd-schema]") {
  json o = Object(R"({"free":{"zzz":{"deep":1},"known":{"b":"x","c":2}}})");
  CHECK(s::PruneCustomResource(o, kSchema) == Strings{"spec.free.known.c"});
  CHECK(o["spec"]["free"] == json::parse(R"({"zzz":{"deep":1},"known":{"b":"x"}})"));
}

TEST_CASE("additionalProperties values are pruned with their schema", "[crd-schema]") {
  json o = Object(R"({"map":{"k1":{"x":1,"y":2},"k2":{"x":2}}})");
  CHECK(s::PruneCustomResource(o, kSchema) == Strings{"spec.map.k1.y"});
  CHECK(o["spec"]["map"] == json::parse(R"({"k1":{"x":1},"k2":{"x":2}})"));
}

TEST_CASE("embedded resources keep apiVersion, kind and metadata, pruned as ObjectMeta",
          "[crd-schema]") {
  json o = Object(R"({"template":{"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","foo":1,"labels":{"a":"b"},"creationTimestamp":null},
      "spec":{"c":"x","d":"y"},"bogus":true}})");
  CHECK(s::PruneCustomResource(o, kSchema) ==
        Strings{"spec.template.bogus", "spec.template.spec.d", "spec.template.metadata.foo"});
  CHECK(o["spec"]["template"] == json::parse(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","labels":{"a":"b"}},"spec":{"c":"x"}})"));
  // A wrongly typed apiVersion or kind in an embedded resource is dropped.
  json bad = Object(R"({"template":{"apiVersion":1,"kind":["x"],"metadata":{"generation":"x"}}})");
  CHECK(s::PruneCustomResource(bad, kSchema).empty());
  CHECK(bad["spec"]["template"] == json::parse(R"({"metadata":{}})"));
}

TEST_CASE("the root metadata is pruned to ObjectMeta, wrongly typed fields dropped",
          "[crd-schema]") {
  json o = Object(R"({})");
  o["metadata"] = json::parse(R"({"name":"w","namespace":"ns","surprise":1,
      "labels":{"a":1},"annotations":{"k":"v"},"generation":"two",
      "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u","what":1}]})");
  CHECK(s::PruneCustomResource(o, kSchema) ==
        Strings{"metadata.ownerReferences[0].what", "metadata.surprise"});
  CHECK(o["metadata"] == json::parse(R"({"name":"w","namespace":"ns","annotations":{"k":"v"},
      "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u"}]})"));
}

TEST_CASE("without a schema only TypeMeta and ObjectMeta survive", "[crd-schema]") {
  json o = Object(R"({"a":1})");
  CHECK(s::PruneCustomResource(o, json::object()) == Strings{"spec"});
  CHECK(o ==
        json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})"));
  json not_object = json::array();
  CHECK(s::PruneCustomResource(not_object, kSchema).empty());
}

TEST_CASE("non-nullable nulls without a default are dropped", "[crd-schema]") {
  const json schema = json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "properties":{"plain":{"type":"string"},"nullable":{"type":"string","nullable":true},
                    "defaulted":{"type":"string","default":"d"},
                    "list":{"type":"array","items":{"type":"string"}},
                    "map":{"type":"object","additionalProperties":{"type":"string"}}}}}})");
  json o = Object(R"({"plain":null,"nullable":null,"defaulted":null,"list":[null],
                      "map":{"k":null}})");
  CHECK(s::PruneCustomResource(o, schema).empty());
  CHECK(o["spec"] == json::parse(R"({"nullable":null,"defaulted":null,"list":[null],"map":{}})"));
  json direct = json::parse(R"({"spec":{"plain":null}})");
  s::DropNonNullableNulls(direct, schema);
  CHECK(direct == json::parse(R"({"spec":{}})"));
}

TEST_CASE("pruning survives deep and large input", "[crd-schema]") {
  json deep = json::array();
  for (int i = 0; i < 5000; ++i) {
    json next = json::array();
    next.push_back(std::move(deep));
    deep = std::move(next);
  }
  json o = Object(R"({})");
  o["spec"]["list"] = json::array({{{"x", 1}, {"nested", deep}}});
  CHECK(s::PruneCustomResource(o, kSchema) == Strings{"spec.list[0].nested"});
  json wide = Object(R"({"list":[]})");
  for (int i = 0; i < 10000; ++i) wide["spec"]["list"].push_back({{"x", i}, {"y", i}});
  CHECK(s::PruneCustomResource(wide, kSchema).size() == 10000);
}
