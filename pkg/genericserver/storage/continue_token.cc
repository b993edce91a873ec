#include "pkg/genericserver/storage/continue_token.h"

#include <nlohmann/json.hpp>

#include "pkg/util/base64.h"

namespace storage {
namespace {
StorageError Invalid(std::string why) {
  return {ErrorCode::kInvalid, "", "continue key is not valid: " + why, 0, nullptr};
}
}  // namespace

std::string EncodeContinue(std::string_view next_key, std::string_view key_prefix,
                           int64_t revision) {
  std::string_view start = next_key;
  if (start.starts_with(key_prefix)) start.remove_prefix(key_prefix.size());
  nlohmann::ordered_json j = {
      {"v", "meta.k8s.io/v1"}, {"rv", revision}, {"start", std::string(start)}};
  return util::Base64RawURLEncode(j.dump());
}

std::expected<ContinuePosition, StorageError> DecodeContinue(std::string_view token,
                                                             std::string_view key_prefix) {
  auto raw = util::Base64Decode(token);
  if (!raw) return std::unexpected(Invalid("illegal base64 data"));
  auto j = nlohmann::json::parse(*raw, nullptr, false);
  if (!j.is_object()) return std::unexpected(Invalid("not a JSON object"));
  if (!j.contains("v") || j["v"] != "meta.k8s.io/v1") {
    return std::unexpected(Invalid("server does not recognize this encoded version"));
  }
  if (!j.contains("rv") || !j["rv"].is_number_integer() || j["rv"].get<int64_t>() <= 0) {
    return std::unexpected(
        Invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)"));
  }
  if (!j.contains("start") || !j["start"].is_string() || j["start"].get<std::string>().empty()) {
    return std::unexpected(Invalid("encoded start key is empty"));
  }
  std::string start = j["start"];
  // The key may not escape the prefix it continues.
  if (start.find("..") != std::string::npos || start.front() == '/') {
    return std::unexpected(Invalid("path traversal attempt detected"));
  }
  return ContinuePosition{std::string(key_prefix) + start, j["rv"].get<int64_t>()};
}

}  // namespace storage
