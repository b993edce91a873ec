// apiregistration.k8s.io/v1 apiservices served by the aggregator: discovery, create with
// upstream's status, the table, status ignored on the main resource and spec on /status.
#include <catch2/catch.hpp>

#include "pkg/aggregator/registry/apiservice.h"
#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

namespace {

constexpr char kAPIServices[] = "/apis/apiregistration.k8s.io/v1/apiservices";
constexpr char kTable[] = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io";

json Remote(const std::string& version = "v1beta1") {
  return {{"apiVersion", "apiregistration.k8s.io/v1"},
          {"kind", "APIService"},
          {"metadata", {{"name", version + ".metrics.k8s.io"}}},
          {"spec",
           {{"group", "metrics.k8s.io"},
            {"version", version},
            {"groupPriorityMinimum", 100},
            {"versionPriority", 100},
            {"insecureSkipTLSVerify", true},
            {"service", {{"namespace", "kube-system"}, {"name", "metrics-server"}}}}}};
}

json Local() {
  return {{"metadata", {{"name", "v1.apps"}}},
          {"spec",
           {{"group", "apps"},
            {"version", "v1"},
            {"groupPriorityMinimum", 17800},
            {"versionPriority", 15}}}};
}

}  // namespace

TEST_CASE("apiservices: discovery lists the resource and its status", "[aggregator]") {
  testing::Chain api;
  auto r = api.Do("GET", "/apis/apiregistration.k8s.io/v1");
  REQUIRE(r.status == 200);
  json list = r.Json();
  REQUIRE(list["resources"].size() == 2);
  const json& main = list["resources"][0];
  CHECK(main["name"] == "apiservices");
  CHECK(main["singularName"] == "apiservice");
  CHECK(main["namespaced"] == false);
  CHECK(main["kind"] == "APIService");
  CHECK(main["categories"] == json{"api-extensions"});
  CHECK_FALSE(main.contains("shortNames"));
  CHECK(main["verbs"] ==
        json{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"});
  CHECK(list["resources"][1]["name"] == "apiservices/status");
  CHECK(list["resources"][1]["verbs"] == json{"get", "patch", "update"});
}

TEST_CASE("apiservices: create defaults the port and sets upstream's status", "[aggregator]") {
  testing::Chain api;
  json remote = Remote();
  remote["status"] = {{"conditions", {{{"type", "Available"}, {"status", "True"}}}}};
  json created = api.Create(kAPIServices, remote);
  CHECK(created["spec"]["service"] ==
        json{{"namespace", "kube-system"}, {"name", "metrics-server"}, {"port", 443}});
  CHECK(created["status"] == json::object());  // what the client sent is dropped

  json local = api.Create(kAPIServices, Local());
  CHECK(local["spec"]["service"].is_null());
  REQUIRE(local["status"]["conditions"].size() == 1);
  const json& available = local["status"]["conditions"][0];
  CHECK(available["type"] == "Available");
  CHECK(available["status"] == "True");
  CHECK(available["reason"] == "Local");
  CHECK(available["message"] == "Local APIServices are always available");
  CHECK(available["lastTransitionTime"].is_string());

  auto bad = api.Do("POST", kAPIServices,
                    json{{"metadata", {{"name", "v1.other"}}},
                         {"spec",
                          {{"group", "apps"},
                           {"version", "v1"},
                           {"groupPriorityMinimum", 0},
                           {"versionPriority", 15}}}}
                        .dump());
  REQUIRE(bad.status == 422);
  CHECK(bad.Json()["message"] ==
        "APIService.apiregistration.k8s.io \"v1.other\" is invalid: [metadata.name: Invalid "
        "value: \"v1.other\": must be `spec.version+\".\"+spec.group`: \"v1.apps\", "
        "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000]");
  CHECK(bad.Json()["details"]["causes"][0]["field"] == "metadata.name");
  CHECK(bad.Json()["details"]["causes"][1]["field"] == "spec.groupPriorityMinimum");
  CHECK(bad.Json()["details"]["kind"] == "APIService");
  CHECK(bad.Json()["details"]["group"] == "apiregistration.k8s.io");

  auto scoped = api.Do("POST", "/apis/apiregistration.k8s.io/v1/namespaces/default/apiservices",
                       Remote("v1").dump());
  CHECK(scoped.status == 404);
}

TEST_CASE("apiservices: the table prints service and availability", "[aggregator]") {
  testing::Chain api;
  api.Create(kAPIServices, Remote());
  api.Create(kAPIServices, Local());
  auto r = api.Do("GET", kAPIServices, "", {kTable});
  REQUIRE(r.status == 200);
  json table = r.Json();
  std::vector<std::string> names;
  for (const json& c : table["columnDefinitions"]) names.push_back(c["name"]);
  CHECK(names == std::vector<std::string>{"Name", "Service", "Available", "Age"});
  REQUIRE(table["rows"].size() == 2);
  CHECK(table["rows"][0]["cells"][0] == "v1.apps");
  CHECK(table["rows"][0]["cells"][1] == "Local");
  CHECK(table["rows"][0]["cells"][2] == "True");
  CHECK(table["rows"][1]["cells"][0] == "v1beta1.metrics.k8s.io");
  CHECK(table["rows"][1]["cells"][1] == "kube-system/metrics-server");
  CHECK(table["rows"][1]["cells"][2] == "Unknown");
}

TEST_CASE("apiservices: the available column as upstream prints it", "[aggregator]") {
  auto with = [](const json& condition) {
    json a = {{"spec", {{"service", {{"namespace", "ns"}, {"name", "svc"}}}}},
              {"status", {{"conditions", {{{"type", "Other"}, {"status", "True"}}, condition}}}}};
    return aggregator::AvailableColumn(a);
  };
  CHECK(with({{"type", "Available"}, {"status", "True"}, {"reason", "Passed"}}) == "True");
  CHECK(with({{"type", "Available"}, {"status", "False"}, {"reason", "MissingEndpoints"}}) ==
        "False (MissingEndpoints)");
  CHECK(with({{"type", "Available"}, {"status", "False"}}) == "False");
  CHECK(with({{"type", "Available"}, {"status", "Unknown"}, {"reason", "Pending"}}) ==
        "Unknown (Pending)");
  CHECK(with({{"type", "Other"}, {"status", "False"}}) == "Unknown");
  CHECK(aggregator::ServiceColumn(
            {{"spec", {{"service", {{"namespace", "ns"}, {"name", "svc"}}}}}}) == "ns/svc");
  CHECK(aggregator::ServiceColumn({{"spec", {{"service", nullptr}}}}) == "Local");
  CHECK(aggregator::ServiceColumn(json::object()) == "Local");
}

TEST_CASE("apiservices: status is the subresource's, spec the main resource's", "[aggregator]") {
  testing::Chain api;
  json created = api.Create(kAPIServices, Remote());
  const std::string one = std::string(kAPIServices) + "/v1beta1.metrics.k8s.io";

  // The main resource: updates need a resourceVersion; status changes are ignored.
  json update = created;
  update["metadata"].erase("resourceVersion");
  auto unconditional = api.Do("PUT", one, update.dump());
  REQUIRE(unconditional.status == 422);
  CHECK(unconditional.Json()["message"] ==
        "apiservices.apiregistration.k8s.io \"v1beta1.metrics.k8s.io\" is invalid: "
        "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update");
  update = created;
  update["spec"]["versionPriority"] = 50;
  update["status"] = {{"conditions", {{{"type", "Available"}, {"status", "True"}}}}};
  auto put = api.Do("PUT", one, update.dump());
  REQUIRE(put.status == 200);
  CHECK(put.Json()["spec"]["versionPriority"] == 50);
  CHECK(put.Json()["status"] == json::object());

  // /status: spec changes are ignored, conditions are validated.
  json status = put.Json();
  status["spec"]["versionPriority"] = 7;
  status["status"] = {{"conditions",
                       {{{"type", "Available"},
                         {"status", "False"},
                         {"reason", "MissingEndpoints"},
                         {"message", "no endpoints"},
                         {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}};
  auto put_status = api.Do("PUT", one + "/status", status.dump());
  REQUIRE(put_status.status == 200);
  CHECK(put_status.Json()["spec"]["versionPriority"] == 50);
  CHECK(put_status.Json()["status"]["conditions"][0]["reason"] == "MissingEndpoints");
  auto table = api.Do("GET", one, "", {kTable});
  REQUIRE(table.status == 200);
  CHECK(table.Json()["rows"][0]["cells"][2] == "False (MissingEndpoints)");

  json bad = put_status.Json();
  bad["status"]["conditions"][0]["status"] = "Maybe";
  auto refused = api.Do("PUT", one + "/status", bad.dump());
  REQUIRE(refused.status == 422);
  CHECK(refused.Json()["message"] ==
        "APIService.apiregistration.k8s.io \"v1beta1.metrics.k8s.io\" is invalid: "
        "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"True\", "
        "\"False\", \"Unknown\"");

  // A merge patch of /status works on the conditions (a list map keyed by type).
  auto patched = api.Do("PATCH", one + "/status",
                        R"({"status":{"conditions":[{"type":"Available","status":"True",)"
                        R"("reason":"Passed","message":"all checks passed"}]}})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(patched.status == 200);
  CHECK(patched.Json()["status"]["conditions"][0]["status"] == "True");
}

TEST_CASE("apiservices: JSON only, as for other kinds without a protobuf message", "[aggregator]") {
  testing::Chain api;
  api.Create(kAPIServices, Remote());
  auto r = api.Do("GET", kAPIServices, "",
                  {"Accept: application/vnd.kubernetes.protobuf, application/json"});
  REQUIRE(r.status == 200);
  REQUIRE(r.headers.Get("Content-Type"));
  CHECK(r.headers.Get("Content-Type")->starts_with("application/json"));
  CHECK(r.Json()["items"].size() == 1);
}

TEST_CASE("apiservices: a caBundle that is not base64 is a bad request", "[aggregator]") {
  testing::Chain api;
  json a = Remote();
  a["spec"].erase("insecureSkipTLSVerify");
  a["spec"]["caBundle"] = "!!!";
  auto r = api.Do("POST", kAPIServices, a.dump());
  REQUIRE(r.status == 400);
  CHECK(r.Json()["message"] ==
        "APIService in version \"v1\" cannot be handled as a APIService: illegal base64 data at "
        "input byte 0");
}
