#pragma once
// RequestInfo: what a request is about (verb, group, version, resource, subresource,
// namespace, name), derived from its method, path and query alone, before any
// handler runs. Authorization, metrics and in-flight limits read it.

#include <expected>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/genericserver/server/request.h"

namespace endpoints {

struct RequestInfo {
  bool is_resource_request = false;
  std::string path;
  // Resource requests: get, list, watch, create, update, patch, delete,
  // deletecollection, proxy. Other requests: the lower-cased HTTP method.
  std::string verb;
  std::string api_prefix;  // "api" or "apis"
  std::string api_group;
  std::string api_version;
  std::string namespace_;
  std::string resource;
  std::string subresource;
  std::string name;
  std::vector<std::string> parts;  // the path from the resource on
};

class RequestInfoResolver {
 public:
  // Paths under these prefixes are resource requests; groupless ones have no group segment.
  RequestInfoResolver(std::set<std::string> api_prefixes = {"api", "apis"},
                      std::set<std::string> groupless_prefixes = {"api"});

  // Fails only for a malformed special-verb path such as "/api/v1/watch".
  std::expected<RequestInfo, std::string> Resolve(const genericserver::Request& request) const;

 private:
  std::set<std::string> api_prefixes_;
  std::set<std::string> groupless_prefixes_;
};

// A resource request made up rather than parsed: what a check asks the authorizer
// ("bind" clusterroles/admin, "impersonate" users/jane).
RequestInfo ResourceRequest(std::string verb, std::string api_group, std::string resource,
                            std::string ns, std::string name, std::string subresource = "");

// Watches, proxies and the attach/exec/log/portforward/proxy subresources stream for a
// long time: no request timeout and no in-flight slot for them.
bool IsLongRunning(const RequestInfo& info);
// get, list and watch (and any non-resource GET/HEAD) count as read-only.
bool IsReadOnly(const RequestInfo& info);

}  // namespace endpoints
