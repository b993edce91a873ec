// The aggregator's own logic without a network: the APIService table, merged discovery
// order and staleness, the identity headers of proxied requests, built-in priorities.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/aggregator/apiservice_table.h"
#include "pkg/aggregator/discovery.h"
#include "pkg/aggregator/priority.h"
#include "pkg/aggregator/proxy.h"

using nlohmann::json;

namespace {

json Remote(const std::string& version, const std::string& group, int group_priority,
            int version_priority, bool available) {
  return {{"metadata", {{"name", version + "." + group}}},
          {"spec",
           {{"group", group},
            {"version", version},
            {"groupPriorityMinimum", group_priority},
            {"versionPriority", version_priority},
            {"insecureSkipTLSVerify", true},
            {"service", {{"namespace", "ns"}, {"name", "svc"}, {"port", 443}}}}},
          {"status",
           {{"conditions",
             {{{"type", "Available"},
               {"status", available ? "True" : "False"},
               {"reason", available ? "Passed" : "FailedDiscoveryCheck"},
               {"message", "m"}}}}}}};
}

endpoints::APIGroupInfo Group(const std::string& name, std::vector<std::string> versions) {
  endpoints::APIGroupInfo info;
  info.group = {name, std::move(versions)};
  return info;
}

std::vector<std::string> Names(const std::vector<endpoints::APIGroupInfo>& groups) {
  std::vector<std::string> out;
  for (const auto& g : groups) out.push_back(g.group.name);
  return out;
}

}  // namespace

TEST_CASE("the table reads an APIService: service, TLS settings, Available", "[aggregator]") {
  aggregator::APIServiceTable table("", "");
  table.Upsert(Remote("v1beta1", "metrics.k8s.io", 100, 100, true));
  auto info = table.Find("metrics.k8s.io", "v1beta1");
  REQUIRE(info);
  CHECK(info->name == "v1beta1.metrics.k8s.io");
  REQUIRE(info->service);
  CHECK(info->service->ns == "ns");
  CHECK(info->ServerName() == "svc.ns.svc");
  CHECK(info->tls != nullptr);
  CHECK(info->available);
  CHECK(info->available_reason == "Passed");
  CHECK(table.HasRemoteGroup("metrics.k8s.io"));
  CHECK_FALSE(table.HasRemoteGroup("apps"));

  SECTION("a status change keeps the TLS settings; a spec change makes new ones") {
    auto tls = info->tls;
    table.Upsert(Remote("v1beta1", "metrics.k8s.io", 100, 100, false));
    CHECK(table.Find("metrics.k8s.io", "v1beta1")->tls == tls);
    CHECK_FALSE(table.Find("metrics.k8s.io", "v1beta1")->available);
    table.Upsert(Remote("v1beta1", "metrics.k8s.io", 100, 101, false));
    CHECK(table.Find("metrics.k8s.io", "v1beta1")->tls != tls);
  }
  SECTION("a caBundle that holds no certificate: the proxy reports why") {
    json bad = Remote("v1", "bad.example.com", 100, 100, true);
    bad["spec"].erase("insecureSkipTLSVerify");
    bad["spec"]["caBundle"] = "bm90IGEgY2VydGlmaWNhdGU=";  // "not a certificate"
    table.Upsert(bad);
    auto b = table.Find("bad.example.com", "v1");
    CHECK(b->tls == nullptr);
    CHECK(b->tls_error == "unable to load root certificates: unable to parse bytes as PEM block");
  }
  SECTION("removed") {
    table.Remove("v1beta1.metrics.k8s.io");
    CHECK_FALSE(table.Find("metrics.k8s.io", "v1beta1"));
  }
}

TEST_CASE("APIResourceList parsing keeps what discovery needs", "[aggregator]") {
  auto resources = aggregator::ParseAPIResourceList(R"({"kind":"APIResourceList",
    "groupVersion":"wardle.example.com/v1alpha1","resources":[
    {"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder",
     "verbs":["get","list"],"shortNames":["fl"],"categories":["all"]},
    {"name":"flunders/status","singularName":"","namespaced":true,"kind":"Flunder",
     "verbs":["get"]}]})");
  REQUIRE(resources);
  REQUIRE(resources->size() == 2);
  CHECK((*resources)[0].name == "flunders");
  CHECK((*resources)[0].namespaced);
  CHECK((*resources)[0].short_names == std::vector<std::string>{"fl"});
  CHECK((*resources)[0].categories == std::vector<std::string>{"all"});
  CHECK((*resources)[1].name == "flunders/status");
  CHECK_FALSE(aggregator::ParseAPIResourceList("{}"));
  CHECK_FALSE(aggregator::ParseAPIResourceList("not json"));
}

