#pragma once
// The components.schemas of one document: the group-version's own component maps, schemas
// made up for kinds that have none, and meta schemas borrowed (with everything they refer
// to) from a shared map when the own ones lack them. Every reference it hands out resolves.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace endpoints::openapi {

class SchemaSet {
 public:
  // `shared` (may be null) lends schemas the document's own maps lack.
  explicit SchemaSet(const nlohmann::json* shared = nullptr);
  ~SchemaSet();
  SchemaSet(const SchemaSet&) = delete;
  SchemaSet& operator=(const SchemaSet&) = delete;

  // Adds every schema of a components.schemas map (the first definition of a name wins).
  void Merge(const nlohmann::json& schemas);
  void Add(const std::string& name, nlohmann::json schema);
  bool Has(std::string_view name) const;
  // Whether Has(name) or the shared map could lend it.
  bool Available(std::string_view name) const;

  // The schema named for a kind by its x-kubernetes-group-version-kind, in the own maps
  // first, then in the shared one.
  std::optional<std::string> FindKind(const registry::GroupVersionKind& gvk) const;

  // {"$ref": "#/components/schemas/<name>"} when the schema is here or can be borrowed (it
  // is, with its dependencies); a free-form object schema otherwise (and for "").
  nlohmann::json Ref(std::string_view name);

  const nlohmann::json& Schemas() const { return *schemas_; }

 private:
  void Borrow(const std::string& name);
  static void Index(const nlohmann::json& schemas, std::map<std::string, std::string>& by_kind);

  const nlohmann::json* shared_;
  std::unique_ptr<nlohmann::json> schemas_;            // name -> schema
  std::map<std::string, std::string> by_kind_;         // "group/version/kind" -> name
  std::map<std::string, std::string> shared_by_kind_;  // likewise, in shared_
};

}  // namespace endpoints::openapi
