// kube-system/extension-apiserver-authentication: upstream's keys and encodings, merged with
// what other servers published, and written by the post-start hook through the real chain.
#include "pkg/master/bootstrap/authentication_configmap.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cmd/kube-apiserver/app/server.h"
#include "pkg/pki/pki.h"
#include "test/unit/support/handler_harness.h"

namespace {

using master::bootstrap::AuthenticationConfigMapData;
using master::bootstrap::ClusterAuthenticationInfo;
using Data = std::map<std::string, std::string>;

std::string NewCA(const std::string& name, std::chrono::hours validity = std::chrono::hours(24)) {
  return pki::GenerateCA(name, validity)->cert_pem;
}

ClusterAuthenticationInfo Kubeadm(const std::string& client_ca, const std::string& proxy_ca) {
  ClusterAuthenticationInfo info;
  info.client_ca = client_ca;
  info.request_header_ca = proxy_ca;
  info.request_header_username_headers = {"X-Remote-User"};
  info.request_header_group_headers = {"X-Remote-Group"};
  info.request_header_extra_header_prefixes = {"X-Remote-Extra-"};
  info.request_header_allowed_names = {"front-proxy-client"};
  return info;
}

}  // namespace

TEST_CASE("authentication configmap: upstream's keys and JSON lists") {
  const std::string client_ca = NewCA("client"), other_client = NewCA("other-client");
  const std::string proxy_ca = NewCA("proxy");
  Data data = AuthenticationConfigMapData({}, Kubeadm(client_ca + other_client, proxy_ca));
  CHECK(data == Data{{"client-ca-file", client_ca + other_client},
                     {"requestheader-client-ca-file", proxy_ca},
                     {"requestheader-allowed-names", R"(["front-proxy-client"])"},
                     {"requestheader-username-headers", R"(["X-Remote-User"])"},
                     {"requestheader-group-headers", R"(["X-Remote-Group"])"},
                     {"requestheader-extra-headers-prefix", R"(["X-Remote-Extra-"])"}});

  // No front-proxy CA: the headers mean nothing and are left out.
  ClusterAuthenticationInfo plain = Kubeadm(client_ca, "");
  CHECK(AuthenticationConfigMapData({}, plain) == Data{{"client-ca-file", client_ca}});
  // Empty lists are written as empty JSON lists.
  ClusterAuthenticationInfo any_name = Kubeadm(client_ca, proxy_ca);
  any_name.request_header_allowed_names.clear();
  CHECK(AuthenticationConfigMapData({}, any_name).at("requestheader-allowed-names") == "[]");
  CHECK(AuthenticationConfigMapData({}, ClusterAuthenticationInfo{}).empty());
}

TEST_CASE("authentication configmap: what others published is kept and merged") {
  const std::string client_ca = NewCA("client"), proxy_ca = NewCA("proxy");
  const std::string their_client = NewCA("theirs"), their_proxy = NewCA("their-proxy");
  const std::string expired = NewCA("expired", std::chrono::hours(-1));
  Data existing = {{"client-ca-file", their_client + expired + client_ca},
                   {"requestheader-client-ca-file", "junk\n" + their_proxy},
                   {"requestheader-allowed-names", R"(["aggregator","front-proxy-client"])"},
                   {"requestheader-username-headers", "null"},
                   {"requestheader-group-headers", "not json"},
                   {"requestheader-extra-headers-prefix", R"([1])"},
                   {"unrelated", "dropped"}};
  Data data = AuthenticationConfigMapData(existing, Kubeadm(client_ca, proxy_ca));
  // Existing certificates first, expired ones and duplicates dropped.
  CHECK(data.at("client-ca-file") == their_client + client_ca);
  CHECK(data.at("requestheader-client-ca-file") == their_proxy + proxy_ca);
  CHECK(data.at("requestheader-allowed-names") == R"(["aggregator","front-proxy-client"])");
  CHECK(data.at("requestheader-username-headers") == R"(["X-Remote-User"])");
  CHECK(data.at("requestheader-group-headers") == R"(["X-Remote-Group"])");
  CHECK(data.at("requestheader-extra-headers-prefix") == R"(["X-Remote-Extra-"])");
  CHECK_FALSE(data.contains("unrelated"));
  // Written again, nothing changes.
  CHECK(AuthenticationConfigMapData(data, Kubeadm(client_ca, proxy_ca)) == data);
  // A malformed bundle counts as absent.
  Data malformed = {
      {"client-ca-file", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}};
  CHECK(AuthenticationConfigMapData(malformed, Kubeadm(client_ca, "")).at("client-ca-file") ==
        client_ca);
}

