#pragma once
// The error every patch function returns, and the Status upstream's PATCH handler
// (k8s.io/apiserver/pkg/endpoints/handlers/patch.go) answers with for it.

#include <string>

#include "pkg/genericserver/apimachinery/status.h"

namespace apimachinery::patch {

// Which answer upstream gives to a failed patch.
enum class PatchErrorKind {
  // 400 BadRequest, message as is: a malformed patch document (a JSON patch that is not an
  // array of operations, a merge patch of `null`, a bad $retainKeys list, ...).
  kBadRequest,
  // 422 Invalid: a well-formed patch that does not apply (a failed JSON patch operation, a
  // list of lists). Upstream does NOT show the message to the client: it answers
  // "the server rejected our request due to an error in our request" (NewGenericServerResponse).
  kInvalid,
  // 500 with an empty reason and the message as is: upstream returns these strategic merge
  // patch errors (a missing merge key, an unknown $patch directive, ...) as plain Go errors,
  // which the handler turns into an unclassified 500 Status.
  kInternal,
  // 413 RequestEntityTooLarge: more than 10000 JSON patch operations.
  kTooLarge,
};

struct PatchError {
  PatchErrorKind kind = PatchErrorKind::kInternal;
  // Upstream's error text (evanphx/json-patch v4, strategicpatch, mergepatch).
  std::string message;
};

// The Status upstream answers with for `error`; see PatchErrorKind.
Status PatchErrorToStatus(const PatchError& error);

}  // namespace apimachinery::patch
