#pragma once
// Character classes of the regexp engine: range sets, case folding and the named classes
// (Unicode \p{...}, POSIX [:alpha:], Perl \d \s \w). See regex.h for the approximations.

#include <optional>
#include <string_view>

#include "pkg/genericserver/apimachinery/regex/regex.h"

namespace apimachinery::regex::internal {

using Ranges = Regex::Ranges;

inline constexpr char32_t kMaxRune = 0x10FFFF;

// Sorts and merges overlapping or adjacent ranges.
void Normalize(Ranges& r);
// The complement within [0, kMaxRune].
Ranges Negate(const Ranges& in);
// Appends [lo, hi] and the runes its runes fold to (simple case folding).
void AddFolded(Ranges& r, char32_t lo, char32_t hi);
// The ranges with their case folds added.
Ranges Folded(const Ranges& in);
// Whether c lies in the normalized ranges.
bool InRanges(const Ranges& r, char32_t c);
bool IsWordChar(char32_t c);  // [0-9A-Za-z_], as Go's \b

// \p{name}: the ranges, or nullopt for a name Go does not know.
std::optional<Ranges> UnicodeClass(std::string_view name);
// [:name:] (name without the brackets and colons): the ranges, or nullopt.
std::optional<Ranges> PosixClass(std::string_view name);
// \d, \s, \w (the lower-case letter): the ranges.
Ranges PerlClass(char c);

}  // namespace apimachinery::regex::internal
