#pragma once
#include <string>
#include <string_view>

namespace util {
// Standard alphabet with padding (RFC 4648 section 4).
std::string Base64Encode(std::string_view data);
}  // namespace util
