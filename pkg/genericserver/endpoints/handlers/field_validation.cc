#include "pkg/genericserver/endpoints/handlers/field_validation.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/schema/prune.h"
#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/util/strings.h"

namespace endpoints::handlers {

using nlohmann::json;

namespace {

registry::Result<json> Check(std::string_view directive, const registry::ResourceSpec& spec,
                             json object, std::vector<std::string> problems,
                             std::vector<std::string>& warnings) {
  std::vector<std::string> unknown;
  if (spec.unstructured) {
    unknown = spec.unstructured->Prune(object);
  } else if (spec.components && !spec.schema_name.empty()) {
    unknown = apimachinery::schema::PruneUnknownFields(object, *spec.components, spec.schema_name);
  }
  for (const std::string& path : unknown) problems.push_back("unknown field " + util::Quote(path));
  if (problems.empty() || directive == "Ignore") return object;
  if (directive == "Strict") {
    return std::unexpected(
        apimachinery::NewBadRequest("strict decoding error: " + util::Join(problems, ", ")));
  }
  for (auto& p : problems) warnings.push_back(std::move(p));
  return object;
}

}  // namespace

void AddWarnings(ResponseWriter& out, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings)
    out.ExtraHeaders().Add("Warning", "299 - " + util::Quote(w));
}

registry::Result<json> CheckFieldsCollecting(std::string_view directive,
                                             const registry::ResourceSpec& spec, json object,
                                             std::vector<std::string>& warnings) {
  return Check(directive, spec, std::move(object), {}, warnings);
}

registry::Result<json> CheckFields(const RequestContext& ctx, ResponseWriter& out,
                                   const registry::ResourceSpec& spec, json object) {
  auto directive = ParseFieldValidation(ctx);
  if (!directive) return std::unexpected(directive.error());
  std::vector<std::string> problems;
  const std::string type = BodyMediaType(ctx);
  if (type.empty() || type == "application/json") {
    for (const std::string& path : apimachinery::schema::DuplicateFields(ctx.request.body)) {
      problems.push_back("duplicate field " + util::Quote(path));
    }
  }
  std::vector<std::string> warnings;
  auto checked = Check(*directive, spec, std::move(object), std::move(problems), warnings);
  AddWarnings(out, warnings);
  // A create or update body that does not decode strictly: upstream's decode error.
  if (!checked) return std::unexpected(registry::DecodeError(spec, checked.error().message));
  return checked;
}

}  // namespace endpoints::handlers
