#include "pkg/apiextensions/registry/jsonpath.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
namespace jp = apiextensions::jsonpath;

namespace {

std::vector<json> Find(const std::string& path, const json& doc) {
  auto parsed = jp::Path::Parse(path);
  REQUIRE(parsed);
  return parsed->Find(doc);
}

}  // namespace

TEST_CASE("jsonpath selects fields, indexes, slices, wildcards and filters", "[crd-registry]") {
  const json doc = json::parse(R"({
    "spec": {"replicas": 3, "a.b": "dotted", "list": [1, 2, 3, 4]},
    "status": {"conditions": [{"type": "Ready", "status": "True"},
                              {"type": "Synced", "status": "False", "n": 2}]}})");
  CHECK(Find(".spec.replicas", doc) == std::vector<json>{3});
  CHECK(Find("{.spec.replicas}", doc) == std::vector<json>{3});
  CHECK(Find(".spec['a.b']", doc) == std::vector<json>{"dotted"});
  CHECK(Find(".spec.list[1]", doc) == std::vector<json>{2});
  CHECK(Find(".spec.list[-1]", doc) == std::vector<json>{4});
  CHECK(Find(".spec.list[1:3]", doc) == std::vector<json>{2, 3});
  CHECK(Find(".spec.list[*]", doc).size() == 4);
  CHECK(Find(".status.conditions[?(@.type==\"Ready\")].status", doc) == std::vector<json>{"True"});
  CHECK(Find(".status.conditions[?(@.type=='Synced')].status", doc) == std::vector<json>{"False"});
  CHECK(Find(".status.conditions[?(@.n)].type", doc) == std::vector<json>{"Synced"});
  CHECK(Find(".status.conditions[?(@.n > 1)].type", doc) == std::vector<json>{"Synced"});
  CHECK(Find("..status", doc).size() == 3);  // the object and both conditions' fields
  CHECK(Find(".spec.missing", doc).empty());
  CHECK(Find(".spec.list[9]", doc).empty());
}

TEST_CASE("jsonpath refuses what does not parse", "[crd-registry]") {
  for (const char* bad : {"", ".", ".spec[", ".spec[abc]", ".spec[?(@.a==)]", ".a b"}) {
    INFO(bad);
    CHECK_FALSE(jp::Path::Parse(bad));
  }
}

TEST_CASE("jsonpath prints values as kubectl does", "[crd-registry]") {
  CHECK(jp::PrintValue("text") == "text");
  CHECK(jp::PrintValue(42) == "42");
  CHECK(jp::PrintValue(1.5) == "1.5");
  CHECK(jp::PrintValue(1000000.0) == "1e+06");
  CHECK(jp::PrintValue(true) == "true");
  CHECK(jp::PrintValue(nullptr) == "null");
  CHECK(jp::PrintValue(json::parse(R"({"b":1,"a":[1,"x"]})")) == R"({"a":[1,"x"],"b":1})");
}
