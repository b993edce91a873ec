#pragma once
// The continue token of a paginated list, in upstream's format: base64url (no padding)
// of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key after the list prefix>"}.
// Tokens from upstream kube-apiserver and from this server are interchangeable.

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include "pkg/genericserver/storage/errors.h"

namespace storage {

struct ContinuePosition {
  std::string start_key;  // full key to read from
  int64_t revision = 0;
};

std::string EncodeContinue(std::string_view next_key, std::string_view key_prefix,
                           int64_t revision);
// Fails kInvalid ("continue key is not valid: ...") for anything malformed, including a
// start key that climbs out of the prefix.
std::expected<ContinuePosition, StorageError> DecodeContinue(std::string_view token,
                                                             std::string_view key_prefix);

}  // namespace storage
