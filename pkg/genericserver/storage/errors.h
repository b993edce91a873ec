#pragma once
// The storage layer's own error vocabulary. The registry Store translates these into
// API Status errors, in one place; nothing below it knows about HTTP.

#include <cstdint>
#include <memory>
#include <string>

namespace apimachinery {
struct Status;
}

namespace storage {

enum class ErrorCode {
  kNotFound,                 // no object at the key
  kAlreadyExists,            // create of a key that exists
  kConflict,                 // resourceVersion precondition or compare-and-swap lost
  kInvalidObj,               // uid precondition failed
  kTooOldResourceVersion,    // the revision was compacted away (410 Expired)
  kTooLargeResourceVersion,  // the revision is in the future (the cache did not reach it)
  kInvalid,                  // malformed continue token or resourceVersion (400)
  kTooLarge,                 // the object is over the size limit (413)
  kUnreachable,              // the backend does not answer (503)
  kInternal,                 // anything else (500)
  kCallerError,              // an error from a caller-supplied function, passed through
};

struct StorageError {
  ErrorCode code = ErrorCode::kInternal;
  std::string key;
  std::string message;
  // Revision context: the current revision for kTooLargeResourceVersion, the oldest
  // still available for kTooOldResourceVersion, the requested one otherwise.
  int64_t revision = 0;
  // For kCallerError: what the caller's function returned, untouched.
  std::shared_ptr<const apimachinery::Status> status;
};

StorageError NotFoundError(std::string key);
StorageError AlreadyExistsError(std::string key);
StorageError ConflictError(std::string key, std::string message);
StorageError TooOldError(int64_t requested, int64_t oldest);
StorageError InternalError(std::string message);
StorageError UnreachableError(std::string message);
StorageError CallerError(apimachinery::Status status);
const char* ErrorCodeName(ErrorCode code);

}  // namespace storage
