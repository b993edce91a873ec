#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using nlohmann::json;
using Strings = std::vector<std::string>;

TEST_CASE("CRD names: the minimal CRD is valid", "[crd-validation]") {
  CHECK(Create(crdval_test::ValidCRD()).empty());
}

TEST_CASE("CRD names: metadata.name must be <plural>.<group>", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["metadata"]["name"] = "gadgets.example.com";
  CHECK(
      Create(crd) ==
      Strings{
          R"(metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group)"});

  json generated = crdval_test::ValidCRD();
  generated["metadata"]["generateName"] = "widgets.";
  generated["metadata"]["name"] = "widgets.abcde";
  CHECK(
      Create(generated) ==
      Strings{
          R"(metadata.generateName: Invalid value: "widgets.": must be spec.names.plural+"."+spec.group)",
          R"(metadata.name: Invalid value: "widgets.abcde": must be spec.names.plural+"."+spec.group)"});
}

TEST_CASE("CRD names: the group is a DNS subdomain with a dot", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["group"] = "example";
  crd["metadata"]["name"] = "widgets.example";
  CHECK(
      Create(crd) ==
      Strings{R"(spec.group: Invalid value: "example": should be a domain with at least one dot)"});

  crd["spec"]["group"] = "Example.com";
  crd["metadata"]["name"] = "widgets.Example.com";
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"});

  crd["spec"].erase("group");
  crd["metadata"]["name"] = "widgets.";
  CHECK(Create(crd) == Strings{"spec.group: Required value"});
}

TEST_CASE("CRD names: scope is Cluster or Namespaced", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["scope"] = "Global";
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced")"});
  crd["spec"]["scope"] = "Cluster";
  CHECK(Create(crd).empty());
  crd["spec"].erase("scope");
  CHECK(Create(crd) == Strings{"spec.scope: Required value"});
}

TEST_CASE("CRD names: plural, singular, kind and listKind are required", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["names"] = json::object();
  crd["metadata"]["name"] = ".example.com";
  CHECK(Create(crd) ==
        Strings{"spec.names.plural: Required value", "spec.names.singular: Required value",
                "spec.names.kind: Required value", "spec.names.listKind: Required value"});
}

TEST_CASE("CRD names: each name's format", "[crd-validation]") {
  const std::string dns = crdval_test::kDNS1035;
  json crd = crdval_test::ValidCRD();
  crd["spec"]["names"] = json::parse(R"({"plural": "Widgets", "singular": "a_widget",
      "kind": "Wid.get", "listKind": "1WidgetList", "shortNames": ["w", "W-1"],
      "categories": ["all", "my_things"]})");
  crd["metadata"]["name"] = "Widgets.example.com";
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.names.plural: Invalid value: "Widgets": )" + dns,
          R"(spec.names.singular: Invalid value: "a_widget": )" + dns,
          R"(spec.names.kind: Invalid value: "Wid.get": may have mixed case, but should otherwise match: )" +
              dns,
          R"(spec.names.listKind: Invalid value: "1WidgetList": may have mixed case, but should otherwise match: )" +
              dns,
          R"(spec.names.shortNames[1]: Invalid value: "W-1": )" + dns,
          R"(spec.names.categories[1]: Invalid value: "my_things": )" + dns});

  json same = crdval_test::ValidCRD();
  same["spec"]["names"]["listKind"] = "Widget";
  CHECK(
      Create(same) ==
      Strings{
          R"(spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same)"});

  json long_name = crdval_test::ValidCRD();
  long_name["spec"]["names"]["singular"] = std::string(64, 'w');
  CHECK(Create(long_name) ==
        Strings{"spec.names.singular: Invalid value: \"" + std::string(64, 'w') +
                "\": must be no more than 63 characters"});
}

TEST_CASE("CRD names: status.acceptedNames follow the same rules, none required",
          "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["status"]["acceptedNames"] = {
      {"plural", "widgets"}, {"kind", "Widget"}, {"listKind", "Widget"}};
  CHECK(
      Create(crd) ==
      Strings{
          R"(status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same)"});
  crd["status"]["acceptedNames"] = {{"shortNames", {"ok", "Not_OK"}}};
  CHECK(Create(crd) ==
        Strings{std::string(R"(status.acceptedNames.shortNames[1]: Invalid value: "Not_OK": )") +
                crdval_test::kDNS1035});
}

TEST_CASE("CRD names: protected groups need the api-approved annotation", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["group"] = "stable.k8s.io";
  crd["metadata"]["name"] = "widgets.stable.k8s.io";
  CHECK(
      Create(crd) ==
      Strings{
          R"(metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111)"});

  crd["metadata"]["annotations"]["api-approved.kubernetes.io"] = "yes";
  CHECK(
      Create(crd) ==
      Strings{
          R"(metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111)"});

  crd["metadata"]["annotations"]["api-approved.kubernetes.io"] =
      "https://github.com/kubernetes/kubernetes/pull/78458";
  CHECK(Create(crd).empty());
  crd["metadata"]["annotations"]["api-approved.kubernetes.io"] = "unapproved, experimental";
  CHECK(Create(crd).empty());

  // Not protected: the annotation does not matter.
  json other = crdval_test::ValidCRD();
  other["spec"]["group"] = "k8s.io.example.com";
  other["metadata"]["name"] = "widgets.k8s.io.example.com";
  CHECK(Create(other).empty());
}
