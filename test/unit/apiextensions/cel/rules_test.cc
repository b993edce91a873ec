// x-kubernetes-validations end to end: Compile's CRD-time errors and RuleSet::Validate on
// custom resources, with upstream's paths and messages.

#include <chrono>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/rules.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace cel = apiextensions::cel;
using nlohmann::json;

namespace {

const char* const kPath = "spec.versions[0].schema.openAPIV3Schema";

// A CRD schema with a spec object holding the given properties and rules.
json SpecSchema(const json& spec_props, const json& spec_rules) {
  json spec = {{"type", "object"}, {"properties", spec_props}};
  if (!spec_rules.empty()) spec["x-kubernetes-validations"] = spec_rules;
  return {{"type", "object"}, {"properties", {{"spec", spec}}}};
}

std::vector<std::string> CompileErrors(const json& schema) {
  auto r = cel::Compile(schema, kPath);
  std::vector<std::string> out;
  if (r) return out;
  for (const auto& e : r.error()) out.push_back(apimachinery::validation::ErrorString(e));
  return out;
}

std::shared_ptr<const cel::RuleSet> MustCompile(const json& schema) {
  auto r = cel::Compile(schema, kPath);
  if (!r) {
    for (const auto& e : r.error()) FAIL_CHECK(apimachinery::validation::ErrorString(e));
  }
  REQUIRE(r.has_value());
  return *r;
}

std::vector<std::string> Validate(const cel::RuleSet& rs, const json& obj,
                                  const json* old = nullptr) {
  std::vector<std::string> out;
  for (const auto& e : rs.Validate(obj, old))
    out.push_back(apimachinery::validation::ErrorString(e));
  return out;
}

json Obj(const json& spec) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", "w"}}},
          {"spec", spec}};
}

const json kReplicaProps = {{"minReplicas", {{"type", "integer"}}},
                            {"maxReplicas", {{"type", "integer"}}}};

}  // namespace

TEST_CASE("CEL Compile accepts schemas without rules and valid rules", "[cel]") {
  auto rs = MustCompile(
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object"}}})j"));
  CHECK(Validate(*rs, Obj(json::object())).empty());
  auto rs2 =
      MustCompile(SpecSchema(kReplicaProps, {{{"rule", "self.minReplicas <= self.maxReplicas"}}}));
  CHECK(Validate(*rs2, Obj({{"minReplicas", 1}, {"maxReplicas", 3}})).empty());
}

TEST_CASE("CEL Compile reports compile errors as upstream's CRD validation does", "[cel]") {
  auto errs = CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "self.replicas > 0"}}}));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] ==
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule:"
        " Invalid value: "
        "apiextensions.ValidationRule{Rule:\"self.replicas > 0\", Message:\"\", "
        "MessageExpression:\"\", "
        "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", "
        "OptionalOldSelf:(*bool)(nil)}: "
        "compilation failed: ERROR: <input>:1:5: undefined field 'replicas'\n | self.replicas > "
        "0\n | ....^");

  errs = CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "self.minReplicas"}}}));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].ends_with(": cel expression must evaluate to a bool"));
  CHECK(errs[0].starts_with(
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: "
      "Invalid value: apiextensions.ValidationRule{Rule:\"self.minReplicas\""));

  errs = CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "self.minReplicas >"}}}));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].find("compilation failed: ERROR: <input>:1:19: Syntax error: mismatched input "
                     "'<EOF>' expecting") != std::string::npos);

  // Rules on nested properties and list items report their schema path.
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "self.nme != ''", "message": "needs a name", "reason": "FieldValueForbidden"}]}}}}}})j");
  errs = CompileErrors(schema);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] ==
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[items].items.x-"
        "kubernetes-validations[0]"
        ".rule: Invalid value: apiextensions.ValidationRule{Rule:\"self.nme != ''\", "
        "Message:\"needs a name\", "
        "MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(0xc000000000), "
        "FieldPath:\"\", "
        "OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field "
        "'nme'\n"
        " | self.nme != ''\n | ....^");
}

