#include "pkg/genericserver/apimachinery/patch/patch_error.h"

namespace apimachinery::patch {

Status PatchErrorToStatus(const PatchError& error) {
  switch (error.kind) {
    case PatchErrorKind::kBadRequest:
      return NewBadRequest(error.message);
    case PatchErrorKind::kInvalid: {
      // NewGenericServerResponse(422, "", GroupResource{}, "", message, 0, false): the
      // generic text replaces the message, and the details are present but empty.
      Status s;
      s.code = 422;
      s.reason = "Invalid";
      s.message = "the server rejected our request due to an error in our request";
      s.details = StatusDetails{};
      return s;
    }
    case PatchErrorKind::kTooLarge:
      return NewRequestEntityTooLarge(error.message);
    case PatchErrorKind::kInternal:
      break;
  }
  // responsewriters.ErrorToAPIStatus of an error that is not a Status: 500, no reason.
  Status s;
  s.code = 500;
  s.message = error.message;
  return s;
}

}  // namespace apimachinery::patch
