#pragma once
// How server-side apply sees a kind's schema (structured-merge-diff's schema, as upstream's
// kube-openapi converts OpenAPI into it): every node is a scalar, a list or a map.
//  - Lists are atomic (replaced whole), sets of scalars, or maps keyed by fields of their
//    items: x-kubernetes-list-type atomic / set / map with x-kubernetes-list-map-keys; without
//    it, x-kubernetes-patch-strategy merge makes a keyed list (by the patch merge key) or a
//    set; everything else is atomic.
//  - Maps are structs (properties) and maps (additionalProperties), granular unless
//    x-kubernetes-map-type atomic.
//  - Untyped nodes (RawExtension, a type without properties): scalars, atomic lists, atomic
//    maps. Deduced nodes (x-kubernetes-preserve-unknown-fields, a schema with no type): maps
//    are granular with deduced values, lists atomic.
// A Schema is built once from the OpenAPI components and is immutable afterwards: any
// thread may use it.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace apimachinery::typed {

struct Type;

struct Field {
  const Type* type = nullptr;
  // The field's default in the schema (a list key's value when an item omits it).
  nlohmann::json default_value;
  bool required = false;
};

struct Type {
  enum class Kind { kScalar, kList, kMap, kUntyped, kDeduced };
  Kind kind = Kind::kScalar;
  bool atomic = false;
  // Lists: the items; maps: the values of keys that are not struct fields (null: untyped).
  const Type* elements = nullptr;
  // Lists: keyed by these item fields; set: a set of scalars (when not atomic).
  std::vector<std::string> keys;
  bool set = false;
  // Maps that are structs: their fields.
  std::map<std::string, Field, std::less<>> fields;
  bool is_struct = false;

  const Field* FindField(std::string_view name) const;
};

class Schema {
 public:
  // The schema of `root` ("io.k8s.api.apps.v1.Deployment") in `components` (the
  // components.schemas map); `$ref`s not found there are looked up in `fallback` (may be
  // null). Both must outlive the Schema.
  Schema(const nlohmann::json& components, std::string root,
         const nlohmann::json* fallback = nullptr);
  ~Schema();
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  const Type& Root() const { return *root_; }
  // The shared untyped and deduced nodes.
  static const Type& Untyped();
  static const Type& Deduced();

 private:
  const Type* Build(const nlohmann::json& node, bool preserve);
  const Type* Named(const std::string& name);
  Type* New();

  const nlohmann::json& components_;
  const nlohmann::json* fallback_;
  std::vector<std::unique_ptr<Type>> types_;
  std::map<std::string, const Type*> named_;
  const Type* root_ = nullptr;
};

}  // namespace apimachinery::typed
