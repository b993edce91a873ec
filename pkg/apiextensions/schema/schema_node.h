#pragma once
// Reading a schema node (JSONSchemaProps in its JSON form) as upstream's structural schema
// (apiextensions-apiserver pkg/apiserver/schema.Structural) exposes it to pruning, defaulting,
// list-type and embedded ObjectMeta handling: only the node's own "properties", "items",
// "additionalProperties", "default", "nullable" and x-kubernetes-* extensions count; allOf,
// anyOf, oneOf and not are value validations that these algorithms ignore.
//
// A null pointer stands for "no schema" (upstream's nil *Structural). Malformed keywords (for
// example "properties" that is not an object) read as absent.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace apiextensions::schema::node {

// The schema of property `key`, or null.
const nlohmann::json* Property(const nlohmann::json* s, const std::string& key);

// additionalProperties: absent, a boolean (no schema) or a schema.
struct Additional {
  bool present = false;
  bool allows = true;
  const nlohmann::json* schema = nullptr;
};
Additional AdditionalProperties(const nlohmann::json* s);

// The single items schema (arrays of schemas, which CRDs forbid, read as none).
const nlohmann::json* Items(const nlohmann::json* s);

// A boolean keyword that is true.
bool Flag(const nlohmann::json* s, const char* name);
bool Nullable(const nlohmann::json* s);
bool PreserveUnknownFields(const nlohmann::json* s);
bool EmbeddedResource(const nlohmann::json* s);

// The default value, or null when there is none. A "default": null is no default upstream
// (Structural's Default.Object is nil either way).
const nlohmann::json* Default(const nlohmann::json* s);

// A string keyword, or "" when absent or not a string.
std::string String(const nlohmann::json* s, const char* name);

}  // namespace apiextensions::schema::node
