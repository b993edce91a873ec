#pragma once
// ResourceSpec: the one description of a resource, built-in or custom. The REST
// installer, discovery, OpenAPI, tables, field selectors and patching all read it;
// nothing about a resource is written anywhere else.

#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/registry/strategy.h"

namespace apimachinery::patch {
class PatchSchema;
}
namespace apimachinery::managedfields {
class FieldManager;
}

namespace registry {

class Allocations;
class SubresourceAction;

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
};

struct TableColumn {
  std::string name;
  std::string type = "string";  // string, integer, date, ...
  std::string format;           // "name" for the name column
  std::string description;      // in the project's own words
  int priority = 0;             // > 0: shown by -o wide only
};

// The columns most kinds share.
inline TableColumn NameColumn(int priority = 0) {
  return {"Name", "string", "name", "The object's name, unique in its namespace or cluster.",
          priority};
}
inline TableColumn AgeColumn() {
  return {"Age", "string", "", "How long ago the object was created.", 0};
}

// The cells of one table row for an object, given the current time (for ages).
using RowFunc = std::function<std::vector<nlohmann::json>(
    const nlohmann::json& object, std::chrono::system_clock::time_point now)>;
// The value of a selectable field of an object ("" when absent).
using FieldFunc = std::function<std::string(const nlohmann::json& object)>;

// A subresource whose object is a view of the resource's (an autoscaling/v1 Scale for
// /scale): read by turning the stored object into the view, written by folding a new
// view back into the stored object, which is then updated as usual.
class SubresourceView {
 public:
  virtual ~SubresourceView() = default;
  virtual nlohmann::json ToView(const nlohmann::json& object) const = 0;
  // The stored object with `view` applied, or the Status refusing the view (422).
  virtual std::expected<nlohmann::json, apimachinery::Status> FromView(
      const nlohmann::json& view, const nlohmann::json& object) const = 0;
};

struct Subresource {
  Subresource(std::string name, GroupVersionKind kind, std::vector<std::string> verbs,
              std::shared_ptr<const Strategy> strategy = nullptr,
              std::shared_ptr<const SubresourceView> view = nullptr,
              std::shared_ptr<const SubresourceAction> action = nullptr)
      : name(std::move(name)),
        kind(std::move(kind)),
        verbs(std::move(verbs)),
        strategy(std::move(strategy)),
        view(std::move(view)),
        action(std::move(action)) {}

  std::string name;                                 // "status", "finalize", "scale"
  GroupVersionKind kind;                            // what it returns
  std::vector<std::string> verbs;                   // "get", "patch", "update"
  std::shared_ptr<const Strategy> strategy;         // null: the resource's own
  std::shared_ptr<const SubresourceView> view;      // null: the object itself
  std::shared_ptr<const SubresourceAction> action;  // POST acts (subresource_action.h)
};

// How a custom resource's objects meet their schema: as unstructured JSON that the CRD's
// structural schema prunes, where built-in kinds are decoded into their Go types.
class UnstructuredSchema {
 public:
  virtual ~UnstructuredSchema() = default;
  // Removes the fields the schema does not specify; their paths ("spec.foo"), for
  // fieldValidation.
  virtual std::vector<std::string> Prune(nlohmann::json& object) const = 0;
};

struct ResourceSpec {
  std::string group;
  std::string version;
  std::string kind;
  std::string list_kind;  // default kind + "List"
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool namespaced = true;
  std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get",
                                    "list",   "patch",  "update",           "watch"};
  std::vector<Subresource> subresources;
  std::shared_ptr<const Strategy> strategy;
  // Table output (kubectl get); the Name and Age columns are not implied.
  std::vector<TableColumn> columns;
  RowFunc row;
  // Field selectors beyond metadata.name and metadata.namespace (always supported).
  std::map<std::string, FieldFunc> fields;
  // The OpenAPI component schema of the kind ("io.k8s.api.core.v1.ConfigMap") and the
  // components it lives in; empty/null when the kind has no schema.
  std::string schema_name;
  const nlohmann::json* components = nullptr;
  // What /openapi/v2 publishes for the kind instead of the v2 form of its `components`
  // entries (custom resources: upstream's v2 builder's kind and list definitions, by name,
  // with "#/definitions/" references); null for built-in kinds.
  const nlohmann::json* definitions_v2 = nullptr;
  // How strategic merge patches apply to the kind, read from the schema by Complete();
  // null for kinds without one (custom resources), which take no strategic merge patches.
  std::shared_ptr<const apimachinery::patch::PatchSchema> patch_schema;
  // Where the `$ref`s that `components` does not define resolve for server-side apply
  // (custom resources: ObjectMeta, from meta/v1's components); null for built-in kinds.
  const nlohmann::json* shared_components = nullptr;
  // metadata.managedFields and server-side apply for the kind, from the same schema; built
  // by Complete().
  std::shared_ptr<const apimachinery::managedfields::FieldManager> field_manager;
  // Storage key prefix, "/configmaps" (upstream's layout); default "/" + plural for the
  // core group, "/" + group + "/" + plural otherwise.
  std::string storage_prefix;
  // Sent as a Warning with every answer about the resource, as upstream does for
  // deprecated APIs ("v1 ComponentStatus is deprecated in v1.19+"); empty for most.
  std::string deprecation_warning;
  // What objects of the kind hold outside themselves (Services: IPs and node ports); null
  // for most kinds.
  std::shared_ptr<const Allocations> allocations;
  // A resource that is only a request (the legacy core `bindings`): a POST to the
  // collection acts through it (the object's name is in the body) and nothing is stored;
  // null for stored resources.
  std::shared_ptr<const SubresourceAction> create_action;
  // Custom resources: objects are unstructured and pruned by their schema instead of being
  // type-checked as a Go type would decode them; no strategic merge patch. Null for
  // built-in kinds.
  std::shared_ptr<const UnstructuredSchema> unstructured;
  // Discovery's storageVersionHash (upstream's hash of the storage group/version/kind);
  // empty: not reported.
  std::string storage_version_hash;

  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
  apimachinery::GroupResource Resource() const { return {group, plural}; }
  GroupVersionKind Kind() const { return {group, version, kind}; }
  const Subresource* FindSubresource(std::string_view name) const;
  // Fills the defaults above (list_kind, singular, storage_prefix, patch_schema).
  void Complete();
};

using ResourceSpecPtr = std::shared_ptr<const ResourceSpec>;

}  // namespace registry
