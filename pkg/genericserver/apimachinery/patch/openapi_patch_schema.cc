#include "pkg/genericserver/apimachinery/patch/openapi_patch_schema.h"

#include <string_view>

#include <nlohmann/json.hpp>

namespace apimachinery::patch {
namespace {

using json = nlohmann::json;

// A schema node with `$ref`s and `allOf` wrappers followed; node == nullptr is free-form.
struct Resolved {
  const json* node = nullptr;
  std::string name;  // the component name of the last `$ref` followed, if any
};

// The name -> schema map inside a document, its "components" object, or the map itself.
const json* SchemasOf(const json& doc) {
  if (!doc.is_object()) return nullptr;
  auto components = doc.find("components");
  if (components != doc.end() && components->is_object()) {
    auto schemas = components->find("schemas");
    return schemas != components->end() && schemas->is_object() ? &*schemas : nullptr;
  }
  for (const char* key : {"schemas", "definitions"}) {
    auto it = doc.find(key);
    if (it != doc.end() && it->is_object()) return &*it;
  }
  return &doc;
}

std::string StringMember(const json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool Has(const json* node, const char* key) { return node && node->contains(key); }

class OpenApiSchema final : public PatchSchema {
 public:
  OpenApiSchema(std::shared_ptr<const json> doc, const json* schemas, Resolved self)
      : doc_(std::move(doc)), schemas_(schemas), self_(std::move(self)) {}

  std::optional<FieldPatchInfo> Field(std::string_view name) const override {
    const json* node = self_.node;
    if (node == nullptr || !node->is_object()) return FreeForm();
    auto props = node->find("properties");
    if (props != node->end() && props->is_object()) {
      auto prop = props->find(name);
      if (prop != props->end()) return InfoOf(*prop);
    }
    auto extra = node->find("additionalProperties");
    if (extra != node->end()) {
      if (extra->is_object()) return InfoOf(*extra);
      if (extra->is_boolean() && extra->get<bool>()) return FreeForm();
    }
    bool open = props == node->end() ||
                node->value("x-kubernetes-preserve-unknown-fields", json(false)) == json(true);
    if (open && extra == node->end()) return FreeForm();
    return std::nullopt;
  }

  std::string Name() const override {
    size_t dot = self_.name.rfind('.');
    return dot == std::string::npos ? self_.name : self_.name.substr(dot + 1);
  }

 private:
  Resolved Resolve(const json& start) const {
    Resolved r{&start, ""};
    for (int depth = 0; depth < 32 && r.node->is_object(); ++depth) {
      std::string ref = StringMember(*r.node, "$ref");
      if (!ref.empty()) {
        std::string_view target = ref;
        for (std::string_view prefix : {"#/components/schemas/", "#/definitions/"}) {
          if (target.starts_with(prefix)) target.remove_prefix(prefix.size());
        }
        auto found = schemas_->find(target);
        if (found == schemas_->end()) return Resolved{};
        r = Resolved{&*found, std::string(target)};
        continue;
      }
      auto all_of = r.node->find("allOf");
      if (all_of == r.node->end() || !all_of->is_array() || all_of->empty() ||
          r.node->contains("properties")) {
        break;
      }
      const json* next = nullptr;
      for (const json& part : *all_of) {
        if (part.is_object()) {
          next = &part;
          break;
        }
      }
      if (next == nullptr) break;
      r.node = next;
    }
    return r;
  }

  std::shared_ptr<const PatchSchema> Child(Resolved r) const {
    return std::make_shared<const OpenApiSchema>(doc_, schemas_, std::move(r));
  }

  FieldPatchInfo FreeForm() const {
    FieldPatchInfo info;
    info.schema = Child(Resolved{});
    return info;
  }

  // The metadata of a property (or additionalProperties) schema.
  FieldPatchInfo InfoOf(const json& prop) const {
    FieldPatchInfo info;
    if (!prop.is_object()) {
      info.schema = Child(Resolved{});
      return info;
    }
    std::string strategies = StringMember(prop, "x-kubernetes-patch-strategy");
    for (size_t start = 0; start <= strategies.size();) {
      size_t comma = strategies.find(',', start);
      if (comma == std::string::npos) comma = strategies.size();
      std::string_view one = std::string_view(strategies).substr(start, comma - start);
      while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
      while (!one.empty() && one.back() == ' ') one.remove_suffix(1);
      if (one == "merge") info.strategy = PatchStrategy::kMerge;
      if (one == "replace") info.strategy = PatchStrategy::kReplace;
      if (one == "retainKeys") info.retain_keys = true;
      start = comma + 1;
    }
    info.merge_key = StringMember(prop, "x-kubernetes-patch-merge-key");
    info.list_type = StringMember(prop, "x-kubernetes-list-type");
    auto keys = prop.find("x-kubernetes-list-map-keys");
    if (keys != prop.end() && keys->is_array()) {
      for (const json& k : *keys) {
        if (k.is_string()) info.list_map_keys.push_back(k.get<std::string>());
      }
    }
    Resolved value = Resolve(prop);
    if (value.node != nullptr && StringMember(*value.node, "type") == "array") {
      info.is_list = true;
      auto items = value.node->find("items");
      Resolved item = items != value.node->end() ? Resolve(*items) : Resolved{};
      std::string type = item.node ? StringMember(*item.node, "type") : "";
      info.primitive_items = item.node != nullptr && type != "object" && type != "array" &&
                             !Has(item.node, "properties") &&
                             !Has(item.node, "additionalProperties");
      info.schema = Child(std::move(item));
    } else {
      info.schema = Child(std::move(value));
    }
    return info;
  }

  std::shared_ptr<const json> doc_;
  const json* schemas_;
  Resolved self_;
};

}  // namespace

std::expected<std::shared_ptr<const PatchSchema>, std::string> NewOpenApiPatchSchema(
    std::shared_ptr<const nlohmann::json> components, std::string root_schema_name) {
  const json* schemas = components ? SchemasOf(*components) : nullptr;
  if (schemas == nullptr) return std::unexpected("no OpenAPI component schemas");
  auto root = schemas->find(root_schema_name);
  if (root == schemas->end()) {
    return std::unexpected("schema \"" + root_schema_name +
                           "\" is not defined in the OpenAPI component schemas");
  }
  Resolved self{&*root, std::move(root_schema_name)};
  return std::make_shared<const OpenApiSchema>(std::move(components), schemas, std::move(self));
}

std::expected<std::shared_ptr<const PatchSchema>, std::string> NewOpenApiPatchSchema(
    const nlohmann::json& components, std::string root_schema_name) {
  return NewOpenApiPatchSchema(std::make_shared<const json>(components),
                               std::move(root_schema_name));
}

}  // namespace apimachinery::patch
