// The static cost limits of x-kubernetes-validations at CRD creation and update: every 422
// error upstream reports, in its order (upstream's validation_test.go cases and worked
// examples of the same formulas).

#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using crdval_test::Update;
using crdval_test::WithSchema;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

const std::string kRoot = crdval_test::kSchema;  // spec.validation.openAPIV3Schema

std::string Over(const std::string& what, const std::string& factor) {
  return what + " exceeds budget by factor of " + factor +
         " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
         "arrays, maps, and strings are declared)";
}

std::string RuleOver(const std::string& rule_path, const std::string& factor) {
  return rule_path + ": Forbidden: " + Over("estimated rule cost", factor);
}

std::string Contributed(const std::string& path) {
  return path +
         ": Forbidden: contributed to estimated rule cost total exceeding cost limit for entire "
         "OpenAPIv3 schema";
}

std::string TotalOver(const std::string& schema_path, const std::string& factor) {
  return schema_path + ": Forbidden: " +
         Over("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
              factor);
}

json Rules(const std::string& rule) { return json::array({{{"rule", rule}}}); }

// A root object with the given properties.
json Root(const json& properties) { return {{"type", "object"}, {"properties", properties}}; }

json Str(int max_length = -1) {
  json s = {{"type", "string"}};
  if (max_length >= 0) s["maxLength"] = max_length;
  return s;
}

// spec.names: a list of strings whose items must all match a pattern.
json NamesSchema(int max_items, int max_length) {
  json names = {{"type", "array"},
                {"items", Str(max_length)},
                {"x-kubernetes-validations", Rules("self.all(x, x.matches('^[a-z]+$'))")}};
  if (max_items >= 0) names["maxItems"] = max_items;
  return Root({{"spec", Root({{"names", names}})}});
}

const std::string kNamesRule =
    kRoot + ".properties[spec].properties[names].x-kubernetes-validations[0].rule";

}  // namespace

TEST_CASE("CRD CEL cost: matches() over an unbounded list of strings is refused",
          "[crd-validation][cel-cost]") {
  CHECK(Create(WithSchema(NamesSchema(-1, -1))) == Strings{RuleOver(kNamesRule, "more than 100x"),
                                                           Contributed(kNamesRule),
                                                           TotalOver(kRoot, "more than 100x")});
  // Bounded: 2 + 10 x (3 + 11) = 142.
  CHECK(Create(WithSchema(NamesSchema(10, 10))).empty());
  CHECK(Create(WithSchema(NamesSchema(100, 64))).empty());
}

TEST_CASE("CRD CEL cost: a rule counts once per value its node can have",
          "[crd-validation][cel-cost]") {
  // Per item 2001 x 8 + 1 = 16009 (ceil(5000 x 4 x 0.1 + 0.1), a 31-character pattern).
  auto schema = [](int max_items) {
    json items = Str(5000);
    items["x-kubernetes-validations"] = Rules("self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')");
    return Root({{"list", {{"type", "array"}, {"maxItems", max_items}, {"items", items}}}});
  };
  const std::string rule = kRoot + ".properties[list].items.x-kubernetes-validations[0].rule";
  CHECK(Create(WithSchema(schema(600))).empty());  // 9,605,400
  CHECK(Create(WithSchema(schema(700))) == Strings{RuleOver(rule, "1.120630x")});
  CHECK(Create(WithSchema(schema(1000))) == Strings{RuleOver(rule, "1.6x")});

  // An integer under the root object runs once.
  CHECK(Create(WithSchema(Root(
                   {{"value",
                     {{"type", "integer"}, {"x-kubernetes-validations", Rules("self < 1024")}}}})))
            .empty());
}

TEST_CASE("CRD CEL cost: upstream's double-nested rules", "[crd-validation][cel-cost]") {
  auto value = [](json list, json key) {
    list["type"] = "array";
    list["items"]["type"] = "object";
    list["items"]["additionalProperties"] = {
        {"type", "object"}, {"required", {"key"}}, {"properties", {{"key", key}}}};
    list["x-kubernetes-validations"] = Rules("self.all(x, x.all(y, x[y].key == x[y].key))");
    return Root({{"value", list}});
  };
  const std::string rule = kRoot + ".properties[value].x-kubernetes-validations[0].rule";
  const Strings refused = {RuleOver(rule, "more than 100x"), Contributed(rule),
                           TotalOver(kRoot, "more than 100x")};
  CHECK(Create(WithSchema(value(json::object(), Str()))) == refused);
  CHECK(Create(WithSchema(value(json::object(), Str(10)))) == refused);
  json three = {{"maxItems", 10}, {"items", {{"maxProperties", 10}}}};
  CHECK(Create(WithSchema(value(three, Str(10)))).empty());
  // 2 + 4 x (3 + 2 + 196607 x 11) = 8,650,730.
  CHECK(Create(WithSchema(value({{"maxItems", 4}}, {{"type", "number"}}))).empty());
}

