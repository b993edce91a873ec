#include "pkg/genericserver/endpoints/version_priority.h"

#include <algorithm>
#include <string_view>

namespace endpoints {
namespace {

struct VersionKey {
  int kind = 0;
  long long major = 0;
  long long minor = 0;
};

// Digits without a leading zero, as a number (saturated), or -1 when s is not that.
long long Number(std::string_view s) {
  if (s.empty() || s[0] == '0') return -1;
  long long n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    n = std::min(n * 10 + (c - '0'), 1LL << 50);
  }
  return n;
}

VersionKey Key(std::string_view v) {
  if (!v.starts_with('v')) return {};
  v.remove_prefix(1);
  const size_t letters = v.find_first_not_of("0123456789");
  VersionKey k;
  k.major = Number(v.substr(0, letters));
  if (k.major < 0) return {};
  if (letters == std::string_view::npos) {
    k.kind = 3;
    return k;
  }
  std::string_view rest = v.substr(letters);
  for (auto [word, kind] :
       {std::pair{std::string_view("alpha"), 1}, {std::string_view("beta"), 2}}) {
    if (rest.starts_with(word)) {
      k.minor = Number(rest.substr(word.size()));
      if (k.minor < 0) return {};
      k.kind = kind;
      return k;
    }
  }
  return {};
}

}  // namespace

bool VersionPriorityLess(const std::string& a, const std::string& b) {
  const VersionKey ka = Key(a), kb = Key(b);
  if (ka.kind != kb.kind) return ka.kind > kb.kind;
  if (ka.kind == 0) return a < b;
  if (ka.major != kb.major) return ka.major > kb.major;
  return ka.minor > kb.minor;
}

}  // namespace endpoints
