#include "pkg/genericserver/endpoints/openapi/serving.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/negotiation.h"
#include "pkg/genericserver/endpoints/openapi/routes.h"
#include "pkg/genericserver/registry/resource_spec.h"

namespace endpoints::openapi {

bool AcceptsJSON(std::optional<std::string_view> accept) {
  if (!accept || accept->empty()) return true;
  std::vector<MediaType> clauses = ParseAccept(*accept);
  if (clauses.empty()) return true;
  for (const MediaType& clause : clauses) {
    if ((clause.type == "application" || clause.type == "*") &&
        (clause.subtype == "json" || clause.subtype == "*")) {
      return true;
    }
  }
  return false;
}

const nlohmann::json* SharedSchemas(const std::vector<APIGroupInfo>& groups) {
  for (const APIGroupInfo& group : groups) {
    for (const auto& [version, specs] : group.specs) {
      for (const registry::ResourceSpecPtr& spec : specs) {
        if (spec && spec->components && spec->components->contains(kObjectMetaSchema)) {
          return spec->components;
        }
      }
    }
  }
  return nullptr;
}

}  // namespace endpoints::openapi
