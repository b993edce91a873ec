#pragma once
// The Go types of built-in API fields whose type has a name of its own, which the OpenAPI
// schemas do not carry: PodSpec.restartPolicy is a v1.RestartPolicy, not a string;
// ResourceRequirements.limits a v1.ResourceList, not a map[string]resource.Quantity. Used by
// CheckTypes (typecheck.h) to name types as upstream's decoding errors do.

#include <string_view>

namespace apimachinery::schema {

// As reflect.Type.String() prints them: the field's type, its element's (array item or map
// value) and its element's element. An empty level means "as the schema says".
struct GoFieldType {
  std::string_view type;
  std::string_view elem;
  std::string_view elem_elem;
  // For a struct field whose Go struct is not named as its schema (PersistentVolumeClaimSpec's
  // resources is a VolumeResourceRequirements, described by ResourceRequirements): the Go
  // name, as decoding errors inside it name their struct.
  std::string_view go_struct = {};
};

// The named Go type of a property of a schema ("io.k8s.api.core.v1.PodSpec",
// "restartPolicy"), or nullptr when the schema's own types name it right.
const GoFieldType* NamedGoFieldType(std::string_view schema, std::string_view property);

// Whether some field described by this schema has a Go struct of another name (see
// GoFieldType::go_struct). Cheap: it lets the walk skip the table for every other struct.
bool HasRenamedStruct(std::string_view schema);

}  // namespace apimachinery::schema
