#include "pkg/genericserver/apimachinery/patch/merge_patch.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

using apimachinery::patch::ApplyMergePatch;
using apimachinery::patch::MergePatchValue;
using apimachinery::patch::PatchErrorKind;
using nlohmann::json;

TEST_CASE("RFC 7386 appendix A examples", "[patch]") {
  struct Case {
    const char* target;
    const char* patch;
    const char* result;
  };
  const Case cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", "null", "null"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const Case& c : cases) {
    INFO(c.target << " + " << c.patch);
    CHECK(MergePatchValue(json::parse(c.target), json::parse(c.patch)) == json::parse(c.result));
  }
}

TEST_CASE("Merge patch drops nulls inside inserted values as v4 does", "[patch]") {
  // Inserted where nothing merges: nulls of nested objects go, arrays included.
  CHECK(MergePatchValue(json::parse(R"({})"), json::parse(R"({"a":[{"b":null,"c":1},null]})")) ==
        json::parse(R"({"a":[{"c":1},null]})"));
  // An object replaced by an array keeps the array as sent.
  CHECK(MergePatchValue(json::parse(R"({"a":{}})"), json::parse(R"({"a":[{"b":null}]})")) ==
        json::parse(R"({"a":[{"b":null}]})"));
}

TEST_CASE("Merge patch of kubectl label, scale and CRD apply bodies", "[patch]") {
  json pod = json::parse(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"tier":"web","a":"b"}},
          "spec":{"containers":[{"name":"c","image":"x"}]}})");
  auto unlabeled = ApplyMergePatch(pod, json::parse(R"({"metadata":{"labels":{"tier":null}}})"));
  REQUIRE(unlabeled);
  CHECK((*unlabeled)["metadata"]["labels"] == json::parse(R"({"a":"b"})"));

  auto scaled = ApplyMergePatch(json::parse(R"({"spec":{"replicas":1},"status":{"replicas":1}})"),
                                json::parse(R"({"spec":{"replicas":4}})"));
  REQUIRE(scaled);
  CHECK(*scaled == json::parse(R"({"spec":{"replicas":4},"status":{"replicas":1}})"));

  auto crd = ApplyMergePatch(
      json::parse(R"({"metadata":{"name":"w"},"spec":{"color":"red","size":3,"tags":["a","b"]}})"),
      json::parse(
          R"({"metadata":{"annotations":{"k":"v"}},"spec":{"color":null,"size":5,"tags":["c"]}})"));
  REQUIRE(crd);
  CHECK(*crd ==
        json::parse(
            R"({"metadata":{"name":"w","annotations":{"k":"v"}},"spec":{"size":5,"tags":["c"]}})"));
}

TEST_CASE("Merge patches that are not objects are 400", "[patch]") {
  auto null_patch = ApplyMergePatch(json::object(), json(nullptr));
  REQUIRE_FALSE(null_patch);
  CHECK(null_patch.error().kind == PatchErrorKind::kBadRequest);
  CHECK(null_patch.error().message == "Invalid JSON Patch");

  auto array_patch = ApplyMergePatch(json::object(), json::parse("[1]"));
  REQUIRE_FALSE(array_patch);
  CHECK(array_patch.error().kind == PatchErrorKind::kBadRequest);
  CHECK(array_patch.error().message ==
        "error decoding patch: json: cannot unmarshal array into Go value of type "
        "map[string]interface {}");
}