TEST_CASE("CEL Compile checks messages, reasons, fieldPaths and messageExpressions", "[cel]") {
  const std::string rp =
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]";
  CHECK(CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "  "}}})) ==
        std::vector<std::string>{rp + ".rule: Required value: rule is not specified"});
  CHECK(CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "true"}, {"message", "  "}}})) ==
        std::vector<std::string>{
            rp + ".message: Invalid value: \"  \": message must be non-empty if specified"});
  CHECK(CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "true"}, {"message", "a\nb"}}})) ==
        std::vector<std::string>{
            rp + ".message: Invalid value: \"a\\nb\": message must not contain line breaks"});
  CHECK(
      CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "true &&\ntrue"}}})) ==
      std::vector<std::string>{
          rp + ".message: Required value: message must be specified if rule contains line breaks"});
  CHECK(CompileErrors(
            SpecSchema(kReplicaProps, {{{"rule", "true"}, {"reason", "FieldValueBogus"}}})) ==
        std::vector<std::string>{
            rp + ".reason: Unsupported value: \"FieldValueBogus\": supported values: "
                 "\"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", "
                 "\"FieldValueRequired\""});
  CHECK(CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "true"}, {"fieldPath", ".nope"}}})) ==
        std::vector<std::string>{
            rp + ".fieldPath: Invalid value: \".nope\": fieldPath must be a valid path"});
  CHECK(CompileErrors(
            SpecSchema(kReplicaProps, {{{"rule", "true"}, {"fieldPath", "minReplicas"}}})) ==
        std::vector<std::string>{
            rp + ".fieldPath: Invalid value: \"minReplicas\": fieldPath must be a valid path"});
  CHECK(
      CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "true"}, {"fieldPath", ".minReplicas"}}}))
          .empty());
  CHECK(CompileErrors(
            SpecSchema(kReplicaProps, {{{"rule", "true"}, {"fieldPath", "['maxReplicas']"}}}))
            .empty());
  CHECK(
      CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "true"}, {"messageExpression", " "}}})) ==
      std::vector<std::string>{
          rp +
          ".messageExpression: Required value: messageExpression must be non-empty if specified"});

  auto errs = CompileErrors(
      SpecSchema(kReplicaProps, {{{"rule", "true"}, {"messageExpression", "self.minReplicas"}}}));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == rp + ".messageExpression: Invalid value: "
                        "apiextensions.ValidationRule{Rule:\"true\", Message:\"\", "
                        "MessageExpression:\"self.minReplicas\", "
                        "Reason:(*apiextensions.FieldValueErrorReason)(nil), "
                        "FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: messageExpression must "
                        "evaluate to a string");
  errs = CompileErrors(
      SpecSchema(kReplicaProps, {{{"rule", "true"}, {"messageExpression", "'x' + self.nope"}}}));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].ends_with(
      "messageExpression compilation failed: ERROR: <input>:1:11: undefined field 'nope'\n"
      " | 'x' + self.nope\n | ..........^"));

  // optionalOldSelf only with oldSelf.
  errs = CompileErrors(SpecSchema(kReplicaProps, {{{"rule", "true"}, {"optionalOldSelf", true}}}));
  CHECK(
      errs ==
      std::vector<std::string>{
          rp +
          ".optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"});
}

TEST_CASE("CEL Compile forbids oldSelf where values do not correlate", "[cel]") {
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "list": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}},
      "mapList": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}})j");
  auto errs = CompileErrors(schema);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] ==
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list].items.x-"
        "kubernetes-validations[0].rule: "
        "Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion "
        "of the schema within "
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list]");
}

TEST_CASE("CEL Compile reports rules on schemas CEL cannot see", "[cel]") {
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "free": {"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-validations": [{"rule": "true"}]}}}}})j");
  auto errs = CompileErrors(schema);
  CHECK(
      errs ==
      std::vector<std::string>{
          "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[free].x-kubernetes-"
          "validations: "
          "Internal error: rule declared on schema that does not support validation rules type: '' "
          "x-kubernetes-preserve-unknown-fields: 'true'"});
}

TEST_CASE("CEL Validate reports failed rules at the node with upstream's message", "[cel]") {
  auto rs =
      MustCompile(SpecSchema(kReplicaProps, {{{"rule", "self.minReplicas <= self.maxReplicas"}}}));
  CHECK(Validate(*rs, Obj({{"minReplicas", 1}, {"maxReplicas", 3}})).empty());
  CHECK(Validate(*rs, Obj({{"minReplicas", 5}, {"maxReplicas", 3}})) ==
        std::vector<std::string>{
            "spec: Invalid value: \"object\": failed rule: self.minReplicas <= self.maxReplicas"});
  // An absent field is a runtime error unless guarded.
  CHECK(Validate(*rs, Obj({{"minReplicas", 5}})) ==
        std::vector<std::string>{"spec: Invalid value: \"object\": no such key: maxReplicas "
                                 "evaluating rule: self.minReplicas <= self.maxReplicas"});
  auto guarded = MustCompile(SpecSchema(
      kReplicaProps, {{{"rule", "!has(self.maxReplicas) || self.minReplicas <= self.maxReplicas"},
                       {"message", "minReplicas must not exceed maxReplicas"}}}));
  CHECK(Validate(*guarded, Obj({{"minReplicas", 5}})).empty());
  CHECK(Validate(*guarded, Obj({{"minReplicas", 5}, {"maxReplicas", 1}})) ==
        std::vector<std::string>{
            "spec: Invalid value: \"object\": minReplicas must not exceed maxReplicas"});
  // A null value is not validated.
  CHECK(Validate(*rs, Obj(nullptr)).empty());
}