TEST_CASE("CRD CEL cost: the total for the schema names its largest rules",
          "[crd-validation][cel-cost]") {
  // upstream's "forbid validation rules where cost total exceeds total limit": 200,100,000 +
  // 2,001,000 + 4.
  json items = Str(5000);
  items["x-kubernetes-validations"] = Rules("self.contains('keyword')");
  json schema = Root(
      {{"list", {{"type", "array"}, {"maxItems", 100000}, {"items", items}}},
       {"map", {{"type", "object"}, {"maxProperties", 1000}, {"additionalProperties", items}}},
       {"field",
        {{"type", "integer"}, {"x-kubernetes-validations", Rules("self > 50 && self < 100")}}}});
  const std::string list = kRoot + ".properties[list].items.x-kubernetes-validations[0].rule";
  const std::string map =
      kRoot + ".properties[map].additionalProperties.x-kubernetes-validations[0].rule";
  CHECK(Create(WithSchema(schema)) == Strings{RuleOver(list, "20.0x"), Contributed(list),
                                              Contributed(map), TotalOver(kRoot, "2.0x")});

  // Thirteen rules of 8,004,000 each: none over its own limit, together 1.04x the schema's;
  // the first four (in property order) are named.
  json props = json::object();
  for (int i = 0; i < 13; ++i) {
    char name[8];
    std::snprintf(name, sizeof(name), "p%02d", i);
    props[name] = {{"type", "array"}, {"maxItems", 4000}, {"items", items}};
  }
  auto path = [](const char* p) {
    return kRoot + ".properties[" + p + "].items.x-kubernetes-validations[0].rule";
  };
  CHECK(Create(WithSchema(Root(props))) ==
        Strings{Contributed(path("p00")), Contributed(path("p01")), Contributed(path("p02")),
                Contributed(path("p03")), TotalOver(kRoot, "1.040520x")});
}

TEST_CASE("CRD CEL cost: messageExpressions have their own limit", "[crd-validation][cel-cost]") {
  auto schema = [](const std::string& message_expression) {
    return Root({{"f",
                  {{"type", "array"},
                   {"items", Str()},
                   {"x-kubernetes-validations",
                    {{{"rule", "true"}, {"messageExpression", message_expression}}}}}}});
  };
  const std::string path = kRoot + ".properties[f].x-kubernetes-validations[0].messageExpression";
  // Eight strings of up to 3,145,726 bytes concatenated: 11,010,060.
  CHECK(Create(WithSchema(schema(
            "self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + self[7]"))) ==
        Strings{path + ": Forbidden: " + Over("estimated messageExpression cost", "1.101006x")});
  // string() of a string has no size estimate: unbounded.
  CHECK(Create(WithSchema(schema("string(self[0]) + string(self[1]) + string(self[2])"))) ==
        Strings{path + ": Forbidden: " + Over("estimated messageExpression cost", "more than 100x"),
                Contributed(path), TotalOver(kRoot, "more than 100x")});

  json fine =
      Root({{"f",
             {{"type", "string"},
              {"x-kubernetes-validations",
               {{{"rule", "self == \"string value\""},
                 {"messageExpression", "self + \" should be \\\"string value\\\"\""}}}}}},
            {"g",
             {{"type", "array"},
              {"maxItems", 5},
              {"items", Str(5)},
              {"x-kubernetes-validations",
               Rules("self.all(x, self.exists_one(y, x.lowerAscii() == y.lowerAscii()))")}}}});
  CHECK(Create(WithSchema(fine)).empty());
}

TEST_CASE("CRD CEL cost: each version's schema has its own total", "[crd-validation][cel-cost]") {
  json crd = WithSchema(NamesSchema(10, 10));
  json v2 = crd["spec"]["versions"][0];
  v2["name"] = "v2";
  v2["storage"] = false;
  v2["schema"]["openAPIV3Schema"] = NamesSchema(-1, -1);
  crd["spec"]["versions"].push_back(v2);
  const std::string root = "spec.versions[1].schema.openAPIV3Schema";
  const std::string rule =
      root + ".properties[spec].properties[names].x-kubernetes-validations[0].rule";
  CHECK(Create(crd) == Strings{RuleOver(rule, "more than 100x"), Contributed(rule),
                               TotalOver(root, "more than 100x")});
}

TEST_CASE("CRD CEL cost: an update that keeps a schema is not held to the per-rule limit",
          "[crd-validation][cel-cost]") {
  // Stored before the limits (or by an older server): over every limit.
  const json old = WithSchema(NamesSchema(-1, -1));
  json relabeled = old;
  relabeled["metadata"]["labels"] = {{"team", "a"}};
  // The schema's total still is enforced.
  CHECK(Update(relabeled, old) ==
        Strings{Contributed(kNamesRule), TotalOver(kRoot, "more than 100x")});

  // A rule over its own limit but within the total is kept as it was.
  json items = Str(5000);
  items["x-kubernetes-validations"] = Rules("self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')");
  const json stored =
      WithSchema(Root({{"list", {{"type", "array"}, {"maxItems", 1000}, {"items", items}}}}));
  CHECK(Update(stored, stored).empty());
  json bigger = stored;
  bigger["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["list"]["maxItems"] =
      1001;
  CHECK(Update(bigger, stored) ==
        Strings{
            RuleOver(kRoot + ".properties[list].items.x-kubernetes-validations[0].rule", "1.6x")});

  // Adding an expensive rule changes the schema: every limit applies.
  const json bounded = WithSchema(NamesSchema(10, 10));
  json added = bounded;
  json& names = added["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                     ["properties"]["names"];
  names.erase("maxItems");
  names["items"].erase("maxLength");
  CHECK(Update(added, bounded) == Strings{RuleOver(kNamesRule, "more than 100x"),
                                          Contributed(kNamesRule),
                                          TotalOver(kRoot, "more than 100x")});
}
