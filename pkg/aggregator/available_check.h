#pragma once
// One availability check of a remote APIService, as upstream's remote availability
// controller makes it (Kubernetes 1.32, Endpoints-based): its Service exists and has the
// port, its Endpoints have an address for that port, and its server answers a discovery
// GET of /apis/<group>/<version> with a 2xx within 5 seconds. The result is the Available
// condition to record, with upstream's reasons and messages.

#include <optional>
#include <string>
#include <vector>

#include "pkg/aggregator/apiservice_table.h"
#include "pkg/aggregator/proxy.h"
#include "pkg/genericserver/storage/factory.h"

namespace aggregator {

struct Availability {
  std::string status;  // "True", "False" or "Unknown"
  std::string reason;
  std::string message;
  // What the server listed at /apis/<group>/<version>, when the check passed and the answer
  // was an APIResourceList.
  std::optional<std::vector<endpoints::APIResource>> resources;
  // Its OpenAPI v3 document of the group-version, when the check passed and it has one.
  std::shared_ptr<const OpenAPIDocument> openapi;
  // Its /openapi/v2 document (JSON), likewise.
  std::shared_ptr<const OpenAPIV2Document> openapi_v2;
};

// `tls`: the checks' TLS settings (upstream does not verify the server here, and presents
// the proxy's client certificate). `known_openapi`: the document fetched last time, kept
// without fetching it again while the server's index still names it. `known_openapi_v2`:
// likewise, kept while the server answers its ETag with 304.
Awaitable<Availability> CheckAvailability(
    storage::StorageFactory& storage, const ServiceResolver& resolve,
    std::shared_ptr<const transport::TLSClient> tls, APIServiceInfoPtr apiservice,
    std::shared_ptr<const OpenAPIDocument> known_openapi,
    std::shared_ptr<const OpenAPIV2Document> known_openapi_v2);

}  // namespace aggregator
