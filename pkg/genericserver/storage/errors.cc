#include "pkg/genericserver/storage/errors.h"

#include "pkg/genericserver/apimachinery/status.h"

namespace storage {

StorageError NotFoundError(std::string key) {
  return {ErrorCode::kNotFound, key, "key not found: " + key, 0, nullptr};
}

StorageError AlreadyExistsError(std::string key) {
  return {ErrorCode::kAlreadyExists, key, "key exists: " + key, 0, nullptr};
}

StorageError ConflictError(std::string key, std::string message) {
  return {ErrorCode::kConflict, std::move(key), std::move(message), 0, nullptr};
}

StorageError TooOldError(int64_t requested, int64_t oldest) {
  return {ErrorCode::kTooOldResourceVersion, "",
          "too old resource version: " + std::to_string(requested) + " (" + std::to_string(oldest) +
              ")",
          oldest, nullptr};
}

StorageError InternalError(std::string message) {
  return {ErrorCode::kInternal, "", std::move(message), 0, nullptr};
}

StorageError UnreachableError(std::string message) {
  return {ErrorCode::kUnreachable, "", std::move(message), 0, nullptr};
}

StorageError CallerError(apimachinery::Status status) {
  StorageError e{ErrorCode::kCallerError, "", status.message, 0, nullptr};
  e.status = std::make_shared<const apimachinery::Status>(std::move(status));
  return e;
}

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotFound:
      return "NotFound";
    case ErrorCode::kAlreadyExists:
      return "AlreadyExists";
    case ErrorCode::kConflict:
      return "Conflict";
    case ErrorCode::kInvalidObj:
      return "InvalidObj";
    case ErrorCode::kTooOldResourceVersion:
      return "TooOldResourceVersion";
    case ErrorCode::kTooLargeResourceVersion:
      return "TooLargeResourceVersion";
    case ErrorCode::kInvalid:
      return "Invalid";
    case ErrorCode::kTooLarge:
      return "TooLarge";
    case ErrorCode::kUnreachable:
      return "Unreachable";
    case ErrorCode::kInternal:
      return "Internal";
    case ErrorCode::kCallerError:
      return "CallerError";
  }
  return "Unknown";
}

}  // namespace storage
