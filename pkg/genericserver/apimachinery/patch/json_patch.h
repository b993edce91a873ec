#pragma once
// JSON patch (RFC 6902, application/json-patch+json) as upstream's apiserver applies it:
// the decoding checks of handlers/patch.go and the semantics of gopkg.in/evanphx/json-patch.v4,
// which upstream uses. Where v4 departs from the RFC, we follow v4 (a client sees the same
// result as from a real cluster):
//  - "replace" of a missing object member adds it; "test" of a missing member passes when
//    the value is null; "copy" from a missing member copies null; an operation without
//    "value" uses null.
//  - "add" and "remove" at the whole document ("") fail; "replace" at "" takes an object or
//    array value and ignores anything else.
//  - Array indices may be negative (-1 is the last element; for "add", -1 appends) and may
//    have a sign or leading zeros (Go's strconv.Atoi); "-" appends and is valid only for "add".
//  - A member whose value is null cannot be traversed and reads as missing.
// Values are compared as JSON values (numbers numerically) by "test".

#include <expected>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/patch/patch_error.h"

namespace apimachinery::patch {

// Upstream's limit on the operations of one JSON patch.
inline constexpr size_t kMaxJsonPatchOperations = 10000;

// Applies the JSON patch `patch` (the decoded request body) to `document` (an object or an
// array) and returns the result; `document` is not modified. Errors, in upstream's order:
//  - kBadRequest when `patch` is not an array of objects whose "op", "path" and "from" are
//    strings (or null): "error decoding patch: json: cannot unmarshal object into Go value
//    of type []handlers.jsonPatchOp" and the like (the fieldValidation=Warn/Strict decoding,
//    Warn being the default);
//  - kTooLarge with more than kMaxJsonPatchOperations operations;
//  - kInvalid when an operation fails, with v4's message, e.g. "add operation does not apply:
//    doc is missing path: \"/a/b\": missing value" or "testing value /a failed: test failed".
//    The client sees only the generic 422 text (PatchErrorToStatus).
std::expected<nlohmann::json, PatchError> ApplyJsonPatch(const nlohmann::json& document,
                                                         const nlohmann::json& patch);

}  // namespace apimachinery::patch
