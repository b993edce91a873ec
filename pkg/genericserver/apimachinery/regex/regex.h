#pragma once
// Regular expressions in Go's regexp (RE2) syntax: what upstream compiles with regexp.Compile
// for a CRD schema's "pattern" (kube-openapi validate.Pattern), the string formats (strfmt)
// and CEL's matches()/find()/findAll() (cel-go uses RE2 with Go's syntax).
//
// Matching simulates the automaton (Thompson's construction, run as a Pike VM) over the UTF-8
// runes of the text: time is linear in the text times the program size, memory is bounded by
// the program size, and nothing recurses on the text, so long inputs and pathological patterns
// cannot exhaust the stack. Match positions are Go's leftmost-first ones (Perl's preference:
// alternatives left to right, greedy repetitions longest first, lazy ones shortest first).
//
// The syntax is Go's: (?flags) with i, m, s, U; (?:...), (?P<name>...), (?<name>...); * + ?
// {n} {n,} {n,m} and their lazy forms (counts at most 1000, nested counts multiplying to at
// most 1000); . ^ $ \A \z \b \B; \d \s \w (ASCII, as Go) and their negations; [...] with
// ranges, negation, [:alpha:]-style classes and escapes; \pN, \p{Name}, \PN, \p{^Name};
// \Q...\E; \x41, \x{263a}, octal \123; \a \f \t \n \r \v. Backreferences and lookaround are
// errors, as in Go, and error texts are Go's ("error parsing regexp: missing closing ): `(a`").
//
// \p{...} knows Go's general categories and scripts, and (?i) folds as Go's SimpleFold, from
// the Unicode 15.0.0 tables of Go 1.21 and later (unicode_tables.cc, generated). Deviations:
// groups may nest 1000 deep (Go bounds the height of its parse tree by 1000) and programs are
// limited to 200000 instructions ("expression too large"; Go allows about 3.3 million).

#include <cstddef>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace apimachinery::regex {

class Regex {
 public:
  // Compiles `pattern`; the error is Go's regexp.Compile error text.
  static std::expected<std::shared_ptr<const Regex>, std::string> Compile(std::string_view pattern);
  // Compile with a process-wide cache of recent patterns (schemas and rules repeat theirs on
  // every request). Thread-safe.
  static std::expected<std::shared_ptr<const Regex>, std::string> CompileCached(
      std::string_view pattern);

  // Go's MatchString: whether the text contains a match anywhere.
  bool MatchString(std::string_view text) const;

  // Go's FindStringIndex on text[from:] with text[:from] as context for ^, \b and the like
  // (as FindAllStringIndex searches on): the leftmost-first match's [start, end) byte offsets.
  struct Match {
    size_t start;
    size_t end;
  };
  std::optional<Match> Find(std::string_view text, size_t from = 0) const;

  // The compiled program (compiler.cc builds it, matcher.cc runs it).
  enum class Op : uint8_t { kRange, kSplit, kJmp, kAssert, kMatch };
  struct Inst {
    Op op = Op::kJmp;
    uint32_t out = 0;
    uint32_t out1 = 0;  // kSplit's second (lower-priority) branch
    uint32_t arg = 0;   // kRange: index into ranges; kAssert: the empty-width conditions required
  };
  using Ranges = std::vector<std::pair<char32_t, char32_t>>;  // sorted, disjoint, inclusive
  struct Program {
    std::vector<Inst> insts;
    std::vector<Ranges> ranges;
    uint32_t start = 0;
    bool anchored = false;  // every match starts at the beginning of the text
  };

 private:
  std::optional<Match> Run(std::string_view text, size_t from, bool earliest) const;

  Program prog_;
};

}  // namespace apimachinery::regex
