#pragma once
// The regexp compiler: a syntax tree to a Thompson program whose kSplit instructions prefer
// their first branch, so that the matcher finds Go's leftmost-first matches.

#include <expected>
#include <string>
#include <string_view>

#include "pkg/genericserver/apimachinery/regex/parser.h"
#include "pkg/genericserver/apimachinery/regex/regex.h"

namespace apimachinery::regex::internal {

// Programs are limited to this many instructions ("expression too large").
inline constexpr size_t kMaxProgram = 200000;

// Compiles the tree of `pattern` into `program`; the error is Go's for too large an expression.
std::expected<void, std::string> CompileProgram(const Node& root, std::string_view pattern,
                                                Regex::Program& program);

}  // namespace apimachinery::regex::internal
