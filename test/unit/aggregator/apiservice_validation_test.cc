// APIService defaulting and validation (pkg/aggregator/registry/apiservice_validation.h):
// upstream's field paths and messages, one case per rule.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/aggregator/registry/apiservice_validation.h"

using nlohmann::json;
namespace av = aggregator::validation;

namespace {

// A remote APIService that passes every rule.
json Remote() {
  return json::parse(R"({
    "metadata": {"name": "v1beta1.metrics.k8s.io"},
    "spec": {"group": "metrics.k8s.io", "version": "v1beta1",
             "groupPriorityMinimum": 100, "versionPriority": 100,
             "service": {"namespace": "kube-system", "name": "metrics-server", "port": 443},
             "insecureSkipTLSVerify": true}})");
}

// A local APIService (served by the chain itself) that passes every rule.
json Local() {
  return json::parse(R"({
    "metadata": {"name": "v1.apps"},
    "spec": {"group": "apps", "version": "v1", "groupPriorityMinimum": 17800,
             "versionPriority": 15, "service": null}})");
}

std::vector<std::string> Errors(const json& apiservice) {
  std::vector<std::string> out;
  for (const auto& e : av::ValidateAPIService(apiservice)) {
    out.push_back(apimachinery::validation::ErrorString(e));
  }
  return out;
}

}  // namespace

TEST_CASE("apiservice validation: well-formed remote, local and legacy core APIServices",
          "[aggregator]") {
  CHECK(Errors(Remote()).empty());
  CHECK(Errors(Local()).empty());
  // The legacy core group: name "v1.", no group.
  json core = Local();
  core["metadata"]["name"] = "v1.";
  core["spec"]["group"] = "";
  CHECK(Errors(core).empty());
  // A CA bundle with a service, without insecureSkipTLSVerify.
  json ca = Remote();
  ca["spec"].erase("insecureSkipTLSVerify");
  ca["spec"]["caBundle"] = "LS0tLS1CRUdJTg==";
  CHECK(Errors(ca).empty());
}

TEST_CASE("apiservice validation: the name is spec.version.spec.group", "[aggregator]") {
  json wrong = Remote();
  wrong["metadata"]["name"] = "v1.metrics.k8s.io";
  CHECK(Errors(wrong) ==
        std::vector<std::string>{"metadata.name: Invalid value: \"v1.metrics.k8s.io\": must be "
                                 "`spec.version+\".\"+spec.group`: \"v1beta1.metrics.k8s.io\""});
  // A generateName is held to the same rule.
  json generated = Remote();
  generated["metadata"]["generateName"] = "v1beta1.";
  CHECK(Errors(generated) ==
        std::vector<std::string>{"metadata.generateName: Invalid value: \"v1beta1.\": must be "
                                 "`spec.version+\".\"+spec.group`: \"v1beta1.metrics.k8s.io\""});
  // Names that are no path segment get only the Store's path-segment errors.
  json slash = Remote();
  slash["metadata"]["name"] = "a/b";
  CHECK(Errors(slash).empty());
  json dots = Remote();
  dots["metadata"]["name"] = "..";
  CHECK(Errors(dots).empty());
}