TEST_CASE("CEL Validate applies message, messageExpression, reason and fieldPath", "[cel]") {
  json rules = json::array({
      {{"rule", "self.minReplicas >= 0"},
       {"messageExpression", "'minReplicas is ' + string(self.minReplicas)"}},
      {{"rule", "self.maxReplicas < 100"},
       {"message", "too many"},
       {"reason", "FieldValueForbidden"},
       {"fieldPath", ".maxReplicas"}},
      {{"rule", "self.maxReplicas != 50"},
       {"reason", "FieldValueRequired"},
       {"message", "not fifty"}},
      {{"rule", "self.maxReplicas != 50"}, {"reason", "FieldValueDuplicate"}},
      {{"rule", "self.maxReplicas != 50"},
       {"reason", "FieldValueInvalid"},
       {"messageExpression", "1/0 == 1 ? 'a' : 'b'"},
       {"message", "fallback message"}},
  });
  auto rs = MustCompile(SpecSchema(kReplicaProps, rules));
  CHECK(Validate(*rs, Obj({{"minReplicas", -1}, {"maxReplicas", 200}})) ==
        std::vector<std::string>{"spec: Invalid value: \"object\": minReplicas is -1",
                                 "spec.maxReplicas: Forbidden: too many"});
  CHECK(Validate(*rs, Obj({{"minReplicas", 1}, {"maxReplicas", 50}})) ==
        std::vector<std::string>{"spec: Required value: not fifty",
                                 "spec: Duplicate value: \"object\"",
                                 "spec: Invalid value: \"object\": fallback message"});
}

TEST_CASE("CEL Validate evaluates transition rules only on update", "[cel]") {
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "Value is immutable"}]},
      "size": {"type": "integer", "x-kubernetes-validations": [
        {"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "message": "may not shrink", "optionalOldSelf": true},
        {"rule": "oldSelf.hasValue() || self < 10", "message": "starts small", "optionalOldSelf": true}]}}}}})j");
  auto rs = MustCompile(schema);
  json created = Obj({{"name", "a"}, {"size", 5}});
  CHECK(Validate(*rs, created).empty());
  CHECK(Validate(*rs, Obj({{"name", "a"}, {"size", 50}})) ==
        std::vector<std::string>{"spec.size: Invalid value: \"integer\": starts small"});
  json renamed = Obj({{"name", "b"}, {"size", 5}});
  CHECK(Validate(*rs, renamed, &created) ==
        std::vector<std::string>{"spec.name: Invalid value: \"string\": Value is immutable"});
  json shrunk = Obj({{"name", "a"}, {"size", 4}});
  CHECK(Validate(*rs, shrunk, &created) ==
        std::vector<std::string>{"spec.size: Invalid value: \"integer\": may not shrink"});
  json grown = Obj({{"name", "a"}, {"size", 50}});
  CHECK(Validate(*rs, grown, &created).empty());
  // A field added on update has no old value: the transition rule is skipped.
  json old_without = Obj({{"size", 5}});
  CHECK(Validate(*rs, renamed, &old_without).empty());
}

