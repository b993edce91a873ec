// Field sets and their FieldsV1 encoding, against the forms upstream writes.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/fieldpath/set.h"

using apimachinery::fieldpath::Path;
using apimachinery::fieldpath::PathElement;
using apimachinery::fieldpath::PathString;
using apimachinery::fieldpath::Set;
using nlohmann::json;

namespace {

Path F(std::initializer_list<const char*> names) {
  Path p;
  for (const char* n : names) p.push_back(PathElement::Field(n));
  return p;
}

Set Decode(const char* text) {
  auto s = Set::FromFieldsV1(json::parse(text));
  REQUIRE(s);
  return *s;
}

}  // namespace

TEST_CASE("path elements serialize as upstream's FieldsV1 keys", "[fieldpath]") {
  CHECK(PathElement::Field("image").Serialize() == "f:image");
  // Keys sort by name whatever order they came in.
  CHECK(PathElement::Key({{"protocol", "TCP"}, {"containerPort", 80}}).Serialize() ==
        R"(k:{"containerPort":80,"protocol":"TCP"})");
  CHECK(PathElement::Value("example.com/finalizer").Serialize() == R"(v:"example.com/finalizer")");
  CHECK(PathElement::Index(3).Serialize() == "i:3");
  for (const char* text : {"f:spec", R"(k:{"name":"a","port":8080})", R"(v:"x")", "v:12", "i:0"}) {
    auto e = PathElement::Parse(text);
    REQUIRE(e);
    CHECK(e->Serialize() == text);
  }
  CHECK_FALSE(PathElement::Parse("x"));
  CHECK_FALSE(PathElement::Parse("f-name"));
  CHECK_FALSE(PathElement::Parse("i:abc"));
  CHECK_FALSE(PathElement::Parse("k:[1]"));
  CHECK_FALSE(PathElement::Parse("z:1"));
}

TEST_CASE("paths print as conflict messages print them", "[fieldpath]") {
  Path p = F({"spec", "template", "spec", "containers"});
  p.push_back(PathElement::Key({{"name", "nginx"}}));
  p.push_back(PathElement::Field("image"));
  CHECK(PathString(p) == R"(.spec.template.spec.containers[name="nginx"].image)");
  CHECK(PathString({PathElement::Field("finalizers"), PathElement::Value("a")}) ==
        R"(.finalizers[="a"])");
  CHECK(PathString({PathElement::Field("args"), PathElement::Index(2)}) == ".args[2]");
}

TEST_CASE("path elements order as upstream's: numbers numerically", "[fieldpath]") {
  CHECK(PathElement::Index(9) < PathElement::Index(10));
  CHECK(PathElement::Key({{"port", 9}}) < PathElement::Key({{"port", 10}}));
  CHECK(PathElement::Value(5) < PathElement::Value("a"));  // numbers before strings
  CHECK(PathElement::Field("z") < PathElement::Key({{"a", 1}}));
}

TEST_CASE("a set encodes byte for byte as upstream's FieldsV1", "[fieldpath]") {
  Set s;
  s.Insert(F({"metadata", "labels", "app"}));
  s.Insert(F({"metadata", "labels"}));
  s.Insert(F({"data", "key"}));
  Path item = F({"spec", "containers"});
  item.push_back(PathElement::Key({{"name", "c"}}));
  s.Insert(item);
  item.push_back(PathElement::Field("image"));
  s.Insert(item);
  CHECK(s.ToFieldsV1() ==
        R"({"f:data":{"f:key":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}},)"
        R"("f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}})");
  CHECK(Set().ToFieldsV1() == "{}");
  auto back = Set::FromFieldsV1(json::parse(s.ToFieldsV1()));
  REQUIRE(back);
  CHECK(*back == s);
  CHECK(back->Has(F({"metadata", "labels"})));
  CHECK_FALSE(back->Has(F({"metadata"})));
  CHECK(back->Size() == 5);
}

TEST_CASE("FieldsV1 decoding skips unknown element types and refuses malformed keys",
          "[fieldpath]") {
  Set s = Decode(R"({"f:a":{},"x:future":{},"f:b":{"f:c":{}}})");
  CHECK(s.ToFieldsV1() == R"({"f:a":{},"f:b":{"f:c":{}}})");
  CHECK_FALSE(Set::FromFieldsV1(json::parse(R"({"i:notanumber":{}})")));
  CHECK_FALSE(Set::FromFieldsV1(json::parse(R"({"f:a":[]})")));
}

TEST_CASE("set operations", "[fieldpath]") {
  Set a = Decode(
      R"({"f:spec":{"f:replicas":{},"f:paused":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}})");
  Set b =
      Decode(R"({"f:spec":{"f:replicas":{},"f:minReadySeconds":{}},"f:metadata":{"f:labels":{}}})");
  CHECK(a.Union(b).ToFieldsV1() ==
        R"({"f:metadata":{"f:labels":{".":{},"f:x":{}}},)"
        R"("f:spec":{"f:minReadySeconds":{},"f:paused":{},"f:replicas":{}}})");
  CHECK(a.Intersection(b).ToFieldsV1() ==
        R"({"f:metadata":{"f:labels":{}},"f:spec":{"f:replicas":{}}})");
  // Difference removes members only; the labels' children stay.
  CHECK(a.Difference(b).ToFieldsV1() ==
        R"({"f:metadata":{"f:labels":{"f:x":{}}},"f:spec":{"f:paused":{}}})");
  // RecursiveDifference removes what is below a member of the other too.
  CHECK(a.RecursiveDifference(b).ToFieldsV1() == R"({"f:spec":{"f:paused":{}}})");
  CHECK(a.Difference(a).Empty());
}
