// Malformed YAML: go-yaml's messages and line numbers, which the API server returns in a
// 400 Status ("the object provided is unrecognized (must be of type Pod): yaml: line 3: ...").

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"

namespace {

std::string Error(std::string_view yaml) {
  auto r = apimachinery::yaml::YAMLToJSON(yaml);
  INFO(yaml);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

}  // namespace

TEST_CASE("YAMLToJSON errors: scanner errors name the 1-based line, except the first", "[yaml]") {
  CHECK(Error("apiVersion: v1\nkind: Pod\nmetadata: name: x\n") ==
        "yaml: line 3: mapping values are not allowed in this context");
  // go-yaml names no line for a problem on the first line.
  CHECK(Error("a: b: c") == "yaml: mapping values are not allowed in this context");
  CHECK(Error("a: @x\n") == "yaml: found character that cannot start any token");
  CHECK(Error("a: 1\nb: `x`\n") == "yaml: line 2: found character that cannot start any token");
  CHECK(Error("a: \"\\q\"") == "yaml: found unknown escape character");
  CHECK(Error("\xEF\xBB\xBF"
              "a: 1\nb: *nope") == "yaml: unknown anchor 'nope' referenced");
  CHECK(Error("a: 1\n  b: 2\n") == "yaml: line 2: mapping values are not allowed in this context");
}

TEST_CASE("YAMLToJSON errors: tabs used for indentation", "[yaml]") {
  CHECK(Error("\ta: 1\n") == "yaml: found character that cannot start any token");
  CHECK(Error("a:\n\tb: 1\n") == "yaml: line 2: found character that cannot start any token");
}

TEST_CASE("YAMLToJSON errors: parser errors name the 0-based line of the offending token",
          "[yaml]") {
  CHECK(Error("a:\n  b: 1\n c: 2\n") == "yaml: line 2: did not find expected key");
  CHECK(Error("a: [1, 2\nb: 3\n") == "yaml: line 1: did not find expected ',' or ']'");
  CHECK(Error("a: {x: 1\n") == "yaml: line 1: did not find expected ',' or '}'");
}

TEST_CASE("YAMLToJSON errors: unterminated quoted scalars", "[yaml]") {
  CHECK(Error("a: \"abc\n") == "yaml: line 2: found unexpected end of stream");
  CHECK(Error("a: \"abc") == "yaml: found unexpected end of stream");
  CHECK(Error("a: 'abc\nb: 1\n") == "yaml: line 3: found unexpected end of stream");
}

TEST_CASE("YAMLToJSON errors: input that is not UTF-8 text", "[yaml]") {
  CHECK(Error("a: \x01") == "yaml: control characters are not allowed");
  CHECK(Error(std::string("a: \0", 4)) == "yaml: control characters are not allowed");
  CHECK(Error("a: \xff") == "yaml: invalid leading UTF-8 octet");
  CHECK(Error("a: \xc3") == "yaml: incomplete UTF-8 octet sequence");
  CHECK(Error("a: \xc3(") == "yaml: invalid trailing UTF-8 octet");
}

TEST_CASE("YAMLToJSON errors: a body holds one document", "[yaml]") {
  CHECK(Error("a: 1\n---\nb: 2\n") ==
        "yaml: line 2: expected a single document in the stream, but found another document");
  CHECK(Error("kind: A\n---\n---\nkind: B\n") ==
        "yaml: line 3: expected a single document in the stream, but found another document");
  // A second document needs "---" (yaml-cpp would read this as two).
  CHECK(Error("- a\nb: 1\n") == "yaml: line 1: did not find expected <document start>");
}

TEST_CASE("YAMLToJSON errors: nesting deeper than the parser allows", "[yaml]") {
  const std::string deep = "a: " + std::string(600, '[') + std::string(600, ']');
  CHECK(Error(deep) == "yaml: exceeded max depth of 500");
}
