#include "pkg/genericserver/endpoints/openapi/schema_set.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/naming.h"

namespace endpoints::openapi {
namespace {

constexpr std::string_view kRefPrefix = "#/components/schemas/";

std::string KindKey(std::string_view group, std::string_view version, std::string_view kind) {
  return std::string(group) + "/" + std::string(version) + "/" + std::string(kind);
}

// The schema names `schema` refers to, anywhere inside it.
void CollectRefs(const nlohmann::json& schema, std::vector<std::string>& out) {
  if (schema.is_object()) {
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (it.key() == "$ref" && it.value().is_string()) {
        const std::string& ref = it.value().get_ref<const std::string&>();
        // Names in our maps never need pointer escapes; a ref that has one is left alone.
        if (ref.starts_with(kRefPrefix)) out.push_back(ref.substr(kRefPrefix.size()));
      } else {
        CollectRefs(it.value(), out);
      }
    }
  } else if (schema.is_array()) {
    for (const nlohmann::json& v : schema) CollectRefs(v, out);
  }
}

}  // namespace

SchemaSet::SchemaSet(const nlohmann::json* shared)
    : shared_(shared), schemas_(std::make_unique<nlohmann::json>(nlohmann::json::object())) {
  if (shared_ && shared_->is_object()) Index(*shared_, shared_by_kind_);
}

SchemaSet::~SchemaSet() = default;

void SchemaSet::Index(const nlohmann::json& schemas, std::map<std::string, std::string>& by_kind) {
  for (auto it = schemas.begin(); it != schemas.end(); ++it) {
    auto gvks = it.value().find("x-kubernetes-group-version-kind");
    if (gvks == it.value().end() || !gvks->is_array()) continue;
    for (const nlohmann::json& gvk : *gvks) {
      if (!gvk.is_object()) continue;
      by_kind.try_emplace(
          KindKey(gvk.value("group", ""), gvk.value("version", ""), gvk.value("kind", "")),
          it.key());
    }
  }
}

void SchemaSet::Merge(const nlohmann::json& schemas) {
  if (!schemas.is_object()) return;
  for (auto it = schemas.begin(); it != schemas.end(); ++it) {
    if (!schemas_->contains(it.key())) (*schemas_)[it.key()] = it.value();
  }
  Index(schemas, by_kind_);
}

void SchemaSet::Add(const std::string& name, nlohmann::json schema) {
  if (schemas_->contains(name)) return;
  nlohmann::json one = nlohmann::json::object();
  one[name] = std::move(schema);
  Merge(one);
}

bool SchemaSet::Has(std::string_view name) const { return schemas_->find(name) != schemas_->end(); }

bool SchemaSet::Available(std::string_view name) const {
  return Has(name) || (shared_ && shared_->is_object() && shared_->find(name) != shared_->end());
}

std::optional<std::string> SchemaSet::FindKind(const registry::GroupVersionKind& gvk) const {
  const std::string key = KindKey(gvk.group, gvk.version, gvk.kind);
  if (auto it = by_kind_.find(key); it != by_kind_.end()) return it->second;
  if (auto it = shared_by_kind_.find(key); it != shared_by_kind_.end()) return it->second;
  return std::nullopt;
}

void SchemaSet::Borrow(const std::string& name) {
  std::vector<std::string> pending = {name};
  while (!pending.empty()) {
    std::string next = std::move(pending.back());
    pending.pop_back();
    if (Has(next)) continue;
    auto it = shared_->find(next);
    if (it == shared_->end()) continue;  // a dangling ref in the shared map stays dangling
    (*schemas_)[next] = *it;
    CollectRefs(*it, pending);
  }
}

nlohmann::json SchemaSet::Ref(std::string_view name) {
  if (!name.empty() && !Has(name) && Available(name)) Borrow(std::string(name));
  if (name.empty() || !Has(name)) return {{"type", "object"}};
  return {{"$ref", std::string(kRefPrefix) + EscapeJsonPointer(name)}};
}

}  // namespace endpoints::openapi
