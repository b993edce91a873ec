// The order upstream validates a CRD in: metadata.name, the spec (group, scope, schemas,
// versions, names, the hoisted schema / subresources / columns / selectable fields,
// conversion), status.acceptedNames, status.storedVersions, the API approval annotation and
// spec.preserveUnknownFields.

#include "pkg/apiextensions/validation/crd_validation.h"

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation {

namespace v = apimachinery::validation;
using nlohmann::json;
using namespace internal;  // NOLINT(build/namespaces)

namespace {

bool HasStatus(const json* subresources) { return Get(subresources, "status") != nullptr; }

// The subresources that apply to a version: its own when any version has some, else the
// hoisted ones.
const json* SubresourcesFor(const Crd& crd, const Version& ver) {
  for (const Version& other : crd.versions) {
    if (other.subresources != nullptr) return ver.subresources;
  }
  return crd.subresources;
}

bool AnyStatusEnabled(const Crd& crd) {
  if (HasStatus(crd.subresources)) return true;
  for (const Version& ver : crd.versions) {
    if (HasStatus(ver.subresources)) return true;
  }
  return false;
}

void ValidateSelectable(const json* fields, bool has_validation, const json* schema,
                        const std::string& fields_path, const std::string& schema_path,
                        const char* missing_schema_detail, FieldErrors& errors) {
  if (fields == nullptr || fields->empty()) return;
  if (!has_validation || schema == nullptr) {
    errors.push_back(v::FieldInvalid(fields_path, "", missing_schema_detail));
    return;
  }
  const json* structural = schema;
  if (auto err = StructuralConversionError(*schema)) {
    errors.push_back(v::FieldInvalid(schema_path, "", *err));
    structural = nullptr;
  }
  ValidateSelectableFields(*fields, structural, fields_path, errors);
}

void ValidateSpec(const Crd& crd, Options options, FieldErrors& errors) {
  ValidateGroup(crd, errors);
  ValidateScope(crd, errors);

  // Pruning (preserveUnknownFields false) needs structural schemas.
  if (!crd.preserve_unknown_fields) options.require_structural_schema = true;
  const bool hoisted_schema = crd.has_validation && crd.validation_schema != nullptr;
  if (options.require_openapi_schema) {
    if (!hoisted_schema) {
      for (const Version& ver : crd.versions) {
        if (!ver.has_schema || ver.schema == nullptr) {
          errors.push_back(
              v::FieldRequired(Child(Index("spec.versions", ver.index), "schema.openAPIV3Schema"),
                               "schemas are required"));
        }
      }
    }
  } else if (!crd.preserve_unknown_fields && !hoisted_schema) {
    for (const Version& ver : crd.versions) {
      if (ver.served && (!ver.has_schema || ver.schema == nullptr)) {
        errors.push_back(
            v::FieldRequired(Child(Index("spec.versions", ver.index), "schema.openAPIV3Schema"),
                             "because otherwise all fields are pruned"));
      }
    }
  }
  if (options.allow_defaults && AnyRootSchema(crd, HasDefault)) {
    options.require_structural_schema = true;
    if (crd.preserve_unknown_fields) {
      errors.push_back(InvalidVerbatim("spec.preserveUnknownFields", "true",
                                       "must be false in order to use defaults in the schema"));
    }
  }
  if (AnyRootSchema(crd, HasKubernetesExtensions)) {
    options.require_structural_schema = true;
  }

  for (const Version& ver : crd.versions) {
    const std::string path = Index("spec.versions", ver.index);
    ValidateVersionName(ver, errors);
    ValidateDeprecationWarning(ver, errors);
    Options version_options = options;
    version_options.suppress_per_expression_cost =
        options.versions_with_unchanged_schemas.contains(ver.name);
    ValidateCustomResourceValidation(ver.has_schema, ver.schema,
                                     HasStatus(SubresourcesFor(crd, ver)), version_options,
                                     Child(path, "schema"), errors);
    ValidateSubresources(ver.subresources, Child(path, "subresources"), errors);
    if (ver.columns != nullptr) {
      for (size_t j = 0; j < ver.columns->size(); ++j) {
        ValidateColumn((*ver.columns)[j], Index(Child(path, "additionalPrinterColumns"), j),
                       errors);
      }
    }
    // (upstream's wording)
    ValidateSelectable(ver.selectable, ver.has_schema, ver.schema, Child(path, "selectableFields"),
                       Child(path, "schema.openAPIV3Schema"),
                       "selectableFields may only be set when version.schema.openAPIV3Schema is "
                       "not included",
                       errors);
  }

  ValidateVersionSet(crd, errors);
  ValidateRequiredNames(crd, errors);
  ValidateNames(crd.names, "spec.names", errors);

  // The hoisted schema is the first version's (upstream keys it by spec.version).
  Options hoisted_options = options;
  hoisted_options.suppress_per_expression_cost =
      options.versions_with_unchanged_schemas.contains(crd.version);
  ValidateCustomResourceValidation(crd.has_validation, crd.validation_schema, AnyStatusEnabled(crd),
                                   hoisted_options, "spec.validation", errors);
  ValidateSubresources(crd.subresources, "spec.subresources", errors);
  if (crd.columns != nullptr) {
    for (size_t j = 0; j < crd.columns->size(); ++j) {
      ValidateColumn((*crd.columns)[j], Index("spec.additionalPrinterColumns", j), errors);
    }
  }
  ValidateSelectable(crd.selectable, crd.has_validation, crd.validation_schema,
                     "spec.selectableFields", "spec.schema.openAPIV3Schema",
                     "selectableFields may only be set when validations.schema is included",
                     errors);

  ValidateConversion(crd, options, errors);
}

void ValidateStatus(const json& crd, FieldErrors& errors) {
  const json* accepted = Get(Get(crd, "status"), "acceptedNames");
  ValidateNames(accepted, "status.acceptedNames", errors);
}

void ValidatePreserveUnknownFields(const Crd& crd, const Crd* old, FieldErrors& errors) {
  if (old != nullptr && old->preserve_unknown_fields) return;  // kept for existing data
  if (crd.preserve_unknown_fields) {
    errors.push_back(
        InvalidVerbatim("spec.preserveUnknownFields", "true",
                        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
                        "spec.versions[*].schema instead"));
  }
}

}  // namespace

FieldErrors ValidateCustomResourceDefinition(const json& crd) {
  const Crd view = View(crd);
  FieldErrors errors;
  ValidateMetadataName(crd, view, errors);
  ValidateSpec(view, Options{}, errors);
  ValidateStatus(crd, errors);
  ValidateStoredVersions(crd, view, errors);
  ValidateAPIApproval(crd, nullptr, errors);
  ValidatePreserveUnknownFields(view, nullptr, errors);
  return errors;
}

FieldErrors ValidateCustomResourceDefinitionUpdate(const json& crd, const json& old) {
  const Crd view = View(crd);
  const Crd before = View(old);
  const Options options = UpdateOptions(crd, old);
  FieldErrors errors;
  ValidateSpec(view, options, errors);
  ValidateImmutable(view, before, options, errors);
  ValidateStatus(crd, errors);
  ValidateStoredVersions(crd, view, errors);
  ValidateAPIApproval(crd, &old, errors);
  ValidatePreserveUnknownFields(view, &before, errors);
  return errors;
}

FieldErrors ValidateCustomResourceDefinitionStatusUpdate(const json& crd, const json& old) {
  (void)old;  // the metadata rules of an update are the registry's
  FieldErrors errors;
  ValidateStatus(crd, errors);
  return errors;
}

}  // namespace apiextensions::validation
