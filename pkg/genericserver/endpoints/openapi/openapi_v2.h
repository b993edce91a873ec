#pragma once
// OpenAPI v2 (Swagger 2.0) at /openapi/v2: one document of every served group-version,
// derived from their v3 documents, for clients that still read the old form. JSON only:
// an Accept that allows only the protobuf form gets a 404, which kubectl treats as "no
// OpenAPI v2" and upstream clients handle the same way.

#include <functional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/server/mux.h"

namespace endpoints::openapi {

// The v2 form of v3 documents: their paths merged, components.schemas as definitions.
nlohmann::json ToSwagger(const std::vector<nlohmann::json>& v3_documents);

void InstallOpenAPIV2(genericserver::PathMux& mux,
                      std::function<std::vector<APIGroupInfo>()> groups);

}  // namespace endpoints::openapi
