#pragma once
// Discovery as client-go's discovery client: every served group's preferred version and
// its resources (subresources left out), with the groups whose discovery failed named
// apart (upstream's ErrGroupDiscoveryFailed), and a mapper from kinds to resources (the
// RESTMapper the garbage collector resolves owner references with). Pure data once made.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/client/rest/client.h"
#include "pkg/client/rest/resource.h"

namespace client {

struct ApiResource {
  GroupVersionResource gvr;
  std::string kind;
  bool namespaced = false;
  std::vector<std::string> verbs;
  bool Supports(std::string_view verb) const;
};

struct DiscoveryResult {
  std::vector<ApiResource> resources;
  std::map<std::string, std::string> failed;  // "group/version" -> error
  // The resource of (group, kind), when served.
  const ApiResource* ForKind(std::string_view group, std::string_view kind) const;
  // Those supporting every verb of `verbs`.
  std::vector<ApiResource> WithVerbs(const std::vector<std::string>& verbs) const;
};

// Every preferred group version's resources. Only an unreachable server (or a failed /api
// or /apis) is an error; a failing group is listed in `failed`.
Awaitable<Result<DiscoveryResult>> ServerPreferredResources(RestClient& client);

}  // namespace client
