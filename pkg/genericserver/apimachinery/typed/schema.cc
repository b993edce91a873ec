#include "pkg/genericserver/apimachinery/typed/schema.h"

#include <algorithm>

namespace apimachinery::typed {

using nlohmann::json;

namespace {

constexpr std::string_view kRefPrefixes[] = {"#/components/schemas/", "#/definitions/"};

std::string RefName(const json& node) {
  auto it = node.find("$ref");
  if (it == node.end() || !it->is_string()) return "";
  std::string ref = it->get<std::string>();
  for (std::string_view prefix : kRefPrefixes) {
    if (ref.starts_with(prefix)) return ref.substr(prefix.size());
  }
  return ref;
}

std::string Str(const json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : "";
}

bool True(const json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_boolean() && it->get<bool>();
}

// The node behind a single-element allOf wrapper (upstream's way of adding a default or a
// description to a $ref).
const json& Unwrap(const json& node) {
  auto all = node.find("allOf");
  if (all != node.end() && all->is_array() && all->size() == 1 && !node.contains("$ref") &&
      !node.contains("properties") && !node.contains("type")) {
    return (*all)[0];
  }
  return node;
}

}  // namespace

const Field* Type::FindField(std::string_view name) const {
  auto it = fields.find(name);
  return it == fields.end() ? nullptr : &it->second;
}

const Type& Schema::Untyped() {
  static const Type* untyped = [] {
    auto* t = new Type;
    t->kind = Type::Kind::kUntyped;
    t->atomic = true;
    t->elements = t;
    return t;
  }();
  return *untyped;
}

const Type& Schema::Deduced() {
  static const Type* deduced = [] {
    auto* t = new Type;
    t->kind = Type::Kind::kDeduced;
    t->elements = t;
    return t;
  }();
  return *deduced;
}

Schema::Schema(const json& components, std::string root, const json* fallback)
    : components_(components), fallback_(fallback) {
  root_ = Named(root);
  // A kind without a schema: everything is deduced from the objects.
  if (root_ == &Untyped()) root_ = &Deduced();
}

Schema::~Schema() = default;

Type* Schema::New() {
  types_.push_back(std::make_unique<Type>());
  return types_.back().get();
}

const Type* Schema::Named(const std::string& name) {
  if (name == "io.k8s.apimachinery.pkg.runtime.RawExtension") return &Untyped();
  if (auto it = named_.find(name); it != named_.end()) return it->second;
  const json* node = nullptr;
  for (const json* doc : {&components_, fallback_}) {
    if (doc && doc->is_object()) {
      if (auto it = doc->find(name); it != doc->end()) {
        node = &*it;
        break;
      }
    }
  }
  if (!node) return &Untyped();
  // A placeholder first: types may refer to themselves (JSONSchemaProps).
  Type* t = New();
  named_[name] = t;
  const Type* built = Build(*node, false);
  *t = *built;
  if (built->elements == built) t->elements = t;
  return t;
}

const Type* Schema::Build(const json& raw, bool preserve) {
  if (!raw.is_object()) return &Deduced();
  const json& node = Unwrap(raw);
  if (std::string ref = RefName(node); !ref.empty()) return Named(ref);
  if (True(node, "x-kubernetes-int-or-string")) {
    Type* t = New();
    t->kind = Type::Kind::kScalar;
    return t;
  }
  preserve = preserve || True(node, "x-kubernetes-preserve-unknown-fields");
  const std::string type = Str(node, "type");
  if (type == "array" || node.contains("items")) {
    Type* t = New();
    t->kind = Type::Kind::kList;
    t->atomic = true;
    auto items = node.find("items");
    t->elements = items != node.end() ? Build(*items, preserve) : &Untyped();
    const std::string list_type = Str(node, "x-kubernetes-list-type");
    const std::string strategy = Str(node, "x-kubernetes-patch-strategy");
    if (list_type == "set") {
      t->atomic = false;
      t->set = true;
    } else if (list_type == "map") {
      t->atomic = false;
      if (auto keys = node.find("x-kubernetes-list-map-keys");
          keys != node.end() && keys->is_array()) {
        for (const json& k : *keys) {
          if (k.is_string()) t->keys.push_back(k.get<std::string>());
        }
      }
    } else if (list_type.empty() && (strategy == "merge" || strategy == "merge,retainKeys")) {
      t->atomic = false;
      if (std::string key = Str(node, "x-kubernetes-patch-merge-key"); !key.empty()) {
        t->keys.push_back(key);
      } else {
        t->set = true;
      }
    }
    return t;
  }
  const bool has_props = node.contains("properties") && node["properties"].is_object();
  auto extra = node.find("additionalProperties");
  const bool has_extra =
      extra != node.end() && (extra->is_object() || True(node, "additionalProperties"));
  if (has_props || has_extra) {
    Type* t = New();
    t->kind = Type::Kind::kMap;
    t->atomic = Str(node, "x-kubernetes-map-type") == "atomic";
    if (has_extra) {
      t->elements = extra->is_object() ? Build(*extra, preserve) : &Deduced();
    } else if (preserve) {
      t->elements = &Deduced();
    }
    if (has_props) {
      t->is_struct = true;
      std::vector<std::string> required;
      if (auto r = node.find("required"); r != node.end() && r->is_array()) {
        for (const json& name : *r) {
          if (name.is_string()) required.push_back(name.get<std::string>());
        }
      }
      for (const auto& [name, prop] : node["properties"].items()) {
        Field f;
        f.type = Build(prop, preserve);
        if (prop.is_object()) {
          if (auto d = prop.find("default"); d != prop.end()) f.default_value = *d;
        }
        f.required = std::find(required.begin(), required.end(), name) != required.end();
        t->fields.emplace(name, std::move(f));
      }
    }
    return t;
  }
  if (type == "object" || type.empty()) return &Deduced();
  Type* t = New();
  t->kind = Type::Kind::kScalar;
  return t;
}

}  // namespace apimachinery::typed
