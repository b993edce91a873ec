// Server-side apply's typed operations over a schema: field sets, comparisons, merges and
// removals, per list and map type; and the list semantics of the built-in kinds.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/typed/operations.h"
#include "pkg/genericserver/apimachinery/typed/schema.h"
#include "pkg/master/schemas/schemas.h"

using apimachinery::typed::Compare;
using apimachinery::typed::Merge;
using apimachinery::typed::RemoveItems;
using apimachinery::typed::Schema;
using apimachinery::typed::ToFieldSet;
using apimachinery::typed::Type;
using nlohmann::json;

namespace {

// One field of each kind.
const json& Components() {
  static const json c = json::parse(R"({
  "Thing": {"type": "object", "properties": {
    "atomicList": {"type": "array", "items": {"type": "string"}},
    "atomicExplicit": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "atomic"},
    "set": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
    "mergeSet": {"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"},
    "keyed": {"type": "array", "items": {"$ref": "#/components/schemas/Item"},
              "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"]},
    "mergeKeyed": {"type": "array", "items": {"$ref": "#/components/schemas/Item"},
                   "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "atomicMap": {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "atomic"},
    "struct": {"allOf": [{"$ref": "#/components/schemas/Item"}], "default": {}},
    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
    "raw": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension"}}},
  "Item": {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"}, "port": {"type": "integer", "default": 80},
    "value": {"type": "string"}}}
  })");
  return c;
}

const Type& Thing() {
  static const Schema schema(Components(), "Thing");
  return schema.Root();
}

std::string FieldsOf(const char* object) {
  return ToFieldSet(json::parse(object), Thing()).ToFieldsV1();
}

}  // namespace

TEST_CASE("field sets follow the list and map types", "[typed]") {
  CHECK(FieldsOf(R"({"atomicList":["a","b"],"atomicExplicit":["c"]})") ==
        R"({"f:atomicExplicit":{},"f:atomicList":{}})");
  CHECK(FieldsOf(R"({"set":["b","a"],"mergeSet":["x"]})") ==
        R"({"f:mergeSet":{"v:\"x\"":{}},"f:set":{"v:\"a\"":{},"v:\"b\"":{}}})");
  // A keyed item's missing key takes the key field's default.
  CHECK(FieldsOf(R"({"keyed":[{"name":"a","value":"1"}],"mergeKeyed":[{"name":"b"}]})") ==
        R"({"f:keyed":{"k:{\"name\":\"a\",\"port\":80}":{".":{},"f:name":{},"f:value":{}}},)"
        R"("f:mergeKeyed":{"k:{\"name\":\"b\"}":{".":{},"f:name":{}}}})");
  CHECK(FieldsOf(R"({"labels":{"app":"x"},"atomicMap":{"k":"v"},"struct":{"name":"n"}})") ==
        R"({"f:atomicMap":{},"f:labels":{"f:app":{}},"f:struct":{"f:name":{}}})");
  // Deduced below preserve-unknown-fields (its keys are map entries, members themselves);
  // RawExtension is atomic.
  CHECK(FieldsOf(R"({"free":{"a":{"b":1},"l":[1,2]},"raw":{"x":{"y":1}}})") ==
        R"({"f:free":{"f:a":{".":{},"f:b":{}},"f:l":{}},"f:raw":{}})");
  // Empty structs and nulls are leaves.
  CHECK(FieldsOf(R"({"struct":{},"labels":null})") == R"({"f:labels":{},"f:struct":{}})");
}

TEST_CASE("field set errors are upstream's", "[typed]") {
  std::vector<std::string> errors;
  ToFieldSet(json::parse(R"({"mergeKeyed":[{"name":"a"},{"name":"a"}],"keyed":[{"value":"x"}]})"),
             Thing(), &errors);
  REQUIRE(errors.size() == 2);
  CHECK(
      errors[0] ==
      R"(.keyed: element 0: associative list with keys has an element that omits key field "name" (and doesn't have default value))");
  CHECK(errors[1] == R"(.mergeKeyed: duplicate entries for key [name="a"])");
}

TEST_CASE("comparisons name what was added, modified and removed", "[typed]") {
  json before = json::parse(
      R"({"labels":{"a":"1","b":"2"},"keyed":[{"name":"x","value":"1"}],"atomicList":["a"]})");
  json after = json::parse(
      R"({"labels":{"a":"1","b":"3","c":"4"},"keyed":[{"name":"y"}],"atomicList":["a","b"]})");
  auto c = Compare(&before, &after, Thing());
  CHECK(
      c.added.ToFieldsV1() ==
      R"({"f:keyed":{"k:{\"name\":\"y\",\"port\":80}":{".":{},"f:name":{}}},"f:labels":{"f:c":{}}})");
  CHECK(c.modified.ToFieldsV1() == R"({"f:atomicList":{},"f:labels":{"f:b":{}}})");
  CHECK(c.removed.ToFieldsV1() ==
        R"({"f:keyed":{"k:{\"name\":\"x\",\"port\":80}":{".":{},"f:name":{},"f:value":{}}}})");
  CHECK(Compare(&before, &before, Thing()).Same());
  // A field that was absent is added with the maps above it.
  json empty = json::object();
  json nested = json::parse(R"({"struct":{"name":"n"}})");
  CHECK(Compare(&empty, &nested, Thing()).added.ToFieldsV1() ==
        R"({"f:struct":{".":{},"f:name":{}}})");
}

