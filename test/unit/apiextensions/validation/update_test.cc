#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/pki/pki.h"
#include "pkg/util/base64.h"
#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using crdval_test::SpecSchema;
using crdval_test::StatusUpdate;
using crdval_test::Update;
using crdval_test::WithSchema;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

json Established(json crd) {
  crd["status"]["conditions"] = json::parse(R"([
      {"type": "NamesAccepted", "status": "True"}, {"type": "Established", "status": "True"}])");
  return crd;
}

json WithWebhookBundle(const std::string& bundle) {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["conversion"] = json::parse(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v1"],
      "clientConfig": {"url": "https://conv.example.com"}}})");
  if (!bundle.empty()) {
    crd["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] = util::Base64Encode(bundle);
  }
  return crd;
}

}  // namespace

TEST_CASE("CRD update: an unchanged CRD is valid", "[crd-validation]") {
  const json crd = Established(crdval_test::ValidCRD());
  CHECK(Update(crd, crd).empty());
}

TEST_CASE("CRD update: group and plural never change; scope and kind once established",
          "[crd-validation]") {
  const json old = crdval_test::ValidCRD();
  json crd = old;
  crd["spec"]["group"] = "example.org";
  crd["spec"]["names"]["plural"] = "gadgets";
  CHECK(Update(crd, old) ==
        Strings{R"(spec.group: Invalid value: "example.org": field is immutable)",
                R"(spec.names.plural: Invalid value: "gadgets": field is immutable)"});

  json scoped = old;
  scoped["spec"]["scope"] = "Cluster";
  scoped["spec"]["names"]["kind"] = "Gadget";
  scoped["spec"]["names"]["listKind"] = "GadgetList";
  CHECK(Update(scoped, old).empty());
  CHECK(Update(Established(scoped), Established(old)) ==
        Strings{R"(spec.scope: Invalid value: "Cluster": field is immutable)",
                R"(spec.names.kind: Invalid value: "Gadget": field is immutable)"});
}

TEST_CASE("CRD update: stored versions stay in spec.versions", "[crd-validation]") {
  json old = crdval_test::ValidCRD();
  json second = old["spec"]["versions"][0];
  second["name"] = "v2";
  second["storage"] = false;
  old["spec"]["versions"].push_back(second);

  json crd = old;
  crd["spec"]["versions"].erase(0);
  crd["spec"]["versions"][0]["storage"] = true;
  crd["status"]["storedVersions"] = {"v1", "v2"};
  CHECK(Update(crd, old) ==
        Strings{"status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; v1 "
                "was previously a storage version, and must remain in spec.versions until a "
                "storage migration ensures no data remains persisted in v1 and removes v1 from "
                "status.storedVersions"});
  crd["status"]["storedVersions"] = {"v2"};
  CHECK(Update(crd, old).empty());
}

TEST_CASE("CRD update: schemas accepted before stay accepted", "[crd-validation]") {
  // A non-structural schema, from when spec.preserveUnknownFields was true.
  json old = WithSchema(SpecSchema(json::parse(R"({"properties": {"a": {}}})")));
  old["spec"]["preserveUnknownFields"] = true;
  CHECK(Create(old) ==
        Strings{"spec.validation.openAPIV3Schema.properties[spec].properties[a].type: Required "
                "value: must not be empty for specified object fields",
                "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not "
                "be empty for specified object fields",
                "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
                "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"});
  CHECK(Update(old, old).empty());
  // Turning pruning on needs a structural schema.
  json pruning = old;
  pruning["spec"]["preserveUnknownFields"] = false;
  CHECK(Update(pruning, old) ==
        Strings{"spec.validation.openAPIV3Schema.properties[spec].properties[a].type: Required "
                "value: must not be empty for specified object fields",
                "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not "
                "be empty for specified object fields"});

  // Versions without a schema, from the same time.
  json schemaless = crdval_test::ValidCRD();
  schemaless["spec"]["versions"][0].erase("schema");
  schemaless["spec"]["preserveUnknownFields"] = true;
  CHECK(Update(schemaless, schemaless).empty());
  json pruned = schemaless;
  pruned["spec"]["preserveUnknownFields"] = false;
  CHECK(Update(pruned, schemaless) == Strings{"spec.versions[0].schema.openAPIV3Schema: Required "
                                              "value: because otherwise all fields are pruned"});
  // spec.preserveUnknownFields may not be turned on.
  CHECK(Update(schemaless, pruned) ==
        Strings{"spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
                "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"});
}

