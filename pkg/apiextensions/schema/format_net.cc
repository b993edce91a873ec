// IP addresses, CIDRs and MAC addresses, parsed as Go's net package (and k8s.io/utils/net's
// sloppy fork of Go 1.16's parser) parse them.

#include <cstdint>

#include "pkg/apiextensions/schema/format_checks.h"

namespace apiextensions::schema::formats {

namespace {

constexpr int kBig = 0xFFFFFF;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go 1.16's dtoi: decimal digits at the start of s; false when none or too large.
bool Dtoi(std::string_view s, int& n, size_t& used) {
  n = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    n = n * 10 + (s[i] - '0');
    if (n >= kBig) return false;
  }
  if (i == 0) return false;
  used = i;
  return true;
}

// Go 1.16's parseIPv4 (leading zeros allowed).
bool SloppyIPv4(std::string_view s) {
  for (int i = 0; i < 4; ++i) {
    if (s.empty()) return false;
    if (i > 0) {
      if (s[0] != '.') return false;
      s.remove_prefix(1);
    }
    int n = 0;
    size_t used = 0;
    if (!Dtoi(s, n, used) || n > 0xFF) return false;
    s.remove_prefix(used);
  }
  return s.empty();
}

// netip's parseIPv4: exactly four decimal fields, no leading zeros, each at most 255.
bool StrictIPv4(std::string_view s) {
  int val = 0, pos = 0, digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits == 1 && val == 0) return false;
      val = val * 10 + (c - '0');
      ++digits;
      if (val > 255) return false;
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.') return false;
      if (pos == 3) return false;
      ++pos;
      val = 0;
      digits = 0;
    } else {
      return false;
    }
  }
  return pos == 3;
}

// IPv6 as netip (strict) or Go 1.16 (sloppy) parse it; zones are not accepted.
bool IPv6(std::string_view s, bool sloppy) {
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return true;
  }
  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      const int h = HexValue(s[off]);
      if (h < 0) break;
      acc = (acc << 4) + static_cast<uint32_t>(h);
      if (sloppy) {
        if (acc >= kBig) return false;
      } else {
        if (off > 3 || acc > 0xFFFF) return false;
      }
    }
    if (off == 0) return false;
    if (sloppy && acc > 0xFFFF) return false;
    if (off < s.size() && s[off] == '.') {
      if (ellipsis < 0 && i != 12) return false;
      if (i + 4 > 16) return false;
      if (!(sloppy ? SloppyIPv4(s) : StrictIPv4(s))) return false;
      s = {};
      i += 4;
      break;
    }
    i += 2;
    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':' || s.size() == 1) return false;
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return false;
  if (i < 16) return ellipsis >= 0;
  return ellipsis < 0;
}

// Go's xtoi2: exactly two hex digits, followed by the separator e (or the end).
bool Xtoi2(std::string_view s, char e) {
  if (s.size() > 2 && s[2] != e) return false;
  return s.size() >= 2 && HexValue(s[0]) >= 0 && HexValue(s[1]) >= 0;
}

}  // namespace

bool ParseIP(std::string_view s) {
  for (char c : s) {
    if (c == '.') return StrictIPv4(s);
    if (c == ':') return IPv6(s, false);
    if (c == '%') return false;
  }
  return false;
}

bool ParseIPSloppy(std::string_view s) {
  for (char c : s) {
    if (c == '.') return SloppyIPv4(s);
    if (c == ':') return IPv6(s, true);
  }
  return false;
}

bool ParseCIDRSloppy(std::string_view s) {
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view addr = s.substr(0, slash), mask = s.substr(slash + 1);
  int bits = 32;
  if (!SloppyIPv4(addr)) {
    if (!IPv6(addr, true)) return false;
    bits = 128;
  }
  int n = 0;
  size_t used = 0;
  if (!Dtoi(mask, n, used) || used != mask.size()) return false;
  return n >= 0 && n <= bits;
}

bool ParseMAC(std::string_view s) {
  if (s.size() < 14) return false;
  if (s[2] == ':' || s[2] == '-') {
    if ((s.size() + 1) % 3 != 0) return false;
    const size_t n = (s.size() + 1) / 3;
    if (n != 6 && n != 8 && n != 20) return false;
    for (size_t i = 0, x = 0; i < n; ++i, x += 3) {
      if (!Xtoi2(s.substr(x), s[2])) return false;
    }
    return true;
  }
  if (s[4] == '.') {
    if ((s.size() + 1) % 5 != 0) return false;
    const size_t n = 2 * (s.size() + 1) / 5;
    if (n != 6 && n != 8 && n != 20) return false;
    for (size_t i = 0, x = 0; i < n; i += 2, x += 5) {
      if (!Xtoi2(s.substr(x, 2), 0)) return false;
      if (!Xtoi2(s.substr(x + 2), s[4])) return false;
    }
    return true;
  }
  return false;
}

}  // namespace apiextensions::schema::formats
