#include "pkg/apiextensions/schema/schema_node.h"

#include <nlohmann/json.hpp>

namespace apiextensions::schema::node {

// The schema of property `key`, or null.
const nlohmann::json* Property(const nlohmann::json* s, const std::string& key) {
  if (!s || !s->is_object()) return nullptr;
  auto props = s->find("properties");
  if (props == s->end() || !props->is_object()) return nullptr;
  auto it = props->find(key);
  if (it == props->end() || !it->is_object()) return nullptr;
  return &*it;
}

Additional AdditionalProperties(const nlohmann::json* s) {
  Additional a;
  if (!s || !s->is_object()) return a;
  auto it = s->find("additionalProperties");
  if (it == s->end() || it->is_null()) return a;
  a.present = true;
  if (it->is_boolean()) {
    a.allows = it->get<bool>();
  } else if (it->is_object()) {
    a.schema = &*it;
  }
  return a;
}

// The single items schema (arrays of schemas, which CRDs forbid, read as none).
const nlohmann::json* Items(const nlohmann::json* s) {
  if (!s || !s->is_object()) return nullptr;
  auto it = s->find("items");
  if (it == s->end() || !it->is_object()) return nullptr;
  return &*it;
}

// A boolean keyword that is true.
bool Flag(const nlohmann::json* s, const char* name) {
  if (!s || !s->is_object()) return false;
  auto it = s->find(name);
  return it != s->end() && it->is_boolean() && it->get<bool>();
}

bool Nullable(const nlohmann::json* s) { return Flag(s, "nullable"); }
bool PreserveUnknownFields(const nlohmann::json* s) {
  return Flag(s, "x-kubernetes-preserve-unknown-fields");
}
bool EmbeddedResource(const nlohmann::json* s) { return Flag(s, "x-kubernetes-embedded-resource"); }

// The default value, or null when there is none. A "default": null is no default upstream
// (Structural's Default.Object is nil either way).
const nlohmann::json* Default(const nlohmann::json* s) {
  if (!s || !s->is_object()) return nullptr;
  auto it = s->find("default");
  if (it == s->end() || it->is_null()) return nullptr;
  return &*it;
}

// A string keyword, or "" when absent.
std::string String(const nlohmann::json* s, const char* name) {
  if (!s || !s->is_object()) return "";
  auto it = s->find(name);
  if (it == s->end() || !it->is_string()) return "";
  return it->get<std::string>();
}

}  // namespace apiextensions::schema::node