TEST_CASE("CRD update: rules added later do not fail stored schemas", "[crd-validation]") {
  const std::vector<const char*> specs = {
      // unpruned default
      R"({"type": "object", "properties": {"a": {"type": "string"}}, "default": {"b": 1}})",
      // set of non-atomic objects
      R"({"type": "array", "x-kubernetes-list-type": "set",
          "items": {"type": "object", "properties": {"a": {"type": "string"}}}})",
      // map list key neither required nor defaulted
      R"({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
          "items": {"type": "object", "properties": {"k": {"type": "string"}}}})",
      // a type OpenAPI does not know
      R"({"type": "date"})",
  };
  for (const char* spec : specs) {
    INFO(spec);
    const json old = WithSchema(SpecSchema(json::parse(spec)));
    CHECK(Create(old).size() == 1);
    CHECK(Update(old, old).empty());
    // Against a stored CRD without the problem, the update is refused as a create is.
    CHECK(Update(old, crdval_test::ValidCRD()) == Create(old));
  }
}

TEST_CASE("CRD update: conversion review versions and CA bundles", "[crd-validation]") {
  json old = crdval_test::ValidCRD();
  old["spec"]["conversion"] = json::parse(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v2"], "clientConfig": {"url": "https://conv.example.com"}}})");
  CHECK(Update(old, old).empty());
  CHECK(
      Update(old, crdval_test::ValidCRD()) ==
      Strings{
          R"(spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1)"});

  auto ca = pki::GenerateCA("conversion-ca", std::chrono::hours(24));
  REQUIRE(ca);
  const json valid = Established(WithWebhookBundle(ca->cert_pem));
  const json invalid = Established(WithWebhookBundle("foo"));
  CHECK(Update(valid, Established(WithWebhookBundle(""))).empty());
  // An established CRD may not take a bundle that does not load, unless it had one already.
  CHECK(Update(invalid, valid) ==
        Strings{"spec.conversion.webhookClientConfig.caBundle: Invalid value: []byte{0x66, 0x6f, "
                "0x6f}: unable to load root certificates: unable to parse bytes as PEM block"});
  CHECK(Update(invalid, invalid).empty());
  CHECK(Update(invalid, WithWebhookBundle("")).empty());
  const json key = Established(
      WithWebhookBundle("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"));
  CHECK(Update(key, valid) ==
        Strings{"spec.conversion.webhookClientConfig.caBundle: Invalid value: " +
                std::string("[]byte{0x2d, 0x2d, 0x2d, 0x2d, 0x2d, 0x42, 0x45, 0x47, 0x49, 0x4e, "
                            "0x20, 0x50, 0x52, 0x49, 0x56, 0x41, 0x54, 0x45, 0x20, 0x4b, 0x45, "
                            "0x59, 0x2d, 0x2d, 0x2d, 0x2d, 0x2d, 0xa, 0x41, 0x41, 0x41, 0x41, "
                            "0xa, 0x2d, 0x2d, 0x2d, 0x2d, 0x2d, 0x45, 0x4e, 0x44, 0x20, 0x50, "
                            "0x52, 0x49, 0x56, 0x41, 0x54, 0x45, 0x20, 0x4b, 0x45, 0x59, 0x2d, "
                            "0x2d, 0x2d, 0x2d, 0x2d, 0xa}") +
                ": unable to load root certificates: no valid certificate authority data seen"});
}

TEST_CASE("CRD update: API approval is only checked when it changes", "[crd-validation]") {
  json old = crdval_test::ValidCRD();
  old["spec"]["group"] = "stable.k8s.io";
  old["metadata"]["name"] = "widgets.stable.k8s.io";
  CHECK(Create(old).size() == 1);
  CHECK(Update(old, old).empty());
  json crd = old;
  crd["metadata"]["annotations"]["api-approved.kubernetes.io"] = "maybe";
  CHECK(
      Update(crd, old) ==
      Strings{
          R"(metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111)"});
}

TEST_CASE("CRD status update: only the accepted names", "[crd-validation]") {
  const json old = crdval_test::ValidCRD();
  json crd = old;
  crd["spec"]["group"] = "nodot";  // the spec is the stored one's on /status
  crd["status"]["storedVersions"] = json::array();
  crd["status"]["acceptedNames"] = {{"plural", "widgets"}, {"kind", "Widget"}};
  CHECK(StatusUpdate(crd, old).empty());
  crd["status"]["acceptedNames"]["plural"] = "Widgets";
  CHECK(StatusUpdate(crd, old) ==
        Strings{std::string(R"(status.acceptedNames.plural: Invalid value: "Widgets": )") +
                crdval_test::kDNS1035});
}
