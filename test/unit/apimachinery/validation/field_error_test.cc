#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/names.h"

namespace v = apimachinery::validation;

TEST_CASE("FieldError renders as upstream's field.Error", "[validation]") {
  const std::string subdomain_msg = v::IsDNS1123Subdomain("Foo")[0];
  CHECK(v::ErrorString(v::FieldInvalid("metadata.name", "Foo", subdomain_msg)) ==
        "metadata.name: Invalid value: \"Foo\": " + subdomain_msg);
  CHECK(v::ErrorString(v::FieldRequired("metadata.name", "name or generateName is required")) ==
        "metadata.name: Required value: name or generateName is required");
  CHECK(v::ErrorString(v::FieldRequired("metadata.namespace", "")) ==
        "metadata.namespace: Required value");
  CHECK(v::ErrorString(v::FieldForbidden("metadata.namespace", "not allowed on this type")) ==
        "metadata.namespace: Forbidden: not allowed on this type");
  CHECK(v::ErrorString(v::FieldDuplicate("spec.ports[1].name", "http")) ==
        "spec.ports[1].name: Duplicate value: \"http\"");
  CHECK(v::ErrorString(v::FieldNotFound("spec.containers[0].volumeMounts[0].name", "vol")) ==
        "spec.containers[0].volumeMounts[0].name: Not found: \"vol\"");
  CHECK(v::ErrorString(v::FieldNotSupported("propagationPolicy", "Sideways",
                                            {"Foreground", "Background", "Orphan", "nil"})) ==
        "propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", "
        "\"Background\", \"Orphan\", \"nil\"");
  CHECK(v::ErrorString(v::FieldTooLong("metadata.annotations", 262144)) ==
        "metadata.annotations: Too long: may not be more than 262144 bytes");
  CHECK(v::ErrorString(v::FieldTooLong("x", 1)) == "x: Too long: may not be more than 1 byte");
  CHECK(v::ErrorString(v::FieldTooLong("x", -1)) == "x: Too long: value is too long");
  CHECK(v::ErrorString(v::FieldTooMany("spec.items", 5, 3)) ==
        "spec.items: Too many: 5: must have at most 3 items");
  CHECK(v::ErrorString(v::FieldTooMany("spec.items", -1, 3)) ==
        "spec.items: Too many: must have at most 3 items");
  CHECK(v::ErrorString(v::FieldInternalError("metadata.name", "boom")) ==
        "metadata.name: Internal error: boom");

  // Non-string bad values are printed as Go's %v would.
  v::FieldError generation = v::FieldInvalid("metadata.generation", "-1", "must be >= 0");
  generation.value_form = v::ValueForm::kVerbatim;
  CHECK(v::ErrorString(generation) == "metadata.generation: Invalid value: -1: must be >= 0");
  // Strings are quoted with Go's %q.
  CHECK(v::ErrorString(v::FieldInvalid("data", "a\"b\\c\nd", "bad")) ==
        "data: Invalid value: \"a\\\"b\\\\c\\nd\": bad");
}

TEST_CASE("AggregateMessage deduplicates and brackets as upstream", "[validation]") {
  const v::FieldError a = v::FieldRequired("metadata.name", "name or generateName is required");
  const v::FieldError b = v::FieldInvalid("metadata.labels", "x y", "bad");
  CHECK(v::AggregateMessage({}).empty());
  CHECK(v::AggregateMessage({a}) ==
        "metadata.name: Required value: name or generateName is required");
  CHECK(v::AggregateMessage({a, a}) ==
        "metadata.name: Required value: name or generateName is required");
  CHECK(v::AggregateMessage({a, b, a}) ==
        "[metadata.name: Required value: name or generateName is required, metadata.labels: "
        "Invalid value: \"x y\": bad]");
}

TEST_CASE("NewInvalid builds upstream's 422 Status", "[validation]") {
  const std::string label_msg = v::IsDNS1123Label("Invalid-Name-With-Uppercase")[0];
  std::vector<v::FieldError> errs = {
      v::FieldInvalid("metadata.name", "Invalid-Name-With-Uppercase", label_msg)};
  apimachinery::Status s = v::NewInvalid("", "Namespace", "Invalid-Name-With-Uppercase", errs);
  CHECK(s.code == 422);
  CHECK(s.reason == "Invalid");
  CHECK(s.status == "Failure");
  CHECK(s.message ==
        "Namespace \"Invalid-Name-With-Uppercase\" is invalid: metadata.name: Invalid value: "
        "\"Invalid-Name-With-Uppercase\": " +
            label_msg);
  REQUIRE(s.details);
  CHECK(s.details->name == "Invalid-Name-With-Uppercase");
  CHECK(s.details->group.empty());
  CHECK(s.details->kind == "Namespace");
  REQUIRE(s.details->causes.size() == 1);
  CHECK(s.details->causes[0].reason == "FieldValueInvalid");
  CHECK(s.details->causes[0].field == "metadata.name");
  CHECK(s.details->causes[0].message ==
        "Invalid value: \"Invalid-Name-With-Uppercase\": " + label_msg);

  // Several errors: the message brackets them; every cause is kept, duplicates included.
  errs = {v::FieldRequired("spec.replicas", ""), v::FieldRequired("spec.replicas", ""),
          v::FieldInvalid("spec.selector", "", "empty selector is invalid for deployment")};
  s = v::NewInvalid("apps", "Deployment", "web", errs);
  CHECK(s.message ==
        "Deployment.apps \"web\" is invalid: [spec.replicas: Required value, spec.selector: "
        "Invalid value: \"\": empty selector is invalid for deployment]");
  CHECK(s.details->group == "apps");
  CHECK(s.details->causes.size() == 3);

  const auto j = nlohmann::json::parse(apimachinery::EncodeStatus(s));
  CHECK(j["code"] == 422);
  CHECK(j["reason"] == "Invalid");
  CHECK(j["details"]["kind"] == "Deployment");
  CHECK(j["details"]["causes"][0] == nlohmann::json{{"reason", "FieldValueRequired"},
                                                    {"message", "Required value"},
                                                    {"field", "spec.replicas"}});

  CHECK(v::NewInvalid("", "ConfigMap", "x", {}).message == "ConfigMap \"x\" is invalid");
}
