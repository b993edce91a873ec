#pragma once
// /openapi/v2 as upstream's kube-openapi handler behind the kube-aggregator serves it: one
// Swagger 2.0 document of every served group-version (swagger.h), the remote APIServices'
// merged in (swagger_merge.h), in two forms chosen by Accept (parameters are ignored; no
// Accept is */*):
// - application/json (also */*, application/*): the JSON document;
// - application/com.github.proto-openapi.spec.v2@v1.0+protobuf (what kubectl sends) and
//   application/com.github.proto-openapi.spec.v2.v1.0+protobuf: the gnostic protobuf
//   Document (openapi_v2_proto.h), answered as the latter;
// - anything else: an empty 406.
// Both forms carry the same ETag (the quoted upper-case hex SHA-512 of the JSON), Vary:
// Accept and Last-Modified (when the JSON was built); If-None-Match (or If-Modified-Since)
// gives 304. The JSON is rebuilt only when what it is built from changes, the protobuf only
// when the JSON did. 503 when the document has no protobuf form (a remote document gnostic
// refuses).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/server/mux.h"

namespace endpoints::openapi {

// A remote group-version's /openapi/v2 document as its server serves it (JSON text); a new
// body is a new document.
struct ExternalV2Document {
  std::string group;
  std::string version;
  std::shared_ptr<const std::string> body;
};

// Installs /openapi/v2 on mux. `groups` and `external` (when set) are called per request;
// `external` lists the remote documents in the order they are merged (after the local ones:
// upstream's priority order).
void InstallOpenAPIV2(genericserver::PathMux& mux,
                      std::function<std::vector<APIGroupInfo>()> groups,
                      std::function<std::vector<ExternalV2Document>()> external = nullptr);

}  // namespace endpoints::openapi
