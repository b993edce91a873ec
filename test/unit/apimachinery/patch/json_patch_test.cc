#include "pkg/genericserver/apimachinery/patch/json_patch.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

using apimachinery::patch::ApplyJsonPatch;
using apimachinery::patch::PatchErrorKind;
using apimachinery::patch::PatchErrorToStatus;
using nlohmann::json;

namespace {

json Apply(const char* doc, const char* patch) {
  auto result = ApplyJsonPatch(json::parse(doc), json::parse(patch));
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  return *result;
}

apimachinery::patch::PatchError Fail(const char* doc, const char* patch) {
  auto result = ApplyJsonPatch(json::parse(doc), json::parse(patch));
  REQUIRE_FALSE(result);
  return result.error();
}

}  // namespace

TEST_CASE("RFC 6902 appendix A examples", "[patch]") {
  // A.1 - A.8, A.10, A.11, A.14, A.16.
  CHECK(Apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])") ==
        json::parse(R"({"baz":"qux","foo":"bar"})"));
  CHECK(Apply(R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])") ==
        json::parse(R"({"foo":["bar","qux","baz"]})"));
  CHECK(Apply(R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])") ==
        json::parse(R"({"foo":"bar"})"));
  CHECK(Apply(R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])") ==
        json::parse(R"({"foo":["bar","baz"]})"));
  CHECK(
      Apply(R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])") ==
      json::parse(R"({"baz":"boo","foo":"bar"})"));
  CHECK(Apply(R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
              R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])") ==
        json::parse(R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"));
  CHECK(Apply(R"({"foo":["all","grass","cows","eat"]})",
              R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])") ==
        json::parse(R"({"foo":["all","cows","eat","grass"]})"));
  CHECK(Apply(R"({"baz":"qux","foo":["a",2,"c"]})",
              R"([{"op":"test","path":"/baz","value":"qux"},
                  {"op":"test","path":"/foo/1","value":2}])") ==
        json::parse(R"({"baz":"qux","foo":["a",2,"c"]})"));
  CHECK(Apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])") ==
        json::parse(R"({"foo":"bar","child":{"grandchild":{}}})"));
  CHECK(Apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])") ==
        json::parse(R"({"foo":"bar","baz":"qux"})"));
  CHECK(Apply(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])") ==
        json::parse(R"({"/":9,"~1":10})"));
  CHECK(Apply(R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])") ==
        json::parse(R"({"foo":["bar",["abc","def"]]})"));
}

TEST_CASE("RFC 6902 appendix A failures carry evanphx/json-patch v4 messages", "[patch]") {
  // A.9: a failed test.
  auto failed = Fail(R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])");
  CHECK(failed.kind == PatchErrorKind::kInvalid);
  CHECK(failed.message == "testing value /baz failed: test failed");
  // A.12: adding to a nonexistent target.
  CHECK(Fail(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])").message ==
        "add operation does not apply: doc is missing path: \"/baz/bat\": missing value");
  // A.15: strings and numbers differ.
  CHECK(Fail(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])").message ==
        "testing value /~01 failed: test failed");
}

TEST_CASE("JSON patch escapes, appends and copies", "[patch]") {
  CHECK(Apply(R"({"metadata":{"annotations":{}}})",
              R"([{"op":"add","path":"/metadata/annotations/example.com~1a~0b","value":"x"}])") ==
        json::parse(R"({"metadata":{"annotations":{"example.com/a~b":"x"}}})"));
  CHECK(Apply(R"({"finalizers":["a"]})", R"([{"op":"add","path":"/finalizers/-","value":"b"}])") ==
        json::parse(R"({"finalizers":["a","b"]})"));
  CHECK(Apply(R"({"a":{"b":[1,2]}})", R"([{"op":"copy","from":"/a/b","path":"/c"}])") ==
        json::parse(R"({"a":{"b":[1,2]},"c":[1,2]})"));
  CHECK(Apply(R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/-1"}])") ==
        json::parse(R"({"l":[1,2]})"));
  CHECK(Apply(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/-1","value":9}])") ==
        json::parse(R"({"l":[1,2,9]})"));
  CHECK(Apply(R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])") ==
        json::parse(R"({"b":2})"));
  CHECK(Apply(R"({"a":1})", R"([{"op":"test","path":"","value":{"a":1}}])") ==
        json::parse(R"({"a":1})"));
  CHECK(Apply(R"({"a":1})", "null") == json::parse(R"({"a":1})"));
}

TEST_CASE("JSON patch keeps v4's lenient replace, test and copy of missing members", "[patch]") {
  CHECK(Apply(R"({"spec":{}})", R"([{"op":"replace","path":"/spec/x","value":1}])") ==
        json::parse(R"({"spec":{"x":1}})"));
  CHECK(Apply(R"({"spec":{}})", R"([{"op":"test","path":"/spec/x","value":null}])") ==
        json::parse(R"({"spec":{}})"));
  CHECK(Apply(R"({"spec":{}})", R"([{"op":"copy","from":"/spec/x","path":"/spec/y"}])") ==
        json::parse(R"({"spec":{"y":null}})"));
}

