#pragma once
// Shared by the files of the CRD validation, not part of its interface.
//
// Upstream validates the internal (hub) form of a CRD, which it gets from the v1 object by
// conversion: per-version schemas, subresources, printer columns and selectable fields that
// are identical in every version are hoisted to spec.validation, spec.subresources,
// spec.additionalPrinterColumns and spec.selectableFields, and the errors name those paths.
// Crd below is that view, built over the v1 JSON without copying it.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/apiextensions/validation/crd_validation.h"

namespace apiextensions::validation::internal {

using apimachinery::validation::FieldError;

// ---- field.Path rendering ------------------------------------------------------------

// path.Child(name): "a.b" (just "b" from the empty root).
std::string Child(std::string_view path, std::string_view name);
// path.Key(key): "a[key]".
std::string Key(std::string_view path, std::string_view key);
// path.Index(i): "a[3]".
std::string Index(std::string_view path, size_t i);

// ---- JSON access (absent and null are the same, as they are to upstream's Go types) ----

// The member, or nullptr when obj is no object or the member is absent or null.
const nlohmann::json* Get(const nlohmann::json& obj, std::string_view key);
const nlohmann::json* Get(const nlohmann::json* obj, std::string_view key);
// The string member, "" otherwise.
std::string Str(const nlohmann::json* obj, std::string_view key);
// The boolean member, false otherwise.
bool Bool(const nlohmann::json* obj, std::string_view key);
// The array member's strings (other elements as "").
std::vector<std::string> Strings(const nlohmann::json* obj, std::string_view key);
// Whether the member is a non-empty array (or object).
bool NonEmpty(const nlohmann::json* obj, std::string_view key);

// ---- Go renderings of bad values --------------------------------------------------------

// field.Invalid(path, value, detail) for a JSON value as upstream's Go value prints: strings
// quoted, numbers and booleans as %v, null as null, maps and lists as %#v of
// map[string]interface {} / []interface {}.
FieldError InvalidJSON(std::string path, const nlohmann::json& value, std::string detail);
// field.Invalid with a value printed verbatim (already Go's %v / %#v form).
FieldError InvalidVerbatim(std::string path, std::string value, std::string detail);
// Go's %#v of a decoded JSON value inside interface{}.
std::string GoValue(const nlohmann::json& value);
// Go's %v of a float64.
std::string GoFloat(double value);
// Go's %#v of a []byte.
std::string GoBytes(std::string_view bytes);
// Go's %#v of an internal JSONSchemaProps (set pointers shown with a stand-in address).
std::string GoSchemaProps(const nlohmann::json& schema);
// Go's %#v of an internal JSONSchemaPropsOrArray (the value of "items").
std::string GoSchemaPropsOrArray(const nlohmann::json& items);

// ---- the internal view -----------------------------------------------------------------

struct Version {
  size_t index = 0;
  std::string name;
  bool served = false;
  bool storage = false;
  bool deprecated = false;
  const nlohmann::json* deprecation_warning = nullptr;  // a string, or absent
  // What stays per version after hoisting.
  bool has_schema = false;                 // the CustomResourceValidation pointer
  const nlohmann::json* schema = nullptr;  // its openAPIV3Schema
  const nlohmann::json* subresources = nullptr;
  const nlohmann::json* columns = nullptr;     // an array, or absent
  const nlohmann::json* selectable = nullptr;  // an array, or absent
};

struct Crd {
  const nlohmann::json* object = nullptr;
  const nlohmann::json* spec = nullptr;
  std::string group;
  std::string scope;
  std::string version;  // spec.version: the first version's name
  const nlohmann::json* names = nullptr;
  std::vector<Version> versions;
  bool versions_present = false;  // [] rather than absent (for %#v)
  // Hoisted fields.
  bool has_validation = false;
  const nlohmann::json* validation_schema = nullptr;
  const nlohmann::json* subresources = nullptr;
  const nlohmann::json* columns = nullptr;
  const nlohmann::json* selectable = nullptr;
  bool preserve_unknown_fields = false;
  const nlohmann::json* conversion = nullptr;
};

Crd View(const nlohmann::json& crd);

// %#v of the internal spec.versions.
std::string GoVersions(const Crd& crd);
// Whether two versions' "schema" members (CustomResourceValidation, null when absent) are
// Semantic.DeepEqual as upstream's internal form.
bool SameValidation(const nlohmann::json* a, const nlohmann::json* b);

// ---- options (upstream's validationOptions) ---------------------------------------------

struct Options {
  bool allow_defaults = true;
  bool require_recognized_conversion_review_version = true;
  bool require_immutable_names = false;
  bool require_openapi_schema = true;
  bool require_valid_property_type = true;
  bool require_structural_schema = true;
  bool require_pruned_defaults = true;
  bool require_atomic_set_type = true;
  bool require_map_list_keys_map_set_validation = true;
  bool allow_invalid_ca_bundle = true;
  // Update: the versions whose schema the update leaves as it was (upstream's
  // findVersionsWithUnchangedSchemas), and whether the schema being validated is one of them
  // (suppressPerExpressionCost: its rules' per-expression cost limits are not enforced).
  std::set<std::string> versions_with_unchanged_schemas;
  bool suppress_per_expression_cost = false;
};

// ---- the checks, by file ------------------------------------------------------------------

// names.cc: metadata.name, spec.group, spec.scope, spec.names / status.acceptedNames.
void ValidateMetadataName(const nlohmann::json& crd, const Crd& view, FieldErrors& errors);
void ValidateGroup(const Crd& crd, FieldErrors& errors);
void ValidateScope(const Crd& crd, FieldErrors& errors);
void ValidateRequiredNames(const Crd& crd, FieldErrors& errors);
void ValidateNames(const nlohmann::json* names, const std::string& path, FieldErrors& errors);

// api_approval.cc: the api-approved.kubernetes.io annotation of protected groups.
void ValidateAPIApproval(const nlohmann::json& crd, const nlohmann::json* old, FieldErrors& errors);

// versions.cc: names, deprecation warnings, the set of versions, status.storedVersions.
void ValidateVersionName(const Version& version, FieldErrors& errors);
void ValidateDeprecationWarning(const Version& version, FieldErrors& errors);
void ValidateVersionSet(const Crd& crd, FieldErrors& errors);
void ValidateStoredVersions(const nlohmann::json& crd, const Crd& view, FieldErrors& errors);

// schema.cc: a CustomResourceValidation (spec.validation or spec.versions[i].schema).
void ValidateCustomResourceValidation(bool has_validation, const nlohmann::json* schema,
                                      bool status_enabled, const Options& options,
                                      const std::string& path, FieldErrors& errors);
// upstream's SchemaHas: whether pred holds for the schema or any schema nested in it.
bool SchemaHas(const nlohmann::json* schema,
               const std::function<bool(const nlohmann::json&)>& pred);
// Whether pred holds for one of the CRD's schemas (the hoisted one or a version's).
bool AnyRootSchema(const Crd& crd, const std::function<bool(const nlohmann::json&)>& pred);
bool HasDefault(const nlohmann::json& schema);
bool HasKubernetesExtensions(const nlohmann::json& schema);
bool HasInvalidType(const nlohmann::json& schema);
bool HasNonAtomicSetType(const nlohmann::json& schema);
bool HasInvalidMapListKeysMapSet(const nlohmann::json& schema);

// structural.cc: structural schemas (upstream's pkg/apiserver/schema NewStructural and
// ValidateStructural).
// NewStructural's error for fields a structural schema cannot hold, if any.
std::optional<std::string> StructuralConversionError(const nlohmann::json& schema);
// The structural invariants and completeness, sorted as upstream sorts them.
FieldErrors ValidateStructural(const nlohmann::json& schema, const std::string& path);
// NewStructural succeeds and ValidateStructural finds nothing.
bool IsStructural(const nlohmann::json& schema);

// default_values.cc: defaults pruned and valid (upstream's defaulting.ValidateDefaults).
FieldErrors ValidateDefaults(const nlohmann::json& schema, const std::string& path,
                             bool require_pruned);
// Whether some default of a structural schema is not pruned.
bool HasUnprunedDefaults(const nlohmann::json& schema);

// selectable_fields.cc: upstream's cel.ValidFieldPath and the selectable fields.
struct FieldPath {
  std::string path;                        // field.Path String()
  std::string root;                        // the first element
  const nlohmann::json* schema = nullptr;  // the schema found
};
// The path, or the error text.
std::optional<FieldPath> ValidFieldPath(std::string_view json_path, const nlohmann::json* schema,
                                        bool allow_array_notation, std::string* error);
void ValidateSelectableFields(const nlohmann::json& fields, const nlohmann::json* schema,
                              const std::string& path, FieldErrors& errors);

// columns.cc, subresources.cc.
void ValidateColumn(const nlohmann::json& column, const std::string& path, FieldErrors& errors);
FieldErrors ValidateSimpleJSONPath(const std::string& value, const std::string& path);
void ValidateSubresources(const nlohmann::json* subresources, const std::string& path,
                          FieldErrors& errors);

// conversion.cc: spec.conversion with its webhook client config.
void ValidateConversion(const Crd& crd, const Options& options, FieldErrors& errors);
// The old CRD's webhook caBundle is set and does not load.
bool HasInvalidCABundle(const Crd& crd);
// Whether the conversion review versions include one this server understands (or are empty).
bool HasValidConversionReviewVersionOrEmpty(const Crd& crd);

// cel_rules.cc: x-kubernetes-validations.
// The checks upstream makes of each rule before compiling (errors of the schema, not of CEL).
void ValidateRuleShapes(const nlohmann::json& schema, const std::string& path, FieldErrors& errors);
// Compiles the schema's rules (apiextensions::cel, which also decides where oldSelf may be
// used and checks their estimated costs) and reports what does not compile or costs too
// much; suppress_per_expression_cost as Options says.
void CompileRules(const nlohmann::json& schema, const std::string& schema_path,
                  bool suppress_per_expression_cost, FieldErrors& errors);

// update.cc: the options an update is validated with, and its immutable fields.
bool Established(const nlohmann::json& crd);
Options UpdateOptions(const nlohmann::json& crd, const nlohmann::json& old);
void ValidateImmutable(const Crd& crd, const Crd& old, const Options& options, FieldErrors& errors);

}  // namespace apiextensions::validation::internal
