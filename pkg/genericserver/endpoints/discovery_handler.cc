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

// What a group's aggregated item is made of, as a string equal for equal inputs: its
// versions and the identity of every ResourceSpec (specs are immutable; a change makes
// new ones).
std::string Fingerprint(const APIGroupInfo& g) {
  std::string key;
  for (const std::string& v : g.group.versions) {
    key += v;
    key += ':';
    if (auto it = g.resources.find(v); it != g.resources.end()) {
      key += std::to_string(it->second.size());
    }
    if (auto it = g.specs.find(v); it != g.specs.end() && !it->second.empty()) {
      for (const auto& spec : it->second) {
        key += std::to_string(reinterpret_cast<uintptr_t>(spec.get()));
        key += ',';
      }
    } else if (auto r = g.resources.find(v); r != g.resources.end()) {
      // Resources listed by another server (the aggregator's remote groups): no specs.
      for (const APIResource& resource : r->second) {
        key += resource.name + '/' + resource.kind + '/';
        for (const std::string& verb : resource.verbs) key += verb + ',';
        for (const std::string& name : resource.short_names) key += name + ',';
        for (const std::string& name : resource.categories) key += name + ',';
      }
    }
    if (g.stale_versions.contains(v)) key += "stale";
    key += ';';
  }
  return key;
}

// Each group's last encoded item, encoded again only when the group changed: with
// hundreds of CRD groups, encoding is what aggregated discovery costs.
class GroupItems {
 public:
  std::vector<std::string> Items(const std::vector<APIGroupInfo>& groups) {
    std::vector<std::string> out;
    out.reserve(groups.size());
    std::map<std::string, std::pair<std::string, std::string>> next;
    for (const APIGroupInfo& g : groups) {
      std::string fingerprint = Fingerprint(g);
      std::string item;
      {
        std::lock_guard lock(mu_);
        auto it = items_.find(g.group.name);
        if (it != items_.end() && it->second.first == fingerprint) item = it->second.second;
      }
      if (item.empty()) item = EncodeAPIGroupDiscovery(g);
      next[g.group.name] = {std::move(fingerprint), item};
      out.push_back(std::move(item));
    }
    std::lock_guard lock(mu_);
    items_ = std::move(next);  // groups that are gone are forgotten
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::pair<std::string, std::string>> items_;  // fingerprint, item
};

}  // namespace

genericserver::HandlerPtr NewDiscoveryHandler(DiscoveryDocuments documents) {
  auto cache = std::make_shared<GroupItems>();
  return genericserver::MakeHandler([documents = std::move(documents), cache](
                                        genericserver::RequestContext& ctx,
                                        genericserver::ResponseWriter& out) -> Awaitable<void> {
    auto accept = ctx.request.headers.Get("Accept");
    // Without groups, only the legacy document is served.
    const std::string api_version =
        documents.groups ? NegotiateDiscovery(accept ? *accept : "") : "";
    genericserver::Cacheable response;
    response.vary_accept = true;
    if (api_version.empty()) {
      response.content_type = "application/json";
      response.body = documents.legacy();
    } else {
      const std::string version = api_version.substr(api_version.find('/') + 1);
      response.content_type =
          "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList";
      response.body = JoinAPIGroupDiscoveryList(cache->Items(documents.groups()), api_version);
    }
    co_await genericserver::WriteCacheable(ctx, out, std::move(response));
  });
}

}  // namespace endpoints
