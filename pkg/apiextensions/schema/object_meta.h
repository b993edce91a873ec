#pragma once
// ObjectMeta and TypeMeta of custom resources, as apiextensions-apiserver's
// pkg/apiserver/schema/objectmeta handles them: the metadata of the root and of every
// x-kubernetes-embedded-resource object is decoded into metav1.ObjectMeta and written back, so
// that unknown fields disappear (reported for fieldValidation) and, with dropInvalidFields,
// wrongly typed fields are dropped field by field; embedded resources are validated as upstream
// validates them.
//
// The typed round trip is reproduced on the JSON: the known fields are name, generateName,
// namespace, selfLink, uid, resourceVersion, generation, creationTimestamp, deletionTimestamp,
// deletionGracePeriodSeconds, labels, annotations, ownerReferences, finalizers and managedFields
// (and inside ownerReferences / managedFields their own fields). Values are checked as Go's
// encoding/json would decode them after upstream re-marshals the unstructured metadata (so an
// integral float such as 3.0 is a valid generation, 1.5 is not); empty values that the typed
// encoding omits are dropped (omitempty), timestamps come back in RFC 3339 UTC at second
// precision, null map values and list items become "" (or an empty owner reference), and a zero
// creationTimestamp is removed (as Coerce removes it). An ownerReference always carries
// apiVersion, kind, name and uid (those have no omitempty).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/apiextensions/schema/structural.h"

namespace apiextensions::schema {

// Coerces `metadata` in place as GetObjectMetaWithOptions (DropMalformedFields,
// ReturnUnknownFieldPaths) followed by SetObjectMeta does: returns the unknown fields' paths
// ("<prefix>.foo", "<prefix>.ownerReferences[0].bar"), in JSON order. A metadata that is not an
// object is left as it is (upstream passes it through); null becomes {}.
std::vector<std::string> CoerceObjectMeta(nlohmann::json& metadata, std::string_view prefix);

// objectmeta.CoerceWithOptions(nil, object, schema, isResourceRoot=false, DropInvalidFields,
// ReturnUnknownFieldPaths): in every embedded resource the schema reaches, apiVersion and kind
// that are not strings are dropped and the metadata coerced. Returns the unknown metadata
// fields' paths, sorted ("spec.template.metadata.foo"; additionalProperties keys render as
// field.Path keys: "spec.templates[a].metadata.foo").
std::vector<std::string> CoerceEmbeddedResources(nlohmann::json& object,
                                                 const nlohmann::json& schema);

// objectmeta.Validate(nil, object, schema, isResourceRoot=false): for every embedded resource,
// apiVersion and kind required and well-formed (kind a DNS-1035 label once lower-cased; "may
// have mixed case, but should otherwise match: ..."), metadata decodable and valid as
// metavalidation.ValidateObjectMeta with path-segment names (name and generateName may not be
// "." / ".." or contain "/" or "%"; an empty name is not required), a namespace only checked
// when set (DNS-1123 label), labels, annotations, ownerReferences, finalizers, managedFields.
FieldErrors ValidateEmbeddedResources(const nlohmann::json& schema, const nlohmann::json& object);

// Go's json.Unmarshal error for `metadata` into a metav1.ObjectMeta ("json: cannot unmarshal
// number into Go struct field ObjectMeta.name of type string"), nullopt when it decodes.
std::optional<std::string> ObjectMetaDecodeError(const nlohmann::json& metadata);

}  // namespace apiextensions::schema
