#pragma once
// Serving /api and /apis: the aggregated APIGroupDiscoveryList when the client asks for
// it, in the version it prefers (v2 or v2beta1), else the legacy document. Never 406:
// clients that accept neither get the legacy JSON, as kubectl requires.

#include <functional>
#include <string>
#include <vector>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/server/handler.h"

namespace endpoints {

// "apidiscovery.k8s.io/v2", "apidiscovery.k8s.io/v2beta1", or "" for the legacy form.
std::string NegotiateDiscovery(std::string_view accept);

// The groups are computed per request: they change when custom resources do.
struct DiscoveryDocuments {
  std::function<std::string()> legacy;                // APIVersions or APIGroupList
  std::function<std::vector<APIGroupInfo>()> groups;  // for the aggregated form; none: legacy only
};

genericserver::HandlerPtr NewDiscoveryHandler(DiscoveryDocuments documents);

}  // namespace endpoints
