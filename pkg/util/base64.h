#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace util {
// Standard alphabet with padding (RFC 4648 section 4).
std::string Base64Encode(std::string_view data);
// URL alphabet (- and _), no padding: Go's base64.RawURLEncoding.
std::string Base64RawURLEncode(std::string_view data);
// Decodes either alphabet, with or without padding; std::nullopt on invalid input.
std::optional<std::string> Base64Decode(std::string_view data);
}  // namespace util
