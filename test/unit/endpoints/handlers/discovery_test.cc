// Discovery of the whole chain: legacy and aggregated forms, negotiation, ETags.
#include <catch2/catch.hpp>

#include "cmd/kube-apiserver/app/server.h"
#include "pkg/genericserver/endpoints/discovery_handler.h"
#include "test/unit/support/handler_harness.h"

using nlohmann::json;

namespace {

genericserver::CompletedConfig OpenConfig() {
  genericserver::Config c;  // anonymous users, AlwaysAllow
  return c.Complete();
}

struct Chain {
  Chain() : config(OpenConfig()) {
    storage::StorageConfig s;
    s.backend = "memory";
    storage = std::move(*storage::StorageFactory::Open(s, *config.Get().io));
    chain = std::make_unique<app::ServerChain>(app::CreateServerChain(config, *storage));
    chain->Outermost().PrepareRun();
  }
  testing::Recorded Get(const std::string& path, std::vector<std::string> headers = {}) {
    auto ctx = testing::MakeRequest("GET", path);
    for (const std::string& h : headers) {
      const size_t colon = h.find(':');
      ctx.request.headers.Add(h.substr(0, colon), h.substr(colon + 2));
    }
    return testing::Serve(chain->Outermost().FilteredHandler(), std::move(ctx));
  }
  genericserver::CompletedConfig config;
  std::unique_ptr<storage::StorageFactory> storage;
  std::unique_ptr<app::ServerChain> chain;
};

constexpr char kKubectlAccept[] =
    "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

}  // namespace

TEST_CASE("discovery negotiation: the client's order, never 406", "[discovery]") {
  using endpoints::NegotiateDiscovery;
  CHECK(NegotiateDiscovery(kKubectlAccept + 8) == "apidiscovery.k8s.io/v2");
  CHECK(NegotiateDiscovery(
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList") ==
        "apidiscovery.k8s.io/v2beta1");
  CHECK(NegotiateDiscovery("application/json, */*").empty());
  CHECK(NegotiateDiscovery("").empty());
  CHECK(NegotiateDiscovery("text/html").empty());
  CHECK(NegotiateDiscovery("application/json;q=0.5,application/"
                           "json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList") ==
        "apidiscovery.k8s.io/v2");
}

TEST_CASE("/api and /apis: aggregated for kubectl, legacy otherwise", "[discovery]") {
  Chain c;
  auto api = c.Get("/api", {kKubectlAccept});
  REQUIRE(api.status == 200);
  CHECK(api.headers.Get("Content-Type") ==
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  const json core = api.Json();
  CHECK(core["kind"] == "APIGroupDiscoveryList");
  CHECK(core["apiVersion"] == "apidiscovery.k8s.io/v2");
  REQUIRE(core["items"].size() == 1);
  CHECK(!core["items"][0]["metadata"].contains("name"));
  const json& v1 = core["items"][0]["versions"][0];
  CHECK(v1["version"] == "v1");
  CHECK(v1["freshness"] == "Current");
  json namespaces;
  for (const auto& r : v1["resources"]) {
    if (r["resource"] == "namespaces") namespaces = r;
  }
  CHECK(namespaces["scope"] == "Cluster");
  CHECK(namespaces["singularResource"] == "namespace");
  CHECK(namespaces["shortNames"] == json::array({"ns"}));
  CHECK(namespaces["responseKind"] ==
        json{{"group", ""}, {"version", "v1"}, {"kind", "Namespace"}});
  CHECK(namespaces["subresources"].size() == 2);

  auto beta =
      c.Get("/apis",
            {"Accept: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"});
  CHECK(beta.headers.Get("Content-Type") ==
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
  CHECK(beta.Json()["apiVersion"] == "apidiscovery.k8s.io/v2beta1");
  bool leases = false;
  const json groups = beta.Json();
  for (const auto& g : groups["items"]) {
    if (g["metadata"]["name"] == "coordination.k8s.io") {
      leases = g["versions"][0]["resources"][0]["resource"] == "leases";
    }
  }
  CHECK(leases);

  auto legacy = c.Get("/api", {"Accept: application/json, */*"});
  CHECK(legacy.headers.Get("Content-Type") == "application/json");
  CHECK(legacy.Json()["kind"] == "APIVersions");
  auto html = c.Get("/apis", {"Accept: text/html"});
  CHECK(html.status == 200);
  CHECK(html.Json()["kind"] == "APIGroupList");

  auto resources = c.Get("/api/v1");
  CHECK(resources.Json()["kind"] == "APIResourceList");
  bool status = false;
  const json listed = resources.Json();
  for (const auto& r : listed["resources"]) status = status || r["name"] == "namespaces/status";
  CHECK(status);
}

TEST_CASE("/api: ETag and 304", "[discovery]") {
  Chain c;
  auto first = c.Get("/api", {kKubectlAccept});
  auto etag = first.headers.Get("ETag");
  REQUIRE(etag);
  CHECK(first.headers.Get("Vary") == "Accept");
  auto again = c.Get("/api", {kKubectlAccept, "If-None-Match: " + std::string(*etag)});
  CHECK(again.status == 304);
  CHECK(again.body.empty());
  auto other = c.Get("/api", {kKubectlAccept, "If-None-Match: \"nope\""});
  CHECK(other.status == 200);
}
