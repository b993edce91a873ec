#pragma once
// OpenAPI v3 as upstream serves it: /openapi/v3 (the index of group-versions, each with a
// content hash) and /openapi/v3/<api/v1 | apis/G/V> (one document per group-version),
// built from the ResourceSpecs of the served groups, cached by content.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/server/mux.h"

namespace endpoints::openapi {

// The document of one group-version of `group` (its specs for that version).
nlohmann::json BuildGroupVersionDocument(const APIGroupInfo& group, const std::string& version);

// Likewise; schemas the group-version's own components lack (ObjectMeta, Status, ... for
// custom resources) are taken, with everything they refer to, from `shared_schemas` (a
// components.schemas map, e.g. the core group's; may be null).
nlohmann::json BuildGroupVersionDocument(const APIGroupInfo& group, const std::string& version,
                                         const nlohmann::json* shared_schemas);

// Documents served as they are (the aggregator's remote group-versions), by path
// ("apis/G/V"); a new body is a new document.
using ExternalDocuments = std::map<std::string, std::shared_ptr<const std::string>>;

// Installs /openapi/v3 and /openapi/v3/ on mux. `groups` (and `external`, when set) are
// called per request (groups change with custom resources); documents are rebuilt only when
// their inputs changed. The groups' own documents win over external ones of the same path.
void InstallOpenAPIV3(genericserver::PathMux& mux,
                      std::function<std::vector<APIGroupInfo>()> groups,
                      std::function<ExternalDocuments()> external = nullptr);

}  // namespace endpoints::openapi
