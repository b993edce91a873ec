// JSONToYAML: go-yaml v2's output as sigs.k8s.io/yaml's JSONToYAML (and kubectl -o yaml)
// shows it.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"

namespace {

using nlohmann::json;

std::string ToYAML(const char* json_text) {
  return apimachinery::yaml::JSONToYAML(json::parse(json_text));
}

// The YAML of {"v": <value>}.
std::string Value(const json& v) { return apimachinery::yaml::JSONToYAML(json{{"v", v}}); }

}  // namespace

TEST_CASE("JSONToYAML: keys are sorted as go-yaml sorts them", "[yaml]") {
  CHECK(ToYAML(R"({"b":1,"a":2,"a10":3,"a2":4,"B":5,"_x":6,"-y":7,"aa":8})") ==
        "-y: 7\n_x: 6\nB: 5\na: 2\na2: 4\na10: 3\naa: 8\nb: 1\n");
}

TEST_CASE("JSONToYAML: nesting: two spaces, sequences at their key's indentation", "[yaml]") {
  CHECK(ToYAML(R"({"a":{"b":{"c":1}},"l":[1,"x",{"k":"v","m":[true]}],"s":[[1,2],[]]})") ==
        "a:\n"
        "  b:\n"
        "    c: 1\n"
        "l:\n"
        "- 1\n"
        "- x\n"
        "- k: v\n"
        "  m:\n"
        "  - true\n"
        "s:\n"
        "- - 1\n"
        "  - 2\n"
        "- []\n");
  CHECK(ToYAML(R"({"e":{},"l":[],"s":[{}]})") == "e: {}\nl: []\ns:\n- {}\n");
}

TEST_CASE("JSONToYAML: top-level values", "[yaml]") {
  CHECK(ToYAML("{}") == "{}\n");
  CHECK(ToYAML("[]") == "[]\n");
  CHECK(ToYAML("null") == "null\n");
  CHECK(ToYAML("\"abc\"") == "abc\n");
  CHECK(ToYAML("\"a\\nb\"") == "|-\n  a\n  b\n");
  CHECK(ToYAML("[1,[2]]") == "- 1\n- - 2\n");
}

TEST_CASE("JSONToYAML: numbers, booleans and null as in JSON", "[yaml]") {
  CHECK(Value(3) == "v: 3\n");
  CHECK(Value(-5) == "v: -5\n");
  CHECK(Value(18446744073709551615ULL) == "v: 18446744073709551615\n");
  CHECK(Value(1.5) == "v: 1.5\n");
  CHECK(Value(1.0) == "v: 1\n");
  CHECK(Value(1e6) == "v: 1e+06\n");
  CHECK(Value(123456.0) == "v: 123456\n");
  CHECK(Value(0.0001) == "v: 0.0001\n");
  CHECK(Value(0.00001) == "v: 1e-05\n");
  CHECK(Value(true) == "v: true\n");
  CHECK(Value(nullptr) == "v: null\n");
}

TEST_CASE("JSONToYAML: strings are quoted when they would read back as something else", "[yaml]") {
  for (const char* s : {"true", "yes", "on", "N", "~", "null", "", "123", "0x1F", "1e3", "1.5",
                        ".inf", "-.5", "1:30", "2024-01-01", "2024-01-01T00:00:00Z"}) {
    INFO(s);
    CHECK(Value(s) == "v: \"" + std::string(s) + "\"\n");
  }
  // Strings that plain style cannot hold take single quotes.
  CHECK(Value("x: y") == "v: 'x: y'\n");
  CHECK(Value("- item") == "v: '- item'\n");
  CHECK(Value("-") == "v: '-'\n");
  CHECK(Value("#hash") == "v: '#hash'\n");
  CHECK(Value("a # b") == "v: 'a # b'\n");
  CHECK(Value("*star") == "v: '*star'\n");
  CHECK(Value("@at") == "v: '@at'\n");
  CHECK(Value("---") == "v: '---'\n");
  CHECK(Value(" lead") == "v: ' lead'\n");
  CHECK(Value("trail ") == "v: 'trail '\n");
  CHECK(Value("{a}") == "v: '{a}'\n");
  // And plain where they can.
  CHECK(Value("nginx:1.25") == "v: nginx:1.25\n");
  CHECK(Value("a#b") == "v: a#b\n");
  CHECK(Value("it's") == "v: it's\n");
  CHECK(Value("--flag") == "v: --flag\n");
  CHECK(Value("hello world") == "v: hello world\n");
  CHECK(Value("<<") == "v: <<\n");
  CHECK(Value("yES") == "v: yES\n");
}