TEST_CASE("merged discovery: upstream's group order, remote groups, stale versions",
          "[aggregator]") {
  aggregator::APIServiceTable table("", "");
  table.Upsert(Remote("v1beta1", "metrics.k8s.io", 100, 100, true));
  table.Upsert(Remote("v1alpha1", "wardle.example.com", 1000, 15, true));
  table.Upsert(Remote("v1beta1", "wardle.example.com", 1000, 15, false));
  table.Upsert(Remote("v1", "high.example.com", 17900, 15, true));
  endpoints::APIResource flunders;
  flunders.name = "flunders";
  flunders.namespaced = true;
  table.SetResources("v1alpha1.wardle.example.com", {flunders});
  std::vector<endpoints::APIGroupInfo> chain = {Group("", {"v1"}), Group("crd.example.com", {"v1"}),
                                                Group("apps", {"v1"}),
                                                Group("apiregistration.k8s.io", {"v1"})};
  auto merged = aggregator::MergedGroups(chain, table);
  // groupPriorityMinimum first (apiregistration 18000, the remote 17900, apps 17800), then
  // the name among equals (1000: a CRD group and wardle), metrics last (100); no core group.
  CHECK(Names(merged) == std::vector<std::string>{"apiregistration.k8s.io", "high.example.com",
                                                  "apps", "crd.example.com", "wardle.example.com",
                                                  "metrics.k8s.io"});
  const auto& wardle = merged[4];
  // versionPriority ties: Kubernetes' version order
  CHECK(wardle.group.versions == std::vector<std::string>{"v1beta1", "v1alpha1"});
  CHECK(wardle.stale_versions == std::set<std::string>{"v1beta1"});
  REQUIRE(wardle.resources.at("v1alpha1").size() == 1);
  CHECK(wardle.resources.at("v1alpha1")[0].name == "flunders");

  const std::string item = endpoints::EncodeAPIGroupDiscovery(wardle);
  const json encoded = json::parse(item);
  CHECK(encoded["versions"][0] == json{{"version", "v1beta1"}, {"freshness", "Stale"}});
  CHECK(encoded["versions"][1]["freshness"] == "Current");
  CHECK(encoded["versions"][1]["resources"][0]["resource"] == "flunders");
}

TEST_CASE("a remote APIService of a group the chain serves does not hide it", "[aggregator]") {
  aggregator::APIServiceTable table("", "");
  table.Upsert(Remote("v2", "apps", 17800, 1, true));
  auto merged = aggregator::MergedGroups({Group("apps", {"v1"})}, table);
  REQUIRE(merged.size() == 1);
  CHECK(merged[0].group.versions == std::vector<std::string>{"v1"});
}

TEST_CASE("identity headers of proxied requests", "[aggregator]") {
  authn::UserInfo user;
  user.name = "jane";
  user.groups = {"devs", "system:authenticated"};
  user.extra["scopes"] = {"a", "b"};
  user.extra["example.com/key with space"] = {"v"};
  genericserver::Headers headers;
  headers.Add("X-Remote-User", "spoofed");
  aggregator::SetAuthProxyHeaders(headers, user);
  CHECK(headers.Values("X-Remote-User") == std::vector<std::string_view>{"jane"});
  CHECK(headers.Values("X-Remote-Group") ==
        std::vector<std::string_view>{"devs", "system:authenticated"});
  CHECK(headers.Values("X-Remote-Extra-scopes") == std::vector<std::string_view>{"a", "b"});
  // not a token character: percent-encoded, as upstream's headerKeyEscape
  CHECK(headers.Values("X-Remote-Extra-example.com%2Fkey%20with%20space") ==
        std::vector<std::string_view>{"v"});
}

TEST_CASE("built-in APIService priorities are upstream's", "[aggregator]") {
  CHECK(aggregator::GroupPriority("") == 18000);
  CHECK(aggregator::GroupPriority("apps") == 17800);
  CHECK(aggregator::GroupPriority("wardle.example.com") == 1000);
  CHECK(aggregator::VersionPriority("", "v1") == 1);
  CHECK(aggregator::VersionPriority("apps", "v1") == 15);
  CHECK(aggregator::VersionPriority("autoscaling", "v2") == 30);
  CHECK(aggregator::VersionPriority("flowcontrol.apiserver.k8s.io", "v1") == 21);
  CHECK(aggregator::VersionPriority("storage.k8s.io", "v1beta1") == 9);
}
