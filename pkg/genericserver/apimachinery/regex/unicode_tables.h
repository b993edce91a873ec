#pragma once
// The Unicode tables of Go's regexp (unicode_tables.cc, written by tools/gen_unicode_tables.py).

#include <cstdint>
#include <span>
#include <string_view>

namespace apimachinery::regex::internal {

// A general category (two letters) or a script: its ranges are kUnicodeRanges[begin, end),
// pairs of (first rune - the previous range's last rune - 1, last rune - first rune).
struct UnicodeTable {
  std::string_view name;
  uint32_t begin;
  uint32_t end;
};
extern const std::span<const UnicodeTable> kUnicodeTables;  // sorted by name
extern const std::span<const uint32_t> kUnicodeRanges;

// Simple case folding (Go's SimpleFold orbits), as quadruples (lo - the previous lo, hi - lo,
// stride, delta): each rune lo, lo + stride, ... up to hi folds to itself + delta.
extern const std::span<const int32_t> kUnicodeFolds;

}  // namespace apimachinery::regex::internal