TEST_CASE("merges follow the list and map types", "[typed]") {
  json live = json::parse(R"({"keyed":[{"name":"a","value":"1"},{"name":"b","value":"2"}],
    "atomicList":["x","y"],"set":["p"],"atomicMap":{"k":"v","l":"w"},"labels":{"a":"1"}})");
  json config = json::parse(R"({"keyed":[{"name":"c"},{"name":"a","value":"9"}],
    "atomicList":["z"],"set":["q"],"atomicMap":{"k":"u"},"labels":{"b":"2"}})");
  json merged = Merge(live, config, Thing());
  // Keyed items merge one by one, in the applied order; live-only items follow the items they
  // followed.
  CHECK(merged["keyed"] ==
        json::parse(R"([{"name":"c"},{"name":"a","value":"9"},{"name":"b","value":"2"}])"));
  CHECK(merged["atomicList"] == json::parse(R"(["z"])"));
  CHECK(merged["set"] == json::parse(R"(["p","q"])"));
  CHECK(merged["atomicMap"] == json::parse(R"({"k":"u"})"));
  CHECK(merged["labels"] == json::parse(R"({"a":"1","b":"2"})"));
}

TEST_CASE("items are removed whole", "[typed]") {
  json value = json::parse(
      R"({"keyed":[{"name":"a"},{"name":"b"}],"labels":{"a":"1","b":"2"},"struct":{"name":"n"}})");
  auto set = apimachinery::fieldpath::Set::FromFieldsV1(json::parse(
      R"({"f:keyed":{"k:{\"name\":\"a\",\"port\":80}":{}},"f:labels":{"f:b":{}},"f:struct":{"f:name":{}}})"));
  REQUIRE(set);
  CHECK(RemoveItems(value, *set, Thing()) ==
        json::parse(R"({"keyed":[{"name":"b"}],"labels":{"a":"1"}})"));
}

// The list semantics of built-in kinds, as upstream's schemas make them (kube-openapi reads
// the same OpenAPI extensions): checked against the upstream 1.32 table for these lists.
TEST_CASE("built-in lists keep upstream's semantics", "[typed]") {
  const json* core = schemas::Components("v1");
  REQUIRE(core);
  Schema pod(*core, "io.k8s.api.core.v1.Pod");
  const Type& spec = *pod.Root().FindField("spec")->type;
  auto list = [&](const Type& t, const char* name) -> const Type& {
    const auto* f = t.FindField(name);
    REQUIRE(f);
    return *f->type;
  };
  struct Expect {
    const char* field;
    std::vector<std::string> keys;
    bool atomic;
  };
  for (const Expect& e : std::vector<Expect>{
           {"containers", {"name"}, false},
           {"initContainers", {"name"}, false},
           {"ephemeralContainers", {"name"}, false},
           {"volumes", {"name"}, false},
           {"imagePullSecrets", {"name"}, false},
           {"hostAliases", {"ip"}, false},
           {"tolerations", {}, true},
           {"topologySpreadConstraints", {"topologyKey", "whenUnsatisfiable"}, false},
           {"readinessGates", {}, true},
       }) {
    INFO(e.field);
    const Type& t = list(spec, e.field);
    CHECK(t.kind == Type::Kind::kList);
    CHECK(t.atomic == e.atomic);
    CHECK(t.keys == e.keys);
  }
  const Type& container = *list(spec, "containers").elements;
  CHECK(list(container, "ports").keys == std::vector<std::string>{"containerPort", "protocol"});
  CHECK(list(container, "env").keys == std::vector<std::string>{"name"});
  CHECK(list(container, "volumeMounts").keys == std::vector<std::string>{"mountPath"});
  CHECK(list(container, "args").atomic);
  CHECK(list(container, "command").atomic);
  const Type& meta = *pod.Root().FindField("metadata")->type;
  CHECK(list(meta, "finalizers").set);
  CHECK(list(meta, "ownerReferences").keys == std::vector<std::string>{"uid"});
  CHECK(list(meta, "labels").kind == Type::Kind::kMap);
  Schema service(*core, "io.k8s.api.core.v1.Service");
  const Type& sspec = *service.Root().FindField("spec")->type;
  CHECK(list(sspec, "ports").keys == std::vector<std::string>{"port", "protocol"});
  CHECK(list(sspec, "selector").atomic);  // x-kubernetes-map-type atomic
}
