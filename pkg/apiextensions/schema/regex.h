#pragma once
// Regular expressions in Go's regexp (RE2) syntax, as upstream compiles a schema's "pattern"
// (kube-openapi validate.Pattern uses regexp.Compile and MatchString) and the string formats'
// expressions (strfmt).
//
// Matching simulates the automaton (Thompson's construction) over the UTF-8 runes of the text:
// time is linear in the text times the program size, memory is bounded by the program size,
// and nothing recurses on the text, so long inputs and pathological patterns cannot exhaust the
// stack. The syntax is Go's: (?flags) with i, m, s, U; (?:...), (?P<name>...), (?<name>...);
// * + ? {n} {n,} {n,m} (lazy forms too; counts at most 1000); . ^ $ \A \z \b \B; \d \s \w
// (ASCII, as Go) and their negations; [...] with ranges, negation, [:alpha:]-style classes and
// escapes; \pN, \p{Name}, \PN; \Q...\E; \x41, \x{263a}, octal \123; \a \f \t \n \r \v.
// Backreferences and lookaround are errors, as in Go.
//
// Approximations (documented deviations): case folding covers ASCII, Latin-1, Greek, Cyrillic
// and Go's special folds of k/K/U+212A and s/S/U+017F; \p{...} knows the general categories
// (L, Lu, Ll, Lt, Lm, Lo, M, Mn, N, Nd, Nl, No, P, S, Sm, Sc, Sk, So, Z, Zs, C, Cc, Cf, Co,
// Cs), "Any" and the scripts Latin, Greek, Cyrillic, Han, Hiragana, Katakana, Hangul, Arabic,
// Hebrew and Thai with tables that are exact for ASCII and Latin-1 and close elsewhere; groups
// may nest 200 deep (Go: 1000) and programs are limited to 200000 instructions ("expression too
// large"), so that compiling cannot exhaust the stack or memory. Error texts follow Go's
// ("error parsing regexp: missing closing ): `(a`").

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace apiextensions::schema {

class Regex {
 public:
  // Compiles `pattern`; the error is Go's regexp.Compile error text.
  static std::expected<std::shared_ptr<const Regex>, std::string> Compile(std::string_view pattern);
  // Compile with a process-wide cache of recent patterns (schemas repeat theirs on every
  // request). Thread-safe.
  static std::expected<std::shared_ptr<const Regex>, std::string> CompileCached(
      std::string_view pattern);

  // Go's MatchString: whether the text contains a match anywhere.
  bool MatchString(std::string_view text) const;

  // Compiled form (public for the implementation's helpers).
  enum class Op : uint8_t { kRange, kSplit, kJmp, kAssert, kMatch };
  struct Inst {
    Op op = Op::kJmp;
    uint32_t out = 0;
    uint32_t out1 = 0;    // kSplit's second branch
    uint32_t ranges = 0;  // kRange: index into ranges_
    uint32_t assert = 0;  // kAssert: the empty-width conditions required
  };
  using Ranges = std::vector<std::pair<char32_t, char32_t>>;  // sorted, disjoint, inclusive

  std::vector<Inst> program_;
  std::vector<Ranges> ranges_;
  uint32_t start_ = 0;
};

}  // namespace apiextensions::schema
