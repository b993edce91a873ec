#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/crd_validation.h"
#include "test/unit/apiextensions/validation/support.h"

using nlohmann::json;
namespace val = apiextensions::validation;

TEST_CASE("CRD defaults: singular and listKind from the kind", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["names"].erase("singular");
  crd["spec"]["names"].erase("listKind");
  crd["spec"]["names"]["kind"] = "FancyWidget";
  val::SetDefaults(crd);
  CHECK(crd["spec"]["names"]["singular"] == "fancywidget");
  CHECK(crd["spec"]["names"]["listKind"] == "FancyWidgetList");

  // Set names stay.
  json kept = crdval_test::ValidCRD();
  kept["spec"]["names"]["singular"] = "gadget";
  kept["spec"]["names"]["listKind"] = "Gadgets";
  val::SetDefaults(kept);
  CHECK(kept["spec"]["names"]["singular"] == "gadget");
  CHECK(kept["spec"]["names"]["listKind"] == "Gadgets");

  // Without a kind there is nothing to derive them from.
  json no_kind = crdval_test::ValidCRD();
  no_kind["spec"]["names"] = {{"plural", "widgets"}};
  val::SetDefaults(no_kind);
  CHECK(no_kind["spec"]["names"] == json{{"plural", "widgets"}});
}

TEST_CASE("CRD defaults: conversion strategy None, webhook service port 443", "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"].erase("conversion");
  val::SetDefaults(crd);
  CHECK(crd["spec"]["conversion"] == json{{"strategy", "None"}});

  json null_conversion = crdval_test::ValidCRD();
  null_conversion["spec"]["conversion"] = nullptr;
  val::SetDefaults(null_conversion);
  CHECK(null_conversion["spec"]["conversion"] == json{{"strategy", "None"}});

  json webhook = crdval_test::ValidCRD();
  webhook["spec"]["conversion"] = json::parse(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v1"],
      "clientConfig": {"service": {"namespace": "ns", "name": "conv"}}}})");
  val::SetDefaults(webhook);
  CHECK(webhook["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 443);
  CHECK(webhook["spec"]["conversion"]["strategy"] == "Webhook");
  // No review versions are made up in v1.
  CHECK(webhook["spec"]["conversion"]["webhook"]["conversionReviewVersions"] == json{"v1"});

  json port = webhook;
  port["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] = 8443;
  val::SetDefaults(port);
  CHECK(port["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 8443);
}

TEST_CASE("CRD defaults: storedVersions from the storage version, nothing else",
          "[crd-validation]") {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["versions"].push_back({{"name", "v2"}, {"served", true}, {"storage", false}});
  crd["spec"]["versions"][0]["storage"] = false;
  crd["spec"]["versions"][1]["storage"] = true;
  crd.erase("status");
  val::SetDefaults(crd);
  CHECK(crd["status"] == json{{"storedVersions", {"v2"}}});

  // Recorded versions are kept.
  json kept = crdval_test::ValidCRD();
  kept["status"]["storedVersions"] = {"v0", "v1"};
  val::SetDefaults(kept);
  CHECK(kept["status"]["storedVersions"] == json{"v0", "v1"});

  // A complete CRD is left as it is: no printer columns, no preserveUnknownFields, no schema
  // defaults.
  json complete = crdval_test::ValidCRD();
  const json before = complete;
  val::SetDefaults(complete);
  CHECK(complete == before);
}