TEST_CASE("Failed JSON patch operations are 422 with v4's texts", "[patch]") {
  const char* doc = R"({"a":{"b":1},"l":[1,2]})";
  CHECK(Fail(doc, R"([{"op":"remove","path":"/a/x"}])").message ==
        "error in remove for path: '/a/x': Unable to remove nonexistent key: x: missing value");
  CHECK(Fail(doc, R"([{"op":"remove","path":"/x/y"}])").message ==
        "remove operation does not apply: doc is missing path: \"/x/y\": missing value");
  CHECK(Fail(doc, R"([{"op":"add","path":"/l/5","value":1}])").message ==
        "error in add for path: '/l/5': Unable to access invalid index: 5: invalid index "
        "referenced");
  CHECK(Fail(doc, R"([{"op":"add","path":"/l/x","value":1}])").message ==
        "error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: "
        "parsing \"x\": invalid syntax");
  CHECK(Fail(doc, R"([{"op":"replace","path":"/l/2","value":1}])").message ==
        "replace operation does not apply: doc is missing key: /l/2: missing value");
  CHECK(Fail(doc, R"([{"op":"move","from":"/a/x","path":"/c"}])").message ==
        "error in move for path: 'x': Unable to remove nonexistent key: x: missing value");
  CHECK(Fail(doc, R"([{"op":"move","from":"/a/b","path":"/q/r"}])").message ==
        "move operation does not apply: doc is missing destination path: /q/r: missing value");
  CHECK(Fail(doc, R"([{"op":"copy","from":"/a/b","path":"/q/r"}])").message ==
        "copy operation does not apply: doc is missing destination path: /q/r: missing value");
  CHECK(Fail(doc, R"([{"op":"test","path":"/l/-"}])").message ==
        "error in test for path: '/l/-': strconv.Atoi: parsing \"-\": invalid syntax");
  CHECK(Fail(doc, R"([{"op":"add","value":1}])").message ==
        "add operation failed to decode path: missing value");
  CHECK(Fail(doc, R"([{"op":"move","path":"/c"}])").message ==
        "move operation failed to decode from: operation, missing from field: missing value");
  CHECK(Fail(doc, R"([{"op":"remove","path":""}])").message ==
        "remove operation does not apply: doc is missing path: \"\": missing value");
  CHECK(Fail(doc, R"([{"op":"frob","path":"/a"}])").message == "Unexpected kind: frob");
  CHECK(Fail(doc, R"([{"path":"/a"}])").message == "Unexpected kind: unknown");

  // The client sees the generic text of NewGenericServerResponse(422, ...).
  auto status = PatchErrorToStatus(Fail(doc, R"([{"op":"test","path":"/a/b","value":2}])"));
  CHECK(status.code == 422);
  CHECK(status.reason == "Invalid");
  CHECK(status.message == "the server rejected our request due to an error in our request");
  CHECK(apimachinery::EncodeStatus(status) ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
        R"("message":"the server rejected our request due to an error in our request",)"
        R"("reason":"Invalid","details":{},"code":422})");
}

TEST_CASE("Malformed JSON patch documents are 400", "[patch]") {
  auto object = Fail("{}", R"({"op":"add"})");
  CHECK(object.kind == PatchErrorKind::kBadRequest);
  CHECK(object.message ==
        "error decoding patch: json: cannot unmarshal object into Go value of type "
        "[]handlers.jsonPatchOp");
  CHECK(Fail("{}", R"(["add"])").message ==
        "error decoding patch: json: cannot unmarshal string into Go value of type "
        "handlers.jsonPatchOp");
  CHECK(Fail("{}", R"([{"op":"add","path":5}])").message ==
        "error decoding patch: json: cannot unmarshal number into Go struct field "
        "jsonPatchOp.path of type string");
  auto status = PatchErrorToStatus(object);
  CHECK(status.code == 400);
  CHECK(status.reason == "BadRequest");
  CHECK(status.message == object.message);
}

TEST_CASE("JSON patches over 10000 operations are 413", "[patch]") {
  json patch = json::array();
  for (int i = 0; i < 10001; ++i) patch.push_back({{"op", "test"}, {"path", "/a"}});
  auto result = ApplyJsonPatch(json::object(), patch);
  REQUIRE_FALSE(result);
  CHECK(result.error().kind == PatchErrorKind::kTooLarge);
  auto status = PatchErrorToStatus(result.error());
  CHECK(status.code == 413);
  CHECK(status.message ==
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
        "got 10001");
}
