#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

// %#v of an internal version whose schema, subresources and columns were hoisted.
std::string GoVersion(const std::string& name, bool served, bool storage) {
  return std::string("apiextensions.CustomResourceDefinitionVersion{Name:\"") + name +
         "\", Served:" + (served ? "true" : "false") + ", Storage:" + (storage ? "true" : "false") +
         ", Deprecated:false, DeprecationWarning:(*string)(nil), "
         "Schema:(*apiextensions.CustomResourceValidation)(nil), "
         "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
         "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), "
         "SelectableFields:[]apiextensions.SelectableField(nil)}";
}

json TwoVersions(bool storage1, bool storage2) {
  json crd = crdval_test::ValidCRD();
  json second = crd["spec"]["versions"][0];
  second["name"] = "v2";
  crd["spec"]["versions"][0]["storage"] = storage1;
  second["storage"] = storage2;
  crd["spec"]["versions"].push_back(second);
  return crd;
}

}  // namespace

TEST_CASE("CRD versions: names are DNS-1035 labels", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["versions"][0]["name"] = "V1";
  crd["status"]["storedVersions"] = {"V1"};
  const std::string dns = crdval_test::kDNS1035;
  // The internal spec.version (the first version's name) is checked too.
  CHECK(Create(crd) == Strings{R"(spec.versions[0].name: Invalid value: "V1": )" + dns,
                               R"(spec.version: Invalid value: "V1": )" + dns});
}

TEST_CASE("CRD versions: exactly one storage version", "[crd-validation]") {
  CHECK(Create(TwoVersions(true, false)).empty());

  CHECK(
      Create(TwoVersions(true, true)) ==
      Strings{
          "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{" +
              GoVersion("v1", true, true) + ", " + GoVersion("v2", true, true) +
              "}: must have exactly one version marked as storage version",
          R"(status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2)"});

  CHECK(Create(TwoVersions(false, false)) ==
        Strings{"spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{" +
                GoVersion("v1", true, false) + ", " + GoVersion("v2", true, false) +
                "}: must have exactly one version marked as storage version"});

  json none = crdval_test::ValidCRD();
  none["spec"]["versions"] = json::array();
  none["status"]["storedVersions"] = {"v1"};
  CHECK(Create(none) ==
        Strings{"spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: "
                "must have exactly one version marked as storage version",
                "status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; v1 "
                "was previously a storage version, and must remain in spec.versions until a "
                "storage migration ensures no data remains persisted in v1 and removes v1 from "
                "status.storedVersions"});
}

TEST_CASE("CRD versions: names are unique", "[crd-validation]") {
  json crd = TwoVersions(true, false);
  crd["spec"]["versions"][1]["name"] = "v1";
  CHECK(Create(crd) ==
        Strings{"spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{" +
                GoVersion("v1", true, true) + ", " + GoVersion("v1", true, false) +
                "}: must contain unique version names"});
}

TEST_CASE("CRD versions: v1 requires a schema in every version", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["versions"][0].erase("schema");
  CHECK(Create(crd) ==
        Strings{"spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"});

  // Versions with different schemas keep them per version: errors name the version.
  json mixed = TwoVersions(true, false);
  mixed["spec"]["versions"][1]["schema"] = json::object();
  mixed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].erase("type");
  CHECK(Create(mixed) ==
        Strings{"spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required",
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: "
                "must not be empty for specified object fields"});
}

TEST_CASE("CRD versions: identical schemas are validated once, as spec.validation",
          "[crd-validation]") {
  json crd = TwoVersions(true, false);
  for (json& ver : crd["spec"]["versions"]) {
    ver["schema"]["openAPIV3Schema"]["properties"]["spec"].erase("type");
  }
  CHECK(Create(crd) == Strings{"spec.validation.openAPIV3Schema.properties[spec].type: Required "
                               "value: must not be empty for specified object fields"});

  // Zero values and empty lists do not make schemas differ.
  json alike = TwoVersions(true, false);
  alike["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].erase("type");
  json& second = alike["spec"]["versions"][1]["schema"]["openAPIV3Schema"];
  second["properties"]["spec"].erase("type");
  second["description"] = "";
  second["nullable"] = false;
  second["required"] = json::array();
  second["example"] = nullptr;
  CHECK(Create(alike) == Strings{"spec.validation.openAPIV3Schema.properties[spec].type: Required "
                                 "value: must not be empty for specified object fields"});
}

TEST_CASE("CRD versions: deprecation warnings", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["versions"][0]["deprecationWarning"] = "old";
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions)"});

  crd["spec"]["versions"][0]["deprecated"] = true;
  CHECK(Create(crd).empty());

  crd["spec"]["versions"][0]["deprecationWarning"] = "";
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string)"});

  crd["spec"]["versions"][0]["deprecationWarning"] = std::string(257, 'x');
  CHECK(Create(crd) == Strings{"spec.versions[0].deprecationWarning: Invalid value: \"" +
                               std::string(257, 'x') + "\": must be <= 256 characters long"});

  crd["spec"]["versions"][0]["deprecationWarning"] = "old\aone";
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.versions[0].deprecationWarning: Invalid value: "old\aone": must only contain printable UTF-8 characters; non-printable character found at index 3)"});

  crd["spec"]["versions"][0]["deprecationWarning"] = "v1 is déprécié, use v2";
  CHECK(Create(crd).empty());
}

TEST_CASE("CRD versions: status.storedVersions", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["status"]["storedVersions"] = json::array();
  CHECK(Create(crd) == Strings{"status.storedVersions: Invalid value: []string{}: must have at "
                               "least one stored version"});
  crd.erase("status");
  CHECK(Create(crd) == Strings{"status.storedVersions: Invalid value: []string(nil): must have at "
                               "least one stored version"});

  json removed = crdval_test::ValidCRD();
  removed["status"]["storedVersions"] = {"v1alpha1", "v1"};
  CHECK(Create(removed) ==
        Strings{"status.storedVersions[0]: Invalid value: \"v1alpha1\": missing from "
                "spec.versions; v1alpha1 was previously a storage version, and must remain in "
                "spec.versions until a storage migration ensures no data remains persisted in "
                "v1alpha1 and removes v1alpha1 from status.storedVersions"});

  json missing_storage = TwoVersions(false, true);
  CHECK(
      Create(missing_storage) ==
      Strings{
          R"(status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2)"});
}
