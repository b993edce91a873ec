// YAMLToJSON: go-yaml v2 scalar resolution, structure, aliases and merges, as
// sigs.k8s.io/yaml's YAMLToJSON gives them.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"

namespace {

using nlohmann::json;

json ToJSON(std::string_view yaml) {
  auto r = apimachinery::yaml::YAMLToJSON(yaml);
  INFO(yaml);
  REQUIRE(r.has_value());
  return *r;
}

// The value of "v" in a one-key document "v: <scalar>".
json Scalar(const std::string& scalar) { return ToJSON("v: " + scalar)["v"]; }

}  // namespace

TEST_CASE("YAMLToJSON: YAML 1.1 booleans as go-yaml v2 resolves them", "[yaml]") {
  for (const char* t : {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}) {
    INFO(t);
    CHECK(Scalar(t) == json(true));
  }
  for (const char* f :
       {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}) {
    INFO(f);
    CHECK(Scalar(f) == json(false));
  }
  // Other spellings and quoted ones are strings.
  CHECK(Scalar("yES") == json("yES"));
  CHECK(Scalar("tRUE") == json("tRUE"));
  CHECK(Scalar("\"true\"") == json("true"));
  CHECK(Scalar("'yes'") == json("yes"));
  CHECK(Scalar("|\n  no\n") == json("no\n"));
}

TEST_CASE("YAMLToJSON: nulls: ~, null, empty", "[yaml]") {
  for (const char* n : {"~", "null", "Null", "NULL", ""}) {
    INFO(n);
    CHECK(Scalar(n).is_null());
  }
  CHECK(Scalar("nULL") == json("nULL"));
  CHECK(Scalar("\"\"") == json(""));
  CHECK(Scalar("'null'") == json("null"));
  CHECK(ToJSON("a:\nb: 1") == json::parse(R"({"a":null,"b":1})"));
}

TEST_CASE("YAMLToJSON: integers in Go's base-0 syntax", "[yaml]") {
  CHECK(Scalar("123") == json(123));
  CHECK(Scalar("-17") == json(-17));
  CHECK(Scalar("+12") == json(12));
  CHECK(Scalar("0x1F") == json(31));
  CHECK(Scalar("0o17") == json(15));
  CHECK(Scalar("0b101") == json(5));
  CHECK(Scalar("010") == json(8));  // YAML 1.1 octal
  CHECK(Scalar("1_000") == json(1000));
  CHECK(Scalar("9223372036854775807") == json(INT64_MAX));
  CHECK(Scalar("-9223372036854775808") == json(INT64_MIN));
  CHECK(Scalar("9223372036854775808") == json(9223372036854775808ULL));
  CHECK(Scalar("18446744073709551615") == json(UINT64_MAX));
  // Not octal: 08 fails ParseInt and reads as the float 8, which JSON writes as 8.
  CHECK(Scalar("08") == json(8));
  // Past uint64: a float.
  CHECK(Scalar("18446744073709551616").is_number_float());
  CHECK(Scalar("0x") == json("0x"));
  CHECK(Scalar("1:30") == json("1:30"));  // base 60 is not supported on input
  CHECK(Scalar("\"123\"") == json("123"));
  CHECK(Scalar("2001-12-14") == json("2001-12-14"));  // timestamps stay strings
  CHECK(Scalar("2001-12-14T21:59:43.10-05:00") == json("2001-12-14T21:59:43.10-05:00"));
}

TEST_CASE("YAMLToJSON: floats, and what encoding/json makes of them", "[yaml]") {
  CHECK(Scalar("1.5") == json(1.5));
  CHECK(Scalar(".5") == json(0.5));
  CHECK(Scalar("-.5") == json(-0.5));
  CHECK(Scalar("1e-07") == json(1e-07));
  // Integral floats are written without a fraction, so they read back as integers.
  CHECK(Scalar("1.0") == json(1));
  CHECK(Scalar("1.0").is_number_integer());
  CHECK(Scalar("1e3") == json(1000));
  CHECK(Scalar("1.") == json(1));
  CHECK(Scalar("12345678901234567890.0") == json(12345678901234567000ULL));
  CHECK(Scalar("1e21").is_number_float());
  // Overflow is not a float in Go's ParseFloat, underflow is zero.
  CHECK(Scalar("1e400") == json("1e400"));
  CHECK(Scalar("1e-400") == json(0));
  CHECK(Scalar(".") == json("."));
}

