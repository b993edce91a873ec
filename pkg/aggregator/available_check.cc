#include "pkg/aggregator/available_check.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/service_resolver.h"

namespace aggregator {
namespace {

using nlohmann::json;
using transport::Clock;

// Upstream's discovery client timeout.
constexpr auto kCheckTimeout = std::chrono::seconds(5);

Availability Verdict(std::string status, std::string reason, std::string message) {
  return Availability{std::move(status), std::move(reason), std::move(message),
                      std::nullopt,      nullptr,           nullptr};
}

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

bool HasAddressForPort(const json& endpoints, const std::string& port_name) {
  for (const json& subset : endpoints.value("subsets", json::array())) {
    bool port = false;
    for (const json& p : subset.value("ports", json::array())) {
      if (p.is_object() && p.value("name", "") == port_name) port = true;
    }
    if (port && !subset.value("addresses", json::array()).empty()) return true;
  }
  return false;
}

struct Answer {
  int status = 0;
  std::string body;
  std::string etag;
};

// A GET from the server at `hostport` as the aggregator itself (system:masters, always
// allowed), within 5 seconds; a failure as Go's http.Client words it. `if_none_match`: an
// ETag to revalidate (empty: none).
Awaitable<std::expected<Answer, std::string>> Get(std::shared_ptr<const transport::TLSClient> tls,
                                                  const APIServiceInfo& apiservice,
                                                  const std::string& hostport,
                                                  const std::string& target,
                                                  std::string accept = "application/json, */*",
                                                  std::string if_none_match = "") {
  const Clock::time_point deadline = Clock::now() + kCheckTimeout;
  const std::string url = "https://" + hostport + target;
  const auto failed = [&url](const std::string& why) {
    std::string text = "Get \"" + url + "\": " + why;
    if (why == transport::kDeadlineExceeded) {
      text += " (Client.Timeout exceeded while awaiting headers)";
    }
    return std::unexpected(text);
  };
  auto split = transport::SplitHostPort(hostport);
  if (!split) co_return failed("dial tcp: address " + hostport + ": missing port in address");
  auto connection = co_await transport::Connection::Dial(tls, split->first, split->second,
                                                         apiservice.ServerName(), deadline);
  if (!connection) co_return failed(connection.error());
  genericserver::Headers headers;
  headers.Add("Host", hostport);
  headers.Add("User-Agent", "kube-aggregator");
  headers.Add("Accept", accept);
  if (!if_none_match.empty()) headers.Add("If-None-Match", if_none_match);
  authn::UserInfo aggregator;
  aggregator.name = "system:kube-aggregator";
  aggregator.groups.push_back("system:masters");
  SetAuthProxyHeaders(headers, aggregator);
  std::string method = "GET";
  auto sent = co_await (*connection)->Send(method, target, headers, std::string(), deadline);
  if (!sent) co_return failed(sent.error());
  auto head = co_await (*connection)->ReadHead(deadline);
  if (!head) co_return failed(head.error());
  constexpr uint64_t kLimit = uint64_t(64) << 20;
  auto body = co_await (*connection)->ReadAll(kLimit, deadline);
  if (!body) co_return failed(body.error());
  co_return Answer{head->status, std::move(*body),
                   std::string(head->headers.Get("ETag").value_or(""))};
}

// The group-version's OpenAPI v3 document as the server publishes it (its index's entry for
// apis/<group>/<version>), or nullptr when it publishes none. `known` is kept when the
// server's index still points at the same document.
Awaitable<std::shared_ptr<const OpenAPIDocument>> FetchOpenAPI(
    std::shared_ptr<const transport::TLSClient> tls, const APIServiceInfo& apiservice,
    const std::string& hostport, std::shared_ptr<const OpenAPIDocument> known) {
  auto index = co_await Get(tls, apiservice, hostport, "/openapi/v3");
  if (!index || index->status != 200) co_return nullptr;
  const json paths = json::parse(index->body, nullptr, false).value("paths", json::object());
  const std::string key = "apis/" + apiservice.group + "/" + apiservice.version;
  auto entry = paths.find(key);
  if (entry == paths.end() || !entry->is_object()) co_return nullptr;
  const std::string url = entry->value("serverRelativeURL", "/openapi/v3/" + key);
  if (known && known->url == url) co_return known;
  auto document = co_await Get(tls, apiservice, hostport, url);
  if (!document || document->status != 200) co_return nullptr;
  if (json::parse(document->body, nullptr, false).is_discarded()) co_return nullptr;
  co_return std::make_shared<const OpenAPIDocument>(
      OpenAPIDocument{url, std::move(document->body)});
}

// The server's /openapi/v2 document (as JSON, what upstream's aggregator downloads), or
// nullptr when it publishes none. `known` is kept when the server answers its ETag with 304.
Awaitable<std::shared_ptr<const OpenAPIV2Document>> FetchOpenAPIV2(
    std::shared_ptr<const transport::TLSClient> tls, const APIServiceInfo& apiservice,
    const std::string& hostport, std::shared_ptr<const OpenAPIV2Document> known) {
  const std::string etag = known ? known->etag : "";
  auto answer = co_await Get(tls, apiservice, hostport, "/openapi/v2", "application/json", etag);
  if (!answer) co_return nullptr;
  if (answer->status == 304 && known) co_return known;
  if (answer->status != 200) co_return nullptr;
  if (known && known->body == answer->body) co_return known;
  if (!json::parse(answer->body, nullptr, false).is_object()) co_return nullptr;
  co_return std::make_shared<const OpenAPIV2Document>(
      OpenAPIV2Document{std::move(answer->etag), std::move(answer->body)});
}

}  // namespace

Awaitable<Availability> CheckAvailability(
    storage::StorageFactory& storage, const ServiceResolver& resolve,
    std::shared_ptr<const transport::TLSClient> tls, APIServiceInfoPtr apiservice,
    std::shared_ptr<const OpenAPIDocument> known_openapi,
    std::shared_ptr<const OpenAPIV2Document> known_openapi_v2) {
  const ServiceReference& ref = *apiservice->service;
  const std::string where = "service/" + ref.name + " in " + Quote(ref.ns);
  auto service =
      co_await registry::ReadStored(storage, "/services/", "/services/" + ref.ns + "/" + ref.name);
  if (!service) {
    co_return Verdict("Unknown", "ServiceAccessError",
                      where + " cannot be checked due to: " + service.error());
  }
  if (service->is_null()) co_return Verdict("False", "ServiceNotFound", where + " is not present");
  const json spec = service->value("spec", json::object());
  if (spec.value("type", "ClusterIP") == "ClusterIP") {
    std::optional<json> port;
    for (const json& p : spec.value("ports", json::array())) {
      if (p.is_object() && p.value("port", 0) == ref.port) {
        port = p;
        break;
      }
    }
    if (!port) {
      co_return Verdict("False", "ServicePortError",
                        where + " is not listening on port " + std::to_string(ref.port));
    }
    const std::string port_name = port->value("name", "");
    auto endpoints = co_await registry::ReadStored(storage, "/endpoints/",
                                                   "/endpoints/" + ref.ns + "/" + ref.name);
    if (!endpoints) {
      co_return Verdict("Unknown", "EndpointsAccessError",
                        where + " cannot be checked due to: " + endpoints.error());
    }
    if (endpoints->is_null()) {
      co_return Verdict("False", "EndpointsNotFound",
                        "cannot find endpoints for service/" + ref.name + " in " + Quote(ref.ns));
    }
    if (!HasAddressForPort(*endpoints, port_name)) {
      co_return Verdict("False", "MissingEndpoints",
                        "endpoints for service/" + ref.name + " in " + Quote(ref.ns) +
                            " have no addresses with port name " + Quote(port_name));
    }
  }
  auto hostport = co_await resolve(ref.ns, ref.name, ref.port);
  if (!hostport) co_return Verdict("False", "FailedDiscoveryCheck", hostport.error());
  const std::string target = "/apis/" + apiservice->group + "/" + apiservice->version;
  const std::string url = "https://" + *hostport + target;
  auto answer = co_await Get(tls, *apiservice, *hostport, target);
  if (answer && (answer->status < 200 || answer->status >= 300)) {
    answer = std::unexpected("bad status from " + url + ": " + std::to_string(answer->status));
  }
  if (!answer) {
    co_return Verdict("False", "FailedDiscoveryCheck",
                      "failing or missing response from " + url + ": " + answer.error());
  }
  Availability passed = Verdict("True", "Passed", "all checks passed");
  passed.resources = ParseAPIResourceList(answer->body);
  passed.openapi = co_await FetchOpenAPI(tls, *apiservice, *hostport, known_openapi);
  passed.openapi_v2 = co_await FetchOpenAPIV2(tls, *apiservice, *hostport, known_openapi_v2);
  co_return passed;
}

}  // namespace aggregator
