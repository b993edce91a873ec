// core/v1 services: defaults, cluster IPs and node ports held and freed, the table.
#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

namespace {
constexpr char kServices[] = "/api/v1/namespaces/default/services";
constexpr char kMergePatch[] = "Content-Type: application/merge-patch+json";

json Service(const std::string& name, const json& spec) {
  return {{"metadata", {{"name", name}}}, {"spec", spec}};
}
}  // namespace

TEST_CASE("services: a plain service gets upstream's defaults and a cluster IP", "[builtin]") {
  master::Config config;
  config.service_cluster_ip_range = "10.96.0.0/28";
  testing::Chain api(config);
  json svc = api.Create(
      kServices,
      Service("web", json::parse(R"({"selector":{"app":"web"},"ports":[{"port":80}]})")));
  const json& spec = svc["spec"];
  const std::string ip = spec["clusterIP"];
  CHECK(ip.starts_with("10.96.0."));
  CHECK(ip != "10.96.0.0");
  CHECK(ip != "10.96.0.15");  // broadcast
  CHECK(spec["clusterIPs"] == json{ip});
  CHECK(spec["ipFamilies"] == json{"IPv4"});
  CHECK(spec["ipFamilyPolicy"] == "SingleStack");
  CHECK(spec["type"] == "ClusterIP");
  CHECK(spec["sessionAffinity"] == "None");
  CHECK(spec["internalTrafficPolicy"] == "Cluster");
  CHECK(spec["ports"][0] == json::parse(R"({"port":80,"protocol":"TCP","targetPort":80})"));
  CHECK(!spec.contains("externalTrafficPolicy"));
  CHECK(svc["status"] == json::parse(R"({"loadBalancer":{}})"));

  // A re-apply without clusterIP keeps the one held; changing it is refused.
  const std::string web = std::string(kServices) + "/web";
  auto put = api.Do(
      "PUT", web,
      Service("web", json::parse(R"({"selector":{"app":"web"},"ports":[{"port":8080}]})")).dump());
  REQUIRE(put.status == 200);
  CHECK(put.Json()["spec"]["clusterIP"] == ip);
  auto moved =
      api.Do("PATCH", web, R"({"spec":{"clusterIP":"10.96.0.9","clusterIPs":["10.96.0.9"]}})",
             {kMergePatch});
  if (ip != "10.96.0.9") {
    REQUIRE(moved.status == 422);
    CHECK(moved.Json()["message"] ==
          "Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.9\"}: "
          "may not change once set");
  }
}

TEST_CASE("services: cluster IPs are unique, in range, and freed on delete", "[builtin]") {
  master::Config config;
  config.service_cluster_ip_range = "10.96.0.0/29";  // six usable addresses
  testing::Chain api(config);
  auto make = [&](const std::string& name, const std::string& ip) {
    json spec = {{"ports", {{{"port", 80}}}}};
    if (!ip.empty()) spec["clusterIP"] = ip;
    return api.Do("POST", kServices, Service(name, spec).dump());
  };
  REQUIRE(make("fixed", "10.96.0.1").status == 201);
  auto taken = make("again", "10.96.0.1");
  REQUIRE(taken.status == 422);
  CHECK(taken.Json()["message"] ==
        "Service \"again\" is invalid: spec.clusterIPs[0]: Invalid value: \"10.96.0.1\": failed to "
        "allocate IP 10.96.0.1: provided IP is already allocated");
  auto outside = make("outside", "10.97.0.1");
  REQUIRE(outside.status == 422);
  CHECK(
      std::string(outside.Json()["message"])
          .find("the provided IP (10.97.0.1) is not in the valid range. The range of valid IPs is "
                "10.96.0.0/29") != std::string::npos);
  // Dry runs fill an IP in without holding it.
  auto dry = api.Do("POST", std::string(kServices) + "?dryRun=All",
                    Service("dry", {{"ports", {{{"port", 80}}}}}).dump());
  REQUIRE(dry.status == 201);
  CHECK(!dry.Json()["spec"]["clusterIP"].get<std::string>().empty());
  std::set<std::string> ips = {"10.96.0.1"};
  for (int i = 0; i < 5; ++i) {
    auto r = make("s" + std::to_string(i), "");
    REQUIRE(r.status == 201);
    ips.insert(r.Json()["spec"]["clusterIP"].get<std::string>());
  }
  CHECK(ips.size() == 6);
  auto full = make("full", "");
  CHECK(full.status == 500);
  REQUIRE(api.Do("DELETE", std::string(kServices) + "/fixed").status == 200);
  auto reused = make("reused", "10.96.0.1");
  CHECK(reused.status == 201);
}

