#include "pkg/apiextensions/schema/nulls.h"

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/schema_node.h"

namespace apiextensions::schema {

namespace {

using nlohmann::json;

// getSchemaForField: the property's schema, else additionalProperties' (maybe none).
const json* SchemaForField(const std::string& field, const json* s) {
  if (!s) return nullptr;
  if (const json* prop = node::Property(s, field)) return prop;
  return node::AdditionalProperties(s).schema;
}

void Drop(json& x, const json* s) {
  // Without a schema nothing below can be dropped (upstream recurses to no effect).
  if (!s) return;
  if (x.is_object()) {
    for (auto it = x.begin(); it != x.end();) {
      const json* schema = SchemaForField(it.key(), s);
      if (it->is_null() && schema && !node::Nullable(schema) && !node::Default(schema)) {
        it = x.erase(it);
      } else {
        Drop(it.value(), schema);
        ++it;
      }
    }
  } else if (x.is_array()) {
    const json* items = node::Items(s);
    for (json& item : x) Drop(item, items);
  }
}

}  // namespace

void DropNonNullableNulls(json& object, const json& schema) {
  Drop(object, schema.is_object() ? &schema : nullptr);
}

}  // namespace apiextensions::schema
