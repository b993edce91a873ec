#include "pkg/genericserver/endpoints/discovery_handler.h"

#include <map>
#include <mutex>

#include "pkg/genericserver/endpoints/negotiation.h"
#include "pkg/genericserver/server/cacheable.h"

namespace endpoints {

std::string NegotiateDiscovery(std::string_view accept) {
  for (const MediaType& m : ParseAccept(accept)) {
    if (m.q <= 0) continue;
    const std::string essence = m.Essence();
    if (essence == "*/*" || essence == "application/*") return "";
    if (essence != "application/json") continue;
    const std::string v = m.Param("v");
    if (m.Param("g") == "apidiscovery.k8s.io" && m.Param("as") == "APIGroupDiscoveryList" &&
        (v == "v2" || v == "v2beta1")) {
      return "apidiscovery.k8s.io/" + v;
    }
    if (m.Param("as").empty()) return "";
  }
  return "";
}

namespace {

// What an aggregated document is made of, as a string equal for equal inputs: the groups,
// their versions and the identity of every ResourceSpec (specs are immutable; a change
// makes new ones).
std::string Fingerprint(const std::vector<APIGroupInfo>& groups) {
  std::string key;
  for (const APIGroupInfo& g : groups) {
    key += g.group.name;
    key += '|';
    for (const std::string& v : g.group.versions) {
      key += v;
      key += ':';
      if (auto it = g.resources.find(v); it != g.resources.end()) {
        key += std::to_string(it->second.size());
      }
      if (auto it = g.specs.find(v); it != g.specs.end()) {
        for (const auto& spec : it->second) {
          key += std::to_string(reinterpret_cast<uintptr_t>(spec.get()));
          key += ',';
        }
      }
      key += ';';
    }
  }
  return key;
}

// The last aggregated document per discovery version, rebuilt only when its inputs change
// (with hundreds of CRDs, encoding is what costs).
struct AggregatedCache {
  std::mutex mu;
  std::map<std::string, std::pair<std::string, std::string>> by_version;  // fingerprint, body
};

}  // namespace

genericserver::HandlerPtr NewDiscoveryHandler(DiscoveryDocuments documents) {
  auto cache = std::make_shared<AggregatedCache>();
  return genericserver::MakeHandler([documents = std::move(documents), cache](
                                        genericserver::RequestContext& ctx,
                                        genericserver::ResponseWriter& out) -> Awaitable<void> {
    auto accept = ctx.request.headers.Get("Accept");
    const std::string api_version = NegotiateDiscovery(accept ? *accept : "");
    genericserver::Cacheable response;
    response.vary_accept = true;
    if (api_version.empty()) {
      response.content_type = "application/json";
      response.body = documents.legacy();
    } else {
      const std::string version = api_version.substr(api_version.find('/') + 1);
      response.content_type =
          "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList";
      const std::vector<APIGroupInfo> groups = documents.groups();
      const std::string fingerprint = Fingerprint(groups);
      {
        std::lock_guard lock(cache->mu);
        auto it = cache->by_version.find(api_version);
        if (it != cache->by_version.end() && it->second.first == fingerprint) {
          response.body = it->second.second;
        }
      }
      if (response.body.empty()) {
        response.body = EncodeAPIGroupDiscoveryList(groups, api_version);
        std::lock_guard lock(cache->mu);
        cache->by_version[api_version] = {fingerprint, response.body};
      }
    }
    co_await genericserver::WriteCacheable(ctx, out, std::move(response));
  });
}

}  // namespace endpoints
