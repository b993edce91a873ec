#pragma once
// JSON merge patch (RFC 7386, application/merge-patch+json): null deletes a member, objects
// merge recursively, anything else replaces. Follows gopkg.in/evanphx/json-patch.v4's
// MergePatch, which upstream's apiserver uses: a value inserted where the target has no
// object to merge into also loses the null members of objects nested in it, arrays
// included (RFC 7386 keeps nulls inside arrays); the RFC's appendix A results are unchanged.

#include <expected>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/patch/patch_error.h"

namespace apimachinery::patch {

// RFC 7386 MergePatch(target, patch) for any JSON values: a non-object `patch` is the result.
nlohmann::json MergePatchValue(const nlohmann::json& target, const nlohmann::json& patch);

// The apiserver's merge patch of a stored object. Errors (kBadRequest), as upstream:
//  - a patch that is not an object: "error decoding patch: json: cannot unmarshal array into
//    Go value of type map[string]interface {}" (fieldValidation Warn/Strict decoding);
//  - a patch of null: "Invalid JSON Patch".
std::expected<nlohmann::json, PatchError> ApplyMergePatch(const nlohmann::json& original,
                                                          const nlohmann::json& patch);

}  // namespace apimachinery::patch
