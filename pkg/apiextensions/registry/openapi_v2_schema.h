#pragma once
// What /openapi/v2 publishes for a served version of a CRD, as upstream's apiextensions
// builder does with its V2 options: the kind's definition (the structural schema turned
// into what kubectl's v2 parser copes with by ToStructuralOpenAPIV2, defaults pruned,
// metadata/apiVersion/kind as for every object) and the list's, under the names
// "<reversed group>.<version>.<Kind>" and "...<Kind>List". v3 publishes the schema as it is
// (custom_resource.cc); only v2 needs this.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace apiextensions {

struct CustomResourceNames {
  std::string group;
  std::string version;
  std::string kind;
  std::string list_kind;
  std::string plural;
};

// The two definitions, by name, with "#/definitions/" references. `schema` is the version's
// openAPIV3Schema (null when it has none). Without a schema, or with
// x-kubernetes-preserve-unknown-fields at its root, the kind is a bare
// {"type": "object", "x-kubernetes-group-version-kind": [...]}: kubectl then validates
// nothing of it, as upstream intends.
nlohmann::json OpenAPIV2Definitions(const nlohmann::json& schema, const CustomResourceNames& names);

// ToStructuralOpenAPIV2 on a structural schema node and everything under it: only what a
// structural schema holds is kept (no default, example, externalDocs or $ref); junctors
// (allOf, anyOf, oneOf, not) are dropped; a nullable node loses its type, items and
// properties and leaves its parent's required; a node preserving unknown fields loses its
// items, properties and `type: object`; an array without items loses its type.
nlohmann::json ToStructuralOpenAPIV2(const nlohmann::json& schema);

}  // namespace apiextensions
