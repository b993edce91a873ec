#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/storage/continue_token.h"
#include "pkg/genericserver/storage/versioner.h"

using storage::WithResourceVersion;

TEST_CASE("resourceVersion is set, replaced and removed in the JSON text") {
  CHECK(*WithResourceVersion(R"({"kind":"X","metadata":{"name":"a"},"data":{}})", 42) ==
        R"({"kind":"X","metadata":{"resourceVersion":"42","name":"a"},"data":{}})");
  CHECK(*WithResourceVersion(R"({"metadata":{}})", 7) == R"({"metadata":{"resourceVersion":"7"}})");
  CHECK(*WithResourceVersion(R"({"metadata":{"name":"a","resourceVersion":"1"}})", 9) ==
        R"({"metadata":{"name":"a","resourceVersion":"9"}})");
  CHECK(*WithResourceVersion(R"({"metadata":{"name":"a","resourceVersion":"1"}})", 0) ==
        R"({"metadata":{"name":"a"}})");
  CHECK(*WithResourceVersion(R"({"metadata":{"resourceVersion":"1","name":"a"}})", 0) ==
        R"({"metadata":{"name":"a"}})");
  CHECK(*WithResourceVersion(R"({"metadata":{"resourceVersion":"1"}})", 0) == R"({"metadata":{}})");
  CHECK(*WithResourceVersion(R"({"kind":"X"})", 3) ==
        R"({"metadata":{"resourceVersion":"3"},"kind":"X"})");
  CHECK(*WithResourceVersion(R"({})", 3) == R"({"metadata":{"resourceVersion":"3"}})");
  // Look-alikes elsewhere are left alone; strings with braces and escapes are skipped.
  std::string tricky =
      R"({ "data" : {"metadata":{"resourceVersion":"x"}, "s":"}{\"" }, "metadata" : { "name" : "n\"}" } })";
  auto out = WithResourceVersion(tricky, 5);
  REQUIRE(out);
  auto j = nlohmann::json::parse(*out);
  CHECK(j["metadata"]["resourceVersion"] == "5");
  CHECK(j["metadata"]["name"] == "n\"}");
  CHECK(j["data"]["metadata"]["resourceVersion"] == "x");
  CHECK_FALSE(WithResourceVersion("[1,2]", 1));
  CHECK_FALSE(WithResourceVersion(R"({"metadata":)", 1));
}

TEST_CASE("meta fields are read without a full parse") {
  auto f = storage::ReadMetaFields(R"({"metadata":{"uid":"u\"1","resourceVersion":"12"}})");
  REQUIRE(f);
  CHECK(f->uid == "u\"1");
  CHECK(f->resource_version == "12");
  CHECK(storage::ReadMetaFields(R"({"kind":"X"})")->uid.empty());
}

TEST_CASE("continue tokens round-trip in upstream's format") {
  using namespace std::string_literals;
  std::string token =
      storage::EncodeContinue("/registry/configmaps/ns/b\x00"s, "/registry/configmaps/", 12);
  auto pos = storage::DecodeContinue(token, "/registry/configmaps/");
  REQUIRE(pos);
  CHECK(pos->revision == 12);
  CHECK(pos->start_key == "/registry/configmaps/ns/b\x00"s);
  // {"v":"meta.k8s.io/v1","rv":12,"start":"ns/b\u0000"}
  CHECK(token == "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIsInN0YXJ0IjoibnMvYlx1MDAwMCJ9");
  CHECK_FALSE(storage::DecodeContinue("!!!", "/p/"));
  CHECK_FALSE(storage::DecodeContinue("e30", "/p/"));  // {}
  auto escape = storage::EncodeContinue("/p/../../etc", "/p/", 5);
  CHECK(storage::DecodeContinue(escape, "/p/").error().code == storage::ErrorCode::kInvalid);
}
