// The ConversionReview checks without the network.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/conversion/review.h"

namespace {

using json = nlohmann::json;
namespace c = apiextensions::conversion;

json Object(const std::string& api_version, const std::string& name) {
  return json{{"apiVersion", api_version},
              {"kind", "Foo"},
              {"metadata",
               {{"name", name},
                {"namespace", "ns"},
                {"uid", "u-" + name},
                {"generation", 3},
                {"labels", {{"a", "1"}}}}}};
}

c::HttpAnswer Answer(const json& review, int status = 200) {
  return c::HttpAnswer{status, "application/json", review.dump()};
}

json Review(const std::string& uid, const json& converted) {
  return json{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "ConversionReview"},
      {"response",
       {{"uid", uid}, {"result", {{"status", "Success"}}}, {"convertedObjects", converted}}}};
}

}  // namespace

TEST_CASE("the ConversionReview request carries the uid, desired version and objects",
          "[crd-conversion]") {
  const json review =
      c::NewConversionReview("u1", "example.com/v2", {Object("example.com/v1", "a")});
  CHECK(review["apiVersion"] == "apiextensions.k8s.io/v1");
  CHECK(review["kind"] == "ConversionReview");
  CHECK(review["request"] == json{{"uid", "u1"},
                                  {"desiredAPIVersion", "example.com/v2"},
                                  {"objects", {Object("example.com/v1", "a")}}});
}

TEST_CASE("group versions and kinds print as upstream's", "[crd-conversion]") {
  CHECK(c::ObjectGVKString(Object("example.com/v1", "a")) == "example.com/v1, Kind=Foo");
  CHECK(c::ObjectGVKString(json{{"apiVersion", "v1"}, {"kind", "Pod"}}) == "/v1, Kind=Pod");
  CHECK(c::ObjectGVKString(json{{"apiVersion", "a/b/c"}, {"kind", "X"}}) == "/, Kind=");
  CHECK(c::ParseGroupVersion("a/b/c").error() == "unexpected GroupVersion string: a/b/c");
  CHECK(c::GroupVersionString(*c::ParseGroupVersion("v1")) == "v1");
  CHECK(c::GoTypeName(json(1)) == "int64");
  CHECK(c::GoTypeName(json(1.5)) == "float64");
  CHECK(c::GoTypeName(json::array()) == "[]interface {}");
  CHECK(c::GoTypeName(json(nullptr)) == "<nil>");
}

TEST_CASE("metadata is restored from the original but for labels and annotations",
          "[crd-conversion]") {
  const json original = Object("example.com/v1", "a");
  json converted = Object("example.com/v2", "a");
  converted["metadata"]["generation"] = 99;
  converted["metadata"]["labels"] = {{"a", "2"}, {"b", "3"}};
  converted["metadata"]["annotations"] = {{"example.com/x", "y"}};
  REQUIRE(c::RestoreObjectMeta(original, converted).has_value());
  CHECK(converted["metadata"]["generation"] == 3);
  CHECK(converted["metadata"]["labels"] == json{{"a", "2"}, {"b", "3"}});
  CHECK(converted["metadata"]["annotations"] == json{{"example.com/x", "y"}});
  CHECK(converted["apiVersion"] == "example.com/v2");

  json dropped = Object("example.com/v2", "a");
  dropped["metadata"]["labels"] = nullptr;
  REQUIRE(c::RestoreObjectMeta(original, dropped).has_value());
  CHECK_FALSE(dropped["metadata"].contains("labels"));

  json no_meta = Object("example.com/v2", "a");
  no_meta.erase("metadata");
  CHECK(c::RestoreObjectMeta(original, no_meta).error() == "missing metadata in converted object");
  json bad_meta = Object("example.com/v2", "a");
  bad_meta["metadata"] = json::array();
  CHECK(c::RestoreObjectMeta(original, bad_meta).error() ==
        "invalid metadata of type []interface {} in converted object");
  json bad_labels = Object("example.com/v2", "a");
  bad_labels["metadata"]["labels"] = "x";
  CHECK(c::RestoreObjectMeta(original, bad_labels).error() ==
        "invalid metadata.labels of type string in converted object");
  json number_label = Object("example.com/v2", "a");
  number_label["metadata"]["labels"] = {{"a", 1}};
  CHECK(c::RestoreObjectMeta(original, number_label).error() ==
        "metadata.labels[a] must be a string, but is int64 in converted object");
  json bad_annotation = Object("example.com/v2", "a");
  bad_annotation["metadata"]["annotations"] = {{"bad key!", "v"}};
  const auto err = c::RestoreObjectMeta(original, bad_annotation);
  REQUIRE_FALSE(err.has_value());
  CHECK(err.error().starts_with("metadata.annotation: Invalid value: \"bad key!\": "));
  // Unchanged labels are not validated again.
  json odd_original = original;
  odd_original["metadata"]["labels"] = {{"bad key!", "v"}};
  json same = Object("example.com/v2", "a");
  same["metadata"]["labels"] = {{"bad key!", "v"}};
  CHECK(c::RestoreObjectMeta(odd_original, same).has_value());
}

