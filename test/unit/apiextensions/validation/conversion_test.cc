#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/names.h"
#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

json WithConversion(const char* conversion) {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["conversion"] = json::parse(conversion);
  return crd;
}

json WithWebhookURL(const std::string& url) {
  json crd = WithConversion(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v1"], "clientConfig": {}}})");
  crd["spec"]["conversion"]["webhook"]["clientConfig"]["url"] = url;
  return crd;
}

constexpr const char* kForm = "; desired format: https://host[/path]";

}  // namespace

TEST_CASE("CRD conversion: strategies", "[crd-validation]") {
  CHECK(Create(WithConversion(R"({"strategy": ""})")) ==
        Strings{"spec.conversion.strategy: Required value"});
  CHECK(
      Create(WithConversion(R"({"strategy": "Magic"})")) ==
      Strings{
          R"(spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook")"});
  CHECK(Create(WithConversion(R"({"strategy": "None", "webhook": {
      "conversionReviewVersions": ["v1"], "clientConfig": {"url": "https://example.com"}}})")) ==
        Strings{"spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy "
                "is not set to Webhook",
                "spec.conversion.conversionReviewVersions: Forbidden: should not be set when "
                "strategy is not set to Webhook"});
  // A CA bundle that does not load is accepted on create (the CRD is not established yet).
  CHECK(Create(WithConversion(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v1", "v1beta1"],
      "clientConfig": {"service": {"namespace": "ns", "name": "conv", "path": "/convert",
                                   "port": 8443}, "caBundle": "Zm9v"}}})"))
            .empty());
}

TEST_CASE("CRD conversion: a webhook needs a client config and review versions",
          "[crd-validation]") {
  CHECK(Create(WithConversion(R"({"strategy": "Webhook"})")) ==
        Strings{"spec.conversion.webhookClientConfig: Required value: required when strategy is "
                "set to Webhook",
                "spec.conversion.conversionReviewVersions: Required value"});
  CHECK(Create(WithConversion(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v1"],
      "clientConfig": {"url": "https://example.com", "service": {"namespace": "ns", "name": "conv",
                                                                 "port": 443}}}})")) ==
        Strings{"spec.conversion.webhookClientConfig: Required value: exactly one of url or "
                "service is required"});
  CHECK(
      Create(WithConversion(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v2", "v2", "V3"], "clientConfig": {"url": "https://example.com"}}})")) ==
      Strings{
          R"(spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version)",
          std::string(R"(spec.conversion.conversionReviewVersions[2]: Invalid value: "V3": )") +
              crdval_test::kDNS1035,
          R"(spec.conversion.conversionReviewVersions: Invalid value: []string{"v2", "v2", "V3"}: must include at least one of v1, v1beta1)"});
}

TEST_CASE("CRD conversion: webhook URLs", "[crd-validation]") {
  CHECK(Create(WithWebhookURL("https://conv.example.com:8443/convert")).empty());
  CHECK(
      Create(WithWebhookURL("http://user:pw@example.com:8443/convert?x=1#frag")) ==
      Strings{
          std::string(
              R"(spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme)") +
              kForm,
          R"(spec.conversion.webhookClientConfig.url: Invalid value: "user:pw": user information is not permitted in the URL)",
          R"(spec.conversion.webhookClientConfig.url: Invalid value: "frag": fragments are not permitted in the URL)",
          R"(spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL)"});
  CHECK(
      Create(WithWebhookURL("https:///convert")) ==
      Strings{
          std::string(
              R"(spec.conversion.webhookClientConfig.url: Invalid value: "": host must be specified)") +
          kForm});
  CHECK(
      Create(WithWebhookURL(":8443/convert")) ==
      Strings{
          std::string(
              R"(spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse ":8443/convert": missing protocol scheme)") +
          kForm});
  CHECK(
      Create(WithWebhookURL("https://exa mple.com/")) ==
      Strings{
          std::string(
              R"(spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "https://exa mple.com/": invalid character " " in host name)") +
          kForm});
  CHECK(
      Create(WithWebhookURL("https://example.com:https/")) ==
      Strings{
          std::string(
              R"(spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "https://example.com:https/": invalid port ":https" after host)") +
          kForm});
  CHECK(
      Create(WithWebhookURL("https://example.com/%zz")) ==
      Strings{
          std::string(
              R"(spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "https://example.com/%zz": invalid URL escape "%zz")") +
          kForm});
}

TEST_CASE("CRD conversion: webhook services", "[crd-validation]") {
  json crd = WithConversion(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v1"],
      "clientConfig": {"service": {"namespace": "", "name": "", "path": "convert//x/",
                                   "port": 70000}}}})");
  CHECK(
      Create(crd) ==
      Strings{
          "spec.conversion.webhookClientConfig.service.name: Required value",
          "spec.conversion.webhookClientConfig.service.namespace: Required value",
          "spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not "
          "valid: must be between 1 and 65535, inclusive",
          R"(spec.conversion.webhookClientConfig.service.path: Invalid value: "convert//x/": must start with a '/')",
          R"(spec.conversion.webhookClientConfig.service.path: Invalid value: "convert//x/": segment[1] may not be empty)"});

  json upper = WithConversion(R"({"strategy": "Webhook", "webhook": {
      "conversionReviewVersions": ["v1"],
      "clientConfig": {"service": {"namespace": "ns", "name": "conv", "path": "/Convert", "port": 443}}}})");
  CHECK(
      Create(upper) ==
      Strings{
          R"(spec.conversion.webhookClientConfig.service.path: Invalid value: "/Convert": segment[0]: )" +
          apimachinery::validation::IsDNS1123Subdomain("Convert")[0]});
}

TEST_CASE("CRD conversion: webhooks need spec.preserveUnknownFields false", "[crd-validation]") {
  json crd = WithWebhookURL("https://example.com");
  crd["spec"]["preserveUnknownFields"] = true;
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true)",
          "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
          "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"});
}
