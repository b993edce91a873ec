#pragma once
// A PatchSchema read from OpenAPI v3 component schemas, as served at /openapi/v3/<gv>:
// properties, `$ref`s ("#/components/schemas/io.k8s.api.core.v1.PodSpec"; v2's
// "#/definitions/..." too), single-`allOf` wrappers, additionalProperties (maps), and the
// x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key, x-kubernetes-list-type and
// x-kubernetes-list-map-keys extensions, which upstream generates from the same Go tags
// its strategic merge patch reads.
//
// Types with neither properties nor additionalProperties (RawExtension, IntOrString, types
// marked x-kubernetes-preserve-unknown-fields, `$ref`s to undefined schemas) are free-form:
// every field exists and behaves as under NoPatchSchema. (Upstream's Go types fail for
// RawExtension; being lenient there cannot change a result that upstream produces.)

#include <expected>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/patch/patch_schema.h"

namespace apimachinery::patch {

// The schema of `root_schema_name` (e.g. "io.k8s.api.apps.v1.Deployment"). `components` is a
// whole OpenAPI document, its "components" object, or the "schemas" map itself (a v2
// document's "definitions" too); it is copied. Fails when the root schema is not defined.
std::expected<std::shared_ptr<const PatchSchema>, std::string> NewOpenApiPatchSchema(
    const nlohmann::json& components, std::string root_schema_name);

// The same without the copy: the schema keeps `components` alive.
std::expected<std::shared_ptr<const PatchSchema>, std::string> NewOpenApiPatchSchema(
    std::shared_ptr<const nlohmann::json> components, std::string root_schema_name);

}  // namespace apimachinery::patch
