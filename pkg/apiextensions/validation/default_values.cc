// Defaults in a structural schema (upstream's schema/defaulting ValidateDefaults): each default
// must already be pruned (no field its schema would drop) and must validate against its
// schema. The schema is treated as a resource root, so apiVersion, kind and metadata are
// kept at the root and in x-kubernetes-embedded-resource objects.

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/object_meta.h"
#include "pkg/apiextensions/schema/openapi.h"
#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

bool IsMetaField(std::string_view k) { return k == "apiVersion" || k == "kind" || k == "metadata"; }

const json* ObjectMember(const json* s, std::string_view key) {
  const json* x = Get(s, key);
  return x != nullptr && x->is_object() ? x : nullptr;
}

void Prune(json& x, const json* s, bool embedded_override);

// Inside x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are pruned
// by their schemas.
void SkipPrune(json& x, const json* s, bool embedded_override) {
  if (s == nullptr) return;
  const bool embedded = embedded_override || Bool(s, "x-kubernetes-embedded-resource");
  if (x.is_object()) {
    const json* props = ObjectMember(s, "properties");
    const json* ap = Get(s, "additionalProperties");
    for (auto& [k, val] : x.items()) {
      if (embedded && IsMetaField(k)) continue;
      if (const json* prop = ObjectMember(props, k)) {
        Prune(val, prop, false);
      } else if (ap != nullptr) {
        Prune(val, ap->is_object() ? ap : nullptr, false);
      }
    }
  } else if (x.is_array()) {
    for (json& e : x) SkipPrune(e, ObjectMember(s, "items"), false);
  }
}

// upstream's pruning.Prune: drops every field the schema does not specify.
void Prune(json& x, const json* s, bool embedded_override) {
  if (s != nullptr && Bool(s, "x-kubernetes-preserve-unknown-fields")) {
    SkipPrune(x, s, embedded_override);
    return;
  }
  if (x.is_object()) {
    if (s == nullptr) {
      x = json::object();
      return;
    }
    const bool embedded = embedded_override || Bool(s, "x-kubernetes-embedded-resource");
    const json* props = ObjectMember(s, "properties");
    const json* ap = Get(s, "additionalProperties");
    std::vector<std::string> drop;
    for (auto& [k, val] : x.items()) {
      if (embedded) {
        if ((k == "apiVersion" || k == "kind") && val.is_string()) continue;
        if (k == "metadata" && val.is_object()) continue;
      }
      if (const json* prop = ObjectMember(props, k)) {
        Prune(val, prop, false);
      } else if (ap != nullptr) {
        Prune(val, ap->is_object() ? ap : nullptr, false);
      } else {
        drop.push_back(k);
      }
    }
    for (const std::string& k : drop) x.erase(k);
  } else if (x.is_array()) {
    const json* items = ObjectMember(s, "items");
    for (json& e : x) Prune(e, s == nullptr ? nullptr : items, false);
  }
}

// The value checks upstream makes of a default (objectmeta.Validate for embedded resources,
// else kube-openapi's validation), by the structural-schema library. Its fields are relative
// to the value ("<nil>" for the value itself) and go under path as upstream's
// errPath.Child(name) puts them; the details keep the library's (kube-openapi's) wording.
void AppendValueErrors(const json& schema, const json& value, const std::string& path,
                       FieldErrors& errors) {
  FieldErrors found = apiextensions::schema::ValidateEmbeddedResources(schema, value);
  if (found.empty()) found = apiextensions::schema::ValidateValue(schema, value);
  for (FieldError& e : found) {
    e.field = e.field.empty() || e.field == "<nil>" ? path : Child(path, e.field);
    errors.push_back(std::move(e));
  }
}

struct Walker {
  bool require_pruned = true;
  bool report = true;     // false: only find unpruned defaults
  bool unpruned = false;  // found one
  FieldErrors* errors = nullptr;

  void Walk(const json& s, const std::string& path, bool inside_meta, bool is_root) {
    const bool embedded = is_root || Bool(&s, "x-kubernetes-embedded-resource");
    if (embedded) inside_meta = false;
    if (const json* def = Get(s, "default"); def != nullptr && !inside_meta) {
      // (Defaults of apiVersion, kind and metadata are checked as part of their object
      // upstream; here they are left to the metadata rules.)
      if (require_pruned) {
        json pruned = *def;
        Prune(pruned, &s, embedded);
        if (pruned != *def) {
          unpruned = true;
          if (report) {
            errors->push_back(
                InvalidJSON(Child(path, "default"), *def, "must not have unknown fields"));
          }
        }
      }
      if (report) AppendValueErrors(s, *def, Child(path, "default"), *errors);
    }
    // additionalProperties are not followed: defaults are forbidden there.
    if (const json* items = ObjectMember(&s, "items")) {
      Walk(*items, Child(path, "items"), inside_meta, false);
    }
    if (const json* props = ObjectMember(&s, "properties")) {
      for (const auto& [k, p] : props->items()) {
        if (!p.is_object()) continue;
        Walk(p, Key(Child(path, "properties"), k), inside_meta || (embedded && IsMetaField(k)),
             false);
      }
    }
  }
};

}  // namespace

FieldErrors ValidateDefaults(const json& schema, const std::string& path, bool require_pruned) {
  FieldErrors errors;
  Walker walker;
  walker.require_pruned = require_pruned;
  walker.errors = &errors;
  walker.Walk(schema, path, false, true);
  return errors;
}

bool HasUnprunedDefaults(const json& schema) {
  if (!HasDefault(schema) || !IsStructural(schema)) return false;
  Walker walker;
  walker.report = false;
  walker.Walk(schema, "", false, true);
  return walker.unpruned;
}

}  // namespace apiextensions::validation::internal
