// JSONToYAMLNodeV3: what gnostic stores in OpenAPI v2 Any.yaml (go-yaml v3 marshalling the
// node tree of the JSON with styles cleared). The expected texts are go-yaml v3.0.1's output
// for the same JSON (a Go program over gopkg.in/yaml.v3 produced them).

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"

namespace {

struct Case {
  const char* json;
  const char* yaml;
};

const Case kCases[] = {
    {R"json([{"group":"","kind":"Pod","version":"v1"}])json",
     "- group: \"\"\n  kind: Pod\n  version: v1\n"},
    {R"json({"group":"apps","kind":"Deployment","version":"v1"})json",
     "group: apps\nkind: Deployment\nversion: v1\n"},
    {R"json(["a","b"])json", "- a\n- b\n"},
    {R"json("merge")json", "merge\n"},
    {R"json("retainKeys,merge")json", "retainKeys,merge\n"},
    {R"json(true)json", "true\n"},
    {R"json("y")json", "y\n"},
    {R"json("yes")json", "yes\n"},
    {R"json("on")json", "on\n"},
    {R"json("123")json", "\"123\"\n"},
    {R"json("")json", "\"\"\n"},
    {R"json("null")json", "\"null\"\n"},
    {R"json("~")json", "\"~\"\n"},
    {R"json("true")json", "\"true\"\n"},
    {R"json("1.5")json", "\"1.5\"\n"},
    {R"json("0x1F")json", "\"0x1F\"\n"},
    {R"json("0o17")json", "\"0o17\"\n"},
    {R"json("2024-01-01")json", "\"2024-01-01\"\n"},
    {R"json("1_000")json", "\"1_000\"\n"},
    {R"json(".5")json", "\".5\"\n"},
    {R"json(".inf")json", "\".inf\"\n"},
    {R"json("<<")json", "<<\n"},
    {R"json(0)json", "0\n"},
    {R"json(-3)json", "-3\n"},
    {R"json(1.5)json", "1.5\n"},
    {R"json({})json", "{}\n"},
    {R"json([])json", "[]\n"},
    {R"json(null)json", "null\n"},
    {R"json({"a":{"b":["c",["d","e"],{"f":[],"g":{}}]},"h":[[1,2],[3]]})json",
     "a:\n    b:\n        - c\n        - - d\n          - e\n        - f: []\n          g: "
     "{}\nh:\n    - - 1\n      - 2\n    - - 3\n"},
    {R"json([{"message":"a: b","rule":"self.a == 'x' && self.b != \"y\""}])json",
     "- message: 'a: b'\n  rule: self.a == 'x' && self.b != \"y\"\n"},
    {R"json("line1\nline2\n")json", "|\n    line1\n    line2\n"},
    {R"json("line1\nline2")json", "|-\n    line1\n    line2\n"},
    {R"json(" lead\nx")json", "|4-\n     lead\n    x\n"},
    {R"json("tab\there")json", "\"tab\\there\"\n"},
    {R"json("tab\tin\nblock")json", "|-\n    tab\tin\n    block\n"},
    {R"json("a very long string that goes on and on and on and on and on and on and on and on and on and on past eighty columns")json",
     "a very long string that goes on and on and on and on and on and on and on and on and on and "
     "on past eighty columns\n"},
    {R"json("# comment")json", "'# comment'\n"},
    {R"json("- dash")json", "'- dash'\n"},
    {R"json("key: value")json", "'key: value'\n"},
    {R"json("x #y")json", "'x #y'\n"},
    {R"json("é ünïcode")json", "é ünïcode\n"},
    {R"json([{"message":"multi","rule":"has(self.x)\n|| self.y > 0"}])json",
     "- message: multi\n  rule: |-\n    has(self.x)\n    || self.y > 0\n"},
    {R"json({"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":1})json",
     "? "
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n: 1\n"},
    {R"json(["- - x", [{"a": [ {"b": "c"} ]}]])json", "- '- - x'\n- - a:\n        - b: c\n"},
    {R"json({"k": "line1\nline2", "l": ["x\ny"]})json",
     "k: |-\n    line1\n    line2\nl:\n    - |-\n      x\n      y\n"},
    {R"json("trailing space ")json", "'trailing space '\n"},
    {R"json("trailing\n")json", "|\n    trailing\n"},
    {R"json("\n")json", "|4+\n"},
    // go-yaml v3 lets a leading line break end the header line (and so loses it).
    {R"json("\nabc")json", "|4-\n    abc\n"},
    {R"json("\n\nabc\n")json", "|4\n\n    abc\n"},
    {R"json(["\nx"])json", "- |4-\n  x\n"},
};

}  // namespace

TEST_CASE("JSONToYAMLNodeV3: go-yaml v3's node output", "[yaml]") {
  for (const Case& c : kCases) {
    INFO(c.json);
    CHECK(apimachinery::yaml::JSONToYAMLNodeV3(nlohmann::json::parse(c.json)) == c.yaml);
  }
}

TEST_CASE("JSONToYAMLNodeV3: numbers keep their JSON spelling", "[yaml]") {
  CHECK(apimachinery::yaml::JSONToYAMLNodeV3(nlohmann::json::parse("[1.0, 1e+21, 0.1]")) ==
        "- 1.0\n- 1e+21\n- 0.1\n");
}
