#pragma once
// The project's own descriptions of the kinds served so far and their fields, in its own
// words (upstream's description prose is not copied: see tools/README.md). They are added to
// the schema data when a group-version's Components are parsed, so `kubectl explain` and the
// OpenAPI documents show them.

#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace schemas {

struct Description {
  std::string_view schema;  // a schema name, "io.k8s.api.core.v1.ConfigMap"
  std::string_view field;   // a property of it, or "" for the schema itself
  std::string_view text;
};

// Every description the project has.
const std::vector<Description>& Descriptions();

// Writes the descriptions whose schema (and field) components has.
void AddDescriptions(nlohmann::json& components);

}  // namespace schemas