TEST_CASE("YAMLToJSON: infinities and NaN have no JSON form", "[yaml]") {
  for (const char* v : {".inf", ".Inf", "+.INF"}) {
    CHECK(apimachinery::yaml::YAMLToJSON(std::string("a: ") + v).error() ==
          "json: unsupported value: +Inf");
  }
  CHECK(apimachinery::yaml::YAMLToJSON("a: -.inf").error() == "json: unsupported value: -Inf");
  CHECK(apimachinery::yaml::YAMLToJSON("a: .nan").error() == "json: unsupported value: NaN");
  CHECK(Scalar("\".inf\"") == json(".inf"));
  CHECK(Scalar(".infinity") == json(".infinity"));
}

TEST_CASE("YAMLToJSON: explicit tags", "[yaml]") {
  CHECK(Scalar("!!str 123") == json("123"));
  CHECK(Scalar("!!str yes") == json("yes"));
  CHECK(Scalar("!!int \"42\"") == json(42));
  CHECK(Scalar("!!float 3") == json(3));
  CHECK(Scalar("!!bool yes") == json(true));
  CHECK(Scalar("!!null ~").is_null());
  CHECK(Scalar("!!timestamp 2001-01-01") == json("2001-01-01"));
  CHECK(Scalar("!!binary aGVsbG8=") == json("hello"));
  CHECK(Scalar("!custom 12") == json("12"));  // other tags leave the text a string
  CHECK(Scalar("! 12") == json("12"));
  CHECK(apimachinery::yaml::YAMLToJSON("a: !!int abc").error() ==
        "yaml: cannot decode !!str `abc` as a !!int");
  CHECK(apimachinery::yaml::YAMLToJSON("a: !!float 18446744073709551615").error() ==
        "yaml: cannot decode !!int `18446744073709551615` as a !!float");
  CHECK(apimachinery::yaml::YAMLToJSON("a: !!binary '!!!'").error() ==
        "yaml: !!binary value contains invalid base64 data");
}

TEST_CASE("YAMLToJSON: quoted and block scalars", "[yaml]") {
  CHECK(Scalar("'it''s'") == json("it's"));
  CHECK(Scalar(R"("tab\there\u00e9 \x41 \U0001F600")") == json("tab\there\u00e9 A \U0001F600"));
  CHECK(Scalar(R"("\N\_\0")") == json(std::string("\u0085\u00a0\0", 5)));
  CHECK(Scalar("\"multi\n  line\"") == json("multi line"));
  CHECK(Scalar("plain\n  continued") == json("plain continued"));
  CHECK(Scalar("|\n  a\n\n  b\n") == json("a\n\nb\n"));
  CHECK(Scalar("|-\n  a\n  b\n") == json("a\nb"));
  CHECK(Scalar("|+\n  a\n\n") == json("a\n\n"));
  CHECK(Scalar(">\n  one\n  two\n\n  three\n") == json("one two\nthree\n"));
  CHECK(ToJSON("a: |\r\n  x\r\n  y\r\n") == json::parse(R"({"a":"x\ny\n"})"));
  CHECK(Scalar("\"日本語\"") == json("日本語"));
  CHECK(Scalar("café") == json("café"));
}

TEST_CASE("YAMLToJSON: keys that are not strings become strings", "[yaml]") {
  CHECK(ToJSON("1: a\n1.5: b\nyes: c\n0x10: d\n3.14159265358979: e\n.inf: f\ny: g") ==
        json::parse(R"({"1":"a","1.5":"b","true":"g","16":"d","3.1415927":"e",".inf":"f"})"));
  CHECK(ToJSON("on: push") == json::parse(R"({"true":"push"})"));
  CHECK(ToJSON("'on': push") == json::parse(R"({"on":"push"})"));
  CHECK(ToJSON("? a\n: b") == json::parse(R"({"a":"b"})"));
  CHECK(apimachinery::yaml::YAMLToJSON("~: 1").error() ==
        "Unsupported map key of type: %!s(<nil>), key: <nil>, value: 1");
  CHECK(apimachinery::yaml::YAMLToJSON("18446744073709551615: x").error() ==
        "Unsupported map key of type: uint64, key: 0xffffffffffffffff, value: \"x\"");
  CHECK(apimachinery::yaml::YAMLToJSON("? [a, b]\n: c").error() ==
        "yaml: invalid map key: []interface {}{\"a\", \"b\"}");
}

TEST_CASE("YAMLToJSON: collections, flow style and JSON input", "[yaml]") {
  CHECK(ToJSON("a: []\nb: {}\nc: [1, [2, {d: e}]]") ==
        json::parse(R"({"a":[],"b":{},"c":[1,[2,{"d":"e"}]]})"));
  CHECK(ToJSON("- 1\n- - 2\n  - 3\n") == json::parse("[1,[2,3]]"));
  CHECK(ToJSON("a:\n- b\n- c") == json::parse(R"({"a":["b","c"]})"));
  CHECK(ToJSON("{b: 1, c}") == json::parse(R"({"b":1,"c":null})"));
  const char* body = "{\n\t\"kind\": \"Pod\",\n\t\"spec\": {\"n\": [1,\t2.5, true, null]}\n}\n";
  CHECK(ToJSON(body) == json::parse(body));
  CHECK(ToJSON("\"just a string\"") == json("just a string"));
  CHECK(ToJSON("\xEF\xBB\xBF"
               "a: 1") == json::parse(R"({"a":1})"));
}

