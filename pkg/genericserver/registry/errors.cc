#include "pkg/genericserver/registry/errors.h"

namespace registry {

using storage::ErrorCode;

apimachinery::Status ToStatus(const storage::StorageError& e,
                              const apimachinery::GroupResource& resource, std::string_view name) {
  switch (e.code) {
    case ErrorCode::kNotFound:
      return apimachinery::NewNotFound(resource, name);
    case ErrorCode::kAlreadyExists:
      return apimachinery::NewAlreadyExists(resource, name);
    case ErrorCode::kConflict:
      return apimachinery::NewConflict(
          resource, name,
          "the object has been modified; please apply your changes to the latest version and "
          "try again");
    case ErrorCode::kInvalidObj:  // a failed precondition, as upstream reports it
      return apimachinery::NewConflict(resource, name, e.message);
    case ErrorCode::kTooOldResourceVersion:
      return apimachinery::NewResourceExpired(e.message);
    case ErrorCode::kTooLargeResourceVersion: {
      // "Too large resource version: N, current: M" carries both numbers.
      int64_t requested = 0;
      const std::string prefix = "Too large resource version: ";
      if (e.message.starts_with(prefix)) requested = std::atoll(e.message.c_str() + prefix.size());
      return apimachinery::NewTooLargeResourceVersion(requested, e.revision);
    }
    case ErrorCode::kInvalid:
      return apimachinery::NewBadRequest(e.message);
    case ErrorCode::kTooLarge:
      return apimachinery::NewRequestEntityTooLarge(e.message);
    case ErrorCode::kUnreachable:
      return apimachinery::NewServiceUnavailable(e.message);
    case ErrorCode::kCallerError:
      if (e.status) return *e.status;
      return apimachinery::NewInternalError(e.message);
    case ErrorCode::kInternal:
      break;
  }
  return apimachinery::NewInternalError(e.message);
}

}  // namespace registry
