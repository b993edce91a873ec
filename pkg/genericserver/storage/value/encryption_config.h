#pragma once
// --encryption-provider-config: an apiserver.config.k8s.io/v1 EncryptionConfiguration,
// validated as upstream validates it, made into one transformer per configured resource.
// Immutable once loaded; any thread may ask it.

#include <expected>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "pkg/genericserver/storage/value/transformer.h"

namespace storage::value {

class EncryptionConfig {
 public:
  // The transformer for a group and resource ("" for the core group): the one listed by
  // name ("secrets", "deployments.apps"), else the group's ("*.apps", "*." for core),
  // else everyone's ("*.*"); nullptr when the configuration does not name the resource
  // (its values are stored as they are).
  TransformerPtr ForResource(std::string_view group, std::string_view resource) const;

  // Providers of one resource, concatenated over every entry that lists it, in order.
  std::map<std::pair<std::string, std::string>, TransformerPtr, std::less<>> overrides;
};

// Errors read as upstream's field errors ("resources[0].providers[0].aescbc.keys[0].secret:
// Invalid value: \"REDACTED\": secrets must be base64 encoded"), several in brackets.
std::expected<EncryptionConfig, std::string> ParseEncryptionConfig(std::string_view text);
std::expected<EncryptionConfig, std::string> LoadEncryptionConfig(const std::string& path);

}  // namespace storage::value
