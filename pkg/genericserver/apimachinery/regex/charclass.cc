#include "pkg/genericserver/apimachinery/regex/charclass.h"

#include <algorithm>
#include <map>

#include "pkg/genericserver/apimachinery/regex/unicode_tables.h"

namespace apimachinery::regex::internal {

void Normalize(Ranges& r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (const auto& [lo, hi] : r) {
    if (!out.empty() && lo <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, hi);
    } else {
      out.emplace_back(lo, hi);
    }
  }
  r = std::move(out);
}

Ranges Negate(const Ranges& in) {
  Ranges r = in;
  Normalize(r);
  Ranges out;
  char32_t next = 0;
  for (const auto& [lo, hi] : r) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxRune) out.emplace_back(next, kMaxRune);
  return out;
}

bool InRanges(const Ranges& r, char32_t c) {
  auto it = std::upper_bound(r.begin(), r.end(), c,
                             [](char32_t value, const auto& range) { return value < range.first; });
  if (it == r.begin()) return false;
  --it;
  return c >= it->first && c <= it->second;
}

bool IsWordChar(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

void AddFolded(Ranges& r, char32_t lo, char32_t hi) {
  r.emplace_back(lo, hi);
  char32_t first = 0;
  for (size_t i = 0; i + 3 < kUnicodeFolds.size(); i += 4) {
    first += static_cast<char32_t>(kUnicodeFolds[i]);
    if (first > hi) break;
    const char32_t last = first + static_cast<char32_t>(kUnicodeFolds[i + 1]);
    const auto stride = static_cast<char32_t>(kUnicodeFolds[i + 2]);
    const auto delta = static_cast<char32_t>(kUnicodeFolds[i + 3]);
    if (last < lo) continue;
    char32_t a = std::max(lo, first);
    const char32_t b = std::min(hi, last);
    if (stride == 1) {
      r.emplace_back(a + delta, b + delta);
      continue;
    }
    a += (stride - (a - first) % stride) % stride;
    for (char32_t c = a; c <= b; c += stride) r.emplace_back(c + delta, c + delta);
  }
}

Ranges Folded(const Ranges& in) {
  Ranges out;
  for (const auto& [lo, hi] : in) AddFolded(out, lo, hi);
  return out;
}

std::optional<Ranges> UnicodeClass(std::string_view name) {
  if (name == "Any") return Ranges{{0, kMaxRune}};
  // A one-letter category is the union of its two-letter ones.
  const bool major = name.size() == 1 && std::string_view("CLMNPSZ").contains(name[0]);
  Ranges r;
  for (const UnicodeTable& table : kUnicodeTables) {
    if (major ? table.name.size() == 2 && table.name[0] == name[0] && table.name[1] >= 'a'
              : table.name == name) {
      char32_t next = 0;
      for (uint32_t i = table.begin; i + 1 < table.end; i += 2) {
        const char32_t lo = next + kUnicodeRanges[i];
        next = lo + kUnicodeRanges[i + 1] + 1;
        r.emplace_back(lo, next - 1);
      }
    }
  }
  if (r.empty()) return std::nullopt;
  Normalize(r);
  return r;
}

// POSIX classes ([:alpha:]) as Go defines them (ASCII only).
std::optional<Ranges> PosixClass(std::string_view name) {
  static const std::map<std::string_view, Ranges> kClasses = {
      {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
      {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
      {"ascii", {{0, 0x7F}}},
      {"blank", {{'\t', '\t'}, {' ', ' '}}},
      {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
      {"digit", {{'0', '9'}}},
      {"graph", {{'!', '~'}}},
      {"lower", {{'a', 'z'}}},
      {"print", {{' ', '~'}}},
      {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
      {"space", {{'\t', '\r'}, {' ', ' '}}},
      {"upper", {{'A', 'Z'}}},
      {"word", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}}},
      {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
  };
  auto it = kClasses.find(name);
  if (it == kClasses.end()) return std::nullopt;
  return it->second;
}

Ranges PerlClass(char c) {
  switch (c) {
    case 'd':
      return {{'0', '9'}};
    case 's':
      return {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};
    default:
      return {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
  }
}

}  // namespace apimachinery::regex::internal
