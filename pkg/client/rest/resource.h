#pragma once
// Which resource a request is about, and the URL path that names it, as client-go's
// rest.Request builds it: /api/v1/... for the core group, /apis/<group>/<version>/...
// otherwise; namespaced resources under /namespaces/<ns>/. Pure.

#include <string>
#include <string_view>
#include <utility>

namespace client {

struct GroupVersionResource {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;
  auto operator<=>(const GroupVersionResource&) const = default;
  // "deployments.v1.apps", "pods.v1." as upstream's GroupVersionResource.String() minus spaces.
  std::string String() const { return resource + "." + version + "." + group; }
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
};

// "/api/v1" or "/apis/<group>/<version>".
std::string GroupVersionPath(const GroupVersionResource& gvr);
// The path of a collection (name empty) or of an object, with an optional subresource;
// namespace empty for cluster-scoped resources and for lists across namespaces.
std::string ResourcePath(const GroupVersionResource& gvr, std::string_view namespace_name,
                         std::string_view name = {}, std::string_view subresource = {});
// Percent-encodes a query value (label selectors, field selectors, continue tokens).
std::string QueryEscape(std::string_view value);

// (group, version) from an apiVersion ("apps/v1", "v1").
std::pair<std::string, std::string> ParseApiVersion(std::string_view api_version);

}  // namespace client
