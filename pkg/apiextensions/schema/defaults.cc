// ApplyDefaults: upstream's structural defaulting (apiextensions-apiserver
// pkg/apiserver/schema/defaulting/algorithm.go, Default).
//
// For an object, every property with a default that is absent, or null while the property is
// not nullable, gets a deep copy of the default; then every field is visited (including the
// ones just defaulted, so defaults nest). additionalProperties values and array items that are
// null where their schema is not nullable get that schema's default. A "default": null is no
// default (upstream's Default.Object is nil), so it is never applied. Only the node's own
// properties / additionalProperties / items count (allOf & co. are not structural), and
// x-kubernetes-preserve-unknown-fields or x-kubernetes-embedded-resource change nothing.

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/schema_node.h"
#include "pkg/apiextensions/schema/structural.h"

namespace apiextensions::schema {

namespace {

using nlohmann::json;

bool IsNonNullableNull(const json& x, const json* s) {
  return x.is_null() && s && !node::Nullable(s);
}

// The default to put in place of a non-nullable null: the schema's, or null when it has none.
json DefaultOrNull(const json* s) {
  const json* d = node::Default(s);
  return d ? *d : json(nullptr);
}

void Default(json& x, const json* s) {
  if (!s) return;
  if (x.is_object()) {
    if (auto props = s->find("properties"); props != s->end() && props->is_object()) {
      for (auto it = props->begin(); it != props->end(); ++it) {
        const json* prop = it->is_object() ? &it.value() : nullptr;
        const json* value = node::Default(prop);
        if (!value) continue;
        auto found = x.find(it.key());
        if (found == x.end() || IsNonNullableNull(*found, prop)) x[it.key()] = *value;
      }
    }
    const node::Additional additional = node::AdditionalProperties(s);
    for (auto it = x.begin(); it != x.end(); ++it) {
      if (const json* prop = node::Property(s, it.key())) {
        Default(it.value(), prop);
      } else if (additional.present) {
        if (IsNonNullableNull(it.value(), additional.schema)) {
          it.value() = DefaultOrNull(additional.schema);
        }
        Default(it.value(), additional.schema);
      }
    }
  } else if (x.is_array()) {
    const json* items = node::Items(s);
    for (json& item : x) {
      if (IsNonNullableNull(item, items)) item = DefaultOrNull(items);
      Default(item, items);
    }
  }
}

}  // namespace

void ApplyDefaults(json& object, const json& schema) {
  Default(object, schema.is_object() ? &schema : nullptr);
}

}  // namespace apiextensions::schema
