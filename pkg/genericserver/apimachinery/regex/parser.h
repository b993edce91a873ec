#pragma once
// The regexp parser: Go's syntax (regexp/syntax with the Perl flags regexp.Compile uses) to a
// syntax tree, with Go's error texts. It keeps its open groups on an explicit stack, as Go's
// does, so deep nesting costs no C++ stack.

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/genericserver/apimachinery/regex/regex.h"

namespace apimachinery::regex::internal {

// Empty-width conditions (kAssert nodes and instructions).
inline constexpr uint32_t kBeginLine = 1;
inline constexpr uint32_t kEndLine = 2;
inline constexpr uint32_t kBeginText = 4;
inline constexpr uint32_t kEndText = 8;
inline constexpr uint32_t kWordBoundary = 16;
inline constexpr uint32_t kNoWordBoundary = 32;

// Groups may nest this deep (Go limits the parse tree's height to 1000).
inline constexpr int kMaxDepth = 1000;

struct Node {
  enum class Kind : uint8_t { kEmpty, kClass, kAssert, kConcat, kAlternate, kRepeat };
  Kind kind = Kind::kEmpty;
  bool greedy = true;    // kRepeat
  bool counted = false;  // kRepeat written {n,m} (Go's OpRepeat) rather than * + ?
  uint32_t assert = 0;   // kAssert
  int min = 0, max = 0;  // kRepeat; max -1 for unbounded
  Regex::Ranges ranges;  // kClass, normalized
  std::vector<Node> children;
};

// Parses `pattern`; the error is Go's regexp.Compile error text.
std::expected<Node, std::string> Parse(std::string_view pattern);

}  // namespace apimachinery::regex::internal
