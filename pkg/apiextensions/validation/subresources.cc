// subresources: the scale subresource's JSON paths (status has nothing to validate).

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

// A simple JSON path under one of the prefixes (".spec." and the like).
void ValidatePathUnder(const std::string& value, const std::string& path,
                       std::initializer_list<std::string_view> prefixes, std::string detail,
                       FieldErrors& errors) {
  FieldErrors errs = ValidateSimpleJSONPath(value, path);
  if (!errs.empty()) {
    for (FieldError& e : errs) errors.push_back(std::move(e));
    return;
  }
  for (std::string_view prefix : prefixes) {
    if (value.starts_with(prefix)) return;
  }
  errors.push_back(v::FieldInvalid(path, value, std::move(detail)));
}

}  // namespace

void ValidateSubresources(const json* subresources, const std::string& path, FieldErrors& errors) {
  const json* scale = Get(subresources, "scale");
  if (scale == nullptr) return;

  const std::string spec_path = Child(path, "scale.specReplicasPath");
  const std::string spec_replicas = Str(scale, "specReplicasPath");
  if (spec_replicas.empty()) {
    errors.push_back(v::FieldRequired(spec_path, ""));
  } else {
    ValidatePathUnder(spec_replicas, spec_path, {".spec."}, "should be a json path under .spec",
                      errors);
  }

  const std::string status_path = Child(path, "scale.statusReplicasPath");
  const std::string status_replicas = Str(scale, "statusReplicasPath");
  if (status_replicas.empty()) {
    errors.push_back(v::FieldRequired(status_path, ""));
  } else {
    ValidatePathUnder(status_replicas, status_path, {".status."},
                      "should be a json path under .status", errors);
  }

  const std::string selector = Str(scale, "labelSelectorPath");
  if (!selector.empty()) {
    ValidatePathUnder(selector, Child(path, "scale.labelSelectorPath"), {".spec.", ".status."},
                      "should be a json path under either .spec or .status", errors);
  }
}

}  // namespace apiextensions::validation::internal