TEST_CASE("YAMLToJSON: empty bodies and extra empty documents", "[yaml]") {
  CHECK(ToJSON("").is_null());
  CHECK(ToJSON("# only a comment\n").is_null());
  CHECK(ToJSON("---\n").is_null());
  CHECK(ToJSON("---\na: 1\n") == json::parse(R"({"a":1})"));
  CHECK(ToJSON("a: 1\n---\n") == json::parse(R"({"a":1})"));
  CHECK(ToJSON("a: 1\n--- # nothing\n...\n") == json::parse(R"({"a":1})"));
  CHECK(ToJSON("%YAML 1.1\n---\na: 1\n") == json::parse(R"({"a":1})"));
}

TEST_CASE("YAMLToJSON: anchors, aliases and merge keys", "[yaml]") {
  CHECK(ToJSON("a: &x {b: 1}\nc: *x") == json::parse(R"({"a":{"b":1},"c":{"b":1}})"));
  CHECK(ToJSON("a: &x 1\nb: &x 2\nc: *x") == json::parse(R"({"a":1,"b":2,"c":2})"));
  CHECK(ToJSON("&k key: v\n*k : w") == json::parse(R"({"key":"w"})"));
  // Merges are positional, as in go-yaml v2: later keys win, earlier maps in a list win.
  CHECK(ToJSON("base: &b {x: 1, z: 2}\nm:\n  x: 0\n  <<: *b\n  z: 3\n")["m"] ==
        json::parse(R"({"x":1,"z":3})"));
  CHECK(ToJSON("a: &a {x: 1}\nb: &b {x: 2, w: 2}\nm:\n  <<: [*a, *b]\n")["m"] ==
        json::parse(R"({"x":1,"w":2})"));
  CHECK(ToJSON("m:\n  <<: {a: 1}\n  b: 2\n")["m"] == json::parse(R"({"a":1,"b":2})"));
  CHECK(ToJSON("m:\n  '<<': 1\n")["m"] == json::parse(R"({"<<":1})"));
  CHECK(apimachinery::yaml::YAMLToJSON("m:\n  <<: 1\n").error() ==
        "yaml: map merge requires map or sequence of maps as the value");
  CHECK(apimachinery::yaml::YAMLToJSON("a: *nope").error() ==
        "yaml: unknown anchor 'nope' referenced");
  CHECK(apimachinery::yaml::YAMLToJSON("a: &x [1, *x]").error() ==
        "yaml: anchor 'x' value contains itself");
}

TEST_CASE("YAMLToJSON: alias bombs are refused", "[yaml]") {
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  std::string previous = "a";
  for (char c = 'b'; c <= 'i'; ++c) {
    const std::string name(1, c);
    bomb += name + ": &" + name + " [";
    for (int i = 0; i < 9; ++i) bomb += (i ? ", *" : "*") + previous;
    bomb += "]\n";
    previous = name;
  }
  CHECK(apimachinery::yaml::YAMLToJSON(bomb).error() ==
        "yaml: document contains excessive aliasing");
}

TEST_CASE("YAMLToJSON: repeated keys: the later value, or an error when strict", "[yaml]") {
  CHECK(ToJSON("a: 1\na: 2") == json::parse(R"({"a":2})"));
  CHECK(apimachinery::yaml::YAMLToJSONStrict("a: 1\nb: 2").value() ==
        json::parse(R"({"a":1,"b":2})"));
  CHECK(apimachinery::yaml::YAMLToJSONStrict("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n").error() ==
        "yaml: unmarshal errors:\n  line 4: key \"c\" already set in map\n"
        "  line 5: key \"a\" already set in map");
  // Keys are the same when go-yaml decodes them to the same value.
  CHECK(apimachinery::yaml::YAMLToJSONStrict("yes: a\ntrue: b").error() ==
        "yaml: unmarshal errors:\n  line 2: key true already set in map");
  CHECK(apimachinery::yaml::YAMLToJSONStrict("1: a\n01: b").error() ==
        "yaml: unmarshal errors:\n  line 2: key 1 already set in map");
  // 1 and "1" are different keys to go-yaml (one of them wins once both are "1").
  CHECK(apimachinery::yaml::YAMLToJSONStrict("1: a\n'1': b").has_value());
}
