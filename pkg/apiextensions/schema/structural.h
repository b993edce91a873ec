#pragma once
// Structural schemas (a CRD version's openAPIV3Schema, JSONSchemaProps as JSON) applied to
// custom resources as upstream's apiextensions-apiserver applies them: validation of values
// with upstream's field errors, pruning of unknown fields, defaulting.
//
// Schemas are JSON objects in the CRD's own form ("type", "properties", "items",
// "additionalProperties", "x-kubernetes-*", ...). Paths are printed as upstream prints them:
// "spec.replicas", "spec.containers[0].name", "metadata.labels".

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace apiextensions::schema {

using FieldErrors = std::vector<apimachinery::validation::FieldError>;

// Validates a custom resource (the whole object, apiVersion/kind/metadata included) against
// the version's schema: types, formats, bounds, enum, pattern, required, nullable,
// allOf/anyOf/oneOf/not, int-or-string, list-type set/map uniqueness, embedded resources
// (apiVersion/kind/metadata checked as upstream), with upstream's messages.
// x-kubernetes-validations (CEL) rules are NOT evaluated here (see cel/).
FieldErrors ValidateCustomResource(const nlohmann::json& schema, const nlohmann::json& object);

// Removes every field the schema does not specify (x-kubernetes-preserve-unknown-fields
// keeps them), at the root and inside x-kubernetes-embedded-resource objects keeping
// apiVersion, kind and metadata (metadata itself pruned to ObjectMeta's fields). Returns the
// removed paths ("spec.foo", "metadata.bar") in document order, for fieldValidation.
std::vector<std::string> PruneCustomResource(nlohmann::json& object, const nlohmann::json& schema);

// Fills absent (and, for nullable: false, null) fields that have a "default" in the schema,
// as upstream's structural defaulting does, depth first.
void ApplyDefaults(nlohmann::json& object, const nlohmann::json& schema);

}  // namespace apiextensions::schema