TEST_CASE("JSONToYAML: double quotes escape what YAML cannot print", "[yaml]") {
  CHECK(Value("a\tb") == "v: \"a\\tb\"\n");
  CHECK(Value("a\rb") == "v: \"a\\rb\"\n");
  CHECK(Value("x\x01") == "v: \"x\\x01\"\n");
  CHECK(Value("\u0085") == "v: \"\\N\"\n");
  CHECK(Value("smile \U0001F600") == "v: \"smile \\U0001F600\"\n");  // beyond the BMP
  CHECK(Value("say \"hi\"\t") == "v: \"say \\\"hi\\\"\\t\"\n");
  CHECK(Value("caf\u00e9 \u65e5\u672c") == "v: caf\u00e9 \u65e5\u672c\n");
  CHECK(Value("bad \xff byte") == "v: bad \uFFFD byte\n");
}

TEST_CASE("JSONToYAML: multi-line strings are literal blocks", "[yaml]") {
  CHECK(Value("a\nb") == "v: |-\n  a\n  b\n");
  CHECK(Value("a\nb\n") == "v: |\n  a\n  b\n");
  CHECK(Value("a\n\n") == "v: |+\n  a\n\n");
  CHECK(Value("\n") == "v: |2+\n\n");  // a leading break needs the indentation hint
  CHECK(Value("a\n\nb\n") == "v: |\n  a\n\n  b\n");
  CHECK(Value("  indented\nx\n") == "v: |2\n    indented\n  x\n");
  CHECK(ToYAML(R"({"a":{"b":"x\ny\n"},"c":1})") == "a:\n  b: |\n    x\n    y\nc: 1\n");
  // Trailing spaces before a break, tabs or other controls: double quotes.
  CHECK(Value("a \nb") == "v: \"a \\nb\"\n");
  CHECK(Value("a\tb\nc") == "v: \"a\\tb\\nc\"\n");
  CHECK(Value("a\r\nb") == "v: \"a\\r\\nb\"\n");
}

TEST_CASE("JSONToYAML: long strings fold at 80 columns", "[yaml]") {
  const std::string text =
      "APIVersion defines the versioned schema of this representation of an object. Servers "
      "should convert recognized schemas to the latest internal value, and may reject "
      "unrecognized values.";
  // A space is a break point once the line is past 80 columns ("object." ends at 80).
  CHECK(Value(text) ==
        "v: APIVersion defines the versioned schema of this representation of an object. Servers\n"
        "  should convert recognized schemas to the latest internal value, and may reject "
        "unrecognized\n"
        "  values.\n");
  CHECK(
      ToYAML(
          R"({"description":"More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources and a bit more"})") ==
      "description: 'More info: "
      "https://git.k8s.io/community/contributors/devel/sig-architecture/"
      "api-conventions.md#resources\n"
      "  and a bit more'\n");
  CHECK(Value("tab\t" + text) ==
        "v: \"tab\\tAPIVersion defines the versioned schema of this representation of an object.\n"
        "  Servers should convert recognized schemas to the latest internal value, and may\n"
        "  reject unrecognized values.\"\n");
  // A long word is never broken.
  const std::string word(100, 'x');
  CHECK(Value(word) == "v: " + word + "\n");
}

TEST_CASE("JSONToYAML: keys that need quotes or the complex form", "[yaml]") {
  CHECK(ToYAML(R"({"":1,"123":2,"true":3,"y":4,"n":5,"a b":6,"a: b":7,"#c":8})") ==
        "\"\": 1\n'#c': 8\n\"123\": 2\na b: 6\n'a: b': 7\n\"n\": 5\n\"true\": 3\n\"y\": 4\n");
  CHECK(ToYAML(R"({"two\nlines":1})") == "? |-\n  two\n  lines\n: 1\n");
  const std::string long_key(129, 'k');
  CHECK(apimachinery::yaml::JSONToYAML(json{{long_key, "v"}}) == "? " + long_key + "\n: v\n");
  const std::string key128(128, 'k');
  CHECK(apimachinery::yaml::JSONToYAML(json{{key128, "v"}}) == key128 + ": v\n");
}
