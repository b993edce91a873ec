// UTF-8 helpers shared by the libraries.

#include <string_view>

#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel::internal {

size_t CpLen(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

int64_t CpCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80                  ? 1
                 : (c >= 0xC2 && c < 0xE0) ? 2
                 : (c >= 0xE0 && c < 0xF0) ? 3
                 : (c >= 0xF0 && c < 0xF5) ? 4
                                           : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

}  // namespace apiextensions::cel::internal