TEST_CASE("CEL Validate correlates map-list items by key for oldSelf", "[cel]") {
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"], "properties": {
          "name": {"type": "string"}, "port": {"type": "integer"}},
          "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port", "message": "port is immutable"}]},
        "x-kubernetes-validations": [
          {"rule": "self.all(p, p.port > 0)", "message": "ports must be positive"},
          {"rule": "self.exists_one(p, p.name == 'http')", "message": "exactly one http port"},
          {"rule": "self.map(p, p.port).isSorted()", "message": "ports must be sorted"}]}}}}})j");
  auto rs = MustCompile(schema);
  json old =
      Obj({{"ports", {{{"name", "http"}, {"port", 80}}, {{"name", "https"}, {"port", 443}}}}});
  // Reordered: items correlate by name, so the ports did not change.
  json reordered =
      Obj({{"ports", {{{"name", "https"}, {"port", 443}}, {{"name", "http"}, {"port", 80}}}}});
  CHECK(Validate(*rs, reordered, &old) ==
        std::vector<std::string>{"spec.ports: Invalid value: \"array\": ports must be sorted"});
  json changed = Obj({{"ports",
                       {{{"name", "http"}, {"port", 81}},
                        {{"name", "https"}, {"port", 443}},
                        {{"name", "x"}, {"port", 1}}}}});
  CHECK(Validate(*rs, changed, &old) ==
        std::vector<std::string>{"spec.ports: Invalid value: \"array\": ports must be sorted",
                                 "spec.ports[0]: Invalid value: \"object\": port is immutable"});
  json bad = Obj({{"ports", {{{"name", "a"}, {"port", 0}}}}});
  CHECK(Validate(*rs, bad) ==
        std::vector<std::string>{"spec.ports: Invalid value: \"array\": ports must be positive",
                                 "spec.ports: Invalid value: \"array\": exactly one http port"});
}

TEST_CASE("CEL Validate: map lists compare without order, quantities, int-or-string, maps",
          "[cel]") {
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
        "items": {"type": "object", "required": ["k"], "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}},
        "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "items are immutable"}]},
      "memory": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": [
        {"rule": "quantity(string(self)).isLessThan(quantity('2Gi'))", "message": "at most 2Gi"}]},
      "maxUnavailable": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": [
        {"rule": "type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')", "message": "count or percentage"},
        {"rule": "self > 0", "message": "positive"}]},
      "labels": {"type": "object", "additionalProperties": {"type": "string",
        "x-kubernetes-validations": [{"rule": "self.size() <= 5", "message": "label too long"}]},
        "x-kubernetes-validations": [{"rule": "self.all(k, k.startsWith('app'))", "message": "app labels only"}]}}}}})j");
  auto rs = MustCompile(schema);
  json old = Obj({{"items", {{{"k", "a"}, {"v", 1}}, {{"k", "b"}, {"v", 2}}}}});
  json swapped = Obj({{"items", {{{"k", "b"}, {"v", 2}}, {{"k", "a"}, {"v", 1}}}}});
  CHECK(Validate(*rs, swapped, &old).empty());
  json edited = Obj({{"items", {{{"k", "b"}, {"v", 3}}, {{"k", "a"}, {"v", 1}}}}});
  CHECK(Validate(*rs, edited, &old) ==
        std::vector<std::string>{"spec.items: Invalid value: \"array\": items are immutable"});

  CHECK(Validate(*rs, Obj({{"memory", "1Gi"}})).empty());
  CHECK(Validate(*rs, Obj({{"memory", "3Gi"}})) ==
        std::vector<std::string>{"spec.memory: Invalid value: \"\": at most 2Gi"});
  CHECK(Validate(*rs, Obj({{"memory", "lots"}})) ==
        std::vector<std::string>{
            "spec.memory: Invalid value: \"\": quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: at most 2Gi"});

  CHECK(Validate(*rs, Obj({{"maxUnavailable", 3}})).empty());
  CHECK(Validate(*rs, Obj({{"maxUnavailable", "25%"}})) ==
        std::vector<std::string>{
            "spec.maxUnavailable: Invalid value: \"\": 'no such overload': call arguments did not "
            "match a supported operator, function or macro signature for rule: positive"});
  CHECK(Validate(*rs, Obj({{"maxUnavailable", "many"}})).size() == 2);

  CHECK(
      Validate(*rs, Obj({{"labels", {{"app", "web"}, {"appTier", "frontend"}}}})) ==
      std::vector<std::string>{"spec.labels[appTier]: Invalid value: \"string\": label too long"});
  CHECK(Validate(*rs, Obj({{"labels", {{"team", "x"}}}})) ==
        std::vector<std::string>{"spec.labels: Invalid value: \"object\": app labels only"});
}

