#pragma once
// Upstream's names in OpenAPI documents: operation ids and tags derived from a route's
// operation name and path, CRD definition names, JSON pointer escaping.

#include <string>
#include <string_view>

namespace endpoints::openapi {

// Keeps letters, '_' and (after the first character) digits; a dropped character makes the
// next kept one upper-case. "rbac.authorization" -> "rbacAuthorization".
std::string ToValidOperationID(std::string_view s, bool capitalize_first);

struct OperationName {
  std::string id;   // "readCoreV1NamespacedConfigMap"
  std::string tag;  // "core_v1"
};

// The operation id and tag of a route named `operation` (a verb then the rest:
// "readNamespacedConfigMap", "deletecollectionNamespacedConfigMap") at `path`: the group
// and version of the path go after the verb ("/api" is the group "core").
OperationName NameOperation(std::string_view operation, std::string_view path);

// Upper-cases the first letter of every word, as Go's strings.Title: "status" -> "Status".
std::string Title(std::string_view s);

// A definition name for a kind that has no schema of its own, as upstream names CRD kinds:
// ("example.com", "v1", "Widget") -> "com.example.v1.Widget".
std::string DefinitionName(std::string_view group, std::string_view version, std::string_view kind);

// "~" -> "~0", "/" -> "~1" (RFC 6901), for "#/components/schemas/<name>".
std::string EscapeJsonPointer(std::string_view s);

}  // namespace endpoints::openapi
