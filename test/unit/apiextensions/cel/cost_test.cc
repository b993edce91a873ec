// The static cost estimator against upstream's numbers: TestCostEstimation of
// apiextensions-apiserver's schema/cel package (the rule's estimate on a schema node, without
// cardinality), each row once without and once with the bound its generator sets, and a
// few worked examples of the same formulas.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/cost.h"
#include "pkg/apiextensions/cel/limits.h"
#include "pkg/apiextensions/cel/program.h"
#include "pkg/apiextensions/cel/schema_types.h"

namespace cel = apiextensions::cel;
using nlohmann::json;

namespace {

using Bound = std::optional<int64_t>;

// The estimate of rule on a node of schema (upstream compiles it with SchemaDeclType(schema,
// false)).
uint64_t RuleCost(const json& schema, const std::string& rule) {
  cel::TypePtr t = cel::SchemaType(schema, false);
  REQUIRE(t != nullptr);
  cel::CompileResult r = cel::CompileExpression(rule, {{"self", t}, {"oldSelf", t}});
  INFO(r.errors);
  REQUIRE(r.program != nullptr);
  return cel::EstimateCost(*r.program->root, *t).max;
}

void Set(json& s, const char* key, Bound b) {
  if (b) s[key] = *b;
}

// The item schemas of the generators.
json Scalar(const std::string& kind) {
  if (kind == "int-or-string") return {{"x-kubernetes-int-or-string", true}};
  if (kind == "duration" || kind == "date" || kind == "date-time")
    return {{"type", "string"}, {"format", kind}};
  return {{"type", kind}};
}

json RequiredOptional() {
  return {{"type", "object"},
          {"required", {"required"}},
          {"properties", {{"required", {{"type", "string"}}}, {"optional", {{"type", "string"}}}}}};
}

json Arr(const json& items, Bound m) {
  json s = {{"type", "array"}, {"items", items}};
  Set(s, "maxItems", m);
  return s;
}

json Map(const json& values, Bound m) {
  json s = {{"type", "object"}, {"additionalProperties", values}};
  Set(s, "maxProperties", m);
  return s;
}

json Str(Bound m) {
  json s = {{"type", "string"}};
  Set(s, "maxLength", m);
  return s;
}

json Bytes(Bound m) {
  json s = Str(m);
  s["format"] = "byte";
  return s;
}

json Enum(Bound m) {
  json s = Str(m);
  s["enum"] = {"A", "B", "C", "LongValue"};
  return s;
}

json Nested(Bound m) { return Map(Str(m), m); }

json AllMaxNested(Bound m) {
  json inner = RequiredOptional();
  Set(inner, "maxProperties", m);
  return Arr(Map(inner, m), m);
}

json OneMaxNested(Bound m) { return Arr(Map(RequiredOptional(), m), std::nullopt); }

json ReplaceObject(Bound m) {
  return {{"type", "object"},
          {"properties", {{"str", Str(m)}, {"before", Str(2)}, {"after", Str(4)}}}};
}

json SplitObject(Bound m) {
  return {{"type", "object"}, {"properties", {{"str", Str(m)}, {"separator", Str(m)}}}};
}

struct Row {
  const char* name;
  json (*schema)(Bound);
  const char* rule;
  uint64_t unbounded;  // 0: over the per-expression limit
  int64_t bound;
  uint64_t bounded;
};

json ArrNumber(Bound m) { return Arr(Scalar("number"), m); }
json ArrString(Bound m) { return Arr(Scalar("string"), m); }
json ArrBoolean(Bound m) { return Arr(Scalar("boolean"), m); }
json ArrIntOrString(Bound m) { return Arr(Scalar("int-or-string"), m); }
json ArrDuration(Bound m) { return Arr(Scalar("duration"), m); }
json ArrDate(Bound m) { return Arr(Scalar("date"), m); }
json ArrDateTime(Bound m) { return Arr(Scalar("date-time"), m); }
json ArrOfArrNumber(Bound m) { return Arr(Arr(Scalar("number"), std::nullopt), m); }
json ObjArr(Bound m) { return Arr(RequiredOptional(), m); }
json MapArrNumber(Bound m) { return Arr(Map(Scalar("number"), std::nullopt), m); }
json MapNumber(Bound m) { return Map(Scalar("number"), m); }
json MapString(Bound m) { return Map(Scalar("string"), m); }
json MapBoolean(Bound m) { return Map(Scalar("boolean"), m); }
json MapInteger(Bound m) { return Map(Scalar("integer"), m); }
json MapIntOrString(Bound m) { return Map(Scalar("int-or-string"), m); }
json MapDuration(Bound m) { return Map(Scalar("duration"), m); }
json MapDate(Bound m) { return Map(Scalar("date"), m); }
json MapDateTime(Bound m) { return Map(Scalar("date-time"), m); }
json MapOfObj(Bound m) { return Map(RequiredOptional(), m); }
json MapOfMapNum(Bound m) { return Map(Map(Scalar("number"), std::nullopt), m); }
json MapOfArrNum(Bound m) { return Map(Arr(Scalar("number"), std::nullopt), m); }
json ArrOfStr(Bound m) { return Arr(Str(m), m); }

// upstream's TestCostEstimation rows (the has() rows assert nothing there and are left out).
const Row kRows[] = {
    {"number list", ArrNumber, "self.all(x, true)", 4718591, 10, 32},
    {"string list", ArrString, "self.all(x, true)", 3145727, 20, 62},
    {"boolean list", ArrBoolean, "self.all(x, true)", 1887437, 5, 17},
    {"list of lists", ArrOfArrNumber, "self.all(x, true)", 3145727, 100, 302},
    {"list of objects", ObjArr, "self.all(x, true)", 555128, 50, 152},
    {"map of numbers", MapNumber, "self.all(x, true)", 1348169, 10, 32},
    {"map of strings", MapString, "self.all(x, true)", 1179647, 3, 11},
    {"map of booleans", MapBoolean, "self.all(x, true)", 943718, 100, 302},
    {"string contains", Str, "self.contains('test')", 314574, 10, 5},
    {"string startsWith", Str, "self.startsWith('test')", 2, 15, 2},
    {"string endsWith", Str, "self.endsWith('test')", 2, 30, 2},
    {"concat string", Str, "size(self + \"hello\") > size(\"hello\")", 314578, 4, 7},
    {"index of list", ArrNumber, "self[1] == 0.0", 2, 5000, 2},
    {"index of list of strings", ArrString, "self[1] == self[1]", 314577, 8, 314577},
    {"nested all", ArrNumber, "self.all(x, self.all(y, true))", 0, 10, 352},
    {"triply nested all", ArrNumber, "self.all(x, self.all(y, self.all(z, true)))", 0, 10, 3552},
    {"matches", Str, "self.matches(\"x\")", 314574, 50, 22},
    {"matches literal", Str, "\"\".matches(\"(((((((((())))))))))[0-9]\")", 7, 10, 7},
    {"matches empty pattern", Str, "self.matches(\"\")", 1, 100, 1},
    {"map of strings with contains", Nested, "self.all(x, x.contains(self[x]))", 2752507, 10, 72},
    {"index of empty list", ArrNumber, "self[3] == 0.0", 2, 0, 2},
    {"index of empty map", MapNumber, "self[\"x\"] == 0.0", 2, 0, 2},
    {"empty string", Str, "self == \"x\"", 2, 0, 1},
    {"empty bytes", Bytes, "self == b\"x\"", 2, 0, 1},
    {"all over a long list", ArrNumber, "self.all(x, x == 0.0)", 6291454, 6291456, 25165826},
    {"bounded nesting", AllMaxNested, "self.all(x, x[\"y\"].required == \"z\")", 7340027, 10, 72},
    {"one bound in the nesting", OneMaxNested, "self.all(x, x[\"y\"].required == \"z\")", 7340027,
     10, 7340027},
    {"int-or-string list", ArrIntOrString, "self.all(x, true)", 4718591, 10, 32},
    {"int-or-string index", ArrIntOrString, "self[0] == 5", 3, 10, 3},
    {"boolean index", ArrBoolean, "self[0] == false", 2, 25, 2},
    {"object null", ObjArr, "self[0] == null", 2, 422, 2},
    {"list of lists index", ArrOfArrNumber, "self[0][0] == -1.0", 3, 51, 3},
    {"list of maps all", MapArrNumber, "self.all(x, x.y == 25.2)", 6291452, 12, 74},
    {"list of maps index", MapArrNumber, "self[0].x > 2.0", 4, 3000, 4},
    {"duration list", ArrDuration, "self.all(x, true)", 2359295, 5, 17},
    {"duration index", ArrDuration, "self[0].getHours() == 2", 4, 525, 4},
    {"date list", ArrDate, "self.all(x, true)", 725936, 15, 47},
    {"date index", ArrDate, "self[2].getDayOfMonth() == 13", 4, 42, 4},
    {"date-time list", ArrDateTime, "self.all(x, true)", 428963, 25, 77},
    {"date-time index", ArrDateTime, "self[2].getMinutes() == 45", 4, 99, 4},
    {"int-or-string map", MapIntOrString, "self.all(x, true)", 1348169, 15, 47},
    {"map of objects", MapOfObj, "self.all(x, true)", 428963, 20, 62},
    {"map of maps", MapOfMapNum, "self.all(x, true)", 1179647, 10, 32},
    {"map of lists", MapOfArrNum, "self.all(x, true)", 1179647, 25, 77},
    {"duration map", MapDuration, "self.all(x, true)", 1048577, 5, 17},
    {"date map", MapDate, "self.all(x, true)", 524288, 10, 32},
    {"date-time map", MapDateTime, "self.all(x, true)", 349526, 25, 77},
    {"find", Str, "self.find('[0-9]+') == ''", 629147, 10, 11},
    {"join", ArrOfStr, "self.join(' ') == 'aa bb'", 329853068905, 10, 43},
    {"isSorted", ArrOfStr, "self.isSorted() == true", 329854432052, 10, 52},
    {"replace", ReplaceObject, "self.str.replace(self.before, self.after) == 'does not matter'",
     629154, 4, 12},
    {"split", SplitObject, "self.str.split(self.separator) == []", 629160, 10, 22},
    {"lowerAscii", Str, "self.lowerAscii() == 'lower!'", 314575, 10, 6},
    {"map size", MapInteger, "oldSelf.size() == self.size()", 5, 10, 5},
    {"date-time map index", MapDateTime, "self[\"a\"] == self[\"b\"]", 8, 7, 8},
    {"duration map index", MapDuration, "self[\"c\"] == self[\"d\"]", 8, 42, 8},
    {"enum", Enum, "self.contains('A')", 2, 1000, 401},
};

}  // namespace

