// Updates: what the stored CRD relaxes (upstream does not tighten validation on data it
// already accepted: schemas, structural rules, pruned defaults, set and map list rules,
// conversion review versions, the CA bundle, the per-expression cost limits of rules in a
// version whose schema did not change), and the fields that may not change.

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

bool AllVersionsSpecifyOpenAPISchema(const Crd& crd) {
  if (crd.has_validation && crd.validation_schema != nullptr) return true;
  for (const Version& ver : crd.versions) {
    if (!ver.has_schema || ver.schema == nullptr) return false;
  }
  return true;
}

// The "schema" of the version named name, null when absent; found is false when the CRD has
// no such version.
const json* VersionValidation(const json& crd, const std::string& name, bool* found) {
  *found = false;
  const json* versions = Get(Get(crd, "spec"), "versions");
  if (versions == nullptr || !versions->is_array()) return nullptr;
  for (const json& v : *versions) {
    if (Str(&v, "name") != name) continue;
    *found = true;
    const json* schema = Get(v, "schema");
    return schema != nullptr && schema->is_object() ? schema : nullptr;
  }
  return nullptr;
}

// Upstream's findVersionsWithUnchangedSchemas: the versions of crd whose schema old has for
// the same version name.
std::set<std::string> VersionsWithUnchangedSchemas(const json& crd, const json& old) {
  std::set<std::string> out;
  const json* versions = Get(Get(crd, "spec"), "versions");
  if (versions == nullptr || !versions->is_array()) return out;
  for (const json& v : *versions) {
    const std::string name = Str(&v, "name");
    bool found_new = false, found_old = false;
    const json* now = VersionValidation(crd, name, &found_new);
    const json* before = VersionValidation(old, name, &found_old);
    if (found_new && found_old && SameValidation(now, before)) out.insert(name);
  }
  return out;
}

void Immutable(const std::string& path, const std::string& now, const std::string& before,
               FieldErrors& errors) {
  if (now != before) errors.push_back(v::FieldInvalid(path, now, "field is immutable"));
}

}  // namespace

bool Established(const json& crd) {
  const json* conditions = Get(Get(crd, "status"), "conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const json& c : *conditions) {
    if (Str(&c, "type") == "Established" && Str(&c, "status") == "True") return true;
  }
  return false;
}

Options UpdateOptions(const json& crd, const json& old) {
  const Crd before = View(old);
  Options o;
  o.require_recognized_conversion_review_version =
      before.conversion == nullptr || HasValidConversionReviewVersionOrEmpty(before);
  o.require_immutable_names = Established(old);
  o.require_openapi_schema = AllVersionsSpecifyOpenAPISchema(before);
  o.require_valid_property_type = !AnyRootSchema(before, HasInvalidType);
  o.require_structural_schema =
      !AnyRootSchema(before, [](const json& s) { return !IsStructural(s); });
  o.require_pruned_defaults = !AnyRootSchema(before, HasUnprunedDefaults);
  o.require_atomic_set_type = !AnyRootSchema(before, HasNonAtomicSetType);
  o.require_map_list_keys_map_set_validation = !AnyRootSchema(before, HasInvalidMapListKeysMapSet);
  o.allow_invalid_ca_bundle = !Established(old) || HasInvalidCABundle(before);
  o.versions_with_unchanged_schemas = VersionsWithUnchangedSchemas(crd, old);
  return o;
}

void ValidateImmutable(const Crd& crd, const Crd& old, const Options& options,
                       FieldErrors& errors) {
  if (options.require_immutable_names) {
    // These affect the storage.
    Immutable("spec.scope", crd.scope, old.scope, errors);
    Immutable("spec.names.kind", Str(crd.names, "kind"), Str(old.names, "kind"), errors);
  }
  // These make the resource's name, which never changes.
  Immutable("spec.group", crd.group, old.group, errors);
  Immutable("spec.names.plural", Str(crd.names, "plural"), Str(old.names, "plural"), errors);
}

}  // namespace apiextensions::validation::internal
