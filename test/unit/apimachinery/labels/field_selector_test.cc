#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "pkg/genericserver/apimachinery/labels/field_selector.h"

namespace fields = apimachinery::fields;
using apimachinery::GroupResource;
using fields::Operator;
using fields::Requirement;

namespace {

fields::Selector MustParse(std::string_view s) {
  auto parsed = fields::ParseSelector(s);
  REQUIRE(parsed.has_value());
  return *parsed;
}

std::string ParseError(std::string_view s) {
  auto parsed = fields::ParseSelector(s);
  REQUIRE_FALSE(parsed.has_value());
  return parsed.error();
}

fields::FieldLookup LookupIn(const std::map<std::string, std::string>& object) {
  return [object](std::string_view field) -> std::optional<std::string> {
    auto it = object.find(std::string(field));
    if (it == object.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("field selectors parse as upstream", "[fields]") {
  CHECK(MustParse("").Empty());
  CHECK(MustParse(",,").Empty());
  CHECK(MustParse("a=b").Requirements() == std::vector<Requirement>{{"a", Operator::kEquals, "b"}});
  CHECK(MustParse("a==b").Requirements() ==
        std::vector<Requirement>{{"a", Operator::kEquals, "b"}});
  // Terms come out sorted as written.
  CHECK(MustParse("c!=d,a==b").Requirements() ==
        std::vector<Requirement>{{"a", Operator::kEquals, "b"}, {"c", Operator::kNotEquals, "d"}});
  CHECK(MustParse("c!=d,a==b").String() == "a=b,c!=d");
  CHECK(MustParse("spec.nodeName=,status.phase=Running").String() ==
        "spec.nodeName=,status.phase=Running");
  // The first operator splits; "!" alone is part of the field.
  CHECK(MustParse("a!b=c").Requirements() ==
        std::vector<Requirement>{{"a!b", Operator::kEquals, "c"}});
  CHECK(MustParse("=a").Requirements() == std::vector<Requirement>{{"", Operator::kEquals, "a"}});
  // No blank trimming: blanks belong to fields and values.
  CHECK(MustParse("a = b").Requirements() ==
        std::vector<Requirement>{{"a ", Operator::kEquals, " b"}});
}

TEST_CASE("field selector values unescape and re-escape", "[fields]") {
  auto s = MustParse(R"(a=x\,y\=z\\w,b!=\\)");
  CHECK(s.Requirements() == std::vector<Requirement>{{"a", Operator::kEquals, R"(x,y=z\w)"},
                                                     {"b", Operator::kNotEquals, R"(\)"}});
  CHECK(s.String() == R"(a=x\,y\=z\\w,b!=\\)");
  CHECK(MustParse(R"(a=x||y\=b)").Requirements()[0].value == "x||y=b");

  CHECK(fields::EscapeValue(R"(a,b=c\d)") == R"(a\,b\=c\\d)");
  CHECK(fields::UnescapeValue(R"(a\,b\=c\\d)") == R"(a,b=c\d)");
  CHECK(fields::UnescapeValue("plain") == "plain");
}

TEST_CASE("field selector errors carry upstream's text", "[fields]") {
  CHECK(ParseError("a") == "invalid selector: 'a'; can't understand 'a'");
  CHECK(ParseError("x=1,b") == "invalid selector: 'x=1,b'; can't understand 'b'");
  CHECK(ParseError("a=b=c") == "invalid field selector: unescaped character in value: 61");
  CHECK(ParseError(R"(a=b\x)") == R"(invalid field selector: invalid escape sequence: \x)");
  CHECK(ParseError(R"(a=b\)") == R"(invalid field selector: invalid escape sequence: \)");
  CHECK(ParseError("a=b\\\xc3\xa9") ==
        "invalid field selector: invalid escape sequence: \\\xc3\xa9");
}

TEST_CASE("field selectors match through the lookup", "[fields]") {
  const auto pod = LookupIn({{"metadata.name", "web-1"},
                             {"metadata.namespace", "default"},
                             {"status.phase", "Running"},
                             {"spec.nodeName", ""}});
  CHECK(fields::Selector().Matches(pod));
  CHECK(MustParse("metadata.name=web-1").Matches(pod));
  CHECK(MustParse("metadata.name=web-1,status.phase!=Pending").Matches(pod));
  CHECK(MustParse("spec.nodeName=").Matches(pod));
  CHECK_FALSE(MustParse("metadata.name=web-2").Matches(pod));
  CHECK_FALSE(MustParse("status.phase!=Running").Matches(pod));
  // Unknown fields read as "", as upstream's fields.Set.
  CHECK(MustParse("spec.unknown=").Matches(pod));
  CHECK(MustParse("spec.unknown!=x").Matches(pod));
}

TEST_CASE("ExactName and RequiresExactMatch", "[fields]") {
  CHECK(fields::ExactName(MustParse("metadata.name=web")) == "web");
  CHECK(fields::ExactName(MustParse("metadata.name==web,metadata.namespace=default")) == "web");
  CHECK(fields::ExactName(MustParse("metadata.name!=web")) == std::nullopt);
  CHECK(fields::ExactName(MustParse("metadata.namespace=default")) == std::nullopt);
  CHECK(fields::ExactName(fields::Selector()) == std::nullopt);
  CHECK(MustParse("metadata.name!=a,metadata.name=b").RequiresExactMatch("metadata.name") == "b");
}

TEST_CASE("Transform maps terms and stops at the first error", "[fields]") {
  const fields::TransformFunc pod_fields = [](std::string_view field, std::string_view value)
      -> std::expected<std::pair<std::string, std::string>, std::string> {
    if (field == "spec.host") return std::pair{std::string("spec.nodeName"), std::string(value)};
    if (field == "metadata.name" || field == "spec.nodeName") {
      return std::pair{std::string(field), std::string(value)};
    }
    if (field == "drop.me") return std::pair{std::string(), std::string()};
    return std::unexpected(fields::UnsupportedFieldMessage(GroupResource{"", "pods"}, field));
  };
  auto t = MustParse("spec.host=node1,metadata.name=p,drop.me=x").Transform(pod_fields);
  REQUIRE(t.has_value());
  CHECK(t->String() == "metadata.name=p,spec.nodeName=node1");
  t = MustParse("zzz=1,metadata.name=p,aaa=2").Transform(pod_fields);
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error() == "field label not supported: aaa");
}

TEST_CASE("unsupported field messages follow each resource's upstream wording", "[fields]") {
  CHECK(fields::UnsupportedFieldMessage({"", "pods"}, "spec.foo") ==
        "field label not supported: spec.foo");
  for (const char* r :
       {"nodes", "replicationcontrollers", "events", "namespaces", "secrets", "services"}) {
    CHECK(fields::UnsupportedFieldMessage({"", r}, "x") == "field label not supported: x");
  }
  CHECK(fields::UnsupportedFieldMessage({"events.k8s.io", "events"}, "x") ==
        "field label not supported: x");
  CHECK(fields::UnsupportedFieldMessage({"certificates.k8s.io", "certificatesigningrequests"},
                                        "x") == "field label not supported: x");
  CHECK(fields::UnsupportedFieldMessage({"stable.example.com", "crontabs"}, "spec.cron", true) ==
        "field label not supported: spec.cron");
  CHECK(fields::UnsupportedFieldMessage({"batch", "jobs"}, "status.succeeded") ==
        "field label \"status.succeeded\" not supported for batchv1.Job");
  CHECK(fields::UnsupportedFieldMessage({"", "configmaps"}, "data.x") ==
        "\"data.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  CHECK(fields::UnsupportedFieldMessage({"apps", "deployments"}, "spec.replicas") ==
        "\"spec.replicas\" is not a known field selector: only \"metadata.name\", "
        "\"metadata.namespace\"");
}

TEST_CASE("CheckSupportedFields names the first unsupported field in upstream's order",
          "[fields]") {
  const std::vector<std::string> supported = {"metadata.name", "metadata.namespace"};
  CHECK(fields::CheckSupportedFields(MustParse("metadata.name=a,metadata.namespace=b"),
                                     {"", "configmaps"}, supported) == std::nullopt);
  CHECK(fields::CheckSupportedFields(MustParse("spec.x=1,metadata.name=a,abc=1"),
                                     {"", "configmaps"}, supported) ==
        "\"abc\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  CHECK(fields::CheckSupportedFields(MustParse("spec.x=1"), {"", "pods"}, supported) ==
        "field label not supported: spec.x");
}
