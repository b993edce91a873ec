#pragma once
// A served version of a CustomResourceDefinition as a ResourceSpec: the names the CRD's
// status accepted, its scope, the version's schema (validation, pruning, defaulting, CEL
// rules), status and scale subresources, and its printer columns. Everything the generic
// Store, the handlers, discovery and OpenAPI need about a custom resource comes from here.

#include <expected>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace apiextensions {

// The spec of `version` (a name in crd.spec.versions); an error when the CRD cannot be
// served (no such version, no accepted kind).
std::expected<registry::ResourceSpecPtr, std::string> CustomResourceSpec(
    const nlohmann::json& crd, const std::string& version);

// The version of crd.spec.versions marked as storage ("" when none is).
std::string StorageVersion(const nlohmann::json& crd);

// Discovery's storageVersionHash: the first 8 bytes of SHA-256 of "group/version/kind", in
// base64, as upstream computes it.
std::string StorageVersionHash(const std::string& group, const std::string& version,
                               const std::string& kind);

// "<group>/<version> <Kind> is deprecated; use <group>/<newest served version> <Kind>", as
// upstream warns for a deprecated version without its own deprecationWarning.
std::string DefaultDeprecationWarning(const nlohmann::json& crd, const std::string& version,
                                      const std::string& kind);

// Whether some schema node of a structural schema (its properties, items, ... at any
// depth) has `keyword` ("default", "x-kubernetes-validations").
bool SchemaUses(const nlohmann::json& schema, std::string_view keyword);

}  // namespace apiextensions