TEST_CASE("a webhook's answer is decoded as client-go decodes it", "[crd-conversion]") {
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", "[1]"})
            .error()
            .starts_with("couldn't get version/kind; json parse error: json: cannot unmarshal "
                         "array into Go value of "
                         "type struct { APIVersion string "));
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", R"({"kind": 5})"}).error() ==
        "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go "
        "struct field .kind of type string");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", R"({"apiVersion":"a/b/c"})"}).error() ==
        "unexpected GroupVersion string: a/b/c");
  CHECK(c::DecodeReviewAnswer(
            c::HttpAnswer{
                200, "",
                R"({"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview"})"})
            .error() ==
        "converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown "
        "conversion");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", R"({"apiVersion":"v1","kind":"Status"})"})
            .error() == "converting (v1.Status) to (v1.ConversionReview): unknown conversion");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", R"({"apiVersion":"x/v1","kind":"Foo"})"})
            .error() == "no kind \"Foo\" is registered for version \"x/v1\"");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", R"({"response":{"uid":5}})"}).error() ==
        "json: cannot unmarshal number into Go struct field ConversionResponse.response.uid of "
        "type types.UID");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", R"({"response":[]})"}).error() ==
        "json: cannot unmarshal array into Go struct field ConversionReview.response of type "
        "v1.ConversionResponse");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", "{\"a\":"}).error() ==
        "couldn't get version/kind; json parse error: unexpected end of JSON input");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{503, "text/plain", "busy"}).error() ==
        "the server is currently unable to handle the request");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{502, "application/json", "{}"}).error() ==
        "an error on the server (\"unknown\") has prevented the request from succeeding");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{418, "text/plain", "teapot"}).error() ==
        "the server responded with the status code 418 but did not return more information");
  CHECK(c::DecodeReviewAnswer(c::HttpAnswer{200, "", "null"}).has_value());
}

TEST_CASE("the response of a review is checked before its objects", "[crd-conversion]") {
  CHECK(c::ConvertedObjectsOf(json::object(), "u").error() ==
        "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, "
        "Kind=");
  json review = Review("u", json::array());
  review.erase("response");
  CHECK(c::ConvertedObjectsOf(review, "u").error() == "no response provided");
  review = Review("other", json::array());
  CHECK(c::ConvertedObjectsOf(review, "u").error() == "expected response.uid=\"u\", got \"other\"");
  review = Review("u", json::array());
  review["response"].erase("result");
  CHECK(c::ConvertedObjectsOf(review, "u").error() ==
        "response.result.status was '', not 'Success'");
  review = Review("u", nullptr);
  CHECK(c::ConvertedObjectsOf(review, "u")->empty());
}

TEST_CASE("converted objects are checked one by one", "[crd-conversion]") {
  const std::vector<json> sent = {Object("example.com/v1", "a"), Object("example.com/v1", "b")};
  const auto read = [&](const json& converted, bool single) {
    const std::vector<json> objects = single ? std::vector<json>{sent[0]} : sent;
    return c::ReadConversionAnswer(Answer(Review("u", converted)), "u", "example.com/v2", objects,
                                   single, "example.com/v1, Kind=Foo");
  };
  const std::string prefix = "conversion webhook for example.com/v1, Kind=Foo";

  json good = json::array({Object("example.com/v2", "a"), Object("example.com/v2", "b")});
  auto ok = read(good, false);
  REQUIRE(ok.has_value());
  CHECK((*ok)[1]["apiVersion"] == "example.com/v2");

  json missing_kind = good;
  missing_kind[1].erase("kind");
  CHECK(read(missing_kind, false)
            .error()
            .starts_with(
                prefix +
                " returned invalid converted object at index 1: Object 'Kind' is missing in '{"));
  json not_object = good;
  not_object[0] = 5;
  CHECK(read(not_object, false).error() ==
        prefix +
            " returned invalid converted object at index 0: json: cannot unmarshal number "
            "into Go value of type map[string]interface {}");
  // Upstream's single-object path returns the decoding error alone.
  CHECK(read(json::array({nullptr}), true).error() == "unexpected end of JSON input");
  json kind = json::array({Object("example.com/v2", "a")});
  kind[0]["kind"] = "Bar";
  CHECK(read(kind, true).error() ==
        prefix + " returned invalid object at index 0: invalid kind (expected Foo, received Bar)");
  json labels = json::array({Object("example.com/v2", "a")});
  labels[0]["metadata"]["labels"] = {{"a", true}};
  CHECK(read(labels, true).error() ==
        prefix +
            " returned invalid metadata: metadata.labels[a] must be a string, but is bool in "
            "converted object");
  json list_labels = good;
  list_labels[1]["metadata"]["labels"] = {{"a", true}};
  CHECK(read(list_labels, false).error() ==
        prefix +
            " returned invalid metadata in object at index 1: metadata.labels[a] must be a "
            "string, but is bool in converted object");
}
