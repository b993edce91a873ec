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
// the version's schema, as upstream's custom resource strategy does with it: the value checks of
// kube-openapi (types, formats, bounds, enum, pattern, required, nullable, allOf/anyOf/oneOf/not,
// int-or-string; see openapi.h for the exact rules and messages), then embedded resources
// (apiVersion/kind/metadata checked as upstream, object_meta.h), then list-type set/map
// uniqueness (list_type.h). The root's own metadata is the Store's (ValidateObjectMeta), but the
// root schema's metadata properties do apply. x-kubernetes-validations (CEL) rules are NOT
// evaluated here (see cel/), nor is validation ratcheting on update.
FieldErrors ValidateCustomResource(const nlohmann::json& schema, const nlohmann::json& object);

// What upstream's custom resource decoding does to an object of the CRD's kind (the schema
// coercer of customresource_handler.go), in its order:
//  1. the root metadata is decoded into ObjectMeta and written back (object_meta.h): unknown
//     fields removed ("metadata.foo", "metadata.ownerReferences[0].bar"), wrongly typed ones
//     dropped (dropInvalidFields), values in their typed form;
//  2. every field the schema does not specify is removed ("spec.foo", "spec.list[0].x", "foo"),
//     x-kubernetes-preserve-unknown-fields keeping unknowns while its specified properties are
//     still pruned; at the root and inside x-kubernetes-embedded-resource objects apiVersion,
//     kind and metadata are kept;
//  3. nulls whose schema is neither nullable nor defaulted are removed (nulls.h; not reported);
//  4. embedded resources are coerced: non-string apiVersion/kind dropped, metadata as in 1
//     (their unknown metadata paths sorted, as upstream sorts them).
// Returns the removed unknown fields' paths in that order (within step 2 in key order, where
// upstream follows Go's map order), for fieldValidation's `unknown field "<path>"`.
std::vector<std::string> PruneCustomResource(nlohmann::json& object, const nlohmann::json& schema);

// Upstream's structural defaulting, top-down: absent properties, and nulls where the schema is
// not nullable, get a deep copy of the schema's default, in objects, array items and
// additionalProperties values, then defaulted values are defaulted inside. A "default": null is
// no default (as upstream). Upstream's decoder runs it after PruneCustomResource (whose null
// dropping leaves the defaulted nulls for it).
void ApplyDefaults(nlohmann::json& object, const nlohmann::json& schema);

}  // namespace apiextensions::schema