TEST_CASE("apiservice validation: group and version", "[aggregator]") {
  json no_group = Remote();
  no_group["metadata"]["name"] = "v1beta1.";
  no_group["spec"]["group"] = "";
  CHECK(Errors(no_group) ==
        std::vector<std::string>{"spec.group: Required value: only v1 may have an empty group "
                                 "and it better be legacy kube"});

  json bad_group = Remote();
  bad_group["metadata"]["name"] = "v1beta1.Metrics_k8s";
  bad_group["spec"]["group"] = "Metrics_k8s";
  CHECK(Errors(bad_group) ==
        std::vector<std::string>{
            "spec.group: Invalid value: \"Metrics_k8s\": a lowercase RFC 1123 subdomain must "
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"});

  json bad_version = Remote();
  bad_version["metadata"]["name"] = "1beta1.metrics.k8s.io";
  bad_version["spec"]["version"] = "1beta1";
  CHECK(Errors(bad_version) ==
        std::vector<std::string>{
            "spec.version: Invalid value: \"1beta1\": a DNS-1035 label must consist of lower "
            "case alphanumeric characters or '-', start with an alphabetic character, and end "
            "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
            "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"});
}

TEST_CASE("apiservice validation: priorities", "[aggregator]") {
  for (int bad : {0, -1, 20001}) {
    json a = Remote();
    a["spec"]["groupPriorityMinimum"] = bad;
    CHECK(Errors(a) == std::vector<std::string>{
                           "spec.groupPriorityMinimum: Invalid value: " + std::to_string(bad) +
                           ": must be positive and less than 20000"});
  }
  json top = Remote();
  top["spec"]["groupPriorityMinimum"] = 20000;
  top["spec"]["versionPriority"] = 1000;
  CHECK(Errors(top).empty());
  for (int bad : {0, 1001}) {
    json a = Remote();
    a["spec"]["versionPriority"] = bad;
    CHECK(Errors(a) ==
          std::vector<std::string>{"spec.versionPriority: Invalid value: " + std::to_string(bad) +
                                   ": must be positive and less than 1000"});
  }
  // Missing priorities decode as 0.
  json none = Remote();
  none["spec"].erase("groupPriorityMinimum");
  none["spec"].erase("versionPriority");
  CHECK(Errors(none) ==
        std::vector<std::string>{
            "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
            "spec.versionPriority: Invalid value: 0: must be positive and less than 1000"});
}

TEST_CASE("apiservice validation: local APIServices have no TLS settings", "[aggregator]") {
  json a = Local();
  a["spec"]["caBundle"] = "YWJj";  // three bytes
  a["spec"]["insecureSkipTLSVerify"] = true;
  CHECK(Errors(a) ==
        std::vector<std::string>{
            "spec.caBundle: Invalid value: \"3 bytes\": local APIServices may not have a caBundle",
            "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have "
            "insecureSkipTLSVerify"});
  json b = Local();
  b["spec"].erase("service");
  b["spec"]["caBundle"] = "YWJjZA==";
  CHECK(Errors(b) == std::vector<std::string>{"spec.caBundle: Invalid value: \"4 bytes\": local "
                                              "APIServices may not have a caBundle"});
}

TEST_CASE("apiservice validation: the service reference", "[aggregator]") {
  json a = Remote();
  a["spec"]["service"] = {{"port", 0}};
  CHECK(Errors(a) ==
        std::vector<std::string>{
            "spec.service.namespace: Required value", "spec.service.name: Required value",
            "spec.service.port: Invalid value: 0: port is not valid: must be between 1 and "
            "65535, inclusive"});
  json high = Remote();
  high["spec"]["service"]["port"] = 65536;
  CHECK(Errors(high) == std::vector<std::string>{"spec.service.port: Invalid value: 65536: port "
                                                 "is not valid: must be between 1 and 65535, "
                                                 "inclusive"});
  json both = Remote();
  both["spec"]["caBundle"] = "YWJj";
  CHECK(Errors(both) == std::vector<std::string>{"spec.insecureSkipTLSVerify: Invalid value: "
                                                 "true: may not be true if caBundle is present"});
}

TEST_CASE("apiservice validation: condition statuses", "[aggregator]") {
  json a = Remote();
  a["status"] = json::parse(R"({"conditions": [
      {"type": "Available", "status": "True"},
      {"type": "Other", "status": "Maybe"},
      {"type": "Third"}]})");
  std::vector<std::string> errors;
  for (const auto& e : av::ValidateAPIServiceStatus(a)) {
    errors.push_back(apimachinery::validation::ErrorString(e));
  }
  CHECK(errors == std::vector<std::string>{
                      "status.conditions[1].status: Unsupported value: \"Maybe\": supported "
                      "values: \"True\", \"False\", \"Unknown\"",
                      "status.conditions[2].status: Unsupported value: \"\": supported values: "
                      "\"True\", \"False\", \"Unknown\""});
  CHECK(av::ValidateAPIServiceStatus(Remote()).empty());
}

TEST_CASE("apiservice defaults: port 443, and a null service when there is none", "[aggregator]") {
  json a = Remote();
  a["spec"]["service"].erase("port");
  av::SetDefaults(a);
  CHECK(a["spec"]["service"]["port"] == 443);
  json kept = Remote();
  kept["spec"]["service"]["port"] = 8443;
  av::SetDefaults(kept);
  CHECK(kept["spec"]["service"]["port"] == 8443);
  json local = Local();
  local["spec"].erase("service");
  av::SetDefaults(local);
  REQUIRE(local["spec"].contains("service"));
  CHECK(local["spec"]["service"].is_null());
  CHECK(av::IsLocal(local));
  CHECK_FALSE(av::IsLocal(Remote()));
  json bare = {{"metadata", {{"name", "x"}}}};
  av::SetDefaults(bare);
  CHECK(bare["spec"] == json{{"service", nullptr}});
}

TEST_CASE("apiservice defaults: empty omitempty fields are dropped as Go writes them",
          "[aggregator]") {
  json a = json::parse(R"({"spec": {"group": "", "version": "", "caBundle": "",
      "insecureSkipTLSVerify": false, "groupPriorityMinimum": 0,
      "service": {"namespace": "", "name": "", "port": 8443}}})");
  av::SetDefaults(a);
  CHECK(a["spec"] == json::parse(R"({"groupPriorityMinimum": 0, "service": {"port": 8443}})"));
  json kept = Remote();
  av::SetDefaults(kept);
  CHECK(kept == Remote());
}

TEST_CASE("apiservice decoding: caBundle is standard base64, kept canonical", "[aggregator]") {
  auto decode = [](const std::string& ca) -> std::pair<std::optional<std::string>, json> {
    json a = Remote();
    a["spec"]["caBundle"] = ca;
    auto error = av::Decode(a);
    return {error, a["spec"]["caBundle"]};
  };
  CHECK(decode("YWJj") == std::pair<std::optional<std::string>, json>{std::nullopt, "YWJj"});
  CHECK(decode("YW\nJj\r\n") == std::pair<std::optional<std::string>, json>{std::nullopt, "YWJj"});
  CHECK(decode("YR==") == std::pair<std::optional<std::string>, json>{std::nullopt, "YQ=="});
  CHECK(decode("!!!!").first == "illegal base64 data at input byte 0");
  CHECK(decode("YWJ").first == "illegal base64 data at input byte 0");
  CHECK(decode("YWJjZA=").first == "illegal base64 data at input byte 7");
  CHECK(decode("YWJjZA=x").first == "illegal base64 data at input byte 6");
  CHECK(decode("YWJjZA==YQ==").first == "illegal base64 data at input byte 8");
  CHECK(decode("YWJj-_==").first == "illegal base64 data at input byte 4");
  json none = Remote();
  CHECK_FALSE(av::Decode(none));
  CHECK(none == Remote());
}
