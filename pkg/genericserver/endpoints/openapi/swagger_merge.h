#pragma once
// How the aggregator puts a remote APIService's /openapi/v2 document into the merged one, as
// upstream's kube-aggregator does (FilterSpecByPathsWithoutSideEffects, then
// MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters).

#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace endpoints::openapi {

// Adds to `into` the paths of `remote` under `prefix` ("/apis/<group>/<version>/") that
// `into` does not have yet (existing paths win), with the definitions and shared
// parameters they use. One of the same name and the same content is shared; one with other
// content is added as "<name>_v2" (or _v3, ...: the first name free in both documents, or
// one `into` already holds with that content) and the references to it are rewritten.
// `into` keeps its info, security and everything else.
void MergeSwagger(nlohmann::json& into, const nlohmann::json& remote, std::string_view prefix);

}  // namespace endpoints::openapi