TEST_CASE(
    "CEL Validate at the root and in embedded resources sees apiVersion, kind and metadata.name",
    "[cel]") {
  json schema = json::parse(R"j({"type": "object",
      "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('w') && self.kind == 'Widget'", "message": "bad name"}],
      "properties": {"spec": {"type": "object", "properties": {
        "template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
          "x-kubernetes-validations": [{"rule": "self.apiVersion == 'v1' && self.kind == 'Pod'", "message": "pods only"}]}}}}})j");
  auto rs = MustCompile(schema);
  CHECK(
      Validate(*rs, Obj({{"template",
                          {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}}}}))
          .empty());
  json other = Obj({{"template", {{"apiVersion", "v1"}, {"kind", "Service"}}}});
  other["metadata"]["name"] = "x";
  CHECK(Validate(*rs, other) ==
        std::vector<std::string>{"<nil>: Invalid value: \"object\": bad name",
                                 "spec.template: Invalid value: \"object\": pods only"});
  // Other metadata fields are not visible.
  auto errs = CompileErrors(json::parse(R"j({"type": "object",
      "x-kubernetes-validations": [{"rule": "size(self.metadata.labels) > 0"}]})j"));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].find("undefined field 'labels'") != std::string::npos);
}

TEST_CASE("CEL Validate evaluates rules under allOf and escaped property names", "[cel]") {
  json schema = json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object",
      "properties": {"namespace": {"type": "string"}, "dns-name": {"type": "string"}},
      "allOf": [{"x-kubernetes-validations": [{"rule": "self.__namespace__ != 'kube-system'", "message": "no system"}]}],
      "x-kubernetes-validations": [{"rule": "self.dns__dash__name.endsWith('.example.com')", "message": "bad domain"}]}}})j");
  auto rs = MustCompile(schema);
  CHECK(Validate(*rs, Obj({{"namespace", "default"}, {"dns-name", "a.example.com"}})).empty());
  CHECK(Validate(*rs, Obj({{"namespace", "kube-system"}, {"dns-name", "a.example.org"}})) ==
        std::vector<std::string>{"spec: Invalid value: \"object\": bad domain",
                                 "spec: Invalid value: \"object\": no system"});
}

TEST_CASE("CEL Validate ratchets unchanged values on update", "[cel]") {
  auto rs =
      MustCompile(SpecSchema(kReplicaProps, {{{"rule", "self.minReplicas <= self.maxReplicas"}}}));
  json old = Obj({{"minReplicas", 5}, {"maxReplicas", 3}});
  json same_spec = old;
  same_spec["metadata"]["labels"] = {{"a", "b"}};
  CHECK(Validate(*rs, same_spec, &old).empty());
  json changed = Obj({{"minReplicas", 6}, {"maxReplicas", 3}});
  CHECK(Validate(*rs, changed, &old).size() == 1);
  CHECK(Validate(*rs, old).size() == 1);
}

TEST_CASE("CEL Validate stops an expensive rule at the per-call cost limit", "[cel]") {
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "a": {"type": "array", "items": {"type": "integer"}},
      "b": {"type": "array", "items": {"type": "integer"}}},
      "x-kubernetes-validations": [
        {"rule": "self.a.all(x, !self.b.exists(y, y == x + 1000000))"},
        {"rule": "false", "message": "never reached"}]}}})j");
  auto rs = MustCompile(schema);
  json a = json::array(), b = json::array();
  for (int i = 0; i < 3000; ++i) {
    a.push_back(i);
    b.push_back(i);
  }
  auto start = std::chrono::steady_clock::now();
  auto errs = Validate(*rs, Obj({{"a", a}, {"b", b}}));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(errs == std::vector<std::string>{
                    "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit "
                    "exceeded': no further "
                    "validation rules will be run due to call cost exceeds limit for rule: "
                    "self.a.all(x, !self.b.exists(y, y == x + 1000000))"});
  // Small inputs pass under the same rule.
  CHECK(Validate(*rs, Obj({{"a", {1, 2}}, {"b", {5, 6}}})) ==
        std::vector<std::string>{"spec: Invalid value: \"object\": never reached"});
}

TEST_CASE("CEL Validate stops once the object's total cost budget is spent", "[cel]") {
  json schema =
      json::parse(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "items": {"type": "array", "items": {"type": "object", "properties": {
        "vals": {"type": "array", "items": {"type": "integer"}}},
        "x-kubernetes-validations": [{"rule": "self.vals.all(x, self.vals.exists(y, y >= x))"}]}}}}}})j");
  auto rs = MustCompile(schema);
  json vals = json::array();
  for (int i = 0; i < 250; ++i) vals.push_back(i);
  json items = json::array();
  for (int i = 0; i < 200; ++i) items.push_back({{"vals", vals}});
  auto errs = Validate(*rs, Obj({{"items", items}}));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].ends_with(
      ": Invalid value: \"object\": validation failed due to running out of cost budget, no "
      "further validation rules will be run"));
  CHECK(errs[0].starts_with("spec.items["));
}