TEST_CASE("authentication configmap: lists are encoded as Go's encoding/json does") {
  using master::bootstrap::GoJSONStringList;
  CHECK(GoJSONStringList({}) == "[]");
  CHECK(GoJSONStringList({"a", "b"}) == R"(["a","b"])");
  CHECK(GoJSONStringList({"<a&b>", "q\"\\", "\t\x01", "\xe2\x80\xa8", "é"}) ==
        "[\"\\u003ca\\u0026b\\u003e\",\"q\\\"\\\\\",\"\\t\\u0001\",\"\\u2028\",\"é\"]");
}

TEST_CASE("authentication configmap: the post-start hook creates kube-system and the ConfigMap") {
  genericserver::Config generic;
  const genericserver::CompletedConfig config = generic.Complete();
  storage::StorageConfig s;
  s.backend = "memory";
  auto storage = std::move(*storage::StorageFactory::Open(s, *config.Get().io));
  const std::string client_ca = NewCA("client"), proxy_ca = NewCA("proxy");
  master::Config master;
  master.cluster_authentication = Kubeadm(client_ca, proxy_ca);
  auto chain = app::CreateServerChain(config, *storage, master);
  chain.Outermost().PrepareRun();
  genericserver::PostStartHookPtr hook;
  for (const auto& h : chain.Outermost().PostStartHooks()) {
    if (h->Name() == "start-cluster-authentication-info-controller") hook = h;
  }
  REQUIRE(hook);
  genericserver::Handler& handler = chain.Outermost().FilteredHandler();
  auto run_hook = [&]() {
    std::optional<std::expected<void, std::string>> result;
    testing::Serve(handler, testing::MakeRequest("GET", "/version"),
                   [&]() -> Awaitable<void> { result = co_await hook->Run(); });
    REQUIRE(result);
    INFO((*result ? "" : result->error()));
    REQUIRE(*result);
  };
  const std::string path =
      "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";

  run_hook();
  CHECK(testing::Serve(handler, testing::MakeRequest("GET", "/api/v1/namespaces/kube-system"))
            .status == 200);
  auto got = testing::Serve(handler, testing::MakeRequest("GET", path));
  REQUIRE(got.status == 200);
  nlohmann::json data = got.Json()["data"];
  CHECK(data == nlohmann::json(AuthenticationConfigMapData({}, master.cluster_authentication)));
  const std::string version = got.Json()["metadata"]["resourceVersion"];

  // Unchanged: no write.
  run_hook();
  auto again = testing::Serve(handler, testing::MakeRequest("GET", path));
  CHECK(again.Json()["metadata"]["resourceVersion"] == version);

  // Someone else's entries are kept, labels too.
  auto edit = testing::MakeRequest(
      "PATCH", path,
      R"({"metadata":{"labels":{"owner":"me"}},"data":{"requestheader-allowed-names":"[\"aggregator\"]"}})");
  edit.request.headers.Add("Content-Type", "application/merge-patch+json");
  REQUIRE(testing::Serve(handler, std::move(edit)).status == 200);
  run_hook();
  auto merged = testing::Serve(handler, testing::MakeRequest("GET", path)).Json();
  CHECK(merged["metadata"]["labels"]["owner"] == "me");
  CHECK(merged["data"]["requestheader-allowed-names"] == R"(["aggregator","front-proxy-client"])");
  CHECK(merged["data"]["client-ca-file"] == client_ca);
}
