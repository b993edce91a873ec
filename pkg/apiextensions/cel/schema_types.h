#pragma once
// The bridge between structural schemas and CEL: the CEL type of a schema node (upstream's
// SchemaDeclType), property name escaping (upstream's cel.Escape), and the conversion of a
// custom resource's JSON into CEL values of those types.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/apiextensions/cel/value.h"

namespace apiextensions::cel {

// Upstream's Escape: the CEL identifier for a property name ("namespace" -> "__namespace__",
// "a-b" -> "a__dash__b", "a.b" -> "a__dot__b", "a/b" -> "a__slash__b", "a__b" ->
// "a__underscores__b"), or std::nullopt when the name cannot be used in CEL.
std::optional<std::string> EscapeProperty(std::string_view name);

// The CEL type of a schema node, nullptr when the node is not visible to CEL (no type,
// array without items, ...). resource_root adds apiVersion, kind and metadata.name /
// metadata.generateName as upstream's WithTypeAndObjectMeta does. Every node of the result
// carries upstream's size estimates (Type::max_elements from maxLength, maxItems,
// maxProperties, string enums and formats, else from the largest request;
// Type::min_serialized_size from the kind and the required properties).
TypePtr SchemaType(const nlohmann::json& schema, bool resource_root);

// The CEL value of a JSON value of type t (nullptr or dyn: by the JSON kind).
Value JsonToValue(const nlohmann::json& j, const TypePtr& t);

}  // namespace apiextensions::cel