TEST_CASE("services: node ports are allocated, kept on update, refused when taken", "[builtin]") {
  testing::Chain api;
  json np = api.Create(kServices, Service("np", json::parse(R"({"type":"NodePort","ports":[
          {"name":"http","port":80},{"name":"https","port":443,"nodePort":30443}]})")));
  const json& spec = np["spec"];
  const int64_t http = spec["ports"][0]["nodePort"];
  CHECK(http >= 30000);
  CHECK(http <= 32767);
  CHECK(spec["ports"][1]["nodePort"] == 30443);
  CHECK(spec["externalTrafficPolicy"] == "Cluster");

  auto clash = api.Do(
      "POST", kServices,
      Service("clash", json::parse(R"({"type":"NodePort","ports":[{"port":1,"nodePort":30443}]})"))
          .dump());
  REQUIRE(clash.status == 422);
  CHECK(clash.Json()["message"] ==
        "Service \"clash\" is invalid: spec.ports[0].nodePort: Invalid value: 30443: provided port "
        "is already allocated");
  auto low = api.Do(
      "POST", kServices,
      Service("low", json::parse(R"({"type":"NodePort","ports":[{"port":1,"nodePort":80}]})"))
          .dump());
  REQUIRE(low.status == 422);
  CHECK(std::string(low.Json()["message"]).find("The range of valid ports is 30000-32767") !=
        std::string::npos);

  // An apply that leaves nodePort out keeps the allocated one.
  auto put = api.Do("PUT", std::string(kServices) + "/np",
                    Service("np", json::parse(R"({"type":"NodePort","ports":[
                        {"name":"http","port":80},{"name":"https","port":443,"nodePort":30443}]})"))
                        .dump());
  REQUIRE(put.status == 200);
  CHECK(put.Json()["spec"]["ports"][0]["nodePort"] == http);
  // Back to ClusterIP: the node ports are freed.
  auto back = api.Do(
      "PUT", std::string(kServices) + "/np",
      Service("np", json::parse(R"({"type":"ClusterIP","ports":[{"name":"http","port":80}]})"))
          .dump());
  REQUIRE(back.status == 200);
  CHECK(api.Do("POST", kServices,
               Service("clash",
                       json::parse(R"({"type":"NodePort","ports":[{"port":1,"nodePort":30443}]})"))
                   .dump())
            .status == 201);

  auto table =
      api.Do("GET", kServices, "", {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  const json rows = table.Json()["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["cells"][1] == "NodePort");
  CHECK(rows[0]["cells"][4] == "1:30443/TCP");
  CHECK(rows[1]["cells"][3] == "<none>");
}

TEST_CASE("services: headless and ExternalName services hold nothing", "[builtin]") {
  testing::Chain api;
  json headless = api.Create(
      kServices,
      Service("h",
              json::parse(R"({"clusterIP":"None","selector":{"a":"b"},"ports":[{"port":80}]})")));
  CHECK(headless["spec"]["clusterIPs"] == json{"None"});
  CHECK(headless["spec"]["ipFamilyPolicy"] == "SingleStack");
  json bare = api.Create(kServices, Service("bare", json::parse(R"({"clusterIP":"None"})")));
  CHECK(bare["spec"]["ipFamilyPolicy"] == "RequireDualStack");
  json external = api.Create(
      kServices,
      Service("ext", json::parse(R"({"type":"ExternalName","externalName":"example.com"})")));
  CHECK(!external["spec"].contains("clusterIP"));
  CHECK(!external["spec"].contains("ipFamilies"));
  CHECK(!external["spec"].contains("internalTrafficPolicy"));
  auto missing = api.Do("POST", kServices, Service("noname", {{"type", "ExternalName"}}).dump());
  REQUIRE(missing.status == 422);
  CHECK(missing.Json()["details"]["causes"][0]["field"] == "spec.externalName");
}
