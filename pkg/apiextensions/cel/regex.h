#pragma once
// A small RE2-syntax regular expression engine for CEL's matches()/find()/findAll(): parsed to
// a Thompson NFA and run as a Pike VM, so matching is linear in the input (no backtracking,
// no recursion on the input), as RE2 promises and as a server evaluating user rules needs.
//
// Supported: literals, ., [...] classes with ranges/negation/POSIX [:name:] classes, \d \w \s
// (and negations), \pL/\pN-style classes (approximated: any non-ASCII code point counts as a
// letter), escapes (\n \t \x41 \x{263a} ...), groups ( ), (?: ), (?P<n> ), (?<n> ), flags
// (?i) (?m) (?s) (?U) and (?flags:re), alternation, * + ? {n} {n,} {n,m} with lazy forms,
// anchors ^ $ \A \z \b \B. Errors follow Go's regexp messages
// ("error parsing regexp: missing closing ): `(a`").

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace apiextensions::cel {

class Regex {
 public:
  // Compiles pattern; on failure returns nullptr and sets *error.
  static std::shared_ptr<const Regex> Compile(std::string_view pattern, std::string* error);

  // Leftmost-first match at or after byte offset `from`: [start, end) byte offsets.
  struct Match {
    size_t start;
    size_t end;
  };
  std::optional<Match> Find(std::string_view text, size_t from = 0) const;

  struct Program;
  ~Regex();

 private:
  std::unique_ptr<Program> prog_;
};

}  // namespace apiextensions::cel