TEST_CASE("CEL cost: upstream's TestCostEstimation", "[cel][cost]") {
  for (const Row& row : kRows) {
    INFO(row.name << ": " << row.rule);
    if (row.unbounded == 0) {
      CHECK(RuleCost(row.schema(std::nullopt), row.rule) > cel::kStaticEstimatedCostLimit);
    } else {
      CHECK(RuleCost(row.schema(std::nullopt), row.rule) == row.unbounded);
    }
    CHECK(RuleCost(row.schema(row.bound), row.rule) == row.bounded);
  }
}

TEST_CASE("CEL cost: worked examples", "[cel][cost]") {
  // A regular expression over every item of an unbounded list of strings: 1,048,575 items of
  // 3,145,726 bytes, (314,573 x 2) + 1 per match, 3 per item for the loop.
  const json names = Arr(Str(std::nullopt), std::nullopt);
  CHECK(RuleCost(names, "self.all(x, x.matches('^[a-z]+$'))") == 659710961252ULL);
  CHECK(RuleCost(Arr(Str(10), 10), "self.all(x, x.matches('^[a-z]+$'))") == 142);
  CHECK(RuleCost(Arr(Str(64), 100), "self.all(x, x.matches('^[a-z]+$'))") == 5602);
  CHECK(RuleCost(Str(std::nullopt), "self.matches('^[a-z]+$')") == 629147);
  CHECK(RuleCost(Str(std::nullopt), "self.size() < 10") == 3);
  CHECK(RuleCost({{"type", "object"}, {"properties", {{"x", {{"type", "integer"}}}}}},
                 "self.x == 5") == 2);
  CHECK(RuleCost(Arr(Arr(Str(std::nullopt), std::nullopt), std::nullopt),
                 "self.all(r, r.all(c, c.size() < 5))") == 6597062426627ULL);
  CHECK(RuleCost(Str(5000), "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')") == 16009);
  CHECK(RuleCost(Str(5000), "self.contains('keyword')") == 2001);
  CHECK(RuleCost(Scalar("integer"), "self > 50 && self < 100") == 4);
  // The lists and sets libraries.
  CHECK(RuleCost(Arr(Str(5), 5),
                 "self.all(x, self.exists_one(y, x.lowerAscii() == y.lowerAscii()))") == 282);
  CHECK(RuleCost(Arr(Scalar("integer"), 10), "sets.contains(self, [1, 2])") == 32);
  CHECK(RuleCost(Arr(Scalar("integer"), 10), "sets.equivalent(self, [1, 2])") == 52);
  CHECK(RuleCost(Arr(Scalar("integer"), 10), "2 in self") == 11);
  // Comprehensions producing lists: the result has one item per item of the range.
  CHECK(RuleCost(Arr(Scalar("integer"), 10), "self.map(x, x * 2).size() > 0") ==
        1 + 10 + 1 + 10 * 14 + 1 + 1);
  CHECK(RuleCost(Arr(Scalar("integer"), 10), "self.filter(x, x > 2).size() > 0") ==
        1 + 10 + 1 + 10 * (2 + 13) + 1 + 1);
}
